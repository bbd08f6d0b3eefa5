package workload

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

func systemConfig(change func(*Config)) Config {
	c := DefaultConfig()
	c.Random.InputLen, c.Random.OutputLen, c.Seed = 64, 8, 3
	c.SystemPrompts = SystemPromptConfig{Count: 10, Len: 48, Zipf: 1}
	if change != nil {
		change(&c)
	}
	return c
}

func TestSystemPromptsShareTheirPrefix(t *testing.T) {
	src, err := New(systemConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	sp := src.(*SystemPrompts)
	inner, _ := New(systemConfig(func(c *Config) { c.SystemPrompts = SystemPromptConfig{} }))
	byRank := map[int][]int{}
	for seq := range int64(200) {
		it, plain := src.Item(seq), inner.Item(seq)
		k := sp.Rank(seq)
		sys := it.PromptTokenIDs[:48]
		if prev, ok := byRank[k]; ok && !slices.Equal(prev, sys) {
			t.Fatalf("two requests of system prompt %d begin differently", k)
		}
		byRank[k] = sys
		// The item is the source's behind 48 tokens ending in a line break.
		if !slices.Equal(it.PromptTokenIDs[48:], plain.PromptTokenIDs) || sys[47] != '\n' || it.InputTokens != plain.InputTokens+48 {
			t.Fatalf("item %d is not the source's item behind its system prompt", seq)
		}
		if it.Group != "system-"+strconv.Itoa(k) || !strings.HasPrefix(it.Prompt, it.System) || it.Prompt[len(it.System):] != plain.Prompt {
			t.Fatalf("item %d: group %q, system %q", seq, it.Group, it.System)
		}
		// Text and ids agree, so a server that tokenizes the text as the
		// simulator does sees the same shared prefix.
		if !slices.Equal(tokenizer.Encode(it.Prompt), it.PromptTokenIDs) {
			t.Fatalf("item %d: the text does not encode back to its ids", seq)
		}
		// A chat request sends the system prompt as its own message.
		m := it.Messages()
		if len(m) != 2 || m[0].Role != "system" || m[0].Content != it.System || m[1].Content != plain.Prompt {
			t.Fatalf("item %d: messages %+v", seq, m)
		}
	}
	if len(byRank) < 5 {
		t.Errorf("200 requests used only %d of 10 prompts", len(byRank))
	}
	for a, pa := range byRank {
		for b, pb := range byRank {
			if a != b && slices.Equal(pa, pb) {
				t.Errorf("system prompts %d and %d are equal", a, b)
			}
		}
	}
}

func TestSystemPromptsZipf(t *testing.T) {
	const n = 40000
	tests := []struct {
		zipf  float64
		share []float64 // of ranks 1, 2 and 10
	}{
		// 1/k over the harmonic number H₁₀ = 2.9290.
		{1, []float64{1 / 2.928968, 0.5 / 2.928968, 0.1 / 2.928968}},
		// Uniform.
		{0, []float64{0.1, 0.1, 0.1}},
		// 1/k² over Σ 1/k² = 1.549768.
		{2, []float64{1 / 1.549768, 0.25 / 1.549768, 0.01 / 1.549768}},
	}
	for _, tt := range tests {
		src, err := New(systemConfig(func(c *Config) { c.SystemPrompts.Zipf = tt.zipf }))
		if err != nil {
			t.Fatal(err)
		}
		sp := src.(*SystemPrompts)
		count := map[int]int{}
		for seq := range int64(n) {
			count[sp.Rank(seq)]++
		}
		for i, k := range []int{1, 2, 10} {
			want := tt.share[i]
			if math.Abs(sp.Share(k)-want) > 1e-6 {
				t.Errorf("zipf %v: Share(%d) = %.6f, want %.6f", tt.zipf, k, sp.Share(k), want)
			}
			// Within 5 standard errors of the drawn share.
			if got := float64(count[k]) / n; math.Abs(got-want) > 5*math.Sqrt(want*(1-want)/n) {
				t.Errorf("zipf %v: rank %d drawn for %.4f of requests, want %.4f", tt.zipf, k, got, want)
			}
		}
	}
	src, _ := New(systemConfig(nil))
	if s := src.String(); !strings.Contains(s, "behind one of 10 system prompts of 48 tokens chosen with Zipf popularity 1 (the first gets 34.1% of requests, the last 3.41%)") {
		t.Errorf("String = %q", s)
	}
}

func TestSystemPromptsOverPrefixRepetition(t *testing.T) {
	c := systemConfig(func(c *Config) { c.Dataset, c.Limit = DatasetPrefixRepetition, 20 })
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	it := src.Item(0)
	if !strings.HasPrefix(it.Group, "system-") || !strings.Contains(it.Group, "/prefix-") {
		t.Errorf("group %q, want system-k/prefix-j", it.Group)
	}
	plain, _ := New(systemConfig(func(c *Config) {
		c.Dataset, c.Limit, c.SystemPrompts = DatasetPrefixRepetition, 20, SystemPromptConfig{}
	}))
	if g := plain.Item(0).Group; !strings.HasPrefix(g, "prefix-") {
		t.Errorf("prefix_repetition's group %q, want prefix-j", g)
	}
}

func TestSystemPromptsRejects(t *testing.T) {
	tests := []struct {
		name string
		s    SystemPromptConfig
		ds   string
		want string
	}{
		{"negative count", SystemPromptConfig{Count: -1, Len: 10}, DatasetRandom, "--system-prompts must be in [1, 100000], got -1"},
		{"too many", SystemPromptConfig{Count: MaxSystemPrompts + 1, Len: 10}, DatasetRandom, "--system-prompts must be in"},
		{"no length", SystemPromptConfig{Count: 3}, DatasetRandom, "--system-prompt-len must be in [1, 1048576], got 0"},
		{"negative exponent", SystemPromptConfig{Count: 3, Len: 5, Zipf: -1}, DatasetRandom, "--system-prompt-zipf must be in [0, 10]"},
		{"NaN exponent", SystemPromptConfig{Count: 3, Len: 5, Zipf: math.NaN()}, DatasetRandom, "--system-prompt-zipf"},
		{"over a trace", SystemPromptConfig{Count: 3, Len: 5}, DatasetTrace, "a trace's prompts and their shared blocks are the trace's own"},
	}
	for _, tt := range tests {
		c := systemConfig(func(c *Config) {
			c.SystemPrompts, c.Dataset = tt.s, tt.ds
			if tt.ds == DatasetTrace {
				c.Path = mooncake40
			}
		})
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
