package bench

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
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
