package workload

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/tracefiles"
	"github.com/goodput-dev/goodput/servegen"
)

// smallServeGen is the servegen package's hand-written test client.
const smallServeGen = "../servegen/testdata/small/chunk-0-trace.csv"

func serveGenConfig(path string, change func(*Config)) Config {
	c := DefaultConfig()
	c.Dataset, c.Path, c.Seed = DatasetServeGen, path, 5
	if change != nil {
		change(&c)
	}
	return c
}

func TestServeGenItems(t *testing.T) {
	c := serveGenConfig(smallServeGen, nil)
	src, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	sg := src.(*ServeGen)
	clients, err := servegen.Load(smallServeGen)
	if err != nil {
		t.Fatal(err)
	}
	arr, err := servegen.Arrivals(clients, 0, 0, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != len(arr) || len(arr) < 100 {
		t.Fatalf("Len = %d, arrivals %d", src.Len(), len(arr))
	}
	for i, a := range arr {
		it := src.Item(int64(i))
		if len(it.PromptTokenIDs) != it.InputTokens || it.Prompt == "" {
			t.Fatalf("item %d: %d ids for %d tokens", i, len(it.PromptTokenIDs), it.InputTokens)
		}
		// Before 30 min the first window's lengths (100 or 200 in, 10
		// out) are in force, its empty 20-min window included; from 30
		// min the last's (1000 or 3000, 20 or 40).
		okIn, okOut := []int{100, 200}, []int{10}
		if a.At >= 30*time.Minute {
			okIn, okOut = []int{1000, 3000}, []int{20, 40}
		}
		if !slices.Contains(okIn, it.InputTokens) || !slices.Contains(okOut, it.OutputTokens) {
			t.Fatalf("item %d at %v: %d/%d tokens, want one of %v and %v", i, a.At, it.InputTokens, it.OutputTokens, okIn, okOut)
		}
	}
	// The items are a function of the seed and their number.
	again, _ := New(c)
	if !slices.Equal(again.Item(3).PromptTokenIDs, src.Item(3).PromptTokenIDs) {
		t.Error("item 3 differs between two sources of one config")
	}
	// The arrival process is the same generation, from its first arrival.
	times, err := c.Arrivals().Times(0, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range times {
		if times[i] != arr[i].At-arr[0].At {
			t.Fatalf("arrival %d at %v, the source's at %v", i, times[i], arr[i].At-arr[0].At)
		}
	}
	if !c.IgnoreEOS() || !c.TokenIDs() {
		t.Error("servegen must ask for ignore_eos and send token ids")
	}
	for _, want := range []string{"1 client, active in 3 of 4 10-minute windows", "output enforced with max_tokens and ignore_eos"} {
		if !strings.Contains(sg.String(), want) {
			t.Errorf("String %q lacks %q", sg.String(), want)
		}
	}
}

func TestServeGenWindowAndLimit(t *testing.T) {
	src, err := New(serveGenConfig(smallServeGen, func(c *Config) {
		c.Trace.Start, c.Trace.Duration, c.Limit = 30*time.Minute, 5*time.Minute, 50
	}))
	if err != nil {
		t.Fatal(err)
	}
	sg := src.(*ServeGen)
	if sg.Len() != 50 {
		t.Errorf("Len = %d, want --num-prompts 50", sg.Len())
	}
	for _, a := range sg.arrivals {
		if a.At < 30*time.Minute || a.At >= 35*time.Minute {
			t.Fatalf("arrival at %v outside 30m–35m", a.At)
		}
	}
	if !strings.Contains(sg.String(), "window from 30m0s for 5m0s") {
		t.Errorf("String %q does not name the window", sg.String())
	}
}

func TestServeGenRejects(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"no path", func(c *Config) { c.Path = "" }, "--dataset-name servegen needs --dataset-path"},
		{"a trace format", func(c *Config) { c.Trace.Format = "azure" }, "--trace-format does not apply to --dataset-name servegen"},
		{"a block size", func(c *Config) { c.Trace.BlockSize = 16 }, "--trace-block-size does not apply"},
		{"negative window", func(c *Config) { c.Trace.Start = -time.Second }, "--trace-start and --trace-duration must be ≥ 0"},
		{"not a chunk", func(c *Config) { c.Path = "testdata/custom.jsonl" }, "want a ServeGen chunk-N-trace.csv"},
		{"an idle window", func(c *Config) { c.Trace.Start, c.Trace.Duration = 10*time.Minute, 10*time.Minute }, "no arrival in the window: the clients were idle"},
	}
	for _, tt := range tests {
		_, err := New(serveGenConfig(smallServeGen, tt.change))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	// A directory of chunks is a path servegen takes, as no other dataset.
	if err := serveGenConfig("../servegen/testdata/small", nil).CheckPath(); err != nil {
		t.Errorf("CheckPath of a directory of chunks: %v", err)
	}
}

// TestShippedServeGen generates from each shipped model: lengths inside the
// model's distributions and the multimodal one said so.
func TestShippedServeGen(t *testing.T) {
	for _, tt := range []struct {
		name       string
		multimodal bool
	}{{tracefiles.ServeGenLanguage, false}, {tracefiles.ServeGenReason, false}, {tracefiles.ServeGenMultimodal, true}} {
		src, err := New(serveGenConfig(tracefiles.Path(t, tt.name), func(c *Config) { c.Limit = 300 }))
		if err != nil {
			t.Fatal(err)
		}
		if src.Len() != 300 {
			t.Errorf("%s: %d items, want 300", tt.name, src.Len())
		}
		if got := strings.Contains(src.String(), "multimodal"); got != tt.multimodal {
			t.Errorf("%s: String %q says multimodal: %v", tt.name, src.String(), got)
		}
		for i := range 300 {
			if it := src.Item(int64(i)); it.InputTokens < 1 || it.OutputTokens < 1 || len(it.PromptTokenIDs) != it.InputTokens {
				t.Fatalf("%s: item %d is %+v", tt.name, i, it)
			}
		}
	}
}
