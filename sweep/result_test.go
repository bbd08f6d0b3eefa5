package sweep

import (
	"math"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

func TestFromResult(t *testing.T) {
	dist := func(mean, median, p90, p99 float64) metrics.Distribution {
		return metrics.Distribution{Count: 10, Mean: mean, Median: median,
			Percentiles: []metrics.PercentileValue{{P: 50, Value: median}, {P: 90, Value: p90}, {P: 99, Value: p99}}}
	}
	r := &metrics.Result{
		Counts:     metrics.Counts{Total: 10, Completed: 9, Failed: 1, ErrorRate: 0.1},
		Window:     metrics.Window{Seconds: 5},
		Throughput: metrics.Throughput{RequestsPerSecond: 1.8, OutputTokensPerSecond: 180},
		Goodput:    &metrics.Goodput{OutputTokensPerSecond: 120, RequestsPerSecond: 1.2, Attainment: 0.6},
		Latency: metrics.Latency{
			TTFT: dist(0.2, 0.15, 0.3, 0.5),
			TPOT: dist(0.02, 0.018, 0.03, 0.04),
			// ITL asked without p99: that percentile is NaN, not 0.
			ITL:         metrics.Distribution{Count: 90, Mean: 0.02, Median: 0.019, Percentiles: []metrics.PercentileValue{{P: 50, Value: 0.019}}},
			E2E:         dist(2, 1.9, 2.5, 3),
			ClientQueue: dist(0.001, 0.001, 0.002, 0.004),
		},
		LittlesLaw: metrics.LittlesLaw{InFlight: 3.7, RateTimesLatency: 3.6},
	}
	s := FromResult(r)
	tests := []struct {
		name      string
		got, want float64
	}{
		{"requests", float64(s.Requests), 10},
		{"error rate", s.ErrorRate, 0.1},
		{"window", s.Window, 5},
		{"req/s", s.RequestThroughput, 1.8},
		{"tok/s", s.OutputThroughput, 180},
		{"goodput", s.Goodput, 120},
		{"request goodput", s.RequestGoodput, 1.2},
		{"attainment", s.Attainment, 0.6},
		{"ttft mean", s.TTFT.Mean, 0.2},
		{"ttft p50 is the median", s.TTFT.P50, 0.15},
		{"ttft p90", s.TTFT.P90, 0.3},
		{"ttft p99", s.TTFT.P99, 0.5},
		{"tpot p99", s.TPOT.P99, 0.04},
		{"itl p90 not computed", s.ITL.P90, math.NaN()},
		{"itl p99 not computed", s.ITL.P99, math.NaN()},
		{"e2e mean", s.E2E.Mean, 2},
		{"L", s.LittleL, 3.7},
		{"λW", s.LittleLambdaW, 3.6},
		{"client lag p99", s.ClientLagP99, 0.004},
	}
	for _, tt := range tests {
		if !near(tt.got, tt.want, 0) {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}

	// Without an SLO every success is good: goodput is throughput and
	// attainment the success rate, 9/10.
	r.Goodput = nil
	r.Latency.TPOT = metrics.Distribution{} // no request had two tokens
	s = FromResult(r)
	if s.Goodput != 180 || s.RequestGoodput != 1.8 || s.Attainment != 0.9 {
		t.Errorf("no SLO: goodput %v, request goodput %v, attainment %v; want 180, 1.8, 0.9", s.Goodput, s.RequestGoodput, s.Attainment)
	}
	if !math.IsNaN(s.TPOT.Mean) || !math.IsNaN(s.TPOT.P50) {
		t.Errorf("empty TPOT reads %v/%v, want NaN: an undefined TPOT must not look perfect", s.TPOT.Mean, s.TPOT.P50)
	}

	// Nothing measured at all.
	r = &metrics.Result{}
	if s := FromResult(r); s.Requests != 0 || s.Attainment != 0 || !math.IsNaN(s.E2E.Mean) {
		t.Errorf("empty result: %+v", s)
	}
	if s := FromResult(nil); !math.IsNaN(s.OutputThroughput) {
		t.Errorf("nil result: %+v", s)
	}
}

// The sweep reads a real metrics summary: two requests of 3 tokens, one
// meeting a 500 ms TTFT SLO, over a 2 s window.
func TestFromResultSummary(t *testing.T) {
	ms := func(v int) int64 { return int64(v) * int64(time.Millisecond) }
	rec := func(seq int64, start, first int) *record.Record {
		return &record.Record{Seq: seq, Scheduled: ms(start), Sent: ms(start), End: ms(first + 200),
			Chunks:       []record.Chunk{{At: ms(first), Tokens: 1}, {At: ms(first + 100), Tokens: 1}, {At: ms(first + 200), Tokens: 1}},
			OutputTokens: 3, InputTokens: 10, TokenSource: record.SourceUsage, Status: 200}
	}
	sum := metrics.NewSummary(metrics.Options{Good: func(q metrics.Request) bool { return q.TTFT <= 500*time.Millisecond }})
	sum.Add(rec(0, 0, 400))     // TTFT 400 ms: good; ends at 600 ms
	sum.Add(rec(1, 1000, 1800)) // TTFT 800 ms: not good; ends at 2,000 ms
	s := FromResult(sum.Close())
	// Window 0 → 2 s: 6 tokens / 2 s = 3 tok/s; goodput 3 / 2 = 1.5.
	if s.Requests != 2 || !near(s.Window, 2, 1e-12) || !near(s.OutputThroughput, 3, 1e-12) ||
		!near(s.Goodput, 1.5, 1e-12) || s.Attainment != 0.5 || !near(s.TTFT.Mean, 0.6, 1e-12) || !near(s.TPOT.P50, 0.1, 1e-12) {
		t.Errorf("sample from a summary: %+v", s)
	}
}
