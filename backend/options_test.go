package backend

import (
	"context"
	"os"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestSamplingAndOptionsPerProtocol(t *testing.T) {
	all := Sampling{Temperature: ptr(0.5), TopP: ptr(0.9), TopK: ptr(10), MinP: ptr(0.05),
		FrequencyPenalty: ptr(0.1), PresencePenalty: ptr(0.2), RepetitionPenalty: ptr(1.1)}
	openaiLike := Sampling{Temperature: ptr(0.0), TopK: ptr(10), RepetitionPenalty: ptr(1.0)}
	tests := []struct {
		name    string
		backend string
		req     Request
		body    string // the body, or the error's text
	}{
		// vLLM's extensions top_k and repetition_penalty go at the top level; a zero temperature is sent.
		{"completions", "openai", Request{Prompt: "hi", Sampling: openaiLike, Logprobs: ptr(5)},
			`{"logprobs":5,"prompt":"hi","repetition_penalty":1,"stream":true,"temperature":0,"top_k":10}`},
		{"chat", "openai-chat", Request{Prompt: "hi", Sampling: Sampling{TopP: ptr(0.75)}, Logprobs: ptr(2),
			ChatTemplateKwargs: map[string]any{"enable_thinking": false}},
			`{"chat_template_kwargs":{"enable_thinking":false},"logprobs":true,"messages":[{"role":"user","content":"hi"}],"stream":true,"top_logprobs":2,"top_p":0.75}`},
		{"llama.cpp names", "llamacpp", Request{Prompt: "hi", Sampling: all, Logprobs: ptr(3)},
			`{"frequency_penalty":0.1,"min_p":0.05,"n_probs":3,"presence_penalty":0.2,"prompt":"hi","repeat_penalty":1.1,"return_tokens":true,"stream":true,"temperature":0.5,"top_k":10,"top_p":0.9}`},
		{"ollama options", "ollama", Request{Model: "m", Prompt: "hi", MaxTokens: 4, Sampling: Sampling{Temperature: ptr(0.5), RepetitionPenalty: ptr(1.2)}},
			`{"model":"m","options":{"num_predict":4,"repeat_penalty":1.2,"temperature":0.5},"prompt":"hi","stream":true}`},
		{"tgi parameters", "tgi", Request{Prompt: "hi", Sampling: Sampling{TopK: ptr(3), RepetitionPenalty: ptr(1.3)}},
			`{"inputs":"hi","parameters":{"details":true,"repetition_penalty":1.3,"top_k":3}}`},
		// TGI has neither min_p nor presence_penalty: both are named, not dropped.
		{"tgi lacks two", "tgi", Request{Prompt: "hi", Sampling: all},
			"--min-p is not supported by tgi (/generate_stream has no such parameter); send what the server accepts with --extra-body\n--presence-penalty is not supported by tgi"},
		{"chat template kwargs need chat", "openai", Request{Prompt: "hi", ChatTemplateKwargs: map[string]any{}},
			"--chat-template-kwargs needs a chat endpoint (backend openai-chat)"},
		{"ollama has no logprobs", "ollama", Request{Model: "m", Prompt: "hi", Logprobs: ptr(1)},
			"--logprobs is not supported by ollama"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body, err := bodyOf(t, mustLookup(t, tt.backend).WithUsage(UsageNone), "http://127.0.0.1:8000", "", &tt.req)
			got := body
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tt.body) {
				t.Errorf("got  %s\nwant %s", got, tt.body)
			}
		})
	}
}

func TestRequestIDHeaderWinsOverExtraHeaders(t *testing.T) {
	req := Request{Prompt: "hi", RequestID: "bench-1a2b3c4d-7", Headers: map[string][]string{"X-Request-Id": {"mine"}, "X-Other": {"o"}}}
	hr, err := mustLookup(t, "openai").BuildRequest(context.Background(), "http://127.0.0.1:8000", "", &req)
	if err != nil {
		t.Fatal(err)
	}
	if got := hr.Header.Values("X-Request-Id"); len(got) != 1 || got[0] != "bench-1a2b3c4d-7" {
		t.Errorf("x-request-id = %q", got)
	}
	if hr.Header.Get("X-Other") != "o" {
		t.Errorf("other headers lost: %v", hr.Header)
	}
}

func TestReadStreamKeepsTheAnswerText(t *testing.T) {
	tests := []struct {
		backend, file, want string
	}{
		// The role-only and reasoning deltas are not answer text.
		{"openai-chat", "openai_chat_continuous.sse", "Hi there"},
		{"openai", "openai_completions_continuous.sse", " Hello, world of!"},
		{"llamacpp", "llamacpp.sse", "Hello world! How"},
		{"ollama", "ollama.ndjson", "Hello world"},
		// TGI's last event carries the whole text.
		{"tgi", "tgi.sse", "Hello,"},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			f, err := os.Open("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			rec, _ := readAll(mustLookup(t, tt.backend).WithText(), f)
			if rec.Text != tt.want {
				t.Errorf("text = %q, want %q", rec.Text, tt.want)
			}
		})
	}
}

func TestReadStreamKeepsNoTextUnasked(t *testing.T) {
	f, err := os.Open("testdata/openai_completions_continuous.sse")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if rec, _ := readAll(mustLookup(t, "openai"), f); rec.Text != "" {
		t.Errorf("text = %q without WithText", rec.Text)
	}
}

func TestReadStreamUnescapesText(t *testing.T) {
	body := "data: {\"choices\":[{\"text\":\"a\\\"b\\u00e9\\n\"}]}\n\ndata: [DONE]\n\n"
	rec, _ := readAll(mustLookup(t, "openai").WithText(), strings.NewReader(body))
	if rec.Text != "a\"bé\n" {
		t.Errorf("text = %q", rec.Text)
	}
}
