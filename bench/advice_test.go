package bench

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/workload"
)

func TestCacheWarning(t *testing.T) {
	random := func(in, prefix int) workload.Config {
		c := workload.DefaultConfig()
		c.Random.InputLen, c.Random.PrefixLen = in, prefix
		return c
	}
	pc := func(cached, prompt int64) *metrics.PromptCache {
		return &metrics.PromptCache{Requests: 10, PromptTokens: prompt, CachedTokens: cached, HitRate: float64(cached) / float64(prompt)}
	}
	tests := []struct {
		name   string
		pc     *metrics.PromptCache
		server *float64 // the server's prefix-cache hit rate, nil if not scraped
		wl     workload.Config
		want   string // "" for no warning
	}{
		{"a repeated run", pc(2457, 2560), nil, random(64, 0), "96% of the prompt tokens were served from the server's prompt cache (2457 of 2560"},
		{"new prompts", pc(100, 2560), nil, random(64, 0), ""},
		{"half", pc(1280, 2560), nil, random(64, 0), ""},
		// A shared prefix of 3/4 of every prompt is expected to hit.
		{"a prefix explains it", pc(1920, 2560), nil, random(16, 48), ""},
		{"more than the prefix", pc(2540, 2560), nil, random(48, 16), "99% of the prompt tokens"},
		{"the server says nothing", nil, nil, random(64, 0), ""},
		// vLLM's responses carry no cached tokens by default; its /metrics
		// say what its prefix cache served.
		{"only the server's metrics", nil, ptr(0.94), random(64, 0), "the server's prefix cache served 94% of the prompt tokens"},
		{"the server's metrics, new prompts", nil, ptr(0.02), random(64, 0), ""},
		{"the server's metrics, a prefix explains it", nil, ptr(0.74), random(16, 48), ""},
		// The responses' own account wins over the metrics.
		{"both", pc(100, 2560), ptr(0.94), random(64, 0), ""},
	}
	for _, tt := range tests {
		got := cacheWarning(&metrics.Result{PromptCache: tt.pc}, tt.server, tt.wl)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRetryWarning(t *testing.T) {
	tests := []struct {
		retried, total, failed int64
		noKeepAlive            bool
		want                   string
	}{
		{13, 40, 0, false, "13 of 40 requests were sent again on a new connection: the server closes kept-alive connections (llama.cpp's"},
		{4, 40, 0, false, "4 of 40 requests"}, // a tenth
		{3, 40, 0, false, ""},                 // under a tenth
		{0, 40, 0, false, ""},
		{0, 0, 0, false, ""},
		{13, 40, 0, true, ""}, // no keep-alive: nothing to advise (retries cannot happen anyway)
		// A server killed mid-run: its keep-alive is not blamed.
		{9, 30, 9, false, "9 of 30 requests were sent again on a new connection, and 9 failed: the server closed connections during the run, or went away"},
	}
	for _, tt := range tests {
		res := &metrics.Result{Counts: metrics.Counts{Total: tt.total, Retried: tt.retried, Failed: tt.failed}}
		got := retryWarning(res, tt.noKeepAlive)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%d of %d, no keep-alive %v: %q, want %q", tt.retried, tt.total, tt.noKeepAlive, got, tt.want)
		}
	}
}

// A dataset smaller than the run is cycled, which the run says: the
// server's prompt cache may serve the repeats.
func TestCycledDatasetWarns(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 13})
	path := filepath.Join(t.TempDir(), "two.jsonl")
	if err := os.WriteFile(path, []byte(`{"prompt":"one two three","output_len":4}`+"\n"+`{"prompt":"four five six","output_len":4}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := smallConfig(t, url)
	cfg.Workload.Dataset, cfg.Workload.Path = workload.DatasetCustom, path
	cfg.Arrival.NumPrompts, cfg.Warmups = 6, 0
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	want := "the dataset has 2 prompts and the run sends 6 requests: each prompt goes out about 3 times"
	if !strings.Contains(strings.Join(out.Warnings, "\n"), want) {
		t.Errorf("warnings %q, want %q", out.Warnings, want)
	}
}

func ptr(v float64) *float64 { return &v }

// A run repeated against the same vLLM-like server with the same seed
// sends the same prompts; its prefix cache serves them, and the second
// run says so from the server's metrics, although no response counted a
// cached token.
func TestRepeatedRunWarnsOfTheServersPrefixCache(t *testing.T) {
	url := startSim(t, sim.Options{Seed: 8})
	cfg := smallConfig(t, url)
	cfg.Warmups, cfg.ScrapeInterval = 0, 50*time.Millisecond
	cfg.RunName = ""
	first, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	second, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	warned := func(o *Outcome) bool {
		for _, w := range o.Warnings {
			if strings.Contains(w, "the server's prefix cache served") {
				return true
			}
		}
		return false
	}
	if warned(first) {
		t.Errorf("the first run warned of the cache: %q", first.Warnings)
	}
	if !warned(second) {
		var hits any = "not measured"
		if second.Server != nil && second.Server.PrefixCacheHitRate != nil {
			hits = *second.Server.PrefixCacheHitRate
		}
		t.Errorf("the repeated run did not warn (server hit rate %v): %q", hits, second.Warnings)
	}
}

// Answers that stop short of their length are a warning where ignore_eos
// was asked for and not honoured, and a note where the workload's lengths
// are made up and the server was left to end them.
func TestEarlyStops(t *testing.T) {
	check := func(early, limited int64) load.TokenCheck {
		return load.TokenCheck{Limited: limited, LimitedOutput: 1023, LimitedAsked: 1280, EndedEarly: early}
	}
	const head = `13 of 40 answers ended before their max_tokens (finish reason "stop"; 1023 of the 1280 output tokens asked for came): `
	tests := []struct {
		name      string
		t         load.TokenCheck
		ignoreEOS bool
		dataset   string
		warning   string // "" for none
		note      string // "" for none
	}{
		{"random prompts", check(13, 40), false, workload.DatasetRandom, "", "Output lengths: " + head + "the server ends an answer where its model stops"},
		{"shared prefixes", check(13, 40), false, workload.DatasetPrefixRepetition, "", "--ignore-eos is given, which runs every answer to its length"},
		{"a tenth", check(4, 40), false, workload.DatasetRandom, "", "4 of 40 answers"},
		{"under a tenth", check(3, 40), false, workload.DatasetRandom, "", ""},
		{"none", check(0, 40), false, workload.DatasetRandom, "", ""},
		{"no limits", check(0, 0), false, workload.DatasetRandom, "", ""},
		// Real prompts end where the model ends them.
		{"sharegpt", check(13, 40), false, workload.DatasetShareGPT, "", ""},
		// ignore_eos sent and not held to, whatever the dataset.
		{"ignore_eos not honoured", check(13, 40), true, workload.DatasetShareGPT, head + "ignore_eos was sent, and the server did not hold to it", ""},
		{"ignore_eos, random", check(13, 40), true, workload.DatasetRandom, "--min-tokens holds the end off", ""},
		{"ignore_eos, under a tenth", check(3, 40), true, workload.DatasetRandom, "", ""},
	}
	for _, tt := range tests {
		w, n := earlyStopWarning(tt.t, tt.ignoreEOS), earlyStopNote(tt.t, tt.ignoreEOS, tt.dataset)
		if (tt.warning == "") != (w == "") || !strings.Contains(w, tt.warning) {
			t.Errorf("%s: warning %q, want %q", tt.name, w, tt.warning)
		}
		if (tt.note == "") != (n == "") || !strings.Contains(n, tt.note) {
			t.Errorf("%s: note %q, want %q", tt.name, n, tt.note)
		}
	}
}

// Answers that a limit of the server's cut short are always worth a
// warning: no workload asks for them.
func TestCutShortWarning(t *testing.T) {
	if w := cutShortWarning(load.TokenCheck{Limited: 40}); w != "" {
		t.Errorf("no answer cut: warning %q", w)
	}
	w := cutShortWarning(load.TokenCheck{Limited: 40, CutShort: 1, CutOutput: 18, CutAsked: 32})
	if want := "1 of 40 answers ended short of their max_tokens with finish reason \"length\" (18 of the 32 output tokens asked for came)"; !strings.HasPrefix(w, want) {
		t.Errorf("warning %q, want %q…", w, want)
	}
}

// Answers whose usage held a count that is not one are named, with the
// first such count, and none is no warning.
func TestBadCountWarning(t *testing.T) {
	if w := badCountWarning(load.TokenCheck{Answers: 200}); w != "" {
		t.Errorf("no bad count: warning %q", w)
	}
	w := badCountWarning(load.TokenCheck{Answers: 200, BadCounts: 3, BadCount: `usage.completion_tokens "12"`})
	want := `3 of 200 answers reported a token count that is not one (usage.completion_tokens "12"): it was left out as if not sent, ` +
		"and goodput counted in its place (output tokens from the chunks, prompt tokens from the prompt)"
	if w != want {
		t.Errorf("warning %q\nwant    %q", w, want)
	}
}

// A run against a server whose usage sends some counts as strings
// succeeds on every request, counts their tokens from the chunks, and
// warns of the answers that had one, warm-ups among them, naming the first.
func TestRunWarnsOfBadTokenCounts(t *testing.T) {
	var served atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
		case "/v1/completions":
			var body struct {
				MaxTokens int `json:"max_tokens"`
			}
			json.NewDecoder(r.Body).Decode(&body)
			// Every third answer of the run's counts its tokens in a
			// string; the probe of token ids before it (one token) is
			// answered with a count.
			count := `4`
			if body.MaxTokens == 4 && served.Add(1)%3 == 0 {
				count = `"4"`
			}
			w.Header().Set("Content-Type", "text/event-stream")
			for range 4 {
				io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`+"\n\n")
			}
			io.WriteString(w, `data: {"choices":[{"index":0,"text":"","finish_reason":"length"}],"usage":{"prompt_tokens":8,"completion_tokens":`+count+`}}`+"\n\ndata: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	cfg := smallConfig(t, ts.URL)
	cfg.Arrival.NumPrompts, cfg.Warmups = 12, 2 // 10 measured
	cfg.Workload.Random.OutputLen = 4
	cfg.NoServerMetrics = true
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if served.Load() != 12 {
		t.Fatalf("%d requests of the run served, want 12", served.Load())
	}
	if out.Result.Counts.Failed != 0 || out.Result.Counts.Completed != 10 || out.Result.Tokens.Output != 40 {
		t.Errorf("counts %+v, %d output tokens; want 10 completed of 4 tokens each", out.Result.Counts, out.Result.Tokens.Output)
	}
	if out.Tokens.Answers != 12 || out.Tokens.BadCounts != 4 || out.Tokens.BadCount != `usage.completion_tokens "4"` {
		t.Errorf("token check %+v; want 12 answers, 4 with a bad count", out.Tokens)
	}
	want := `4 of 12 answers reported a token count that is not one (usage.completion_tokens "4"): it was left out as if not sent, ` +
		"and goodput counted in its place (output tokens from the chunks, prompt tokens from the prompt)"
	if !slices.Contains(out.Warnings, want) {
		t.Errorf("warnings %q\nwant one %q", out.Warnings, want)
	}
}
