package backend

import (
	"strings"
	"testing"
)

// decoded is the part of an event a test compares.
type decoded struct {
	tokens  int
	exact   bool
	choices bool
	usage   int
	prompt  int
	finish  string
	done    bool
	errMsg  string // "" when not failed
	bad     string // the count dropped as no count: field and JSON; "" when none
}

func decodeOne(t *testing.T, fn decodeFunc, payload string) (decoded, error) {
	t.Helper()
	var d decoder
	var ev event
	ev.reset()
	err := fn(&d, []byte(payload), &ev)
	got := decoded{ev.tokens, ev.exact && ev.tokens > 0, ev.choices, ev.usage, ev.prompt, string(ev.finish), ev.done, ev.errMsg, ""}
	if d.badField != "" {
		got.bad = d.badField + " " + string(d.badValue)
	}
	if ev.failed && got.errMsg == "" {
		t.Fatalf("%q: failed without a message", payload)
	}
	return got, err
}

func TestDecodeOpenAI(t *testing.T) {
	none := decoded{usage: -1, prompt: -1}
	tests := []struct {
		name    string
		in      string
		want    decoded
		wantErr string
	}{
		{"completion text", `{"choices":[{"index":0,"text":"hi","finish_reason":null}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		{"chat role-only chunk carries no token", `{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
			decoded{choices: true, usage: -1, prompt: -1}, ""},
		{"chat role with null content", `{"choices":[{"delta":{"role":"assistant","content":null}}]}`,
			decoded{choices: true, usage: -1, prompt: -1}, ""},
		{"chat content", `{"choices":[{"delta":{"content":" x"}}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		{"reasoning_content counts", `{"choices":[{"delta":{"reasoning_content":"hm","content":null}}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		{"reasoning counts", `{"choices":[{"delta":{"reasoning":"hm"}}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		{"tool call arguments count", `{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\""}}]}}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		{"empty tool_calls does not", `{"choices":[{"delta":{"tool_calls":[]}}]}`,
			decoded{choices: true, usage: -1, prompt: -1}, ""},
		{"token ids are exact counts", `{"choices":[{"text":"ab","token_ids":[10,11,12]}]}`,
			decoded{tokens: 3, exact: true, choices: true, usage: -1, prompt: -1}, ""},
		{"two choices (n=2)", `{"choices":[{"index":0,"text":"a"},{"index":1,"text":"b"}]}`,
			decoded{tokens: 2, choices: true, usage: -1, prompt: -1}, ""},
		{"usage-only chunk", `{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":6,"total_tokens":15}}`,
			decoded{usage: 6, prompt: 9}, ""},
		{"usage null", `{"choices":[{"delta":{"content":"a"}}],"usage":null}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		{"usage fields null", `{"usage":{"prompt_tokens":null,"completion_tokens":null}}`, none, ""},
		{"finish reason", `{"choices":[{"text":"","finish_reason":"length"}]}`,
			decoded{choices: true, usage: -1, prompt: -1, finish: "length"}, ""},
		{"escaped finish reason", `{"choices":[{"text":"","finish_reason":"st\u006fp"}]}`,
			decoded{choices: true, usage: -1, prompt: -1, finish: "stop"}, ""},
		{"choices null", `{"choices":null}`, none, ""},
		{"DONE", `[DONE]`, decoded{usage: -1, prompt: -1, done: true}, ""},
		{"DONE with spaces", ` [DONE] `, decoded{usage: -1, prompt: -1, done: true}, ""},
		{"unknown fields skipped", `{"x":{"y":[1,{"z":null}]},"choices":[{"text":"a","stop_reason":{"tokens":["a","b"]}}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		// Logprobs list each token the event carries, whatever text came
		// with them: the completions API's tokens, chat's content (which
		// llama.cpp's /v1/completions sends too).
		{"completions logprobs count tokens", `{"choices":[{"text":"abc","logprobs":{"text_offset":[0,1],"token_logprobs":[-1,-2],"tokens":["a","bc"],"top_logprobs":null}}]}`,
			decoded{tokens: 2, exact: true, choices: true, usage: -1, prompt: -1}, ""},
		{"chat logprobs count tokens", `{"choices":[{"delta":{"content":"a b"},"logprobs":{"content":[{"token":"a","logprob":-1},{"token":" b","logprob":-2}]}}]}`,
			decoded{tokens: 2, exact: true, choices: true, usage: -1, prompt: -1}, ""},
		{"a held-back token listed in logprobs", `{"choices":[{"text":"","logprobs":{"content":[{"id":29835,"token":"","bytes":[],"logprob":-5.9}]},"finish_reason":null}]}`,
			decoded{tokens: 1, exact: true, choices: true, usage: -1, prompt: -1}, ""},
		{"logprobs null", `{"choices":[{"text":"a","logprobs":null}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		{"logprobs of another shape", `{"choices":[{"text":"a","logprobs":[1,2,3]}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		// Empty text without a finish is a token whose text the server
		// held back; with a finish it is the finish.
		{"empty completion text is a held-back token", `{"choices":[{"index":0,"text":"","finish_reason":null}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		{"null completion text is not", `{"choices":[{"index":0,"text":null}]}`,
			decoded{choices: true, usage: -1, prompt: -1}, ""},
		{"error object", `{"error":{"message":"boom","type":"InternalServerError","param":null,"code":500}}`,
			decoded{usage: -1, prompt: -1, errMsg: "InternalServerError: boom (code 500)"}, ""},
		{"error string", `{"error":"boom"}`, decoded{usage: -1, prompt: -1, errMsg: "boom"}, ""},
		{"error object without message", `{"error":{}}`,
			decoded{usage: -1, prompt: -1, errMsg: "server reported an error without a message"}, ""},
		{"error null is no error", `{"error":null,"choices":[{"text":"a"}]}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1}, ""},
		{"error of another type", `{"error":42}`, decoded{usage: -1, prompt: -1, errMsg: "server reported an error: 42"}, ""},
		{"vLLM flat error", `{"object":"error","message":"too long","type":"BadRequestError","param":null,"code":400}`,
			decoded{usage: -1, prompt: -1, errMsg: "BadRequestError: too long (code 400)"}, ""},
		{"a message field alone is not an error", `{"object":"text_completion","message":"x","choices":[]}`, none, ""},
		{"key with escapes", `{"us\u0061ge":{"completion_tokens":7}}`, decoded{usage: 7, prompt: -1}, ""},

		{"not an object", `"hello"`, none, "want '{'"},
		{"empty payload", ``, none, "unexpected end of JSON"},
		{"truncated JSON", `{"choices":[{"text":"a"`, none, "unexpected end of JSON"},
		{"trailing junk", `{"choices":[]} x`, none, "after top-level value"},
		{"non-UTF-8 junk", "\xff\xfe", none, `invalid character '\xff'`},
		{"choices not an array", `{"choices":{}}`, none, "want '['"},
		// A count that is valid JSON but no count is dropped as not
		// reported, and named; the rest of the event still counts.
		{"negative usage", `{"usage":{"completion_tokens":-3}}`, decoded{usage: -1, prompt: -1, bad: "usage.completion_tokens -3"}, ""},
		{"fractional usage", `{"usage":{"prompt_tokens":1.5,"completion_tokens":4}}`, decoded{usage: 4, prompt: -1, bad: "usage.prompt_tokens 1.5"}, ""},
		{"huge usage", `{"usage":{"completion_tokens":1e999}}`, decoded{usage: -1, prompt: -1, bad: "usage.completion_tokens 1e999"}, ""},
		{"overflowing usage", `{"usage":{"completion_tokens":4294967296}}`, decoded{usage: -1, prompt: -1, bad: "usage.completion_tokens 4294967296"}, ""},
		{"usage as a string", `{"choices":[{"text":"a"}],"usage":{"completion_tokens":"12"}}`,
			decoded{tokens: 1, choices: true, usage: -1, prompt: -1, bad: `usage.completion_tokens "12"`}, ""},
		{"usage as an object", `{"usage":{"prompt_tokens":{"n":[1,2]},"completion_tokens":2}}`, decoded{usage: 2, prompt: -1, bad: `usage.prompt_tokens {"n":[1,2]}`}, ""},
		{"first bad count is the one named", `{"usage":{"prompt_tokens":true,"completion_tokens":-1}}`, decoded{usage: -1, prompt: -1, bad: "usage.prompt_tokens true"}, ""},
		{"bad cached_tokens", `{"usage":{"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":-5}}}`,
			decoded{usage: 2, prompt: -1, bad: "usage.prompt_tokens_details.cached_tokens -5"}, ""},
		{"bad reasoning_tokens", `{"usage":{"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":"1"}}}`,
			decoded{usage: 2, prompt: -1, bad: `usage.completion_tokens_details.reasoning_tokens "1"`}, ""},
		// Whole numbers written as floats are the counts they denote.
		{"integral float usage", `{"usage":{"prompt_tokens":9.0,"completion_tokens":3.0}}`, decoded{usage: 3, prompt: 9}, ""},
		{"usage with an exponent", `{"usage":{"completion_tokens":1e3}}`, decoded{usage: 1000, prompt: -1}, ""},
		// JSON that does not parse still fails the event.
		{"usage number cut short", `{"usage":{"completion_tokens":1.}}`, none, "usage.completion_tokens: invalid character '}', want digit after '.'"},
		{"usage string unterminated", `{"usage":{"completion_tokens":"12}}`, none, "usage.completion_tokens: unexpected end of JSON"},
		{"usage with a leading zero", `{"usage":{"completion_tokens":012}}`, none, "invalid character '1', want ',' or '}'"},
		{"usage object left open", `{"usage":{"completion_tokens":{"a":1}`, none, "unexpected end of JSON"},
		{"text not a string", `{"choices":[{"text":5}]}`, none, "want string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeOne(t, decodeOpenAI, tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestDecodeTGI(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    decoded
		wantErr string
	}{
		{"token event", `{"index":1,"token":{"id":1,"text":"a","logprob":-0.1,"special":false},"generated_text":null,"details":null}`,
			decoded{tokens: 1, usage: -1, prompt: -1}, ""},
		{"special token still counts", `{"index":9,"token":{"id":2,"text":"","logprob":0,"special":true},"generated_text":null,"details":null}`,
			decoded{tokens: 1, usage: -1, prompt: -1}, ""},
		{"last event with details", `{"index":3,"token":{"id":2,"text":"</s>","special":true},"generated_text":"ab","details":{"finish_reason":"length","generated_tokens":3,"seed":null,"input_length":7}}`,
			decoded{tokens: 1, usage: 3, prompt: 7, finish: "length", done: true}, ""},
		{"stop sequence maps to stop", `{"token":{"id":1},"generated_text":"x","details":{"finish_reason":"stop_sequence","generated_tokens":1}}`,
			decoded{tokens: 1, usage: 1, prompt: -1, finish: "stop", done: true}, ""},
		{"generated_text without details ends the stream", `{"token":{"id":1},"generated_text":"x","details":null}`,
			decoded{tokens: 1, usage: -1, prompt: -1, done: true}, ""},
		{"token null", `{"token":null}`, decoded{usage: -1, prompt: -1}, ""},
		{"error", `{"error":"Input validation error: inputs must have less than 4096 tokens","error_type":"validation"}`,
			decoded{usage: -1, prompt: -1, errMsg: "validation: Input validation error: inputs must have less than 4096 tokens"}, ""},
		{"details not an object", `{"details":[1]}`, decoded{}, "want '{'"},
		{"generated_tokens not a count", `{"details":{"generated_tokens":"3","input_length":7}}`,
			decoded{usage: -1, prompt: 7, done: true, bad: `details.generated_tokens "3"`}, ""},
		{"input_length not a count", `{"details":{"generated_tokens":3,"input_length":-7}}`,
			decoded{usage: 3, prompt: -1, done: true, bad: "details.input_length -7"}, ""},
		{"generated_tokens cut short", `{"details":{"generated_tokens":-}}`, decoded{}, "details.generated_tokens: invalid character '}', want digit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeOne(t, decodeTGI, tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestDecodeLlamaCpp(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    decoded
		wantErr string
	}{
		{"content with token ids", `{"content":"ab","tokens":[1,2],"stop":false}`,
			decoded{tokens: 2, exact: true, usage: -1, prompt: -1}, ""},
		{"content without ids", `{"content":"ab","tokens":[],"stop":false}`,
			decoded{tokens: 1, usage: -1, prompt: -1}, ""},
		{"empty content", `{"content":"","stop":false}`, decoded{usage: -1, prompt: -1}, ""},
		{"final, limit", `{"content":"","stop":true,"stop_type":"limit","tokens_predicted":8,"tokens_evaluated":20,"timings":{"prompt_n":4,"predicted_n":8}}`,
			decoded{usage: 8, prompt: 20, finish: "length", done: true}, ""},
		{"final, eos, counts from timings only", `{"content":"","stop":true,"stop_type":"eos","timings":{"prompt_n":4,"predicted_n":8}}`,
			decoded{usage: 8, prompt: 4, finish: "stop", done: true}, ""},
		{"final, older server", `{"content":"","stop":true,"stopped_limit":true,"stopped_eos":false}`,
			decoded{usage: -1, prompt: -1, finish: "length", done: true}, ""},
		{"final, unknown stop type passes through", `{"stop":true,"stop_type":"none"}`,
			decoded{usage: -1, prompt: -1, finish: "none", done: true}, ""},
		{"error object", `{"error":{"code":500,"message":"context shift is disabled","type":"server_error"}}`,
			decoded{usage: -1, prompt: -1, errMsg: "server_error: context shift is disabled (code 500)"}, ""},
		{"stop not a boolean", `{"stop":"yes"}`, decoded{}, "stop: invalid character"},
		{"timings not an object", `{"timings":3}`, decoded{}, "timings: "},
		{"tokens_predicted not a count, timings stand in", `{"stop":true,"stop_type":"eos","tokens_predicted":"8","timings":{"prompt_n":4,"predicted_n":8}}`,
			decoded{usage: 8, prompt: 4, finish: "stop", done: true, bad: `tokens_predicted "8"`}, ""},
		{"timings not counts either", `{"stop":true,"stop_type":"eos","tokens_predicted":8.5,"timings":{"prompt_n":-4,"predicted_n":null}}`,
			decoded{usage: -1, prompt: -1, finish: "stop", done: true, bad: "tokens_predicted 8.5"}, ""},
		{"bad cache_n", `{"stop":true,"tokens_predicted":2,"tokens_evaluated":6,"timings":{"cache_n":[1]}}`,
			decoded{usage: 2, prompt: 6, finish: "stop", done: true, bad: "timings.cache_n [1]"}, ""},
		{"predicted_n cut short", `{"timings":{"predicted_n":-x}}`, decoded{}, "timings: predicted_n: invalid character 'x', want digit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeOne(t, decodeLlamaCpp, tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestDecodeOllama(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    decoded
		wantErr string
	}{
		{"response", `{"model":"m","created_at":"2024-11-29T07:44:00Z","response":"a","done":false}`,
			decoded{tokens: 1, usage: -1, prompt: -1}, ""},
		{"thinking", `{"model":"m","response":"","thinking":"hmm","done":false}`,
			decoded{tokens: 1, usage: -1, prompt: -1}, ""},
		{"empty response", `{"model":"m","response":"","done":false}`, decoded{usage: -1, prompt: -1}, ""},
		{"final", `{"response":"","done":true,"done_reason":"length","prompt_eval_count":26,"eval_count":3,"total_duration":5}`,
			decoded{usage: 3, prompt: 26, finish: "length", done: true}, ""},
		{"final without reason", `{"response":"","done":true,"eval_count":3}`,
			decoded{usage: 3, prompt: -1, finish: "stop", done: true}, ""},
		{"error", `{"error":"model \"x\" not found, try pulling it first"}`,
			decoded{usage: -1, prompt: -1, errMsg: `model "x" not found, try pulling it first`}, ""},
		{"done not a boolean", `{"done":1}`, decoded{}, "done: invalid character '1', want boolean"},
		{"eval_count not a count", `{"response":"","done":true,"eval_count":-1,"prompt_eval_count":26}`,
			decoded{usage: -1, prompt: 26, finish: "stop", done: true, bad: "eval_count -1"}, ""},
		{"prompt_eval_count past int32", `{"response":"","done":true,"eval_count":3,"prompt_eval_count":2147483648}`,
			decoded{usage: 3, prompt: -1, finish: "stop", done: true, bad: "prompt_eval_count 2147483648"}, ""},
		{"eval_count cut short", `{"eval_count":1e}`, decoded{}, "eval_count: invalid character '}', want digit in exponent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeOne(t, decodeOllama, tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
