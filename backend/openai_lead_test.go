package backend

import (
	"fmt"
	"testing"
)

// decodeAfter decodes next with a decoder that decoded prev before it, as
// the chunks of one stream are, and with a fresh decoder; it returns both
// outcomes, each the event and the error's text.
func decodeAfter(prev, next []byte) (shared, alone string) {
	var d decoder
	var ev event
	ev.reset()
	_ = decodeOpenAI(&d, prev, &ev)
	outcome := func(d *decoder) string {
		var ev event
		ev.reset()
		err := decodeOpenAI(d, next, &ev)
		return fmt.Sprintf("%#v %v", ev, err)
	}
	return outcome(&d), outcome(&decoder{})
}

// A chunk that begins with the fields its stream's last chunk led with is
// decoded from the comma after them, and comes out exactly as it would
// alone: the same event from a good chunk, the same error at the same
// byte from a bad one, whatever follows the shared bytes.
func TestChunksThatLeadAlikeDecodeAsAlone(t *testing.T) {
	const lead = `{"id":"cmpl-1","object":"text_completion","created":1732867200,"model":"m",`
	tests := []struct {
		name, prev, next string
		skips            bool // next takes up after the shared lead
	}{
		{"the next token", lead + `"choices":[{"index":0,"text":" a","finish_reason":null}]}`,
			lead + `"choices":[{"index":0,"text":" b","finish_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`, true},
		{"the finish", lead + `"choices":[{"index":0,"text":" a"}]}`,
			lead + `"choices":[{"index":0,"text":"","finish_reason":"length"}]}`, true},
		{"a usage-only chunk", lead + `"choices":[{"text":"a"}]}`, lead + `"choices":[],"usage":{"completion_tokens":9}}`, true},
		{"an error after the lead", lead + `"choices":[{"text":"a"}]}`, lead + `"error":{"message":"boom"}}`, true},
		{"a comma and then the end", lead + `"choices":[]}`, lead + `}`, true},
		{"nothing after the lead", lead + `"choices":[]}`, lead, true},
		{"a broken value after the lead", lead + `"choices":[]}`, lead + `"choices":[{"text":"a}]}`, true},
		{"trailing bytes", lead + `"choices":[]}`, lead + `"choices":[]} x`, true},
		{"a number that goes on", `{"created":12,"choices":[]}`, `{"created":123,"choices":[{"text":"a"}]}`, false},
		{"a longer string", `{"id":"a","choices":[]}`, `{"id":"ab","choices":[{"text":"a"}]}`, false},
		{"white space in the lead", `{ "id" : "a" , "choices":[]}`, `{ "id" : "a" , "choices":[{"text":"x"}]}`, true},
		{"an error object leads nothing", `{"object":"error","message":"boom","type":"BadRequestError","code":400}`,
			`{"object":"error","message":"other","type":"BadRequestError","code":400}`, false},
		{"the error shape after a silent lead", `{"id":"a","object":"error","message":"boom"}`, `{"id":"a","object":"error","message":"two"}`, true},
		{"choices first", `{"choices":[{"text":"a"}],"id":"x"}`, `{"choices":[{"text":"b"}],"id":"x"}`, false},
		{"a last field that is silent", `{"choices":[],"id":"x"}`, `{"choices":[{"text":"b"}],"id":"x"}`, false},
		{"a bad previous chunk", `{"id":"a",`, `{"id":"a","choices":[{"text":"b"}]}`, false},
		{"a different start", lead + `"choices":[]}`, `{"id":"cmpl-2","choices":[{"text":"b"}]}`, false},
		{"escapes in the lead", `{"i\u0064":"a\"b","choices":[]}`, `{"i\u0064":"a\"b","choices":[{"text":"b"}]}`, true},
		{"a nested value in the lead", `{"meta":{"a":[1,{"b":null}]},"choices":[]}`, `{"meta":{"a":[1,{"b":null}]},"choices":[{"text":"c"}]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shared, alone := decodeAfter([]byte(tt.prev), []byte(tt.next))
			if shared != alone {
				t.Errorf("after %s\n%s decodes to\n%s\nand alone to\n%s", tt.prev, tt.next, shared, alone)
			}
			var d decoder
			var ev event
			ev.reset()
			_ = decodeOpenAI(&d, []byte(tt.prev), &ev)
			if skips := len(d.lead) > 0 && len(tt.next) >= len(d.lead) && tt.next[:len(d.lead)] == string(d.lead); skips != tt.skips {
				t.Errorf("lead %q: next skips it %v, want %v", d.lead, skips, tt.skips)
			}
		})
	}
}

// Whatever two payloads a stream brings one after the other, the second
// decodes as it would alone.
func FuzzOpenAILead(f *testing.F) {
	chunk := func(text, finish string) string {
		return `{"id":"cmpl-8f3a","object":"text_completion","created":1732867200,"model":"m","choices":[{"index":0,"text":"` +
			text + `","logprobs":null,"finish_reason":` + finish + `}],"usage":{"prompt_tokens":8,"completion_tokens":1}}`
	}
	f.Add([]byte(chunk(" a", "null")), []byte(chunk(" b", `"length"`)))
	f.Add([]byte(`{"id":"a","created":1,"choices":[]}`), []byte(`{"id":"a","created":12,"choices":[]}`))
	f.Add([]byte(`{"object":"chat.completion.chunk","choices":[{"delta":{"content":"x"}}]}`), []byte(`{"object":"error","message":"m"}`))
	f.Add([]byte(`{"a":1,"b":2,"c":3}`), []byte(`{"a":1,"b":2,}`))
	f.Fuzz(func(t *testing.T, prev, next []byte) {
		if shared, alone := decodeAfter(prev, next); shared != alone {
			t.Fatalf("after %q\n%q decodes to\n%s\nand alone to\n%s", prev, next, shared, alone)
		}
	})
}
