package sweeprun

import (
	"testing"

	"github.com/goodput-dev/goodput/bench"
)

// The simulator's front end renders a chat template for requests to the
// chat and Responses endpoints, by the backend's own path or the one given.
func TestChatEndpoint(t *testing.T) {
	for _, tt := range []struct {
		backend, endpoint string
		chat              bool
	}{
		{"openai", "", false},
		{"openai-chat", "", true},
		{"openai-responses", "", true},
		{"openai", "/v1/chat/completions", true},
		{"openai", "/v1/responses", true},
		{"openai-chat", "/v1/completions", false},
		{"llamacpp", "", false},
	} {
		cfg := bench.DefaultConfig()
		cfg.Backend, cfg.Endpoint = tt.backend, tt.endpoint
		if got := chatEndpoint(cfg); got != tt.chat {
			t.Errorf("backend %s, endpoint %q: chat %v, want %v", tt.backend, tt.endpoint, got, tt.chat)
		}
	}
}
