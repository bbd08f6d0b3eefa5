package sweeprun

import (
	"math"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// searchConfig is a virtual-time sweep with the SLO ttft<=200ms, 300
// requests a point.
func searchConfig(t *testing.T, dir string) Config {
	cfg := virtualConfig(dir)
	cfg.Bench.Arrival.NumPrompts = 300
	cfg.Bench.Workload.Random.InputLen = 512
	conds, err := slo.ParseConditions("ttft<=200ms")
	if err != nil {
		t.Fatal(err)
	}
	conds.Apply(&cfg.Bench.Metrics)
	return cfg
}

func TestSearchFindsTheRateLimit(t *testing.T) {
	dir := t.TempDir()
	cfg := searchConfig(t, dir)
	var log logBuf
	cfg.Log = &log
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := sweep.Search{Mode: sweep.ModeRate, Start: 4, Target: 0.9, Tolerance: 0.1}
	o := sweep.Options{Target: 0.9}
	out, err := r.Search(t.Context(), s, 1, o)
	if err != nil {
		t.Fatal(err)
	}
	res := out.Result
	t.Logf("%s after %d probes", res, len(res.Probes))
	if !res.Found || !res.Converged || !(res.Low < res.High) || res.Uncertainty() > 0.1 {
		t.Fatalf("result %+v", res)
	}
	// The bracket is honest: its low end met the target, its high end
	// missed it.
	for _, p := range res.Probes {
		switch v := p.Load.Value; {
		case v == res.Low && p.Mean.Attainment < 0.9:
			t.Errorf("low end %v attained %v", v, p.Mean.Attainment)
		case v == res.High && p.Mean.Attainment >= 0.9:
			t.Errorf("high end %v attained %v", v, p.Mean.Attainment)
		}
	}
	if out.Measured != len(res.Probes) || out.Resumed != 0 || len(out.Summary.Points) != len(res.Probes) {
		t.Errorf("measured %d, resumed %d, %d points for %d probes", out.Measured, out.Resumed, len(out.Summary.Points), len(res.Probes))
	}
	// The sweep file's operating point is the bracket's low end, so that
	// goodput plan --from reads the search's answer.
	sum, err := sweep.ReadFile(out.JSONPath)
	if err != nil {
		t.Fatal(err)
	}
	if op := sum.Operating; !op.Found || op.Load.Value != res.Low {
		t.Errorf("operating point %+v, want %v", op, res.Low)
	}

	// Searching again in the same directory probes the same loads and
	// answers every one from disk.
	cfg.Resume = true
	var again logBuf
	cfg.Log = &again
	r, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out2, err := r.Search(t.Context(), s, 1, o)
	if err != nil {
		t.Fatal(err)
	}
	if out2.Measured != 0 || out2.Resumed != len(res.Probes) || out2.Result.Low != res.Low || out2.Result.High != res.High {
		t.Errorf("resumed search: measured %d, resumed %d, bracket [%v, %v]; want 0, %d, [%v, %v]",
			out2.Measured, out2.Resumed, out2.Result.Low, out2.Result.High, len(res.Probes), res.Low, res.High)
	}
	if m := measuredPoints(again.String()); len(m) != 0 {
		t.Errorf("resumed search measured %v", m)
	}
}

func TestSearchRepeatsAndErrors(t *testing.T) {
	cfg := searchConfig(t, "")
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := sweep.Search{Mode: sweep.ModeConcurrency, Start: 8, MaxProbes: 3}
	out, err := r.Search(t.Context(), s, 2, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Result.Probes) != 3 || out.Measured != 6 {
		t.Errorf("%d probes, %d measurements; want 3 probes of 2", len(out.Result.Probes), out.Measured)
	}
	for _, p := range out.Result.Probes {
		if len(p.Repeats) != 2 {
			t.Errorf("%s: %d repeats", p.Load, len(p.Repeats))
		}
	}
	tests := []struct {
		name    string
		s       sweep.Search
		repeats int
		o       sweep.Options
		want    string
	}{
		{"negative repeats", sweep.Search{Mode: sweep.ModeRate}, -1, sweep.Options{}, "repeats -1"},
		{"too many repeats", sweep.Search{Mode: sweep.ModeRate}, 101, sweep.Options{}, "repeats 101"},
		{"bad mode", sweep.Search{Mode: "fast"}, 1, sweep.Options{}, `search mode "fast"`},
		{"bad start", sweep.Search{Mode: sweep.ModeRate, Start: math.NaN()}, 1, sweep.Options{}, "search start"},
		{"bad options", sweep.Search{Mode: sweep.ModeRate}, 1, sweep.Options{Target: 2}, "target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Search(t.Context(), tt.s, tt.repeats, tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
