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
