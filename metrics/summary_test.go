package metrics

import (
	"encoding/json"
	"math"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

func TestSummaryFailures(t *testing.T) {
	rs := append(seedRequests(),
		// Rejected at once: no tokens.
		&record.Record{Scheduled: ms(300), Sent: ms(300), End: ms(310), Error: record.ErrRateLimited, Status: 429, Msg: "http 429: slow down"},
		// Timed out after two tokens, ending after every success: it
		// stretches the window but adds no latency.
		&record.Record{Scheduled: ms(400), Sent: ms(400), End: ms(2000), Error: record.ErrTimeout,
			Chunks: oneTokenChunks(1500, 1600), OutputTokens: 2, InputTokens: 50},
	)
	var seen []Request
	always := func(q Request) bool { seen = append(seen, q); return true }
	r := summarize(t, Options{Good: always}, rs...)

	c := r.Counts
	if c.Total != 5 || c.Completed != 3 || c.Failed != 2 {
		t.Errorf("counts = %+v, want total 5, completed 3, failed 2", c)
	}
	if !reflect.DeepEqual(c.Errors, map[string]int64{"rate_limited": 1, "timeout": 1}) {
		t.Errorf("errors = %v", c.Errors)
	}
	// A kind's example is its first message; a failure without one gives none.
	if !reflect.DeepEqual(c.ErrorExamples, map[string]string{"rate_limited": "http 429: slow down"}) {
		t.Errorf("error examples = %v", c.ErrorExamples)
	}
	checkNear(t, "error rate", c.ErrorRate, 0.4)
	if r.Latency.TTFT.Count != 3 || r.Latency.ITL.Count != 4+5+2 {
		t.Errorf("failures leaked into latency: ttft %d values, itl %d", r.Latency.TTFT.Count, r.Latency.ITL.Count)
	}
	if r.Tokens.Output != 14 || r.Tokens.Input != 0 {
		t.Errorf("tokens = %+v: a failure's tokens counted", r.Tokens)
	}
	checkNear(t, "window", r.Window.Seconds, 2.0)
	checkNear(t, "throughput over the stretched window", r.Throughput.OutputTokensPerSecond, 14/2.0)
	// Good accepted everything, but failures are never good: 3 of 5.
	checkNear(t, "attainment", r.Goodput.Attainment, 0.6)
	for _, q := range seen {
		if !q.OK {
			t.Errorf("Good was asked about a failed request: %+v", q)
		}
	}
	if len(seen) != 3 {
		t.Errorf("Good called %d times, want 3", len(seen))
	}
}

func TestSummaryNoSLO(t *testing.T) {
	r := summarize(t, Options{}, seedRequests()...)
	if r.Goodput != nil {
		t.Errorf("goodput reported without an SLO: %+v", r.Goodput)
	}
	b, _ := json.Marshal(r)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["goodput"]; ok {
		t.Error("goodput key present in JSON without an SLO")
	}
}

// TestSummaryOneToken: N = 1 has no TPOT, and an SLO on TPOT holds
// vacuously for it.
func TestSummaryOneToken(t *testing.T) {
	r := summarize(t, Options{Good: seedSLO}, streamed(0, 100), streamed(0, 100, 200))
	if r.Latency.TPOT.Count != 1 {
		t.Errorf("tpot count = %d, want 1 (N = 1 has none)", r.Latency.TPOT.Count)
	}
	if r.Latency.ITL.Count != 1 || r.Latency.TTFT.Count != 2 {
		t.Errorf("itl %d, ttft %d; want 1, 2", r.Latency.ITL.Count, r.Latency.TTFT.Count)
	}
	// The second request's TPOT is 100 ms > 50 ms: only the first is good.
	if r.Goodput.GoodRequests != 1 || r.Goodput.GoodOutputTokens != 1 {
		t.Errorf("good = %+v, want the one-token request only", r.Goodput)
	}
}

// TestSummaryMultiTokenChunks pins ITL per token against inter-chunk.
func TestSummaryMultiTokenChunks(t *testing.T) {
	multi := &record.Record{End: ms(200), OutputTokens: 6, Chunks: []record.Chunk{
		{At: ms(100), Tokens: 1}, {At: ms(160), Tokens: 3}, {At: ms(200), Tokens: 2}}}
	single := streamed(0, 100, 110, 140) // gaps 10, 30
	r := summarize(t, Options{Percentiles: []float64{0, 50, 100}}, multi, single)

	// ITL: 60 ms over 3 tokens and 40 ms over 2 give five 20 ms values,
	// plus 10 and 30: {10, 20×5, 30}.
	itl := r.Latency.ITL
	if itl.Count != 7 {
		t.Fatalf("itl count = %d, want 7", itl.Count)
	}
	checkNear(t, "itl mean", itl.Mean, 0.020)
	checkNear(t, "itl median", itl.Median, 0.020)
	checkNear(t, "itl min", itl.Min, 0.010)
	checkNear(t, "itl max", itl.Max, 0.030)
	checkNear(t, "itl std", itl.Std, math.Sqrt(200.0/7)/1000) // (100+100)/7 ms²
	// Inter-chunk: the raw gaps {10, 30, 40, 60}.
	ic := r.Latency.InterChunk
	if ic.Count != 4 {
		t.Fatalf("inter-chunk count = %d, want 4", ic.Count)
	}
	checkNear(t, "inter-chunk mean", ic.Mean, 0.035)
	checkNear(t, "inter-chunk median", ic.Median, 0.035)
	checkNear(t, "inter-chunk p100", pct(t, ic, 100), 0.060)
	checkNear(t, "inter-chunk p0", pct(t, ic, 0), 0.010)
	// Series: all 9 tokens in the first second, of which the window
	// covers 0.2 s: 45 tok/s over it.
	if p := r.Series.Points; len(p) != 1 || !near(p[0].OutputTokensPerSecond, 45) || !near(p[0].Seconds, 0.2) {
		t.Errorf("series = %+v, want one point of 45 tok/s over 0.2 s", r.Series.Points)
	}
}

// TestSummaryWarmup: warm-up records leave the statistics and the window
// unless IncludeWarmup.
func TestSummaryWarmup(t *testing.T) {
	shifted := func() []*record.Record {
		rs := seedRequests()
		for _, r := range rs {
			r.Scheduled += ms(1000)
			r.Sent += ms(1000)
			r.End += ms(1000)
			for i := range r.Chunks {
				r.Chunks[i].At += ms(1000)
			}
		}
		return rs
	}
	warm := streamed(0, 300)
	warm.Warmup = true
	tests := []struct {
		name     string
		include  bool
		total    int64
		excluded int64
		start    int64
		window   float64
		tokens   int64
	}{
		{"excluded by default", false, 3, 1, ms(1000), 1.1, 14},
		{"included on request", true, 4, 0, 0, 2.1, 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := summarize(t, Options{IncludeWarmup: tt.include}, append([]*record.Record{warm}, shifted()...)...)
			if r.Counts.Total != tt.total || r.Counts.WarmupExcluded != tt.excluded {
				t.Errorf("counts = %+v", r.Counts)
			}
			if r.Window.Start != tt.start {
				t.Errorf("window start = %d, want %d", r.Window.Start, tt.start)
			}
			checkNear(t, "window", r.Window.Seconds, tt.window)
			if r.Tokens.Output != tt.tokens {
				t.Errorf("output tokens = %d, want %d", r.Tokens.Output, tt.tokens)
			}
		})
	}
}

// TestSummaryLittlesLaw works a case by hand (times in ms):
//
//	R1 ok      s=0    tokens 100, 200  end 300   e2e 200
//	R2 ok      s=100  tokens 300, 400  end 400   e2e 300
//	R3 failed  s=200                   end 700
//
// W = 0.7 s; L = (300 + 300 + 500)/700 = 11/7; λ = 2/0.7; W̄ = 0.25 s;
// λ·W̄ = 5/7; gap = (6/7)/(11/7) = 6/11.
func TestSummaryLittlesLaw(t *testing.T) {
	r1 := streamed(0, 100, 200)
	r1.End = ms(300)
	r := summarize(t, Options{}, r1, streamed(100, 300, 400),
		&record.Record{Scheduled: ms(200), Sent: ms(200), End: ms(700), Error: record.ErrTimeout})
	ll := r.LittlesLaw
	checkNear(t, "L", ll.InFlight, 11.0/7)
	checkNear(t, "λ", ll.ArrivalRate, 2/0.7)
	checkNear(t, "W̄", ll.MeanLatency, 0.25)
	checkNear(t, "λ·W̄", ll.RateTimesLatency, 5.0/7)
	checkNear(t, "gap", ll.RelativeGap, 6.0/11)
}

// TestSummaryGivenWindow: records that do not say when their requests
// were sent all start at the epoch, and the window is the one their tool
// measured (times in ms):
//
//	R1 ok      s=0  tokens 100, 200        e2e 200, end 300
//	R2 ok      s=0  tokens 150, 250, 350   e2e 350, end 400
//	R3 failed  s=0                         end 0
//
// Over a given 2 s: 5 tok/2 s, 2 req/2 s; L = (300 + 400)/2000 = 0.35,
// the mean of requests in flight, which needs no start time. Without the
// window the rates would divide by the longest request alone.
func TestSummaryGivenWindow(t *testing.T) {
	recs := func() []*record.Record {
		r1 := streamed(0, 100, 200)
		r1.End = ms(300)
		r2 := streamed(0, 150, 250, 350)
		r2.End = ms(400)
		return []*record.Record{r1, r2, {Error: record.ErrConnect}}
	}
	r := summarize(t, Options{Window: 2 * time.Second, Good: func(Request) bool { return true }}, recs()...)
	if r.Window != (Window{Start: 0, End: ms(2000), Seconds: 2}) {
		t.Errorf("window = %+v, want 0 to 2 s", r.Window)
	}
	checkNear(t, "output tok/s", r.Throughput.OutputTokensPerSecond, 2.5)
	checkNear(t, "req/s", r.Throughput.RequestsPerSecond, 1)
	checkNear(t, "goodput", r.Goodput.OutputTokensPerSecond, 2.5)
	checkNear(t, "L", r.LittlesLaw.InFlight, 0.35)
	checkNear(t, "TTFT mean", r.Latency.TTFT.Mean, 0.125)
	// Where the records were put is no measurement: no series.
	if len(r.Series.Points) != 0 {
		t.Errorf("series %+v, want none", r.Series.Points)
	}
	// A window shorter than the records span is the records span.
	r = summarize(t, Options{Window: 100 * time.Millisecond}, recs()...)
	checkNear(t, "window shorter than the records", r.Window.Seconds, 0.4)
	// Without one, the window spans the records.
	r = summarize(t, Options{}, recs()...)
	if r.Window.Seconds != 0.4 || len(r.Series.Points) == 0 {
		t.Errorf("no window given: %+v, %d series points", r.Window, len(r.Series.Points))
	}
}

// TestSummarySeries works the seed's series by hand at two steps.
func TestSummarySeries(t *testing.T) {
	tests := []struct {
		name string
		step time.Duration
		want []SeriesPoint
	}{
		{
			// [0,1): tokens A5 + B6 + C1 = 12; in flight A .4 + B .7 +
			// C .8 = 1.9 s; A and B end. [1,2): C's 1.0 and 1.1, C's last
			// .1 s, C ends; the window ends at 1.1 s, so the rates are
			// over 0.1 s.
			name: "one second",
			step: time.Second,
			want: []SeriesPoint{
				{Start: 0, Seconds: 1, OutputTokensPerSecond: 12, InFlight: 1.9, Completions: 2},
				{Start: 1, Seconds: 0.1, OutputTokensPerSecond: 20, InFlight: 1, Completions: 1},
			},
		},
		{
			// Half seconds: a token at exactly 1.0 s opens the third bucket.
			name: "half second",
			step: 500 * time.Millisecond,
			want: []SeriesPoint{
				{Start: 0, Seconds: 0.5, OutputTokensPerSecond: 10, InFlight: 2.2, Completions: 1},
				{Start: 0.5, Seconds: 0.5, OutputTokensPerSecond: 14, InFlight: 1.6, Completions: 1},
				{Start: 1, Seconds: 0.1, OutputTokensPerSecond: 20, InFlight: 1, Completions: 1},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := summarize(t, Options{SeriesStep: tt.step}, seedRequests()...)
			checkNear(t, "step", r.Series.Step, tt.step.Seconds())
			checkSeries(t, r.Series.Points, tt.want)
		})
	}
}

func checkSeries(t *testing.T, got, want []SeriesPoint) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("series has %d points, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if !near(g.Start, w.Start) || !near(g.Seconds, w.Seconds) || !near(g.OutputTokensPerSecond, w.OutputTokensPerSecond) ||
			!near(g.InFlight, w.InFlight) || g.Completions != w.Completions || g.Errors != w.Errors {
			t.Errorf("point %d = %+v, want %+v", i, g, w)
		}
	}
}

// TestSummarySeriesErrorsAndLongRequests: a request spanning several
// buckets is in flight in each; failures count as errors where they end.
func TestSummarySeriesErrorsAndLongRequests(t *testing.T) {
	long := streamed(500, 3500) // in flight 0.5 s → 3.5 s
	failed := &record.Record{Scheduled: ms(1200), Sent: ms(1200), End: ms(2300), Error: record.ErrReset}
	r := summarize(t, Options{}, long, failed)
	// The window is [0.5 s, 3.5 s]: its first and last buckets are half
	// inside it, and their averages are over that half.
	checkSeries(t, r.Series.Points, []SeriesPoint{
		{Start: 0, Seconds: 0.5, InFlight: 1},
		{Start: 1, Seconds: 1, InFlight: 1.8},
		{Start: 2, Seconds: 1, InFlight: 1.3, Errors: 1},
		{Start: 3, Seconds: 0.5, InFlight: 1, OutputTokensPerSecond: 2, Completions: 1},
	})
}

// TestSummarySeriesCoarsens: a span past maxSeriesBuckets doubles the step
// instead of growing without bound, and keeps the totals.
func TestSummarySeriesCoarsens(t *testing.T) {
	far := float64(maxSeriesBuckets+10) * 1000 // ms
	r := summarize(t, Options{}, streamed(0, 100), streamed(far, far+100), streamed(far/2, far/2+1500))
	if r.Series.Step != 2 {
		t.Fatalf("step = %v s, want 2", r.Series.Step)
	}
	var tokens, completions, busy float64
	for _, p := range r.Series.Points {
		tokens += p.OutputTokensPerSecond * p.Seconds
		completions += float64(p.Completions)
		busy += p.InFlight * p.Seconds
	}
	checkNear(t, "tokens", tokens, 3)
	checkNear(t, "completions", completions, 3)
	checkNear(t, "in-flight seconds", busy, 0.1+0.1+1.5)
	if len(r.Series.Points) > maxSeriesBuckets {
		t.Errorf("%d points", len(r.Series.Points))
	}
}

// TestSummaryExtremeTimes: absurd timestamps give numbers, not panics,
// NaNs or an unbounded series.
func TestSummaryExtremeTimes(t *testing.T) {
	rs := []*record.Record{
		{Scheduled: math.MinInt64, Sent: math.MinInt64, End: math.MaxInt64, OutputTokens: 2,
			Chunks: []record.Chunk{{At: math.MinInt64, Tokens: 1}, {At: math.MaxInt64, Tokens: math.MaxInt32}}},
		{Scheduled: math.MaxInt64, End: math.MinInt64, Chunks: []record.Chunk{{At: 0, Tokens: 1}, {At: -5, Tokens: 1}}},
		{Scheduled: 0, End: 0, Error: record.ErrDropped},
		streamed(0, 100, 200),
	}
	r := summarize(t, Options{Good: seedSLO}, rs...)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatalf("result does not encode: %v", err)
	}
	if len(r.Series.Points) > maxSeriesBuckets+1 {
		t.Errorf("series has %d points", len(r.Series.Points))
	}
	if r.Counts.Total != 4 || r.Counts.Completed != 3 {
		t.Errorf("counts = %+v", r.Counts)
	}
	// The window spans the whole int64 range: 2⁶⁴ − 1 ns, positive, not
	// wrapped around.
	checkNear(t, "window", r.Window.Seconds, 0x1p64/1e9)
	if r.LittlesLaw.InFlight <= 0 || r.Throughput.OutputTokensPerSecond <= 0 {
		t.Errorf("rates over the huge window: %+v %+v", r.LittlesLaw, r.Throughput)
	}
	_ = b
}

// TestSummaryChunkPastTheSeriesBound: a chunk later than the series can
// place (beyond maxTime) lands in its last bucket, and Close returns; the
// fuzzer found one that made the series loop for ever.
func TestSummaryChunkPastTheSeriesBound(t *testing.T) {
	r := summarize(t, Options{SeriesStep: 1e6},
		&record.Record{Scheduled: 16774144, End: -7595718147998050666, OutputTokens: 6103,
			Chunks: []record.Chunk{{At: 0x540000000bebc200, Tokens: 1}}})
	if r.Counts.Completed != 1 || r.Tokens.Output != 6103 || len(r.Series.Points) > maxSeriesBuckets+1 {
		t.Errorf("counts %+v, tokens %+v, %d points; want the request counted and a bounded series",
			r.Counts, r.Tokens, len(r.Series.Points))
	}
}

// TestSummaryEndBeforeScheduled: a record whose End is unset (a dropped
// request) ends, for the window and the series, when it was scheduled.
func TestSummaryEndBeforeScheduled(t *testing.T) {
	dropped := &record.Record{Scheduled: ms(2500), Error: record.ErrDropped}
	r := summarize(t, Options{}, streamed(0, 100), dropped)
	if r.Window.End != ms(2500) {
		t.Errorf("window end = %d, want the dropped request's schedule", r.Window.End)
	}
	checkSeries(t, r.Series.Points, []SeriesPoint{
		{Start: 0, Seconds: 1, OutputTokensPerSecond: 1, InFlight: 0.1, Completions: 1},
		{Start: 1, Seconds: 1},
		{Start: 2, Seconds: 0.5, Errors: 1},
	})
	checkNear(t, "L", r.LittlesLaw.InFlight, 0.1/2.5)
}

func TestSummaryEmpty(t *testing.T) {
	s := NewSummary(Options{Good: seedSLO})
	s.Add(nil)
	r := s.Close()
	if r.Counts.Total != 0 || r.Window.Seconds != 0 || r.Throughput.OutputTokensPerSecond != 0 {
		t.Errorf("empty result = %+v", r)
	}
	if r.Goodput == nil || r.Goodput.Attainment != 0 {
		t.Errorf("goodput = %+v, want zeros", r.Goodput)
	}
	if r.Latency.TTFT.Count != 0 || r.Latency.TTFT.Percentiles != nil {
		t.Errorf("ttft = %+v", r.Latency.TTFT)
	}
	if r.Series.Points == nil || len(r.Series.Points) != 0 {
		t.Errorf("series points = %#v, want empty, not null", r.Series.Points)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatalf("empty result does not encode: %v", err)
	}
}

// TestSummaryZeroWindow: one request that ends when it was scheduled has
// W = 0; rates are zero rather than infinite.
func TestSummaryZeroWindow(t *testing.T) {
	r := summarize(t, Options{Good: seedSLO}, &record.Record{Scheduled: 5, Sent: 5, End: 5})
	if r.Window.Seconds != 0 || r.Throughput.RequestsPerSecond != 0 || r.Goodput.RequestsPerSecond != 0 || r.LittlesLaw.InFlight != 0 {
		t.Errorf("zero window gave %+v %+v %+v", r.Throughput, r.Goodput, r.LittlesLaw)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

func TestSummaryTokenSources(t *testing.T) {
	a, b, c := streamed(0, 10), streamed(0, 10), streamed(0, 10)
	a.TokenSource, b.TokenSource, c.TokenSource = record.SourceUsage, record.SourceUsage, ""
	r := summarize(t, Options{}, a, b, c)
	if !reflect.DeepEqual(r.TokenSources, map[string]int64{"usage": 2, "unknown": 1}) {
		t.Errorf("token sources = %v", r.TokenSources)
	}
}

// TestSummarySnapshotAndClose: Snapshot reads the run so far without ending
// it; Close is idempotent and later Adds are ignored.
func TestSummarySnapshotAndClose(t *testing.T) {
	rs := seedRequests()
	s := NewSummary(Options{Good: seedSLO})
	s.Add(rs[0])
	snap := s.Snapshot()
	if snap.Counts.Total != 1 || snap.Latency.TTFT.Count != 1 {
		t.Fatalf("snapshot after one = %+v", snap.Counts)
	}
	s.Add(rs[1])
	s.Snapshot() // a second snapshot must not disturb the state
	s.Add(rs[2])
	got := s.Close()
	want := summarize(t, Options{Good: seedSLO}, seedRequests()...)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("result after snapshots differs:\n%+v\n%+v", got, want)
	}
	if s.Close() != got || s.Snapshot() != got {
		t.Error("Close and Snapshot after Close do not return the closed result")
	}
	s.Add(streamed(0, 50))
	if got.Counts.Total != 3 {
		t.Errorf("Add after Close changed the result: %+v", got.Counts)
	}
}

// TestSummaryDoesNotRetain: the caller reuses records and chunk slices.
func TestSummaryDoesNotRetain(t *testing.T) {
	s := NewSummary(Options{})
	r := streamed(0, 100, 200)
	s.Add(r)
	for i := range r.Chunks {
		r.Chunks[i].At = ms(9000)
	}
	r.Scheduled, r.End = ms(9000), ms(9000)
	got := s.Close()
	checkNear(t, "ttft", got.Latency.TTFT.Max, 0.1)
	checkNear(t, "window", got.Window.Seconds, 0.2)
}

// TestSummaryConcurrent: Add and Snapshot from several goroutines at once
// give the same result as adding in order.
func TestSummaryConcurrent(t *testing.T) {
	s := NewSummary(Options{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				s.Add(streamed(float64(g*1000+i), float64(g*1000+i+100), float64(g*1000+i+130)))
				if i%10 == 0 {
					s.Snapshot()
				}
			}
		}()
	}
	wg.Wait()
	r := s.Close()
	if r.Counts.Completed != 200 || r.Latency.ITL.Count != 200 {
		t.Fatalf("counts = %+v, itl %d", r.Counts, r.Latency.ITL.Count)
	}
	checkNear(t, "itl mean", r.Latency.ITL.Mean, 0.030)
	checkNear(t, "ttft p99", pct(t, r.Latency.TTFT, 99), 0.1)
}

// TestResultJSON pins the stable JSON keys and checks a round trip.
func TestResultJSON(t *testing.T) {
	r := summarize(t, Options{Good: seedSLO, SLO: "ttft<=500ms,tpot<=50ms"}, seedRequests()...)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"percentile_method", "percentiles", "counts", "window", "tokens", "throughput",
		"goodput", "latency", "littles_law", "series", "token_sources"} {
		if _, ok := top[k]; !ok {
			t.Errorf("key %q missing", k)
		}
	}
	var lat map[string]map[string]json.RawMessage
	if err := json.Unmarshal(top["latency"], &lat); err != nil {
		t.Fatal(err)
	}
	for _, m := range Metrics() {
		d, ok := lat[string(m)]
		if !ok {
			t.Errorf("latency.%s missing", m)
			continue
		}
		for _, k := range []string{"count", "mean", "std", "min", "max", "median", "percentiles"} {
			if _, ok := d[k]; !ok {
				t.Errorf("latency.%s.%s missing", m, k)
			}
		}
	}
	if string(top["percentile_method"]) != `"linear"` {
		t.Errorf("percentile_method = %s", top["percentile_method"])
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, r) {
		t.Errorf("round trip changed the result:\n%+v\n%+v", &back, r)
	}
}

func TestResultDistributionLookup(t *testing.T) {
	r := summarize(t, Options{Percentiles: []float64{99.9}}, seedRequests()...)
	for _, m := range Metrics() {
		if r.Distribution(m) == nil {
			t.Errorf("Distribution(%q) = nil", m)
		}
	}
	if r.Distribution("latency") != nil {
		t.Error("an unknown metric has a distribution")
	}
	if _, ok := r.Latency.TTFT.Percentile(99.9); !ok {
		t.Error("p99.9 not found")
	}
	if _, ok := r.Latency.TTFT.Percentile(99); ok {
		t.Error("p99 found though not computed")
	}
}

// Requests still in flight when a run was interrupted were canceled by the
// client, not failed by the server: they are counted apart and left out
// of attainment's denominator, but stay failures everywhere else.
func TestSummaryCanceledAreOutsideAttainment(t *testing.T) {
	rs := append(seedRequests(),
		// a server failure: inside attainment
		&record.Record{Scheduled: ms(300), Sent: ms(300), End: ms(310), Error: record.ErrUnavailable, Status: 503},
		// in flight at the interrupt, one token in: canceled
		&record.Record{Scheduled: ms(400), Sent: ms(400), End: ms(1500), Error: record.ErrCanceled,
			Chunks: oneTokenChunks(900), OutputTokens: 1},
		// waiting for a slot at the interrupt: canceled too
		&record.Record{Scheduled: ms(500), Sent: ms(1500), End: ms(1500), Error: record.ErrCanceled},
	)
	always := func(Request) bool { return true }
	r := summarize(t, Options{Good: always}, rs...)
	c := r.Counts
	if c.Total != 6 || c.Completed != 3 || c.Failed != 3 || c.Canceled != 2 || c.Errors["canceled"] != 2 {
		t.Errorf("counts = %+v, want total 6, completed 3, failed 3 of which 2 canceled", c)
	}
	// 3 good of the 4 requests that were not canceled.
	checkNear(t, "attainment", r.Goodput.Attainment, 0.75)
	checkNear(t, "error rate", c.ErrorRate, 0.5)

	// Nothing but canceled requests: no attainment to speak of, 0.
	r = summarize(t, Options{Good: always},
		&record.Record{Scheduled: 0, Sent: 0, End: ms(5), Error: record.ErrCanceled})
	if r.Goodput.Attainment != 0 || r.Counts.Canceled != 1 {
		t.Errorf("only canceled: attainment %v, counts %+v", r.Goodput.Attainment, r.Counts)
	}
}
