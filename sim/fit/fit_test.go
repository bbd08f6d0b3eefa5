package fit

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/goodput-dev/goodput/sim"
)

// llamaCppLoads reads the captured llama.cpp runs (testdata/llamacpp) and
// groups them by concurrency.
func llamaCppLoads(t *testing.T) map[string]Load {
	t.Helper()
	paths, err := filepath.Glob("testdata/llamacpp/c*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no captured runs: %v", err)
	}
	var replays []*Replay
	for _, p := range paths {
		rp, err := LoadReplay(p)
		if err != nil {
			t.Fatal(err)
		}
		replays = append(replays, rp)
	}
	out := map[string]Load{}
	for _, l := range Group(replays) {
		out[l.Name] = l
	}
	return out
}

func llamaCppBase(t *testing.T) sim.Options {
	t.Helper()
	p, err := sim.LoadProfile("testdata/llamacpp/profile.yaml", sim.Profile{})
	if err != nil {
		t.Fatal(err)
	}
	// llama-server's 4 slots, and its batch of 2,048 tokens (-b).
	return sim.Options{Profile: p, MaxNumSeqs: 4, MaxNumBatchedTokens: 2048}
}

// TestFitPredictsAHeldOutConcurrency fits the simulator to the real
// llama.cpp server at some concurrencies and predicts its throughput and
// TPOT at one the fit never saw, within 15 %.
func TestFitPredictsAHeldOutConcurrency(t *testing.T) {
	loads := llamaCppLoads(t)
	tests := []struct {
		name    string
		fit     []string
		heldOut string
	}{
		// Between measured loads: concurrency 2 from 1, 3, 4 and 6.
		{"interpolated", []string{"c=1", "c=3", "c=4", "c=6"}, "c=2"},
		// Beyond the server's 4 slots, where requests queue: concurrency 6
		// from 1 to 4.
		{"past the slots", []string{"c=1", "c=2", "c=3", "c=4"}, "c=6"},
	}
	for _, tt := range tests {
		var fitted []Load
		for _, name := range tt.fit {
			l, ok := loads[name]
			if !ok {
				t.Fatalf("no captured load %s", name)
			}
			fitted = append(fitted, l)
		}
		res, err := Fit(context.Background(), fitted, []Load{loads[tt.heldOut]}, Options{Base: llamaCppBase(t)})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range append(res.Fitted, res.HeldOut...) {
			e := c.Errors()
			t.Logf("%s: %s: throughput %+.1f %%, TTFT %+.1f %%, TPOT %+.1f %%", tt.name, c.Load, 100*e[0], 100*e[1], 100*e[2])
		}
		held := res.HeldOut[0]
		if e := held.Errors(); math.Abs(e[0]) > 0.15 || math.Abs(e[2]) > 0.15 {
			t.Errorf("%s: held-out %s: throughput %+.1f %%, TPOT %+.1f %%; want both within 15 %%", tt.name, held.Load, 100*e[0], 100*e[2])
		}
		// The fit is of the fitted loads: they come out closer than the
		// starting calibration had them.
		start, err := Fit(context.Background(), fitted, nil, Options{Base: llamaCppBase(t), MaxEvals: 1})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := logError(res.Fitted), logError(start.Fitted); a >= b {
			t.Errorf("%s: fitted error %.3f, not below the starting calibration's %.3f", tt.name, a, b)
		}
	}
}

// logError is the fit's objective over cs.
func logError(cs []Compared) float64 {
	total := 0.0
	for _, c := range cs {
		for _, e := range c.Errors() {
			total += math.Log(1+e) * math.Log(1+e)
		}
	}
	return total
}
