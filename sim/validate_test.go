package sim

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
)

func TestCheckLengths(t *testing.T) {
	const maxLen = 100
	tests := []struct {
		name             string
		prompt, max, min int
		want             int    // resolved max_tokens when accepted
		wantErr          string // "" means accepted
	}{
		{"fits exactly", 40, 60, 0, 60, ""},
		{"max_tokens not given: the rest of the context", 40, 0, 0, 60, ""},
		{"min_tokens equal to max", 10, 5, 5, 5, ""},
		{"one token over", 40, 61, 0, 0, "you requested 101 tokens (40 in the input, 61 in the completion)"},
		// The sum of the two overflows an int64: it must be refused with
		// the true total, not wrap around to a negative number and pass.
		{"max_tokens the largest int", 2, math.MaxInt64, 0, 0, "you requested 9223372036854775809 tokens (2 in the input, 9223372036854775807 in the completion)"},
		{"max_tokens just below the largest int", 1, math.MaxInt64 - 1, 0, 0, "maximum context length is 100 tokens"},
		{"prompt fills the context", 100, 1, 0, 0, "your request has 100 input tokens"},
		{"prompt the largest int", math.MaxInt64, 1, 0, 0, "your request has 9223372036854775807 input tokens"},
		{"empty prompt", 0, 5, 0, 0, "the prompt is empty"},
		{"negative max_tokens", 5, -1, 0, 0, "max_tokens must be at least 1, got -1"},
		{"smallest int max_tokens", 5, math.MinInt64, 0, 0, "max_tokens must be at least 1"},
		{"negative min_tokens", 5, 5, -1, 0, "min_tokens must be greater than or equal to 0"},
		{"largest int min_tokens", 5, 5, math.MaxInt64, 0, "min_tokens must be less than or equal to max_tokens=5"},
	}
	for _, tt := range tests {
		got, err := checkLengths(tt.prompt, tt.max, tt.min, maxLen)
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("%s: %d, %v; want %d", tt.name, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: %d, %v; want an error with %q", tt.name, got, err, tt.wantErr)
		}
	}
}

// TestHugeMaxTokensIsRefused sends the request that once crashed the
// simulator (its prompt length plus max_tokens overflowed an int, passed the
// context-length check and sized a block table of negative capacity) to a
// running engine. It must be a 400 with vLLM's message, and the engine must
// go on serving.
func TestHugeMaxTokensIsRefused(t *testing.T) {
	_, ts := startServer(t, Options{ServedModelName: "Llama-3.1-8B"})
	for _, body := range []string{
		`{"model":"Llama-3.1-8B","prompt":"hi","max_tokens":9223372036854775807,"ignore_eos":true}`,
		`{"model":"Llama-3.1-8B","prompt":"hi","max_tokens":9223372036854775807,"ignore_eos":true,"stream":true}`,
		`{"model":"Llama-3.1-8B","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":9223372036854775807}`,
		`{"model":"Llama-3.1-8B","prompt":"hi","max_tokens":9223372036854775806,"min_tokens":9223372036854775806}`,
	} {
		endpoint := "/v1/completions"
		if strings.Contains(body, "messages") {
			endpoint = "/v1/chat/completions"
		}
		resp, err := http.Post(ts.URL+endpoint, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		var e errorBody
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(e.Error.Message, "maximum context length is 131072 tokens") {
			t.Errorf("%s: %d %+v (%v); want 400 with the maximum context length", body, resp.StatusCode, e.Error, err)
		}
	}
	// Still serving.
	var out any
	code := postJSON(t, ts.URL+"/v1/completions", `{"prompt":"hi","max_tokens":3,"ignore_eos":true}`, &out)
	if code != http.StatusOK || num(path(out, "usage", "completion_tokens")) != 3 {
		t.Errorf("after the refusals: %d %v; want 200 with 3 tokens", code, out)
	}
}

func TestVirtualHugeMaxTokensIsRefused(t *testing.T) {
	recs, err := RunVirtual(Options{}, []VirtualRequest{
		{PromptTokens: 2, MaxTokens: math.MaxInt64, IgnoreEOS: true},
		{PromptTokens: math.MaxInt64, MaxTokens: 1},
		{PromptTokens: 2, MaxTokens: 3, IgnoreEOS: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"you requested 9223372036854775809 tokens", "your request has 9223372036854775807 input tokens"} {
		if r := recs[i]; r.Status != http.StatusBadRequest || !strings.Contains(r.Msg, want) {
			t.Errorf("request %d: status %d %q; want 400 with %q", i, r.Status, r.Msg, want)
		}
	}
	if r := recs[2]; !r.OK() || r.OutputTokens != 3 {
		t.Errorf("the request after them: %+v; want 3 tokens", r)
	}
}

func TestCeilDiv(t *testing.T) {
	tests := []struct{ a, b, want int }{
		{0, 16, 0},
		{1, 16, 1},
		{16, 16, 1},
		{17, 16, 2},
		{math.MaxInt64, 16, math.MaxInt64/16 + 1}, // a + b − 1 would overflow
		{math.MaxInt64, 1, math.MaxInt64},
	}
	for _, tt := range tests {
		if got := ceilDiv(tt.a, tt.b); got != tt.want {
			t.Errorf("ceilDiv(%d, %d) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
