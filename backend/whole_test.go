package backend

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/goodput-dev/goodput/record"
)

// noStream returns the named adapter without streaming, keeping text.
func noStream(t testing.TB, name string) *Adapter {
	t.Helper()
	a, err := mustLookup(t, name).WithText().WithoutStreaming()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Non-streaming requests say "stream": false and drop stream_options,
// which servers refuse without streaming; they accept JSON.
func TestWithoutStreamingBodies(t *testing.T) {
	for _, name := range []string{"openai", "openai-chat", "llamacpp", "ollama"} {
		a := noStream(t, name)
		if a.Streaming() {
			t.Errorf("%s: still streaming", name)
		}
		hr, err := a.BuildRequest(t.Context(), "http://127.0.0.1:8000", "", &Request{Model: "m", Prompt: "hi", MaxTokens: 4})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		_, body, _ := bodyOf(t, a, "http://127.0.0.1:8000", "", &Request{Model: "m", Prompt: "hi", MaxTokens: 4})
		if !strings.Contains(body, `"stream":false`) || strings.Contains(body, "stream_options") {
			t.Errorf("%s: %s", name, body)
		}
		if got := hr.Header.Get("Accept"); got != "application/json" {
			t.Errorf("%s: Accept %q", name, got)
		}
	}
	if mustLookup(t, "openai").Streaming() != true {
		t.Error("a looked-up adapter does not stream")
	}
	// TGI's /generate_stream has no whole answer.
	if _, err := mustLookup(t, "tgi").WithoutStreaming(); err == nil || !strings.Contains(err.Error(), "non-streaming requests are not supported") {
		t.Errorf("tgi: %v", err)
	}
}

// A whole response is one chunk at its arrival: every token there, the
// count from the server's usage, the answer text kept, and a body that
// is not one JSON document fails as malformed or truncated.
func TestWithoutStreamingResponses(t *testing.T) {
	tests := []struct {
		name, backend, body string
		tokens              int32
		text                string
		err                 record.ErrorKind
	}{
		// vLLM's /v1/completions answer, as printed.
		{"completions", "openai", `{"id":"cmpl-1","object":"text_completion","model":"m","choices":[{"index":0,"text":" a b c","finish_reason":"length"}],"usage":{"prompt_tokens":2,"completion_tokens":3,"total_tokens":5}}`,
			3, " a b c", record.ErrNone},
		// Pretty-printed JSON over several lines is one document still.
		{"chat, indented", "openai-chat", "{\n  \"choices\": [\n    {\"message\": {\"role\": \"assistant\", \"content\": \"yes\", \"tool_calls\": []},\n     \"finish_reason\": \"stop\"}\n  ],\n  \"usage\": {\"prompt_tokens\": 5, \"completion_tokens\": 2}\n}\n",
			2, "yes", record.ErrNone},
		{"llama.cpp", "llamacpp", `{"content":"x y","stop":true,"tokens_predicted":2,"tokens_evaluated":4}`, 2, "x y", record.ErrNone},
		{"ollama", "ollama", `{"model":"m","response":"ok","done":true,"done_reason":"stop","eval_count":1,"prompt_eval_count":3}`, 1, "ok", record.ErrNone},
		// A whole answer the server gave up on fails as a stream would.
		{"aborted", "openai-chat", `{"choices":[{"index":0,"message":{"role":"assistant","content":"half"},"finish_reason":"abort"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`,
			0, "", record.ErrStream},
		// A server that streamed anyway: the SSE body is no JSON document.
		{"streamed anyway", "openai", "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n", 0, "", record.ErrMalformed},
		// A whole response has no framing to tell a cut from a bad byte.
		{"cut short", "openai", `{"choices":[{"text":"a"`, 0, "", record.ErrMalformed},
		{"empty", "openai", "", 0, "", record.ErrTruncated},
	}
	for _, tt := range tests {
		rec, _ := readAll(noStream(t, tt.backend), strings.NewReader(tt.body))
		if rec.Error != tt.err {
			t.Errorf("%s: error %v (%s), want %v", tt.name, rec.Error, rec.Msg, tt.err)
			continue
		}
		if tt.err != record.ErrNone {
			continue
		}
		if !rec.Whole {
			t.Errorf("%s: the record does not say the answer came whole", tt.name)
		}
		if len(rec.Chunks) != 1 || rec.Chunks[0].Tokens != tt.tokens || rec.OutputTokens != int(tt.tokens) {
			t.Errorf("%s: chunks %v, output tokens %d; want one chunk of %d", tt.name, tokens(rec), rec.OutputTokens, tt.tokens)
		}
		if rec.Text != tt.text {
			t.Errorf("%s: text %q, want %q", tt.name, rec.Text, tt.text)
		}
	}
}

// A whole answer cut off by the connection is named as an answer, not a
// stream: "reading the answer after 20 bytes".
func TestWithoutStreamingCutOff(t *testing.T) {
	body := io.MultiReader(strings.NewReader(`{"choices":[{"text":`), iotest.ErrReader(io.ErrUnexpectedEOF))
	rec, _ := readAll(noStream(t, "openai"), body)
	if rec.Error != record.ErrReset || rec.Msg != "reading the answer after 20 bytes: unexpected EOF" {
		t.Errorf("error %v: %q", rec.Error, rec.Msg)
	}
	rec, _ = readAll(mustLookup(t, "openai"), io.MultiReader(strings.NewReader("data: {}\n\n"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	if !strings.HasPrefix(rec.Msg, "reading the stream after 10 bytes") {
		t.Errorf("a stream cut off: %v %q", rec.Error, rec.Msg)
	}
}

// The whole response is bounded, by MaxWhole: an answer with logprobs
// takes far more than a stream's event, and reads whole; a larger one
// fails as malformed.
func TestWithoutStreamingOversized(t *testing.T) {
	long := `{"choices":[{"text":"a","logprobs":{"top_logprobs":["` + strings.Repeat("b", 4*MaxEvent) + `"]},"finish_reason":"length"}],"usage":{"completion_tokens":7}}`
	rec, _ := readAll(noStream(t, "openai"), strings.NewReader(long))
	if !rec.OK() || rec.OutputTokens != 7 {
		t.Errorf("a 4 MiB answer: error %v %s, %d tokens; want it read, 7 tokens", rec.Error, rec.Msg, rec.OutputTokens)
	}
	body := `{"choices":[{"text":"` + strings.Repeat("a", MaxWhole+2*lineSlack) + `"}]}`
	rec, _ = readAll(noStream(t, "openai"), strings.NewReader(body))
	if rec.Error != record.ErrMalformed || !strings.Contains(rec.Msg, "response larger than 67109888 bytes") {
		t.Errorf("error %v: %s", rec.Error, rec.Msg)
	}
}

// FuzzWhole feeds arbitrary bytes to the non-streaming adapters.
func FuzzWhole(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"choices":[{"text":"a","finish_reason":"stop"}]}`, "\xef\xbb\xbf{}", "[1]", "{\n}\n\n",
		`{"choices":[{"message":{"content":"a"}}],"usage":{"completion_tokens":9}}`, `{"done":true,"eval_count":2}`,
	} {
		f.Add([]byte(s))
	}
	var adapters []*Adapter
	for _, name := range []string{"openai", "openai-chat", "llamacpp", "ollama"} {
		adapters = append(adapters, noStream(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, a := range adapters {
			checkStream(t, a, b)
		}
	})
}
