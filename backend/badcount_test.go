package backend

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// badCountStream is one protocol's stream of three tokens, each inferred
// from its text, whose last event reports out output tokens and in prompt
// tokens, both written as the JSON given; outField and inField name the
// counts as Stats names them. tokenBeside says the event with the counts
// carries the last token too (TGI's).
type badCountStream struct {
	backend           string
	outField, inField string
	tokenBeside       bool
	body              func(out, in string) string
}

var badCountStreams = []badCountStream{
	{"openai", "usage.completion_tokens", "usage.prompt_tokens", false, func(out, in string) string {
		return `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"text":"b","finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"text":"c","finish_reason":"length"}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":` + in + `,"completion_tokens":` + out + `}}` + "\n\n" +
			"data: [DONE]\n\n"
	}},
	{"openai-chat", "usage.completion_tokens", "usage.prompt_tokens", false, func(out, in string) string {
		return `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"content":"c"},"finish_reason":"length"}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":` + in + `,"total_tokens":9,"completion_tokens":` + out + `}}` + "\n\n" +
			"data: [DONE]\n\n"
	}},
	{"openai-responses", "usage.output_tokens", "usage.input_tokens", false, func(out, in string) string {
		return respPreamble + respDelta(respTextDelta, "a") + respDelta(respTextDelta, "b") + respDelta(respTextDelta, "c") +
			respEvent("response.completed", `"response":{"id":"resp_1","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},`+
				`"usage":{"input_tokens":`+in+`,"output_tokens":`+out+`}}`)
	}},
	{"tgi", "details.generated_tokens", "details.input_length", true, func(out, in string) string {
		return `data:{"index":1,"token":{"id":11,"text":"a","logprob":-0.5,"special":false},"generated_text":null,"details":null}` + "\n\n" +
			`data:{"index":2,"token":{"id":12,"text":"b","logprob":-0.5,"special":false},"generated_text":null,"details":null}` + "\n\n" +
			`data:{"index":3,"token":{"id":13,"text":"c","logprob":-0.5,"special":false},"generated_text":"abc",` +
			`"details":{"finish_reason":"length","generated_tokens":` + out + `,"seed":null,"input_length":` + in + `}}` + "\n\n"
	}},
	// llama.cpp says each count twice, in its fields and in its timings:
	// both are no count here, or the timings would stand in.
	{"llamacpp", "tokens_predicted", "tokens_evaluated", false, func(out, in string) string {
		return `data: {"content":"a","tokens":[],"stop":false}` + "\n\n" +
			`data: {"content":"b","tokens":[],"stop":false}` + "\n\n" +
			`data: {"content":"c","tokens":[],"stop":false}` + "\n\n" +
			`data: {"content":"","tokens":[],"stop":true,"stop_type":"limit","tokens_predicted":` + out + `,"tokens_evaluated":` + in +
			`,"timings":{"prompt_n":` + in + `,"predicted_n":` + out + `}}` + "\n\n"
	}},
	{"ollama", "eval_count", "prompt_eval_count", false, func(out, in string) string {
		return `{"model":"m","response":"a","done":false}` + "\n" +
			`{"model":"m","response":"b","done":false}` + "\n" +
			`{"model":"m","response":"c","done":false}` + "\n" +
			`{"model":"m","response":"","done":true,"done_reason":"length","prompt_eval_count":` + in + `,"eval_count":` + out + "}\n"
	}},
}

// A count the server sends that is valid JSON but no count is left out
// as if it had sent none, on every protocol: the answer still succeeds,
// its output tokens are its three chunks', and Stats names the field and
// what it held. Only that count is dropped; the prompt count beside it
// stands.
func TestReadStreamDropsOutputCountThatIsNoCount(t *testing.T) {
	bad := []string{
		`"6"`,          // a string, as some proxies send numbers
		`6.5`,          // a fraction
		`-1`,           // negative
		`2147483648`,   // past int32
		`1e999`,        // past any float
		`true`,         // not a number at all
		`{"value":6}`,  // an object
		`[6]`,          // an array
		`6.0000000001`, // a fraction, however small
	}
	for _, p := range badCountStreams {
		a := mustLookup(t, p.backend)
		// The same stream with no count, for what "as if it had sent
		// none" means on this protocol (TGI's token ids count exactly).
		none, noneSt := readAll(a, strings.NewReader(p.body("null", "7")))
		if !none.OK() || none.OutputTokens != 3 || none.InputTokens != 7 || noneSt.BadCount != "" {
			t.Fatalf("%s without a count: %s %q, %d output, %d input, stats %+v", p.backend, none.Error, none.Msg, none.OutputTokens, none.InputTokens, noneSt)
		}
		for _, v := range bad {
			t.Run(p.backend+"/"+v, func(t *testing.T) {
				rec, st := readAll(a, strings.NewReader(p.body(v, "7")))
				if !rec.OK() {
					t.Fatalf("failed: %s: %s", rec.Error, rec.Msg)
				}
				if rec.OutputTokens != 3 || len(rec.Chunks) != 3 || rec.InputTokens != 7 {
					t.Errorf("%d output tokens in %d chunks, %d input; want 3 in 3, and 7", rec.OutputTokens, len(rec.Chunks), rec.InputTokens)
				}
				if want := p.outField + " " + v; st.BadCount != want {
					t.Errorf("BadCount %q, want %q", st.BadCount, want)
				}
				if st.UsageTokens != -1 {
					t.Errorf("UsageTokens %d, want -1: no count was reported", st.UsageTokens)
				}
				if !sameButTimes(rec, none) {
					t.Errorf("record %+v\nwith no count sent %+v", rec, none)
				}
				if err := rec.Check(); err != nil {
					t.Errorf("the record is impossible: %v", err)
				}
			})
		}
	}
}

// The prompt count is dropped the same way, and only it: the output
// count beside it still gives the answer its six tokens.
func TestReadStreamDropsPromptCountThatIsNoCount(t *testing.T) {
	for _, p := range badCountStreams {
		t.Run(p.backend, func(t *testing.T) {
			rec, st := readAll(mustLookup(t, p.backend), strings.NewReader(p.body("6", `"7"`)))
			if !rec.OK() {
				t.Fatalf("failed: %s: %s", rec.Error, rec.Msg)
			}
			if rec.OutputTokens != 6 || rec.TokenSource != record.SourceUsage || rec.InputTokens != 0 {
				t.Errorf("%d output tokens (%s), %d input; want 6 (usage), and none reported", rec.OutputTokens, rec.TokenSource, rec.InputTokens)
			}
			if want := p.inField + ` "7"`; st.BadCount != want {
				t.Errorf("BadCount %q, want %q", st.BadCount, want)
			}
		})
	}
}

// A whole number written as a float is the count it denotes, on every
// protocol: the six tokens reported are spread over the three chunks,
// and nothing is dropped. A count the server sends as an integer reads
// the same, and is the control that shows the count is used.
func TestReadStreamTakesWholeFloatCounts(t *testing.T) {
	for _, p := range badCountStreams {
		for _, v := range []string{`6`, `6.0`, `6e0`, `0.6e1`, `600e-2`} {
			t.Run(p.backend+"/"+v, func(t *testing.T) {
				rec, st := readAll(mustLookup(t, p.backend), strings.NewReader(p.body(v, "7.0")))
				if !rec.OK() {
					t.Fatalf("failed: %s: %s", rec.Error, rec.Msg)
				}
				if rec.OutputTokens != 6 || rec.TokenSource != record.SourceUsage || rec.InputTokens != 7 || st.UsageTokens != 6 {
					t.Errorf("%d output tokens (%s), %d input, stats %+v; want 6 (usage) and 7", rec.OutputTokens, rec.TokenSource, rec.InputTokens, st)
				}
				if st.BadCount != "" {
					t.Errorf("BadCount %q, want none", st.BadCount)
				}
			})
		}
	}
}

// JSON that does not parse still fails the answer as malformed, however
// near a count it breaks: dropping is for counts that parse. The chunks
// before the broken event are kept.
func TestReadStreamBrokenCountIsMalformed(t *testing.T) {
	for _, p := range badCountStreams {
		for _, v := range []string{`6.`, `-`, `06`, `1e+`, `"6`, `tru`, `{"value":}`} {
			t.Run(p.backend+"/"+v, func(t *testing.T) {
				rec, st := readAll(mustLookup(t, p.backend), strings.NewReader(p.body(v, "7")))
				if rec.Error != record.ErrMalformed {
					t.Fatalf("%s %q, want malformed", rec.Error, rec.Msg)
				}
				before := 3
				if p.tokenBeside {
					before = 2
				}
				if len(rec.Chunks) != before || st.BadCount != "" {
					t.Errorf("%d chunks kept, BadCount %q; want the %d before it, and none", len(rec.Chunks), st.BadCount, before)
				}
			})
		}
	}
}

// The dropped value is shown cut to 32 bytes on a character boundary,
// fit to print: the name is for a warning, not a copy of the answer.
func TestReadStreamBadCountShownShort(t *testing.T) {
	a := mustLookup(t, "openai")
	long := `"` + strings.Repeat("é", 40) + `"` // 81 bytes
	_, st := readAll(a, strings.NewReader(badCountStreams[0].body(long, "7")))
	want := `usage.completion_tokens "` + strings.Repeat("é", 15) + "…" // 1 + 15·2 = 31 bytes kept
	if st.BadCount != want {
		t.Errorf("BadCount %q, want %q", st.BadCount, want)
	}
	_, st = readAll(a, strings.NewReader(badCountStreams[0].body("\"a\\n\\tb\"", "7")))
	if want := `usage.completion_tokens "a\n\tb"`; st.BadCount != want {
		t.Errorf("BadCount %q, want %q: the JSON as sent", st.BadCount, want)
	}
}

// The first count that is no count is the one named, though later ones
// are dropped too.
func TestReadStreamNamesFirstBadCount(t *testing.T) {
	a := mustLookup(t, "openai-chat")
	body := chatEvent(`{"content":"a"}`, -1) +
		`data: {"choices":[{"index":0,"delta":{"content":"b"},"finish_reason":"length"}],"usage":{"prompt_tokens":-2,"completion_tokens":2}}` + "\n\n" +
		`data: {"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":"2"}}` + "\n\n" +
		"data: [DONE]\n\n"
	rec, st := readAll(a, strings.NewReader(body))
	if !rec.OK() || rec.OutputTokens != 2 || rec.InputTokens != 2 || st.UsageTokens != 2 {
		t.Fatalf("%s %q, %d output, %d input, stats %+v", rec.Error, rec.Msg, rec.OutputTokens, rec.InputTokens, st)
	}
	if want := "usage.prompt_tokens -2"; st.BadCount != want {
		t.Errorf("BadCount %q, want %q", st.BadCount, want)
	}
}
