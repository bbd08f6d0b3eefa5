package bench

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/load"
)

// The self-check calls a run generator-limited when its p99 dispatch lag
// passes the threshold, and on a process with few Go processors whose
// GOMAXPROCS nobody chose it suggests more.
func TestCheckGenerator(t *testing.T) {
	lags := func(d time.Duration) []time.Duration {
		out := make([]time.Duration, 100)
		for i := range out {
			out[i] = d
		}
		return out
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))

	t.Setenv("GOMAXPROCS", "")
	g := checkGenerator(load.Result{Lag: lags(100 * time.Microsecond)}, time.Millisecond, true)
	if g.Limited || len(g.Warnings) != 0 {
		t.Errorf("100 µs of lag: limited %v, warnings %q", g.Limited, g.Warnings)
	}
	g = checkGenerator(load.Result{Lag: lags(3 * time.Millisecond)}, time.Millisecond, true)
	if !g.Limited || len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0], "requests went out late") ||
		!strings.Contains(g.Warnings[0], "with 2 Go processors, GOMAXPROCS=8 may also help") {
		t.Errorf("3 ms of lag: limited %v, warnings %q", g.Limited, g.Warnings)
	}

	t.Setenv("GOMAXPROCS", "2") // chosen: no advice about it
	g = checkGenerator(load.Result{Lag: lags(3 * time.Millisecond)}, time.Millisecond, false)
	if !g.Limited || !strings.Contains(g.Warnings[0], "workers were slow") || strings.Contains(g.Warnings[0], "GOMAXPROCS") {
		t.Errorf("closed loop, GOMAXPROCS chosen: warnings %q", g.Warnings)
	}
}

// A run whose first requests left late is flagged even when the rest of
// the run keeps its p99 low: a few late requests at the start hide from
// the percentiles of a long run.
func TestCheckGeneratorSeesALateStart(t *testing.T) {
	lag := make([]time.Duration, 1000)
	for i := range lag {
		lag[i] = 50 * time.Microsecond
	}
	g := checkGenerator(load.Result{Lag: lag, StartLag: 45 * time.Millisecond}, time.Millisecond, true)
	if g.LagP99 > 0.001 {
		t.Fatalf("p99 %v: the fixture should hide the start", g.LagP99)
	}
	if !g.Limited || g.StartLag != 0.045 || len(g.Warnings) != 1 || !strings.Contains(g.Warnings[0], "the first requests went out late (up to 45.00 ms") {
		t.Errorf("limited %v, start lag %v, warnings %q", g.Limited, g.StartLag, g.Warnings)
	}
	g = checkGenerator(load.Result{Lag: lag, StartLag: 500 * time.Microsecond}, time.Millisecond, true)
	if g.Limited || len(g.Warnings) != 0 {
		t.Errorf("a start within the threshold: limited %v, warnings %q", g.Limited, g.Warnings)
	}
}
