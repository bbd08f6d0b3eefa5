package report

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

func TestITLs(t *testing.T) {
	tests := []struct {
		name   string
		chunks []record.Chunk
		vals   []float64
		wts    []int32
	}{
		// One token per chunk: each gap is one ITL.
		{"one per chunk", []record.Chunk{{At: 0, Tokens: 1}, {At: 10e6, Tokens: 1}, {At: 30e6, Tokens: 1}},
			[]float64{0.010, 0.020}, []int32{1, 1}},
		// A chunk of 4 tokens splits its gap evenly over them.
		{"multi-token chunk", []record.Chunk{{At: 0, Tokens: 1}, {At: 40e6, Tokens: 4}},
			[]float64{0.010}, []int32{4}},
		// A gap split unevenly rounds to the nanosecond, as metrics does.
		{"rounding", []record.Chunk{{At: 0, Tokens: 1}, {At: 10, Tokens: 3}},
			[]float64{3e-9}, []int32{3}},
		// Zero-token chunks are ignored entirely: they neither end a gap
		// nor start the first token.
		{"zero-token chunks", []record.Chunk{{At: 5, Tokens: 0}, {At: 0, Tokens: 1}, {At: 7e6, Tokens: 0}, {At: 10e6, Tokens: 1}},
			[]float64{0.010}, []int32{1}},
		// One chunk, or none: no gap.
		{"single chunk", []record.Chunk{{At: 3, Tokens: 5}}, nil, nil},
		{"no chunks", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals, wts := itls(tt.chunks, nil, nil)
			if len(vals) != len(tt.vals) || !slices.Equal(wts, tt.wts) {
				t.Fatalf("itls = %v %v, want %v %v", vals, wts, tt.vals, tt.wts)
			}
			for i := range vals {
				if math.Abs(vals[i]-tt.vals[i]) > 1e-15 {
					t.Fatalf("itls = %v, want %v", vals, tt.vals)
				}
			}
		})
	}
}

func TestRunBuilder(t *testing.T) {
	// 100 requests every 100 ms, sent 2 ms late, 10 tokens 20 ms apart
	// after a first token 50 ms (even i) or 150 ms (odd i) after schedule;
	// plus two warm-ups, and three failures of two kinds.
	recs := fixedRecords(100, 100*time.Millisecond, 2*time.Millisecond, 10, 20*time.Millisecond, func(i int) time.Duration {
		return time.Duration(50+100*(i%2)) * time.Millisecond
	})
	recs[0].Warmup, recs[1].Warmup = true, true
	for _, i := range []int{10, 11} {
		recs[i].Error, recs[i].Status, recs[i].Msg, recs[i].Chunks = record.ErrHTTP, 500, "boom "+strings.Repeat("x", 300), nil
	}
	recs[12].Error, recs[12].Msg, recs[12].Chunks = record.ErrTimeout, "timed out", nil
	recs[20].Finish = "stop"
	h := record.Header{Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	run := build(h, recs, RunOptions{SLO: mustSLO(t, "ttft<=100ms"), Gates: mustGates(t, "p95(ttft)<=200ms,attainment>=0.9")})

	res := run.Result
	if res.Counts.Total != 98 || res.Counts.Failed != 3 || res.Counts.WarmupExcluded != 2 {
		t.Fatalf("counts %+v, want 98 measured, 3 failed, 2 warm-up", res.Counts)
	}
	// 95 completed requests: a TTFT, TPOT and e2e each, 9 ITLs each.
	for m, want := range map[metrics.Metric]int64{metrics.MetricTTFT: 95, metrics.MetricTPOT: 95, metrics.MetricE2E: 95, metrics.MetricITL: 95 * 9} {
		if got := run.Latency[m].Count(); got != want {
			t.Errorf("%s histogram holds %d, want %d", m, got, want)
		}
	}
	if got := run.Latency[metrics.MetricITL].Max(); math.Abs(got-0.020) > 1e-12 {
		t.Errorf("ITL max %v, want 20 ms", got)
	}
	if lo, hi := run.Latency[metrics.MetricTTFT].Min(), run.Latency[metrics.MetricTTFT].Max(); lo != 0.05 || hi != 0.15 {
		t.Errorf("TTFT range [%v, %v], want [50 ms, 150 ms]", lo, hi)
	}
	// Errors grouped by kind and status, most frequent first, messages
	// shortened.
	if len(run.Errors) != 2 || run.Errors[0].Kind != record.ErrHTTP || run.Errors[0].Count != 2 || run.Errors[0].Status != 500 ||
		run.Errors[1].Kind != record.ErrTimeout || run.Errors[1].Count != 1 {
		t.Fatalf("errors %+v", run.Errors)
	}
	if n := len([]rune(run.Errors[0].Example)); n != maxExample+1 {
		t.Errorf("example of %d runes, want %d and an ellipsis", n, maxExample+1)
	}
	if len(run.OutputLens) != 95 || run.OutputLens[0] != 10 || run.InputLens[0] != 100 {
		t.Errorf("lengths %d outputs (first %d), input %d", len(run.OutputLens), run.OutputLens[0], run.InputLens[0])
	}
	if run.Finish["length"] != 94 || run.Finish["stop"] != 1 {
		t.Errorf("finish reasons %v, want 94 length and 1 stop", run.Finish)
	}
	if len(run.Scheduled) != 98 || run.Scheduled[0] != int64(200*time.Millisecond) {
		t.Errorf("scheduled times: %d, first %d", len(run.Scheduled), run.Scheduled[0])
	}
	// Client lag: every request was sent 2 ms late.
	var lagN int64
	for i, c := range run.Lag.Count {
		lagN += c
		if c > 0 && (math.Abs(run.Lag.Mean[i]-0.002) > 1e-12 || math.Abs(run.Lag.Max[i]-0.002) > 1e-12) {
			t.Fatalf("lag bucket %d: mean %v max %v, want 2 ms", i, run.Lag.Mean[i], run.Lag.Max[i])
		}
	}
	if lagN != 98 || run.Lag.Step != 1 {
		t.Errorf("lag covers %d requests at step %v, want 98 at 1 s", lagN, run.Lag.Step)
	}
	// The gates: p95 TTFT is 150 ms (passes), attainment is the 48 even
	// successes of 98 (fails).
	if len(run.Gates) != 2 || !run.Gates[0].Pass || run.Gates[1].Pass || run.GatesOK {
		t.Errorf("gates %+v ok %v, want the first to pass and the second to fail", run.Gates, run.GatesOK)
	}
	if g := res.Goodput; g == nil || g.GoodRequests != 47 {
		t.Errorf("good requests %+v, want 47 (even, successful, not warm-up)", g)
	}
	// Closing again returns the same run; later records are ignored.
	b := NewRunBuilder(h, RunOptions{})
	b.Add(&recs[50])
	r1 := b.Close()
	b.Add(&recs[51])
	if r2 := b.Close(); r2 != r1 || r2.Result.Counts.Total != 1 {
		t.Errorf("second Close: same %v, total %d", r2 == r1, r2.Result.Counts.Total)
	}
}

func TestRunBuilderIncludeWarmup(t *testing.T) {
	recs := fixedRecords(10, time.Second, 0, 3, time.Millisecond, func(int) time.Duration { return time.Millisecond })
	for i := range recs {
		recs[i].Warmup = i < 4
	}
	with := build(record.Header{}, recs, RunOptions{Metrics: metrics.Options{IncludeWarmup: true}})
	without := build(record.Header{}, recs, RunOptions{})
	if with.Latency[metrics.MetricTTFT].Count() != 10 || without.Latency[metrics.MetricTTFT].Count() != 6 {
		t.Errorf("TTFT counts %d with and %d without warm-up, want 10 and 6",
			with.Latency[metrics.MetricTTFT].Count(), without.Latency[metrics.MetricTTFT].Count())
	}
	if len(with.Scheduled) != 10 || len(without.Scheduled) != 6 {
		t.Errorf("scheduled %d and %d, want 10 and 6", len(with.Scheduled), len(without.Scheduled))
	}
}

func TestLagBuilderCoarsens(t *testing.T) {
	// Requests an hour apart over ten days: far more than maxLagBuckets
	// one-second buckets, so the step doubles until they fit, and every
	// request is still counted with its lag.
	l := lagBuilder{step: int64(time.Second)}
	const n = 240
	for i := range n {
		l.add(int64(i)*int64(time.Hour), time.Duration(i)*time.Millisecond)
	}
	// An early request, scheduled before the first: the series grows down.
	l.add(-int64(time.Hour), 0)
	s := l.series()
	if len(s.Starts) > maxLagBuckets {
		t.Fatalf("%d buckets, want at most %d", len(s.Starts), maxLagBuckets)
	}
	if s.Step <= 1 {
		t.Fatalf("step %v s, want it coarsened", s.Step)
	}
	var total int64
	maxLag := 0.0
	for i, c := range s.Count {
		total += c
		if c > 0 {
			maxLag = math.Max(maxLag, s.Max[i])
		} else if !math.IsNaN(s.Mean[i]) {
			t.Fatalf("empty bucket %d has mean %v, want NaN", i, s.Mean[i])
		}
	}
	if total != n+1 || math.Abs(maxLag-0.239) > 1e-12 {
		t.Errorf("counted %d requests, max lag %v; want %d and 239 ms", total, maxLag, n+1)
	}
	if s.Starts[0] > -3600 {
		t.Errorf("series starts at %v s, after the early request", s.Starts[0])
	}
}

// TestRunBuilderThinsRequestSpans checks that a long run keeps a bounded,
// evenly spaced sample of its requests' spans and says its stride.
func TestRunBuilderThinsRequestSpans(t *testing.T) {
	defer func(n int) { maxRequestSpans = n }(maxRequestSpans)
	maxRequestSpans = 100
	recs := fixedRecords(1000, 10*time.Millisecond, 0, 2, 5*time.Millisecond, func(int) time.Duration { return 20 * time.Millisecond })
	run := build(record.Header{}, recs, RunOptions{})
	// 1,000 requests under a bound of 100: every 16th, 63 spans (the
	// stride doubles at 100 kept, from 1 to 2, 4, 8, 16).
	if run.RequestStride != 16 || len(run.Requests) != 63 {
		t.Fatalf("stride %d, %d spans", run.RequestStride, len(run.Requests))
	}
	for i, s := range run.Requests {
		if s.Seq != int64(16*i) {
			t.Fatalf("span %d is request %d, want %d", i, s.Seq, 16*i)
		}
	}
	// The page says it draws a sample, and its SLO figures are estimates.
	var b bytes.Buffer
	if err := WriteRunHTML(&b, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Every 16th request of 1000 is drawn.", "the page holds every 16th, so figures recomputed here are estimates"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
