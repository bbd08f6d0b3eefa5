package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// textFit fits the server's count for the datasets that make text for a
// length, not for random prompts (fitted one by one) nor for datasets
// whose texts are their own, and a count that is not one of the text
// leaves the built-in count with a warning.
func TestTextFitChoosesWhatToFit(t *testing.T) {
	double := func(s string) (int, error) { return 3 + 2*len(tokenizer.Encode(s)), nil }
	blind := func(string) (int, error) { return 5, nil }
	down := func(string) (int, error) { return 0, errors.New("connection reset") }
	const how = "the server's (/tokenize, vLLM dialect)"
	for _, tt := range []struct {
		name    string
		dataset string
		flows   bool
		system  int
		count   workload.Counter
		fit     workload.Fit
		lengths string
		warning string
	}{
		{"a trace", workload.DatasetTrace, false, 0, double, workload.Fit{PerToken: 2, Overhead: 3},
			how + ", made-up text sized by a fit of it (2.000 server tokens per built-in token, 3.0 more per prompt)", ""},
		// A session's message is its text's length; the template adds
		// to each prompt.
		{"sessions", workload.DatasetRandom, true, 0, double, workload.Fit{PerToken: 2, Overhead: 3},
			how + ", made-up text sized by a fit of it (2.000 server tokens per built-in token, 3.0 more per prompt): a message's length is its text's, and the 3.0 more per prompt the chat template's", ""},
		{"random prompts", workload.DatasetRandom, false, 0, double, workload.Fit{}, how, ""},
		{"random behind system prompts", workload.DatasetRandom, false, 4, double, workload.Fit{PerToken: 2, Overhead: 3}, how + ", made-up text", ""},
		{"no count", workload.DatasetTrace, false, 0, nil, workload.Fit{}, how, ""},
		{"a count blind to the text", workload.DatasetBurstGPT, false, 0, blind, workload.Fit{},
			"the built-in tokenizer's (the server's count failed: see the warnings)", "made-up texts not sized to the server's tokenizer, the built-in one counts them: the server counted 5.0 tokens"},
		{"a count that fails", workload.DatasetServeGen, false, 0, down, workload.Fit{},
			"the built-in tokenizer's (the server's count failed", "connection reset"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wl := workload.DefaultConfig()
			wl.Dataset, wl.SystemPrompts.Count = tt.dataset, tt.system
			fit, lengths, warns, err := textFit(t.Context(), wl, tt.flows, serverCount{count: tt.count, lengths: how})
			if err != nil {
				t.Fatal(err)
			}
			if fit != tt.fit || !strings.HasPrefix(lengths, tt.lengths) {
				t.Errorf("fit %+v, lengths %q; want %+v, %q…", fit, lengths, tt.fit, tt.lengths)
			}
			if w := strings.Join(warns, "\n"); tt.warning == "" && w != "" || !strings.Contains(w, tt.warning) {
				t.Errorf("warnings %q, want %q", w, tt.warning)
			}
		})
	}
}

// countFor asks the server nothing where nothing is made for a length, or
// where the lengths are exact or kept.
func TestCountForAsksOnlyWhenTextIsMade(t *testing.T) {
	for _, tt := range []struct {
		name    string
		edit    func(*Config)
		ids     bool
		lengths string
	}{
		{"token ids", func(*Config) {}, true, "exact (token ids)"},
		{"a dataset's own texts", func(c *Config) { c.Workload.Dataset = workload.DatasetShareGPT }, false,
			builtIn + " count of the dataset's texts (the summary's totals are the server's, where it reports usage)"},
		{"--no-calibrate", func(c *Config) { c.Workload.Dataset, c.NoCalibrate = workload.DatasetTrace, true }, false, builtIn + " (--no-calibrate)"},
	} {
		cfg := DefaultConfig()
		tt.edit(&cfg)
		// No server: any question asked of it would panic.
		sc, warns, err := countFor(t.Context(), cfg, nil, nil, "m", tt.ids)
		if err != nil || sc.count != nil || sc.lengths != tt.lengths || len(warns) != 0 {
			t.Errorf("%s: %+v, %q, %v; want lengths %q", tt.name, sc, warns, err, tt.lengths)
		}
	}
	// --no-calibrate with --tokenizer counts with the tokenizer, still
	// asking the server nothing.
	cfg := DefaultConfig()
	cfg.Workload.Dataset, cfg.NoCalibrate, cfg.Tokenizer = workload.DatasetTrace, true, fixedCount(7)
	sc, warns, err := countFor(t.Context(), cfg, nil, nil, "m", false)
	if err != nil || sc.count == nil || len(warns) != 0 || !strings.HasPrefix(sc.lengths, "--tokenizer's (--no-calibrate") {
		t.Fatalf("--no-calibrate --tokenizer: %+v, %q, %v", sc, warns, err)
	}
	if n, err := sc.count("any text"); n != 7 || err != nil {
		t.Errorf("--no-calibrate --tokenizer counts %d, %v; want the tokenizer's 7", n, err)
	}
}

// fixedCount is a Tokenizer that counts every text as n tokens.
type fixedCount int

func (n fixedCount) Count(string) int { return int(n) }

// Random text prompts are fitted one by one to the server's /tokenize:
// the server counts each prompt it receives as the length asked for,
// where its tokenizer and the built-in one disagree.
func TestRandomTextPromptsAreFittedOneByOne(t *testing.T) {
	// The server splits words of more than seven bytes in two.
	count := func(s string) int {
		n := 0
		for _, w := range strings.Fields(s) {
			n++
			if len(w) > 7 {
				n++
			}
		}
		return n
	}
	url := startSim(t, sim.Options{Seed: 3})
	var (
		mu     sync.Mutex
		counts []int
	)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
			return
		}
		var req struct {
			Prompt    string `json:"prompt"`
			MaxTokens int    `json:"max_tokens"`
		}
		json.Unmarshal(body, &req)
		switch r.URL.Path {
		case "/tokenize":
			fmt.Fprintf(w, `{"count":%d}`, count(req.Prompt))
			return
		case "/v1/completions":
			if req.MaxTokens == 16 {
				mu.Lock()
				counts = append(counts, count(req.Prompt))
				mu.Unlock()
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy(t, w, r, url)
	}))
	defer ts.Close()
	cfg := smallConfig(t, ts.URL)
	cfg.PromptFormat = PromptText
	cfg.Warmups = 0
	cfg.Workload.Random.InputLen = 150
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Counts.Completed != 24 || len(counts) != 24 {
		t.Fatalf("%+v, %d prompts seen", out.Result.Counts, len(counts))
	}
	exact := 0
	for _, n := range counts {
		if n < 150 || n > 151 {
			t.Errorf("the server counted a prompt as %d tokens, asked for 150", n)
		}
		if n == 150 {
			exact++
		}
	}
	if exact < 22 {
		t.Errorf("%d of 24 prompts count exactly 150 tokens, want ≥ 22", exact)
	}
	if notes := strings.Join(out.Notes, "\n"); !strings.Contains(notes, "24 prompts fitted one by one; input lengths: the server's (/tokenize") {
		t.Errorf("the workload line does not say the prompts were fitted: %q", notes)
	}
}

// The prompts fitted one by one are those the run plans to send: a
// shard's own, none where --duration alone bounds a closed loop.
func TestPlannedSeqs(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(*arrival.Config)
		want   []int64
	}{
		{"closed", func(c *arrival.Config) { c.NumPrompts, c.MaxConcurrency = 4, 2 }, []int64{0, 1, 2, 3}},
		{"closed shard", func(c *arrival.Config) { c.NumPrompts, c.MaxConcurrency, c.Shard, c.Shards = 7, 4, 1, 3 }, []int64{1, 4}},
		{"open shard", func(c *arrival.Config) { c.NumPrompts, c.RequestRate, c.Shard, c.Shards = 5, 10, 0, 2 }, []int64{0, 2, 4}},
		{"duration", func(c *arrival.Config) { c.NumPrompts, c.MaxConcurrency, c.Duration = 0, 2, time.Second }, []int64{}},
	} {
		c := DefaultConfig().Arrival
		tt.change(&c)
		p, err := c.Plan()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := plannedSeqs(p); !slices.Equal(got, tt.want) {
			t.Errorf("%s: planned %v, want %v", tt.name, got, tt.want)
		}
	}
}
