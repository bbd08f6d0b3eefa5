package backend

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// bodyOf builds req with the named adapter and returns the URL and body.
func bodyOf(t *testing.T, a *Adapter, base, endpoint string, req *Request) (string, string, error) {
	t.Helper()
	hr, err := a.BuildRequest(context.Background(), base, endpoint, req)
	if err != nil {
		return "", "", err
	}
	b, err := io.ReadAll(hr.Body)
	if err != nil {
		t.Fatal(err)
	}
	return hr.URL.String(), strings.TrimSpace(string(b)), nil
}

// A chat request with tools sends them as they are, with tool_choice
// "auto", as vLLM sends the BFCL dataset's; --extra-body still has the
// last word.
func TestBuildRequestTools(t *testing.T) {
	tools := json.RawMessage(`[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]`)
	req := &Request{Model: "m", Messages: []Message{{"system", "s"}, {"user", "u"}}, Tools: tools, MaxTokens: 8}
	_, body, err := bodyOf(t, mustLookup(t, "openai-chat"), "http://127.0.0.1:8000", "", req)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Messages   []Message       `json:"messages"`
		Tools      json.RawMessage `json:"tools"`
		ToolChoice string          `json:"tool_choice"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || string(got.Tools) != string(tools) || got.ToolChoice != "auto" || len(got.Messages) != 2 {
		t.Fatalf("body %s (%v)", body, err)
	}
	req.Extra = map[string]any{"tool_choice": "required"}
	if _, body, _ = bodyOf(t, mustLookup(t, "openai-chat"), "http://127.0.0.1:8000", "", req); !strings.Contains(body, `"tool_choice":"required"`) {
		t.Errorf("--extra-body's tool_choice lost: %s", body)
	}
}

// The chat output limit goes in the field --max-tokens-field names;
// completions always send max_tokens, their only field, and a request
// without a limit sends neither.
func TestBuildRequestMaxTokensField(t *testing.T) {
	const base = "http://127.0.0.1:8000"
	tests := []struct {
		name    string
		backend string
		field   MaxTokensField
		max     int
		body    string
	}{
		// the default, as vLLM's benchmark client sends it
		{"chat, max_completion_tokens", "openai-chat", LimitMaxCompletionTokens, 8,
			`{"max_completion_tokens":8,"messages":[{"role":"user","content":"hi"}],"stream":true}`},
		// for Ollama's /v1 and older TGI, which read only max_tokens
		{"chat, max_tokens", "openai-chat", LimitMaxTokens, 8,
			`{"max_tokens":8,"messages":[{"role":"user","content":"hi"}],"stream":true}`},
		{"chat, both", "openai-chat", LimitBoth, 8,
			`{"max_completion_tokens":8,"max_tokens":8,"messages":[{"role":"user","content":"hi"}],"stream":true}`},
		{"chat without a limit sends neither", "openai-chat", LimitBoth, 0,
			`{"messages":[{"role":"user","content":"hi"}],"stream":true}`},
		{"completions keep max_tokens", "openai", LimitBoth, 8,
			`{"max_tokens":8,"prompt":"hi","stream":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustLookup(t, tt.backend).WithUsage(UsageNone).WithMaxTokensField(tt.field)
			if a.MaxTokensField() != tt.field {
				t.Fatalf("field %v, want %v", a.MaxTokensField(), tt.field)
			}
			_, body, err := bodyOf(t, a, base, "", &Request{Prompt: "hi", MaxTokens: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			if body != tt.body {
				t.Fatalf("body %s\nwant %s", body, tt.body)
			}
		})
	}
}

func TestParseMaxTokensField(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want MaxTokensField
		err  string
	}{
		{"max_completion_tokens", LimitMaxCompletionTokens, ""},
		{"max_tokens", LimitMaxTokens, ""},
		{"both", LimitBoth, ""},
		// empty and misspelt values are refused, naming the choices
		{"", 0, `"": want max_completion_tokens, max_tokens or both`},
		{"max-tokens", 0, `"max-tokens": want max_completion_tokens, max_tokens or both`},
	} {
		got, err := ParseMaxTokensField(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want || got.String() != tt.in {
			t.Errorf("%q: %v (%s), %v; want %v", tt.in, got, got, err, tt.want)
		}
	}
}

func TestBuildRequestBodies(t *testing.T) {
	const base = "http://127.0.0.1:8000"
	tests := []struct {
		name    string
		backend string
		usage   UsageMode
		req     Request
		url     string
		body    string
	}{
		{"completions, continuous usage", "openai", UsageContinuous,
			Request{Model: "m", Prompt: "hi", MaxTokens: 16},
			base + "/v1/completions",
			`{"max_tokens":16,"model":"m","prompt":"hi","stream":true,"stream_options":{"continuous_usage_stats":true,"include_usage":true}}`},
		{"completions with token ids and vLLM extras", "openai", UsageFinal,
			Request{Prompt: "ignored", PromptTokenIDs: []int{1, 2, 3}, MaxTokens: 8, MinTokens: 8, IgnoreEOS: true},
			base + "/v1/completions",
			`{"ignore_eos":true,"max_tokens":8,"min_tokens":8,"prompt":[1,2,3],"stream":true,"stream_options":{"include_usage":true}}`},
		{"completions without stream_options", "openai", UsageNone,
			Request{Prompt: "hi"},
			base + "/v1/completions",
			`{"prompt":"hi","stream":true}`},
		{"chat from a prompt", "openai-chat", UsageContinuous,
			Request{Model: "m", Prompt: "<|im_start|>hi & bye", MaxTokens: 4},
			base + "/v1/chat/completions",
			`{"max_completion_tokens":4,"messages":[{"role":"user","content":"<|im_start|>hi & bye"}],"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true,"include_usage":true}}`},
		{"chat from messages", "openai-chat", UsageNone,
			Request{Prompt: "ignored", Messages: []Message{{"system", "be brief"}, {"user", "hi"}}},
			base + "/v1/chat/completions",
			`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}],"stream":true}`},
		{"TGI", "tgi", UsageContinuous,
			Request{Model: "not sent", Prompt: "hi", MaxTokens: 32},
			base + "/generate_stream",
			`{"inputs":"hi","parameters":{"details":true,"max_new_tokens":32}}`},
		{"TGI with text and ids uses the text", "tgi", UsageContinuous,
			Request{Prompt: "hi", PromptTokenIDs: []int{5}},
			base + "/generate_stream",
			`{"inputs":"hi","parameters":{"details":true}}`},
		{"llama.cpp with token ids", "llamacpp", UsageContinuous,
			Request{PromptTokenIDs: []int{0, 7}, MaxTokens: 3, IgnoreEOS: true},
			base + "/completion",
			`{"ignore_eos":true,"n_predict":3,"prompt":[0,7],"return_tokens":true,"stream":true}`},
		{"llama.cpp with text and a model", "llamacpp", UsageContinuous,
			Request{Model: "q", Prompt: "hi"},
			base + "/completion",
			`{"model":"q","prompt":"hi","return_tokens":true,"stream":true}`},
		{"Ollama", "ollama", UsageContinuous,
			Request{Model: "llama3.2", Prompt: "hi", MaxTokens: 5},
			base + "/api/generate",
			`{"model":"llama3.2","options":{"num_predict":5},"prompt":"hi","stream":true}`},
		{"Ollama without a cap", "ollama", UsageContinuous,
			Request{Model: "llama3.2", Prompt: "hi"},
			base + "/api/generate",
			`{"model":"llama3.2","prompt":"hi","stream":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustLookup(t, tt.backend).WithUsage(tt.usage)
			url, body, err := bodyOf(t, a, base, "", &tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if url != tt.url || body != tt.body {
				t.Fatalf("got %s\n%s\nwant %s\n%s", url, body, tt.url, tt.body)
			}
		})
	}
}

func TestBuildRequestExtra(t *testing.T) {
	extra, err := ParseExtra(`{"temperature":0,"seed":12345678901234567890,"stream_options":{"continuous_usage_stats":null},"max_completion_tokens":null,"max_tokens":9,"options":{"top_k":1}}`)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := json.Marshal(extra)
	tests := []struct {
		name    string
		backend string
		req     Request
		body    string
	}{
		// Keys are added, objects merge, null deletes; a 20-digit seed
		// survives exactly.
		{"chat", "openai-chat", Request{Prompt: "hi", MaxTokens: 4, Extra: extra},
			`{"max_tokens":9,"messages":[{"role":"user","content":"hi"}],"options":{"top_k":1},"seed":12345678901234567890,"stream":true,"stream_options":{"include_usage":true},"temperature":0}`},
		// Extra merges into Ollama's own options object.
		{"ollama", "ollama", Request{Model: "m", Prompt: "hi", MaxTokens: 4, Extra: extra},
			`{"max_tokens":9,"model":"m","options":{"num_predict":4,"top_k":1},"prompt":"hi","seed":12345678901234567890,"stream":true,"stream_options":{},"temperature":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the same Extra serves every request
				_, body, err := bodyOf(t, mustLookup(t, tt.backend), "http://127.0.0.1:1", "", &tt.req)
				if err != nil {
					t.Fatal(err)
				}
				if body != tt.body {
					t.Fatalf("body\n%s\nwant\n%s", body, tt.body)
				}
			}
		})
	}
	if after, _ := json.Marshal(extra); string(after) != string(before) {
		t.Fatalf("BuildRequest modified Extra: %s, was %s", after, before)
	}
}

func TestBuildRequestHeaders(t *testing.T) {
	a := mustLookup(t, "openai")
	h := http.Header{"Authorization": {"Bearer sk-1"}, "Accept": {"*/*"}, "X-Trace": {"a", "b"}, "Host": {"api.example"}}
	hr, err := a.BuildRequest(context.Background(), "http://127.0.0.1:1", "", &Request{Prompt: "hi", Headers: h})
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{
		"Authorization":   {"Bearer sk-1"},
		"Accept":          {"*/*"}, // the caller's replaces the adapter's
		"Accept-Encoding": {"identity"},
		"Content-Type":    {"application/json"},
		"X-Trace":         {"a", "b"},
	}
	// GetBody lets the transport resend the body when a kept-alive
	// connection turns out to be closed before anything was written.
	if !reflect.DeepEqual(hr.Header, want) || hr.Method != http.MethodPost || hr.GetBody == nil || hr.Host != "api.example" {
		t.Fatalf("%s to host %q with headers %v (GetBody set: %v), want POST to api.example with %v", hr.Method, hr.Host, hr.Header, hr.GetBody != nil, want)
	}
}

func TestBuildRequestErrors(t *testing.T) {
	const base = "http://127.0.0.1:8000"
	tests := []struct {
		name     string
		backend  string
		base     string
		endpoint string
		req      Request
		want     string
	}{
		{"empty prompt", "openai", base, "", Request{}, "backend openai: request has no prompt"},
		{"empty prompt on llama.cpp", "llamacpp", base, "", Request{}, "backend llamacpp: request has no prompt"},
		{"empty token ids and prompt on llama.cpp", "llamacpp", base, "", Request{PromptTokenIDs: []int{}}, "backend llamacpp: request has no prompt"},
		{"empty prompt on chat", "openai-chat", base, "", Request{}, "backend openai-chat: request has no prompt"},
		{"negative max tokens", "openai", base, "", Request{Prompt: "x", MaxTokens: -1}, "max tokens -1 is negative"},
		{"negative min tokens", "openai", base, "", Request{Prompt: "x", MinTokens: -2}, "min tokens -2 is negative"},
		{"min above max", "openai", base, "", Request{Prompt: "x", MinTokens: 9, MaxTokens: 8}, "min tokens 9 exceeds max tokens 8"},
		{"negative token id", "openai", base, "", Request{PromptTokenIDs: []int{1, -5}}, "prompt token id -5 at position 1 is negative"},
		{"message without a role", "openai-chat", base, "", Request{Messages: []Message{{Content: "x"}}}, "message 0 has no role"},
		{"messages on completions", "openai", base, "", Request{Messages: []Message{{"user", "x"}}}, "messages need a chat endpoint"},
		{"messages on llama.cpp", "llamacpp", base, "", Request{Messages: []Message{{"user", "x"}}}, "messages need a chat endpoint"},
		{"messages on TGI", "tgi", base, "", Request{Messages: []Message{{"user", "x"}}}, "messages need a chat endpoint"},
		{"tools on completions", "openai", base, "", Request{Prompt: "x", Tools: json.RawMessage(`[]`)}, "tools need the chat completions API (backend openai-chat)"},
		{"tools on responses", "openai-responses", base, "", Request{Messages: []Message{{"user", "x"}}, Tools: json.RawMessage(`[{}]`)}, "tools need the chat completions API"},
		{"ids only on chat", "openai-chat", base, "", Request{PromptTokenIDs: []int{1}}, "prompt token ids need a completions endpoint"},
		{"ids only on TGI", "tgi", base, "", Request{PromptTokenIDs: []int{1}}, "prompt token ids are not supported by tgi (/generate_stream)"},
		{"ids only on Ollama", "ollama", base, "", Request{Model: "m", PromptTokenIDs: []int{1}}, "prompt token ids are not supported by ollama"},
		{"ignore eos on TGI", "tgi", base, "", Request{Prompt: "x", IgnoreEOS: true}, "ignore eos (--ignore-eos) is not supported by tgi (/generate_stream); send what the server accepts with --extra-body"},
		{"min tokens on TGI", "tgi", base, "", Request{Prompt: "x", MinTokens: 1}, "min tokens (--min-tokens) is not supported by tgi"},
		{"min tokens on llama.cpp", "llamacpp", base, "", Request{Prompt: "x", MinTokens: 1}, "min tokens (--min-tokens) is not supported by llamacpp"},
		{"ignore eos on Ollama", "ollama", base, "", Request{Model: "m", Prompt: "x", IgnoreEOS: true}, "ignore eos (--ignore-eos) is not supported by ollama"},
		{"min tokens on Ollama", "ollama", base, "", Request{Model: "m", Prompt: "x", MinTokens: 1}, "min tokens (--min-tokens) is not supported by ollama"},
		{"Ollama without a model", "ollama", base, "", Request{Prompt: "x"}, "ollama needs a model name (--model)"},
		{"base without a scheme", "openai", "127.0.0.1:8000", "", Request{Prompt: "x"}, `base url "127.0.0.1:8000"`},
		{"base with another scheme", "openai", "ftp://h", "", Request{Prompt: "x"}, `base url "ftp://h": want an http:// or https:// url`},
		{"base without a host", "openai", "http://", "", Request{Prompt: "x"}, `base url "http://": no host`},
		{"base that does not parse", "openai", "http://h:port", "", Request{Prompt: "x"}, `base url "http://h:port": parse`},
		{"endpoint with a host", "openai", base, "http://other/v1/completions", Request{Prompt: "x"}, `endpoint "http://other/v1/completions": want a path such as /v1/completions`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := bodyOf(t, mustLookup(t, tt.backend), tt.base, tt.endpoint, &tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "backend "+tt.backend+": ") {
				t.Fatalf("error %q does not name the backend", err)
			}
		})
	}
}

func TestAdapterURL(t *testing.T) {
	a := mustLookup(t, "openai")
	tests := []struct {
		base, endpoint, want string
	}{
		{"http://127.0.0.1:8000", "", "http://127.0.0.1:8000/v1/completions"},                                          // default endpoint
		{"http://127.0.0.1:8000/", "/v1/completions", "http://127.0.0.1:8000/v1/completions"},                          // trailing slash
		{"http://127.0.0.1:8000/v1", "/v1/completions", "http://127.0.0.1:8000/v1/completions"},                        // OpenAI SDK style base
		{"http://127.0.0.1:8000/v1/", "/v1/completions", "http://127.0.0.1:8000/v1/completions"},                       // and with a slash
		{"https://h/proxy", "v1/completions", "https://h/proxy/v1/completions"},                                        // missing leading slash
		{"https://h/openai?api-version=1", "/v1/completions?x=2", "https://h/openai/v1/completions?api-version=1&x=2"}, // queries kept
		{"http://h/v1", "/generate", "http://h/v1/generate"},                                                           // /v1 kept for other paths
	}
	for _, tt := range tests {
		got, err := a.URL(tt.base, tt.endpoint)
		if err != nil || got != tt.want {
			t.Errorf("URL(%q, %q) = %q, %v; want %q", tt.base, tt.endpoint, got, err, tt.want)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name, want, endpoint string
	}{
		{"openai", "openai", "/v1/completions"},
		{"openai-chat", "openai-chat", "/v1/chat/completions"},
		{"tgi", "tgi", "/generate_stream"},
		{"llamacpp", "llamacpp", "/completion"},
		{"ollama", "ollama", "/api/generate"},
		{"vllm", "openai", "/v1/completions"},   // vllm bench serve's name
		{"sglang", "openai", "/v1/completions"}, // likewise
		// benchmark_serving.py's names of OpenAI completions, llama.cpp's
		// included: its /v1/completions, not llamacpp's /completion.
		{"lmdeploy", "openai", "/v1/completions"},
		{"scalellm", "openai", "/v1/completions"},
		{"llama.cpp", "openai", "/v1/completions"},
	}
	for _, tt := range tests {
		a, err := Lookup(tt.name)
		if err != nil || a.Name() != tt.want || a.Endpoint() != tt.endpoint || a.Usage() != UsageContinuous {
			t.Errorf("Lookup(%q) = %v, %v", tt.name, a, err)
		}
	}
	for _, bad := range []string{"", "OpenAI", "openai ", "triton"} {
		_, err := Lookup(bad)
		want := `unknown backend "` + bad + `" (want one of llamacpp, ollama, openai, openai-chat, openai-responses, tgi)`
		if err == nil || err.Error() != want {
			t.Errorf("Lookup(%q) error %v, want %q", bad, err, want)
		}
	}
	// A copy per lookup: changing one does not change the registry.
	a := mustLookup(t, "openai")
	b := a.WithUsage(UsageNone)
	if a.Usage() != UsageContinuous || b.Usage() != UsageNone || mustLookup(t, "openai").Usage() != UsageContinuous {
		t.Fatal("WithUsage changed the original or the registry")
	}
}
