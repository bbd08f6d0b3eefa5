package sim

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/tokenizer"
)

func FuzzParseFault(f *testing.F) {
	for _, s := range []string{
		"error-rate=0.05", "overload=64", "overload-status=503", "disconnect-rate=0.01",
		"stall=2s@0.01", "malformed-rate=1", "slow-first-byte=500ms", "slow-first-byte=1s@0.5",
		"", "=", "stall=@", "overload=-1", "error-rate=NaN", "stall=1h@1e-9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		var faults Faults
		err := faults.ParseFault(spec)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fault ") {
				t.Errorf("error %q does not name the fault", err)
			}
			return
		}
		// Whatever parses must be a valid configuration.
		if err := faults.validate(); err != nil {
			t.Errorf("ParseFault(%q) accepted %+v, which validate rejects: %v", spec, faults, err)
		}
	})
}

func FuzzParseProfile(f *testing.F) {
	for _, s := range []string{
		"gpu: H100\nmodel: Llama-3.1-8B\n",
		"gpu: {name: B200, memory_gib: 180, bandwidth_tbps: 8, tflops: 2250, link_gbps: 900}\n",
		`{"model": {"name": "m", "layers": 2, "hidden_size": 8, "num_heads": 2, "num_kv_heads": 1, "head_dim": 4, "params_b": 0.001, "dtype_bytes": 2, "max_model_len": 64}}`,
		"calibration: {mfu: 0.4, step_overhead: 1ms}\ntensor_parallel_size: 2\n",
		"", "gpu: [1, 2]", "gpu: {memory: 3}", "tensor_parallel_size: -1", "calibration: {seq_overhead: x}", "&a [*a]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("fuzz.yaml", data, Profile{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml: ") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		// A parsed profile either resolves or is refused with an error; it
		// must never make Resolve panic.
		_, _ = Resolve(Options{Profile: p})
	})
}

func FuzzPromptIDs(f *testing.F) {
	for _, s := range []string{`"hello"`, `[1,2,3]`, `["a"]`, `[[4,5]]`, `[]`, `""`, `null`, `[1.5]`, `[["a"]]`, `[[[1]]]`, `{"a":1}`, `[-1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		ids, err := promptIDs(raw, tokenizer.VocabSize)
		if err != nil {
			return
		}
		if len(ids) == 0 {
			t.Errorf("promptIDs(%q) accepted an empty prompt", raw)
		}
		if err := checkTokenIDs(ids, tokenizer.VocabSize); err != nil {
			t.Errorf("promptIDs(%q) returned invalid ids: %v", raw, err)
		}
	})
}

// FuzzRequestBodies posts arbitrary bodies to every endpoint of a server
// whose engine is not started: validation must answer every body with a
// well-formed JSON error or success, and 503 only for valid generation
// requests that would have reached the engine.
func FuzzRequestBodies(f *testing.F) {
	for _, s := range []string{
		`{"prompt":"hi","max_tokens":3}`,
		`{"prompt":[1,2],"stream":true,"stream_options":{"include_usage":true}}`,
		`{"messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"max_completion_tokens":2}`,
		`{"model":"other","prompt":"x"}`, `{"tokens":[1,2,3]}`, `{"prompt":"x","max_tokens":-1}`,
		`{`, ``, `[]`, `null`, `{"prompt":"x","n":2}`, `{"messages":[{"role":"x"}]}`,
		`{"input":"hi","max_output_tokens":3}`, `{"input":[{"role":"user","content":[{"type":"input_text","text":"x"}]}],"instructions":"y"}`,
		`{"input":[{"type":"message"}]}`, `{"input":42}`,
	} {
		f.Add(s)
	}
	s, err := New(Options{Profile: fastProfile(f), MaxBodyBytes: 1 << 12})
	if err != nil {
		f.Fatal(err)
	}
	paths := []string{"/v1/completions", "/v1/chat/completions", "/v1/responses", "/tokenize", "/detokenize"}
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range paths {
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
			switch w.Code {
			case http.StatusOK, http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusServiceUnavailable:
			default:
				t.Fatalf("POST %s %q: status %d", path, body, w.Code)
			}
			if !json.Valid(w.Body.Bytes()) || !utf8.Valid(w.Body.Bytes()) {
				t.Fatalf("POST %s %q: answer is not valid JSON: %q", path, body, w.Body.String())
			}
			if w.Code == http.StatusOK && strings.HasPrefix(path, "/v1") {
				t.Fatalf("POST %s %q: 200 from an engine that is not running", path, body)
			}
		}
	})
}

// FuzzFullRequestPath drives arbitrary bodies through the whole request
// path of a running server: HTTP body, validation, admission to the engine
// and the steps that produce the answer. The engine runs on a clock that
// jumps to each step's end, and max_model_len is small, so that every
// accepted request finishes in a few steps. Whatever the body, the answer
// is a well-formed error or a complete answer within max_model_len, it
// comes back without hanging, and the engine goes on running.
func FuzzFullRequestPath(f *testing.F) {
	for _, s := range []string{
		`{"prompt":"hi","max_tokens":3,"ignore_eos":true}`,
		`{"prompt":"hi","max_tokens":9223372036854775807,"ignore_eos":true}`,
		`{"prompt":[1,2,3],"max_tokens":9223372036854775806,"min_tokens":9223372036854775806}`,
		`{"prompt":"x","min_tokens":9223372036854775807}`,
		`{"prompt":"x","max_tokens":-9223372036854775808}`,
		`{"prompt":"x","seed":-9223372036854775808,"max_tokens":5}`,
		`{"prompt":[[7,8]],"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`,
		`{"messages":[{"role":"user","content":"hi"}],"max_completion_tokens":9223372036854775807}`,
		`{"messages":[{"role":"user","content":"hi"}],"stream":true}`,
		`{"input":"hi","max_output_tokens":9223372036854775807,"stream":true}`,
		`{"input":[{"role":"user","content":"hi"}],"instructions":"be brief","min_tokens":3,"max_output_tokens":4}`,
		`{"prompt":[31999],"max_tokens":1}`, `{"prompt":[2147483648]}`, `{"prompt":"` + strings.Repeat("long ", 100) + `"}`,
	} {
		f.Add(s)
	}
	clk := &lateClock{}
	s, err := New(Options{Profile: fastProfile(f), MaxModelLen: 64, MaxBodyBytes: 1 << 12, Clock: clk})
	if err != nil {
		f.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/v1/completions", "/v1/chat/completions", "/v1/responses"} {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			w := httptest.NewRecorder()
			s.ServeHTTP(w, httptest.NewRequestWithContext(ctx, http.MethodPost, path, strings.NewReader(body)))
			hung := ctx.Err() != nil
			cancel()
			if hung {
				t.Fatalf("POST %s %q: no answer within 10 s", path, body)
			}
			select {
			case <-s.done:
				t.Fatalf("POST %s %q: the engine stopped", path, body)
			default:
			}
			switch w.Code {
			case http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge:
				if !json.Valid(w.Body.Bytes()) {
					t.Fatalf("POST %s %q: error %d is not JSON: %q", path, body, w.Code, w.Body.String())
				}
			case http.StatusOK:
				checkAnswer(t, path, body, w)
			default:
				t.Fatalf("POST %s %q: status %d: %s", path, body, w.Code, w.Body.String())
			}
		}
	})
}

// checkAnswer checks a 200 answer of the fuzzed server: a JSON body, or a
// stream of JSON events ending in [DONE] (response.completed on
// /v1/responses), whose completion fits in max_model_len (64).
func checkAnswer(t *testing.T, path, body string, w *httptest.ResponseRecorder) {
	t.Helper()
	if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		var out struct {
			Usage struct {
				Prompt     int `json:"prompt_tokens"`
				Completion int `json:"completion_tokens"`
				Input      int `json:"input_tokens"`
				Output     int `json:"output_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("POST %s %q: answer is not JSON: %v", path, body, err)
		}
		u := out.Usage
		in, gen := u.Prompt+u.Input, u.Completion+u.Output
		if gen < 1 || in < 1 || in+gen > 64 {
			t.Fatalf("POST %s %q: usage %+v beyond max_model_len 64", path, body, u)
		}
		return
	}
	events := strings.Split(strings.TrimSuffix(w.Body.String(), "\n\n"), "\n\n")
	if path == "/v1/responses" {
		checkResponsesStream(t, body, events)
		return
	}
	if len(events) < 2 || events[len(events)-1] != "data: [DONE]" {
		t.Fatalf("POST %s %q: stream does not end with [DONE]: %q", path, body, w.Body.String())
	}
	if len(events) > 64+3 { // a role chunk, a token per chunk, usage, [DONE]
		t.Fatalf("POST %s %q: %d events, more than max_model_len allows", path, body, len(events))
	}
	for _, e := range events[:len(events)-1] {
		data, ok := strings.CutPrefix(e, "data: ")
		if !ok || !json.Valid([]byte(data)) {
			t.Fatalf("POST %s %q: event %q is not a JSON data line", path, body, e)
		}
	}
}

// checkResponsesStream checks the events of a streamed /v1/responses
// answer: each an event line and a JSON data line of that type, the last
// response.completed, no more than max_model_len (64) allows.
func checkResponsesStream(t *testing.T, body string, events []string) {
	t.Helper()
	if len(events) > 64+11 { // two opening events, a delta per token, eight to open and close the items, response.completed
		t.Fatalf("POST /v1/responses %q: %d events, more than max_model_len allows", body, len(events))
	}
	var typ string
	for _, e := range events {
		name, data, ok := strings.Cut(e, "\n")
		name, okName := strings.CutPrefix(name, "event: ")
		data, okData := strings.CutPrefix(data, "data: ")
		var v struct {
			Type string `json:"type"`
		}
		if !ok || !okName || !okData || json.Unmarshal([]byte(data), &v) != nil || v.Type != name {
			t.Fatalf("POST /v1/responses %q: event %q is not an event line and its JSON data", body, e)
		}
		typ = name
	}
	if typ != "response.completed" {
		t.Fatalf("POST /v1/responses %q: stream ends with %s, not response.completed", body, typ)
	}
}

func FuzzResponsesPrompt(f *testing.F) {
	for _, s := range []string{
		`"hi"`, `""`, `[{"role":"user","content":"x"}]`, `[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"y"}]}]`,
		`[]`, `null`, `42`, `{}`, `[{}]`, `[{"role":"user"}]`, `[{"role":"user","content":[{"type":"input_text"}]}]`, `[{"role":5}]`, `["x"]`,
	} {
		f.Add("", []byte(s))
		f.Add("Be brief.", []byte(s))
	}
	f.Fuzz(func(t *testing.T, instructions string, raw []byte) {
		ids, err := responsesPrompt(instructions, raw)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "input") {
				t.Errorf("error %q does not name the input", err)
			}
			return
		}
		// Any accepted conversation ends with the opening of the reply.
		if opening := tokenizer.Count("<|assistant|>\n"); len(ids) < opening {
			t.Errorf("responsesPrompt(%q, %q) = %d tokens, fewer than the template's own %d", instructions, raw, len(ids), opening)
		}
	})
}
