package backend

import (
	"strings"
	"testing"
)

// An endpoint that is another protocol's API is refused before the run,
// naming the backend that speaks it; a path no API owns is taken.
func TestCheckEndpoint(t *testing.T) {
	tests := []struct {
		backend, endpoint string
		want              string // in the error; "" for none
	}{
		{"openai", "", ""},
		{"openai", "/v1/completions", ""},
		{"vllm", "/v1/completions", ""},
		{"openai-chat", "/v1/chat/completions", ""},
		{"openai-chat", "/v1/chat/completions/", ""},
		{"openai-chat", "/openai/deployments/x/chat/completions?api-version=2024-06-01", ""},
		{"openai-responses", "/v1/responses", ""},
		{"llamacpp", "/completion", ""},
		{"tgi", "/generate_stream", ""},
		{"ollama", "/api/generate", ""},
		// A gateway's own path names no API.
		{"openai", "/gateway/llm", ""},
		{"openai-chat", "/invocations", ""},

		{"openai", "/v1/chat/completions", "--endpoint /v1/chat/completions is the API of --backend openai-chat, which takes chat requests (messages); --backend openai sends completions requests (a prompt): give --backend openai-chat, or leave --endpoint out for openai's own (/v1/completions)"},
		{"vllm", "/v1/chat/completions", "--backend vllm sends completions requests (a prompt): give --backend openai-chat, or leave --endpoint out for vllm's own (/v1/completions)"},
		{"openai-chat", "/v1/completions", "is the API of --backend openai, which takes completions requests (a prompt)"},
		{"openai-chat", "/v1/responses", "give --backend openai-responses"},
		{"llamacpp", "/v1/completions", "--backend llamacpp sends llama.cpp's native /completion requests"},
		{"openai", "/completion", "give --backend llamacpp"},
		{"tgi", "/v1/chat/completions", "give --backend openai-chat"},
		{"ollama", "/v1/completions", "give --backend openai"},
	}
	for _, tt := range tests {
		a, err := Lookup(tt.backend)
		if err != nil {
			t.Fatal(err)
		}
		err = a.CheckEndpoint(tt.endpoint)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %q: %v", tt.backend, tt.endpoint, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %q: error %v, want one saying %q", tt.backend, tt.endpoint, err, tt.want)
		}
	}
}

// A base URL that ends in an API's path has had the endpoint written into
// it.
func TestAPIPath(t *testing.T) {
	for path, want := range map[string]string{
		"":                          "",
		"/":                         "",
		"/v1":                       "",
		"/proxy":                    "",
		"/v1/chat/completions":      "/v1/chat/completions",
		"/v1/chat/completions/":     "/v1/chat/completions",
		"/proxy/v1/completions":     "/v1/completions",
		"/completion":               "/completion",
		"/x/chat/completions":       "/chat/completions",
		"/api/generate":             "/api/generate",
		"/generate_stream":          "/generate_stream",
		"/openai/v1/responses":      "/v1/responses",
		"/v1/completions-dashboard": "",
	} {
		if got := APIPath(path); got != want {
			t.Errorf("APIPath(%q) = %q, want %q", path, got, want)
		}
	}
}
