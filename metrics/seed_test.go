package metrics

import (
	"fmt"
	"testing"
)

// TestSeedWorkedExample pins the seed documents' worked example: three
// requests, SLO TTFT ≤ 0.5 s and TPOT ≤ 0.05 s, W = 1.10 s.
func TestSeedWorkedExample(t *testing.T) {
	tests := []struct {
		name   string
		method Method
		// TTFT p50, p99; TPOT p50, p99
		ttft50, ttft99, tpot50, tpot99 float64
	}{
		// NumPy linear: p99 of {.2,.5,.7} sits at rank 1.98, so
		// .5 + .98·(.7 − .5) = .696, which the seed prints as 0.70; TPOT
		// {.04,.05,.10} gives .05 + .98·.05 = .099 at p99.
		{"linear", Linear, 0.50, 0.696, 0.05, 0.099},
		// The seed's own nearest rank: round(.99·2) = 2 picks the max.
		{"nearest rank", NearestRank, 0.50, 0.70, 0.05, 0.10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := summarize(t, Options{Method: tt.method, Good: seedSLO, SLO: "ttft<=500ms,tpot<=50ms", Percentiles: []float64{50, 99}}, seedRequests()...)
			if r.Method != tt.method {
				t.Errorf("method = %v, want %v", r.Method, tt.method)
			}
			ttft, tpot := r.Latency.TTFT, r.Latency.TPOT
			checkNear(t, "ttft p50", pct(t, ttft, 50), tt.ttft50)
			checkNear(t, "ttft p99", pct(t, ttft, 99), tt.ttft99)
			checkNear(t, "ttft median", ttft.Median, tt.ttft50)
			checkNear(t, "ttft mean", ttft.Mean, 1.4/3)
			checkNear(t, "tpot p50", pct(t, tpot, 50), tt.tpot50)
			checkNear(t, "tpot p99", pct(t, tpot, 99), tt.tpot99)
			checkNear(t, "tpot mean", tpot.Mean, 0.19/3)
			if got := fmt.Sprintf("%.2f %.3f %.2f %.4f", pct(t, ttft, 99), ttft.Mean, pct(t, tpot, 50), tpot.Mean); got != "0.70 0.467 0.05 0.0633" {
				t.Errorf("printed as the seed prints: %q, want %q", got, "0.70 0.467 0.05 0.0633")
			}
			checkNear(t, "window", r.Window.Seconds, 1.1)
			if r.Tokens.Output != 14 {
				t.Errorf("output tokens = %d, want 14", r.Tokens.Output)
			}
			checkNear(t, "throughput", r.Throughput.OutputTokensPerSecond, 14/1.1)
			if got := fmt.Sprintf("%.2f", r.Throughput.OutputTokensPerSecond); got != "12.73" {
				t.Errorf("throughput prints %s, want 12.73", got)
			}
			g := r.Goodput
			if g == nil {
				t.Fatal("goodput not reported with an SLO")
			}
			if g.GoodRequests != 2 || g.GoodOutputTokens != 11 {
				t.Errorf("good = %d requests, %d tokens; want 2, 11", g.GoodRequests, g.GoodOutputTokens)
			}
			checkNear(t, "goodput", g.OutputTokensPerSecond, 10)
			checkNear(t, "request goodput", g.RequestsPerSecond, 2/1.1)
			checkNear(t, "attainment", g.Attainment, 2.0/3)
			checkNear(t, "request throughput", r.Throughput.RequestsPerSecond, 3/1.1)
		})
	}
}

func pct(t *testing.T, d Distribution, p float64) float64 {
	t.Helper()
	v, ok := d.Percentile(p)
	if !ok {
		t.Fatalf("percentile %v missing from %+v", p, d)
	}
	return v
}
