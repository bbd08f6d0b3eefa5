package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run with -update if the change is intended\n--- got ---\n%s", path, got)
	}
}

// simLoad describes a seeded open-loop load on the simulator.
type simLoad struct {
	seed    uint64 // arrivals and prompt lengths
	simSeed uint64 // the simulator's own randomness (output lengths); 0 means seed
	// jitter delays each arrival by up to this much, drawn with
	// jitterSeed: the few milliseconds by which two runs of one schedule
	// differ in when requests actually leave.
	jitter     time.Duration
	jitterSeed uint64
	requests   int     // how many
	rate       float64 // Poisson arrivals per second; 0 sends at a constant 1/interval
	interval   time.Duration
	promptLo   int // prompt tokens drawn uniformly in [promptLo, promptLo+promptSpan)
	promptSp   int
	maxTokens  int
	ignoreEOS  bool
	profile    sim.Profile
	maxSeqs    int
}

// simulate runs l in virtual time and returns a header and the records.
func simulate(t testing.TB, l simLoad) (record.Header, []record.Record) {
	t.Helper()
	rng := rand.New(rand.NewPCG(l.seed, 99))
	jrng := rand.New(rand.NewPCG(l.jitterSeed, 98))
	jitter := func() time.Duration {
		if l.jitter <= 0 {
			return 0
		}
		return time.Duration(jrng.Int64N(int64(l.jitter)))
	}
	reqs := make([]sim.VirtualRequest, l.requests)
	at := time.Duration(0)
	for i := range reqs {
		if l.rate > 0 {
			at += time.Duration(rng.ExpFloat64() / l.rate * 1e9)
		} else {
			at += l.interval
		}
		span := max(l.promptSp, 1)
		reqs[i] = sim.VirtualRequest{At: at + jitter(), PromptTokens: l.promptLo + rng.IntN(span), MaxTokens: l.maxTokens, IgnoreEOS: l.ignoreEOS}
	}
	simSeed := l.simSeed
	if simSeed == 0 {
		simSeed = l.seed
	}
	recs, err := sim.RunVirtual(sim.Options{Seed: simSeed, Profile: l.profile, MaxNumSeqs: l.maxSeqs}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	arrival := "open loop: poisson arrivals"
	if l.rate == 0 {
		arrival = "open loop: constant arrivals"
	}
	cfg := map[string]any{"arrival": arrival, "request_rate": l.rate, "ignore_eos": l.ignoreEOS, "percentile_method": "linear", "num_warmups": 0}
	h, err := record.NewHeader("goodput test", cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.Start = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return h, recs
}

// build folds records into a Run.
func build(h record.Header, recs []record.Record, o RunOptions) *Run {
	b := NewRunBuilder(h, o)
	for i := range recs {
		b.Add(&recs[i])
	}
	return b.Close()
}

// mustSLO parses a per-request SLO.
func mustSLO(t testing.TB, s string) slo.Conditions {
	t.Helper()
	cs, err := slo.ParseConditions(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// mustGates parses gates.
func mustGates(t testing.TB, s string) slo.Gates {
	t.Helper()
	gs, err := slo.ParseGates(s)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}

// writeRecords writes a record file and returns its path.
func writeRecords(t testing.TB, dir, name string, h record.Header, recs []record.Record) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := record.NewWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(record.Trailer{Records: int64(len(recs))}); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeJSON writes v as JSON to dir/name and returns the path.
func writeJSON(t testing.TB, dir, name string, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixedRecords returns n requests of a simple, exactly known shape: request
// i is scheduled at i·gap, sent lag later, and streams tokens one per chunk
// every tpot after a first token at ttft(i).
func fixedRecords(n int, gap, lag time.Duration, tokens int, tpot time.Duration, ttft func(i int) time.Duration) []record.Record {
	recs := make([]record.Record, n)
	for i := range recs {
		s := int64(i) * int64(gap)
		first := s + int64(ttft(i))
		chunks := make([]record.Chunk, tokens)
		for k := range chunks {
			chunks[k] = record.Chunk{At: first + int64(k)*int64(tpot), Tokens: 1}
		}
		recs[i] = record.Record{
			Seq: int64(i), Scheduled: s, Sent: s + int64(lag), End: chunks[tokens-1].At + 1000,
			Chunks: chunks, InputTokens: 100, OutputTokens: tokens, TokenSource: record.SourceUsage,
			Status: 200, Finish: "length",
		}
	}
	return recs
}

// simpleSweep is a hand-made sweep over concurrency 1 to 64 whose
// throughput levels off while latency climbs: stable numbers for golden
// files, independent of the simulator's model.
func simpleSweep(t testing.TB) sweep.Summary {
	t.Helper()
	var points []sweep.Point
	for i, c := range []int{1, 2, 4, 8, 16, 32, 64} {
		tput := 2000 * (1 - math.Exp(-float64(c)/12))
		ttft := 0.02 * math.Pow(1.8, float64(i))
		tpot := 0.006 + 0.0004*float64(c)
		att := math.Max(0, math.Min(1, 1.05-0.02*float64(c)))
		s := sweep.Sample{
			Requests: 10 * c, Window: 30, RequestThroughput: tput / 200, OutputThroughput: tput,
			Goodput: tput * att, RequestGoodput: tput * att / 200, Attainment: att,
			TTFT:    sweep.Dist{Mean: ttft, P50: ttft, P90: 1.5 * ttft, P99: 2 * ttft},
			TPOT:    sweep.Dist{Mean: tpot, P50: tpot, P90: 1.2 * tpot, P99: 1.5 * tpot},
			ITL:     sweep.Dist{Mean: tpot, P50: tpot, P90: 1.3 * tpot, P99: 2 * tpot},
			E2E:     sweep.Dist{Mean: ttft + 199*tpot, P50: ttft + 199*tpot, P90: 1.2 * (ttft + 199*tpot), P99: 1.4 * (ttft + 199*tpot)},
			LittleL: float64(c), LittleLambdaW: float64(c) * 0.98, ClientLagP99: 0.0001,
		}
		p, err := sweep.NewPoint(sweep.Concurrency(c), s)
		if err != nil {
			t.Fatal(err)
		}
		points = append(points, p)
	}
	sum, err := sweep.Analyze(points, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// largeRun builds a run of n requests shaped like a busy server's: about
// 100 arrivals a second, TTFTs with a long tail, 20 to 60 tokens each with
// jittered gaps and some multi-token chunks, and 0.5 % failures.
func largeRun(t testing.TB, n int) *Run {
	t.Helper()
	rng := rand.New(rand.NewPCG(42, 42))
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Start: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), Tool: "goodput test"}
	b := NewRunBuilder(h, RunOptions{SLO: mustSLO(t, "ttft<=300ms,tpot<=40ms")})
	var r record.Record
	at := int64(0)
	for i := range n {
		at += int64(rng.ExpFloat64() * 1e7)
		ttft := int64((0.05 + 0.1*rng.ExpFloat64()) * 1e9)
		r = record.Record{Seq: int64(i), Scheduled: at, Sent: at + int64(rng.IntN(200_000)), InputTokens: 200 + rng.IntN(800),
			TokenSource: record.SourceUsage, Status: 200, Finish: "stop", Chunks: r.Chunks[:0]}
		c := at + ttft
		tokens := 20 + rng.IntN(41)
		for k := 0; k < tokens; {
			per := int32(1 + rng.IntN(2)*rng.IntN(3))
			r.Chunks = append(r.Chunks, record.Chunk{At: c, Tokens: per})
			k += int(per)
			r.OutputTokens += int(per)
			c += int64((0.01 + 0.02*rng.Float64()) * 1e9)
		}
		r.End = r.Chunks[len(r.Chunks)-1].At + 1000
		if rng.IntN(200) == 0 {
			r.Error, r.Status, r.Msg, r.Chunks, r.OutputTokens = record.ErrHTTP, 500+rng.IntN(4), "server error", r.Chunks[:0], 0
		}
		b.Add(&r)
	}
	return b.Close()
}

// comparison returns a server account with every quantity the sweep page
// shows, scaled by k.
func comparison(k float64) *serverview.Comparison {
	p := func(v float64) *float64 { return &v }
	return &serverview.Comparison{
		Engine: promscrape.VLLM, Scrapes: 10,
		TTFT: serverview.LatencyComparison{ServerMean: p(0.1 * k),
			P99: &serverview.QuantileComparison{Server: &promscrape.Estimate{Q: 0.99, Value: 0.2 * k, Lower: 0.1 * k, Upper: 0.25 * k}}},
		Phases: []promscrape.Phase{
			{Name: promscrape.Queue, Mean: 0.05 * k}, {Name: promscrape.Prefill, Mean: 0.03 * k}, {Name: promscrape.Decode, Mean: 0.4 * k},
		},
		Running:      &serverview.GaugeSummary{Mean: 4 * k, Peak: 4 * k, Samples: 10},
		Waiting:      &serverview.GaugeSummary{Mean: 2 * k, Peak: 3 * k, Samples: 10},
		KVCacheUsage: &serverview.GaugeSummary{Mean: 0.1 * k, Peak: 0.2 * k, Samples: 10},
		Preemptions:  &serverview.CounterSummary{Count: 3 * k, PerSecond: 0.1 * k},
	}
}

// Two endpoints' TTFT histograms over one window, with vLLM-like buckets
// (50, 100, 250, 500, 1000 ms). The fast one saw 150 first tokens summing
// to 10.5 s, the slow one 50 summing to 17.5 s. Together: 60, 150, 180,
// 196, 200 of 200, summing to 28 s (a mean of 140 ms), whose p99 (rank
// 198, 2 of the last bucket's 4 in) is 500 + 500 × 2/4 = 750 ms.
var (
	fastTTFT = promscrape.Histogram{Bounds: []float64{0.05, 0.1, 0.25, 0.5, 1}, Counts: []float64{60, 140, 150, 150, 150}, Count: 150, Sum: 10.5}
	slowTTFT = promscrape.Histogram{Bounds: []float64{0.05, 0.1, 0.25, 0.5, 1}, Counts: []float64{0, 10, 30, 46, 50}, Count: 50, Sum: 17.5}
)

// withTTFT sets c's server TTFT to what Compare reads from h: its count,
// mean, p99 and the histogram itself.
func withTTFT(t *testing.T, c *serverview.Comparison, h promscrape.Histogram) *serverview.Comparison {
	t.Helper()
	m, _ := h.Mean()
	e, err := h.Quantile(0.99)
	if err != nil {
		t.Fatal(err)
	}
	c.TTFT = serverview.LatencyComparison{ServerObservations: h.Count, ServerMean: &m, P99: &serverview.QuantileComparison{Server: &e}, ServerHistogram: &h}
	return c
}
