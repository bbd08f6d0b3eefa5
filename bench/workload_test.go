package bench

import (
	"errors"
	"strings"
	"testing"

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
		{"sessions", workload.DatasetRandom, true, 0, double, workload.Fit{PerToken: 2, Overhead: 3}, how + ", made-up text", ""},
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
		{"a dataset's own texts", func(c *Config) { c.Workload.Dataset = workload.DatasetShareGPT }, false, ""},
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
}
