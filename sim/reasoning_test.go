package sim

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
)

func TestParseReasoning(t *testing.T) {
	tests := []struct {
		in   string
		want Reasoning
		str  string
	}{
		{"256", Reasoning{Min: 256, Max: 256}, "256"},                           // fixed
		{" 100-400 ", Reasoning{Min: 100, Max: 400}, "100-400"},                 // drawn per reply
		{"30%", Reasoning{Percent: 30}, "30%"},                                  // a share
		{"100%", Reasoning{Percent: 100}, "100%"},                               // all of it
		{"12.5 %", Reasoning{Percent: 12.5}, "12.5%"},                           // a fractional share
		{"off", Reasoning{}, "off"},                                             // the zero value
		{"", Reasoning{}, "off"},                                                // unset
		{"0", Reasoning{}, "off"},                                               // no tokens
		{"0-8", Reasoning{Min: 0, Max: 8}, "0-8"},                               // some replies do not think
		{"7-7", Reasoning{Min: 7, Max: 7}, "7"},                                 // a range of one
		{"NONE", Reasoning{}, "off"},                                            // case does not matter
		{"2147483647", Reasoning{Min: 1<<31 - 1, Max: 1<<31 - 1}, "2147483647"}, // large
	}
	for _, tt := range tests {
		got, err := ParseReasoning(tt.in)
		if err != nil || got != tt.want || got.String() != tt.str {
			t.Errorf("ParseReasoning(%q) = %+v (%q), %v; want %+v (%q)", tt.in, got, got.String(), err, tt.want, tt.str)
		}
		back, err := ParseReasoning(got.String())
		if err != nil || back != got {
			t.Errorf("%q reads back as %+v, %v", got.String(), back, err)
		}
	}
	bad := []struct{ in, want string }{
		{"-5", "want N (tokens)"},             // negative
		{"400-100", "runs backwards"},         // reversed
		{"0.3", "want N (tokens)"},            // a share needs its %
		{"0%", "above 0% and at most 100%"},   // nothing
		{"150%", "above 0% and at most 100%"}, // more than the reply
		{"abc", "want N (tokens)"},            // not a number
		{"5-", "want N (tokens)"},             // an open range
		{"NaN%", "above 0% and at most 100%"}, // not a share
		{"99999999999999999999", "want N"},    // overflow
		{"1-2-3", "want N (tokens)"},          // two dashes
	}
	for _, tt := range bad {
		if _, err := ParseReasoning(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseReasoning(%q) error %v, want it to say %q", tt.in, err, tt.want)
		}
	}
}

func TestReasoningTokens(t *testing.T) {
	tests := []struct {
		name    string
		r       Reasoning
		length  int
		stopped bool
		want    int
	}{
		{"fixed", Reasoning{Min: 5, Max: 5}, 20, true, 5},
		{"fixed, cut off at max_tokens first: all thinking", Reasoning{Min: 50, Max: 50}, 20, false, 20},
		{"fixed, the model stopped first: the last token answers", Reasoning{Min: 50, Max: 50}, 20, true, 19},
		{"one-token reply that stopped: no room to think", Reasoning{Min: 5, Max: 5}, 1, true, 0},
		{"share, rounded", Reasoning{Percent: 30}, 25, false, 8}, // 7.5 rounds up
		{"share of everything, stopped", Reasoning{Percent: 100}, 10, true, 9},
		{"off", Reasoning{}, 100, true, 0},
		{"empty reply", Reasoning{Min: 5, Max: 5}, 0, false, 0},
	}
	for _, tt := range tests {
		if got := tt.r.tokens(tt.length, tt.stopped, 1, 7); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
	// A range: every draw in bounds, every value reached, the same draw
	// for the same seed and request.
	r := Reasoning{Min: 3, Max: 6}
	seen := map[int]bool{}
	for id := range int64(400) {
		n := r.tokens(1000, true, 42, id)
		if n < 3 || n > 6 || n != r.tokens(1000, true, 42, id) {
			t.Fatalf("request %d: %d reasoning tokens", id, n)
		}
		seen[n] = true
	}
	if len(seen) != 4 {
		t.Errorf("draws %v, want all of 3 to 6", seen)
	}
}

// A profile file's model can reason; a bad spec names its line.
func TestProfileFileReasoning(t *testing.T) {
	file := `model:
  name: thinker-7b
  layers: 28
  hidden_size: 3584
  num_heads: 28
  num_kv_heads: 4
  head_dim: 128
  params_b: 7.6
  dtype_bytes: 2
  max_model_len: 32768
  reasoning: 30%
`
	p, err := ParseProfile("thinker.yaml", []byte(file), Profile{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Model.Reasoning != (Reasoning{Percent: 30}) {
		t.Errorf("reasoning %+v", p.Model.Reasoning)
	}
	_, err = ParseProfile("thinker.yaml", []byte(strings.Replace(file, "30%", "9-3", 1)), Profile{})
	if err == nil || !strings.Contains(err.Error(), "thinker.yaml") || !strings.Contains(err.Error(), "line 11") || !strings.Contains(err.Error(), "runs backwards") {
		t.Errorf("bad spec: %v", err)
	}
	o := Options{Profile: fastProfile(t)}
	o.Profile.Model.Reasoning = Reasoning{Min: 9, Max: 3}
	if _, err := New(o); err == nil || !strings.Contains(err.Error(), "runs backwards") {
		t.Errorf("New with a backwards range: %v", err)
	}
}

// reasoningServer serves a fast model that thinks for its first think
// tokens.
func reasoningServer(t *testing.T, r Reasoning) string {
	t.Helper()
	o := Options{Profile: fastProfile(t), Seed: 3}
	o.Profile.Model.Reasoning = r
	s, ts := startServer(t, o)
	if !strings.Contains(s.Info().String(), "reasoning: the first") {
		t.Errorf("the banner does not say the model reasons:\n%s", s.Info())
	}
	return ts.URL
}

// read sends one request through goodput's own client code and reads its
// record.
func read(t *testing.T, url, name string, req backend.Request) *record.Record {
	t.Helper()
	a, err := backend.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hreq, err := a.BuildRequest(ctx, url, "", &req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	epoch := time.Now()
	rec := &record.Record{}
	a.ReadStream(resp, func() int64 { return int64(time.Since(epoch)) }, rec)
	if rec.Error != "" {
		t.Fatalf("%s: %s", rec.Error, rec.Msg)
	}
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
	return rec
}

// The chat endpoint streams the first tokens as reasoning in vLLM's
// format, and its usage counts them; both usage modes give the client the
// same record.
func TestChatStreamsReasoningFirst(t *testing.T) {
	url := reasoningServer(t, Reasoning{Min: 12, Max: 12})
	for _, mode := range []backend.UsageMode{backend.UsageContinuous, backend.UsageFinal} {
		a, _ := backend.Lookup("openai-chat")
		a = a.WithUsage(mode)
		ctx := context.Background()
		hreq, err := a.BuildRequest(ctx, url, "", &backend.Request{Prompt: "think, then answer", MaxTokens: 30, IgnoreEOS: true})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(hreq)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		rec := &record.Record{}
		a.ReadStream(resp, func() int64 { n++; return n }, rec)
		if rec.Error != "" {
			t.Fatalf("%s: %s: %s", mode, rec.Error, rec.Msg)
		}
		var flags []bool
		for _, c := range rec.Chunks {
			flags = append(flags, c.Reasoning)
		}
		want := make([]bool, 30)
		for i := range 12 {
			want[i] = true
		}
		if len(flags) != 30 {
			t.Fatalf("%s: %d chunks", mode, len(flags))
		}
		for i := range want {
			if flags[i] != want[i] {
				t.Fatalf("%s: reasoning chunks %v, want the first 12 of 30", mode, flags)
			}
		}
		if rec.OutputTokens != 30 || rec.ReasoningTokens != 12 || rec.ReasoningSource != record.SourceUsage {
			t.Errorf("%s: out %d, reasoning %d (%s); want 30, 12 from usage", mode, rec.OutputTokens, rec.ReasoningTokens, rec.ReasoningSource)
		}
	}
}

// Completions carry no reasoning field in vLLM: the thinking is text.
func TestCompletionsStreamThinkingAsText(t *testing.T) {
	url := reasoningServer(t, Reasoning{Min: 12, Max: 12})
	rec := read(t, url, "openai", backend.Request{Prompt: "think", MaxTokens: 20, IgnoreEOS: true})
	if rec.ReasoningTokens != 0 || rec.OutputTokens != 20 {
		t.Errorf("completions: reasoning %d of %d, want 0 of 20", rec.ReasoningTokens, rec.OutputTokens)
	}
}

// A reply that stops by itself before its thinking is done still answers
// with its last token; one cut off at max_tokens is all thinking.
func TestChatReasoningMeetsTheReplyEnd(t *testing.T) {
	url := reasoningServer(t, Reasoning{Min: 500, Max: 500})
	rec := read(t, url, "openai-chat", backend.Request{Prompt: "think long", MaxTokens: 16, IgnoreEOS: true})
	if a, ok := rec.FirstAnswer(); ok || rec.ReasoningTokens != 16 {
		t.Errorf("cut off: first answer %d (%v), reasoning %d; want none and 16", a, ok, rec.ReasoningTokens)
	}
	rec = read(t, url, "openai-chat", backend.Request{Prompt: "think long", MaxTokens: 4000})
	last := rec.Chunks[len(rec.Chunks)-1]
	if rec.Finish != "stop" || last.Reasoning || rec.ReasoningTokens != rec.OutputTokens-1 {
		t.Errorf("stopped: finish %q, last chunk reasoning %v, %d of %d reasoning; want the last token answering",
			rec.Finish, last.Reasoning, rec.ReasoningTokens, rec.OutputTokens)
	}
}

// A whole (not streamed) chat answer puts the thinking in
// message.reasoning and counts it in the usage.
func TestChatWholeAnswerReasoning(t *testing.T) {
	url := reasoningServer(t, Reasoning{Percent: 50})
	body := `{"model":"Qwen2.5-0.5B","messages":[{"role":"user","content":"hi"}],"max_tokens":10,"ignore_eos":true}`
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var out struct {
		Choices []struct {
			Message struct {
				Content   string  `json:"content"`
				Reasoning *string `json:"reasoning"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
			Details          struct {
				ReasoningTokens int `json:"reasoning_tokens"`
			} `json:"completion_tokens_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(out.Choices) != 1 || out.Choices[0].Message.Reasoning == nil || *out.Choices[0].Message.Reasoning == "" || out.Choices[0].Message.Content == "" {
		t.Fatalf("no reasoning and content in %s", b)
	}
	if out.Usage.CompletionTokens != 10 || out.Usage.Details.ReasoningTokens != 5 {
		t.Errorf("usage %+v, want 10 tokens of which 5 reasoning: %s", out.Usage, b)
	}
}

// Virtual time marks the same reasoning chunks a chat client would read.
func TestVirtualReasoning(t *testing.T) {
	o := Options{Profile: fastProfile(t), Seed: 5}
	o.Profile.Model.Reasoning = Reasoning{Min: 4, Max: 4}
	reqs := []VirtualRequest{
		{PromptTokens: 50, MaxTokens: 10, IgnoreEOS: true},                      // thinks 4, answers 6
		{At: time.Millisecond, PromptTokens: 50, MaxTokens: 3, IgnoreEOS: true}, // cut off while thinking
	}
	recs, err := RunVirtual(o, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{4, 3} {
		r := recs[i]
		if err := r.Check(); err != nil {
			t.Fatal(err)
		}
		n := 0
		for k, c := range r.Chunks {
			if c.Reasoning {
				n++
				if k >= want {
					t.Errorf("request %d: chunk %d is reasoning", i, k)
				}
			}
		}
		if n != want || r.ReasoningTokens != want || r.ReasoningSource != record.SourceUsage {
			t.Errorf("request %d: %d reasoning chunks, %d tokens (%s); want %d from usage", i, n, r.ReasoningTokens, r.ReasoningSource, want)
		}
	}
	if _, ok := recs[1].FirstAnswer(); ok {
		t.Error("a reply cut off while thinking has an answer token")
	}
}

// FuzzParseReasoning: no spec panics; whatever parses writes back as a
// spec that reads the same, and no reply is told to think for more
// tokens than it has, or fewer than none.
func FuzzParseReasoning(f *testing.F) {
	for _, s := range []string{"256", "100-400", "30%", "off", "0-0", "-1", "5-", "1e3", "50.5%", "NaN%", "+7", " 9 - 12 ", "2147483648"} {
		f.Add(s, 40, true)
	}
	f.Fuzz(func(t *testing.T, s string, length int, stopped bool) {
		r, err := ParseReasoning(s)
		if err != nil {
			return
		}
		back, err := ParseReasoning(r.String())
		if err != nil || back != r {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, r, r.String(), back, err)
		}
		length = length % 100_000
		n := r.tokens(length, stopped, 9, int64(length))
		if n < 0 || length > 0 && n > length || length <= 0 && n != 0 || stopped && length > 0 && n >= length {
			t.Fatalf("%q: %d reasoning tokens of a %d-token reply (stopped %v)", s, n, length, stopped)
		}
	})
}
