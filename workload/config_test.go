package workload

import (
	"math"
	"strings"
	"testing"
)

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"unknown dataset", func(c *Config) { c.Dataset = "sonnets" }, `--dataset-name "sonnets" is unknown: want random, sharegpt, custom, sonnet, burstgpt, prefix_repetition, spec_bench, speed_bench, hf, txt-slices, trace, timed_trace, servegen, sessions or agent`},
		// vLLM's multimodal datasets are refused with the reason.
		{"multimodal dataset", func(c *Config) { c.Dataset = "random-mm" }, `--dataset-name random-mm: multimodal datasets are not supported`},
		{"empty dataset", func(c *Config) { c.Dataset = "" }, `--dataset-name "" is unknown`},
		{"path with random", func(c *Config) { c.Path = "x.json" }, "--dataset-path is not used by --dataset-name random"},
		{"sharegpt without path", func(c *Config) { c.Dataset = DatasetShareGPT }, "--dataset-name sharegpt needs --dataset-path"},
		{"custom without path", func(c *Config) { c.Dataset = DatasetCustom }, "--dataset-name custom needs --dataset-path"},
		{"negative ratio", func(c *Config) { c.Random.RangeRatio = -0.1 }, "--random-range-ratio must be in [0, 1), got -0.1"},
		{"ratio of one", func(c *Config) { c.Random.RangeRatio = 1 }, "--random-range-ratio must be in [0, 1), got 1"},
		{"NaN ratio", func(c *Config) { c.Random.RangeRatio = math.NaN() }, "--random-range-ratio"},
		{"output ratio of one", func(c *Config) { one := 1.0; c.Random.OutputRangeRatio = &one }, "--random-range-ratio's output ratio must be in [0, 1), got 1"},
		{"negative input", func(c *Config) { c.Random.InputLen = -1 }, "--random-input-len must be in [0, 1048576], got -1"},
		{"huge input", func(c *Config) { c.Random.InputLen = 1 << 40 }, "--random-input-len must be in [0, 1048576]"},
		{"negative prefix", func(c *Config) { c.Random.PrefixLen = -5 }, "--random-prefix-len must be in [0, 1048576], got -5"},
		{"empty prompts", func(c *Config) { c.Random.InputLen = 0 }, "--random-input-len and --random-prefix-len are both 0"},
		{"prefix plus input too long", func(c *Config) {
			c.Random.PrefixLen, c.Random.InputLen, c.Random.RangeRatio = 1<<19, 1<<19, 0.5
		}, "exceeds the limit of 1048576 tokens"},
		{"zero output", func(c *Config) { c.Random.OutputLen = 0 }, "--random-output-len must be in [1, 16777216], got 0"},
		{"huge output", func(c *Config) { c.Random.OutputLen = 1 << 30 }, "--random-output-len must be in [1, 16777216]"},
		{"sharegpt zero min input", func(c *Config) {
			c.Dataset, c.Path, c.ShareGPT.MinInputLen = DatasetShareGPT, "x", 0
		}, "--sharegpt-min-input-len must be ≥ 1, got 0"},
		{"sharegpt negative min output", func(c *Config) {
			c.Dataset, c.Path, c.ShareGPT.MinOutputLen = DatasetShareGPT, "x", -1
		}, "--sharegpt-min-output-len must be ≥ 0"},
		{"sharegpt max below min", func(c *Config) {
			c.Dataset, c.Path, c.ShareGPT.MaxInputLen = DatasetShareGPT, "x", 3
		}, "--sharegpt-max-input-len 3 is below --sharegpt-min-input-len 4"},
		{"sharegpt total too small", func(c *Config) {
			c.Dataset, c.Path, c.ShareGPT.MaxTotalLen = DatasetShareGPT, "x", 7
		}, "--sharegpt-max-total-len 7 leaves no room for a prompt of 4 and an output of 4 tokens"},
		{"sharegpt negative override", func(c *Config) {
			c.Dataset, c.Path, c.ShareGPT.OutputLen = DatasetShareGPT, "x", -1
		}, "--sharegpt-output-len must be in [0, 16777216], got -1"},
		{"custom zero output", func(c *Config) {
			c.Dataset, c.Path, c.Custom.OutputLen = DatasetCustom, "x", 0
		}, "--custom-output-len must be in [1, 16777216], or -1 for each line's own, got 0"},
		{"negative limit", func(c *Config) { c.Limit = -1 }, "--num-prompts must be ≥ 0, got -1"},
		{"negative min tokens", func(c *Config) { c.Request.MinTokens = -1 }, "--min-tokens must be ≥ 0, got -1"},
		{"negative max tokens", func(c *Config) { c.Request.MaxTokens = -1 }, "--max-tokens must be ≥ 0, got -1"},
		{"min above max", func(c *Config) { c.Request.MinTokens, c.Request.MaxTokens = 10, 5 }, "--min-tokens 10 exceeds --max-tokens 5"},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		tt.change(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate = %v, want it to contain %q", tt.name, err, tt.want)
		}
		if _, err := New(c); err == nil {
			t.Errorf("%s: New accepted a config Validate rejects", tt.name)
		}
	}
}

func TestValidateAccepts(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
	}{
		{"defaults", nil},
		{"prefix only", func(c *Config) { c.Random.InputLen, c.Random.PrefixLen = 0, 16 }},
		{"largest ratio below one", func(c *Config) { c.Random.RangeRatio = 0.999 }},
		{"sharegpt", func(c *Config) { c.Dataset, c.Path = DatasetShareGPT, "x.json" }},
		{"sharegpt without min output", func(c *Config) { c.Dataset, c.Path, c.ShareGPT.MinOutputLen = DatasetShareGPT, "x", 0 }},
		{"custom", func(c *Config) { c.Dataset, c.Path = DatasetCustom, "x.jsonl" }},
		{"min tokens without a cap", func(c *Config) { c.Request.MinTokens = 1000 }},
		{"min equals max", func(c *Config) { c.Request.MinTokens, c.Request.MaxTokens = 8, 8 }},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		if tt.change != nil {
			tt.change(&c)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestNewBuildsEachSource(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		len    int
		prefix string // start of String()
	}{
		{"random", nil, 0, "random: input 1024 tokens"},
		{"sharegpt", func(c *Config) { c.Dataset, c.Path = DatasetShareGPT, shareGPTFixture }, 6, "sharegpt testdata/sharegpt_small.json: 6 items"},
		{"custom", func(c *Config) { c.Dataset, c.Path = DatasetCustom, "testdata/custom.jsonl" }, 4, "custom testdata/custom.jsonl: 4 items"},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		if tt.change != nil {
			tt.change(&c)
		}
		src, err := New(c)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if src.Len() != tt.len || !strings.HasPrefix(src.String(), tt.prefix) {
			t.Errorf("%s: Len %d, String %q; want %d, %q…", tt.name, src.Len(), src.String(), tt.len, tt.prefix)
		}
	}
	if _, err := NewRandom(Config{Dataset: DatasetCustom, Path: "x", Custom: CustomConfig{OutputLen: 1}}); err == nil ||
		!strings.Contains(err.Error(), "--dataset-name custom is not random") {
		t.Errorf("NewRandom on a custom config = %v", err)
	}
}

func TestRequestMinTokensFor(t *testing.T) {
	tests := []struct {
		r    Request
		out  int
		want int
	}{
		{Request{}, 128, 0},               // not set: not sent
		{Request{MinTokens: 16}, 128, 16}, // below max_tokens: as given
		{Request{MinTokens: 16}, 10, 10},  // above this item's max_tokens: lowered to it
		{Request{MinTokens: 10}, 10, 10},  // equal
	}
	for _, tt := range tests {
		if got := tt.r.MinTokensFor(Item{OutputTokens: tt.out}); got != tt.want {
			t.Errorf("%+v.MinTokensFor(out %d) = %d, want %d", tt.r, tt.out, got, tt.want)
		}
	}
}

func TestItemsAndMessages(t *testing.T) {
	r := newRandom(t, randomConfig(func(c *Config) { c.Random.InputLen = 20 }))
	if got := Items(r, -1); len(got) != 0 {
		t.Errorf("Items(n < 0) has %d items", len(got))
	}
	items := Items(r, 3)
	if len(items) != 3 || items[2].Prompt != r.Item(2).Prompt {
		t.Fatalf("Items(3) does not hold items 0–2")
	}
	m := items[0].Messages()
	if len(m) != 1 || m[0].Role != "user" || m[0].Content != items[0].Prompt {
		t.Errorf("Messages = %+v, want the prompt as one user message", m)
	}
}

func TestCheckPath(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		c    Config
		want string // "" for no error
	}{
		{"random needs no file", Config{Dataset: DatasetRandom}, ""},
		{"existing file", Config{Dataset: DatasetCustom, Path: "testdata/custom.jsonl"}, ""},
		{"missing file", Config{Dataset: DatasetShareGPT, Path: dir + "/none.json"}, "--dataset-path: stat " + dir + "/none.json: no such file"},
		{"directory", Config{Dataset: DatasetCustom, Path: dir}, "--dataset-path " + dir + ": is a directory"},
	}
	for _, tt := range tests {
		err := tt.c.CheckPath()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: CheckPath() = %v, want %q", tt.name, err, tt.want)
		}
	}
}
