package sweeprun

import (
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// point is a measured load with the numbers the stop rule reads.
func point(t *testing.T, l sweep.Load, tokPerSec, e2e, attainment float64) sweep.Point {
	t.Helper()
	p, err := sweep.NewPoint(l, sweep.Sample{Requests: 100, OutputThroughput: tokPerSec, RequestThroughput: tokPerSec / 100,
		E2E: sweep.Dist{Mean: e2e, P50: e2e, P90: e2e, P99: e2e}, Attainment: attainment})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStoppedEarly(t *testing.T) {
	list := sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(1, 2, 4, 8, 16), Stop: sweep.DefaultStopRule()}
	saturating := []sweep.Point{
		point(t, sweep.Concurrency(1), 100, 1, 1),
		point(t, sweep.Concurrency(2), 190, 1.05, 1),
		// Twice the load of 2 bought 1 % more throughput at twice the latency.
		point(t, sweep.Concurrency(4), 192, 2.1, 1),
	}
	auto := sweep.DefaultAuto(sweep.ModeConcurrency)
	auto.Max, auto.Points = 8, 2 // grid 2 and 4 (geometric between 1 and 8)
	autoPlan := sweep.Plan{Mode: sweep.ModeConcurrency, Auto: &auto, Stop: sweep.DefaultStopRule()}
	tests := []struct {
		name    string
		plan    sweep.Plan
		points  []sweep.Point
		why     string // fragment; empty when the run did not stop early
		skipped []sweep.Load
	}{
		{"stopped", list, saturating, "output throughput rose only 1.1 % from 2 to 4 (2.0× the load) while mean e2e rose 2.0×", concurrencies(8, 16)},
		// Every planned load measured: nothing to explain, however
		// saturated the top is.
		{"complete", sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(1, 2, 4), Stop: sweep.DefaultStopRule()}, saturating, "", nil},
		// An auto sweep's refinement loads are chosen from the points of
		// the moment, so loads it would choose now are not "skipped".
		{"auto with refinement", autoPlan, append(slices.Clone(saturating), point(t, sweep.Concurrency(8), 193, 4.2, 1), point(t, sweep.Concurrency(3), 191, 1.5, 1)), "", nil},
		// A grid load left out is.
		{"auto grid cut", autoPlan, []sweep.Point{saturating[0], point(t, sweep.Concurrency(8), 193, 4.2, 1), point(t, sweep.Concurrency(2), 191, 2.1, 1)}, "", concurrencies(4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			why, skipped := stoppedEarly(tt.plan, tt.points)
			if !slices.Equal(skipped, tt.skipped) {
				t.Errorf("skipped %v, want %v", skipped, tt.skipped)
			}
			if tt.why == "" && tt.skipped == nil && why != "" {
				t.Errorf("reason %q for a complete run", why)
			}
			if tt.why != "" && !strings.Contains(why, tt.why) {
				t.Errorf("reason %q, want one containing %q", why, tt.why)
			}
			if tt.skipped != nil && why == "" {
				t.Error("loads skipped without a reason")
			}
		})
	}
}

// TestVirtualEarlyStop sweeps well past saturation in virtual time: once
// SLO attainment collapses the sweep stops and says why.
func TestVirtualEarlyStop(t *testing.T) {
	cfg := virtualConfig("")
	cfg.Bench.Arrival.NumPrompts = 600
	cfg.Bench.Workload.Random.InputLen = 1024
	cfg.Bench.Workload.Random.OutputLen = 64
	conds, err := slo.ParseConditions("ttft<=300ms")
	if err != nil {
		t.Fatal(err)
	}
	conds.Apply(&cfg.Bench.Metrics)
	var log logBuf
	cfg.Log = &log
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plan := sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(1, 4, 16, 64, 256, 1024, 4096), Stop: sweep.DefaultStopRule()}
	out, err := r.Run(t.Context(), plan)
	if err != nil {
		t.Fatal(err)
	}
	measured := measuredPoints(log.String())
	t.Logf("measured %v; stopped: %s", measured, out.Stopped)
	if out.Stopped == "" || len(out.Skipped) == 0 || len(measured)+len(out.Skipped) != len(plan.Loads) {
		t.Fatalf("measured %v, skipped %v, reason %q", measured, out.Skipped, out.Stopped)
	}
	if slices.Contains(measured, "c4096") {
		t.Error("the sweep measured its highest load despite saturating below it")
	}
}
