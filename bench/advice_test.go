package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		name string
		pc   *metrics.PromptCache
		wl   workload.Config
		want string // "" for no warning
	}{
		{"a repeated run", pc(2457, 2560), random(64, 0), "96% of the prompt tokens were served from the server's prompt cache (2457 of 2560"},
		{"new prompts", pc(100, 2560), random(64, 0), ""},
		{"half", pc(1280, 2560), random(64, 0), ""},
		// A shared prefix of 3/4 of every prompt is expected to hit.
		{"a prefix explains it", pc(1920, 2560), random(16, 48), ""},
		{"more than the prefix", pc(2540, 2560), random(48, 16), "99% of the prompt tokens"},
		{"the server says nothing", nil, random(64, 0), ""},
	}
	for _, tt := range tests {
		got := cacheWarning(&metrics.Result{PromptCache: tt.pc}, tt.wl)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRetryWarning(t *testing.T) {
	tests := []struct {
		retried, total int64
		noKeepAlive    bool
		want           string
	}{
		{13, 40, false, "13 of 40 requests were sent again on a new connection"},
		{4, 40, false, "4 of 40 requests"}, // a tenth
		{3, 40, false, ""},                 // under a tenth
		{0, 40, false, ""},
		{0, 0, false, ""},
		{13, 40, true, ""}, // no keep-alive: nothing to advise (retries cannot happen anyway)
	}
	for _, tt := range tests {
		res := &metrics.Result{Counts: metrics.Counts{Total: tt.total, Retried: tt.retried}}
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
