package bench

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
)

// Generator is the load generator's account of itself: how late it
// dispatched requests and how late its own timers fired. When these are
// large, the generator, not the server, limited the run.
type Generator struct {
	LagP50 float64 `json:"dispatch_lag_p50_seconds"`
	LagP99 float64 `json:"dispatch_lag_p99_seconds"`
	LagMax float64 `json:"dispatch_lag_max_seconds"`
	// StartLag is the largest lag of the run's first requests
	// (load.Result.StartLag).
	StartLag    float64 `json:"start_lag_seconds"`
	TimerLagP99 float64 `json:"timer_lag_p99_seconds"`
	TimerLagMax float64 `json:"timer_lag_max_seconds"`
	Threshold   float64 `json:"threshold_seconds"`
	Limited     bool    `json:"generator_limited"`

	Warnings []string `json:"warnings,omitempty"`
}

func quantiles(d []time.Duration) (p50, p99, mx float64) {
	if len(d) == 0 {
		return 0, 0, 0
	}
	s := make([]float64, len(d))
	for i, v := range d {
		s[i] = v.Seconds()
	}
	slices.Sort(s)
	return metrics.Percentile(s, 50, metrics.Linear), metrics.Percentile(s, 99, metrics.Linear), s[len(s)-1]
}

// checkGenerator judges the run's own health against threshold.
func checkGenerator(res load.Result, threshold time.Duration, open bool) Generator {
	g := Generator{Threshold: threshold.Seconds()}
	g.LagP50, g.LagP99, g.LagMax = quantiles(res.Lag)
	g.StartLag = res.StartLag.Seconds()
	_, g.TimerLagP99, g.TimerLagMax = quantiles(res.TimerLag)
	if g.LagP99 > g.Threshold {
		g.Limited = true
		what := "requests went out late"
		if !open {
			what = "workers were slow to send the next request"
		}
		g.Warnings = append(g.Warnings, fmt.Sprintf(
			"the generator, not the server, limited this run: %s (p99 dispatch lag %.2f ms, max %.2f ms, threshold %.2f ms). TTFT still counts from the scheduled times, but the offered load was lower than planned: use fewer streams per process or shard the load (--shard/--shards)%s.",
			what, 1e3*g.LagP99, 1e3*g.LagMax, 1e3*g.Threshold, procsHint()))
	}
	if g.StartLag > g.Threshold && g.LagP99 <= g.Threshold {
		g.Limited = true
		g.Warnings = append(g.Warnings, fmt.Sprintf(
			"the first requests went out late (up to %.2f ms, threshold %.2f ms): the generator was slow to start, and their TTFT and client queue include it",
			1e3*g.StartLag, 1e3*g.Threshold))
	}
	// Timer wake-ups on a busy but healthy machine run late by a fraction of
	// a millisecond; only twice the threshold (at least 2 ms) means the
	// process is starved.
	if g.TimerLagP99 > max(2*g.Threshold, 0.002) {
		g.Limited = true
		g.Warnings = append(g.Warnings, fmt.Sprintf(
			"this process was short of CPU: its timers fired late (p99 %.2f ms, max %.2f ms), so its timestamps may be off by that much",
			1e3*g.TimerLagP99, 1e3*g.TimerLagMax))
	}
	return g
}

// procsHint suggests more Go processors than cores when the process runs
// with fewer than 8 and GOMAXPROCS was not chosen: on a small machine a
// client that spends its time in read syscalls keeps up better so
// (BENCHMARKS.md, "Load generator timing precision").
func procsHint() string {
	if n := runtime.GOMAXPROCS(0); n < 8 && os.Getenv("GOMAXPROCS") == "" {
		return fmt.Sprintf("; with %d Go processors, GOMAXPROCS=8 may also help", n)
	}
	return ""
}

// tokenWarning reports when servers' token counts disagree with the chunks.
func tokenWarning(t load.TokenCheck) string {
	if t.Mismatched == 0 {
		return ""
	}
	return fmt.Sprintf("%d responses reported a different token count than the chunks they streamed (%d tokens in %d chunks): per-token ITL and inter-chunk latency differ; see the inter-chunk line",
		t.Mismatched, t.UsageTokens, t.UsageChunks)
}
