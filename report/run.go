package report

import (
	"cmp"
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/slo"
)

// RunOptions say how a run's records are read.
type RunOptions struct {
	// Metrics are the summary's options: percentiles, method, warm-up,
	// series step. Its Good and SLO are replaced by SLO's when SLO is set.
	Metrics metrics.Options
	// SLO is the per-request SLO; nil means none.
	SLO slo.Conditions
	// RunSLO makes Load use the SLO the run's summary file recorded, when
	// there is one, instead of SLO.
	RunSLO bool
	// Gates are checked against the run; their percentiles are added to
	// Metrics.Percentiles.
	Gates slo.Gates
	// Seed chooses which requests the bootstrap keeps when a run holds
	// more values than SampleBudget; zero means 1.
	Seed uint64
	// SampleBudget bounds the values kept per metric for Compare's
	// bootstrap; zero means DefaultSampleBudget.
	SampleBudget int
	// RunMethod makes Load read percentiles with the method the run's
	// header names (its configuration's percentile_method), when it names
	// one, instead of Metrics.Method.
	RunMethod bool
}

// EndpointSeries is one endpoint's server series and its view of the
// measured window (nil when it has none).
type EndpointSeries struct {
	Series *promscrape.Series
	Window *promscrape.Window
}

// DefaultSampleBudget is the number of values per latency metric a Run
// keeps for resampling: every request of a run of up to half a million,
// and the ITLs of as many requests as fit.
const DefaultSampleBudget = 500_000

// Run is one measured run, read and summarised for rendering and
// comparison. Build it with a RunBuilder or Load.
type Run struct {
	Name   string // short name for headings: the records file's stem
	Path   string // where the records came from; empty when built in memory
	Format string // the record file's format, as runfile.File.Format names it
	Header record.Header

	Result *metrics.Result
	SLO    slo.Conditions
	Gates  []slo.GateResult
	// GatesOK is true when every gate passed (and when there were none).
	GatesOK bool

	// Latency holds the distribution of each of TTFT, TPOT, ITL (pooled,
	// per token) and e2e over completed requests, for histograms; and of
	// TTFA and TPOT over reasoning and over the answer when a request
	// reasoned.
	Latency map[metrics.Metric]*Histogram
	// Lag is the client's own queueing (sent − scheduled) over time.
	Lag LagSeries
	// Errors groups failed requests by kind and status, most frequent
	// first.
	Errors []ErrorGroup

	// InputLens and OutputLens are the token counts of completed requests,
	// and Finish counts their finish reasons ("" when the server gave
	// none): the workload, for comparability checks.
	InputLens  []int32
	OutputLens []int32
	Finish     map[string]int64
	// Scheduled holds the scheduled times of measured requests, ns from
	// the run epoch, in record order: the load's shape.
	Scheduled []int64
	// Requests are the measured requests in record order, for the
	// per-request timeline and the page's SLO controls: every one, or
	// past 200,000 of them every RequestStride-th, so that a long run's
	// memory stays bounded.
	Requests      []RequestSpan
	RequestStride int

	// Summary is the run's summary file, when one was found beside the
	// records; nil otherwise.
	Summary *SummaryFile
	// Server is the server's own series scraped during the run, when saved
	// beside the records; nil otherwise. ServerWindow is its view of the
	// measured window, nil when it has none.
	Server       *promscrape.Series
	ServerWindow *promscrape.Window
	// Endpoints holds, for a run spread over several endpoints (bench
	// saves NAME.server-1.json, NAME.server-2.json, …, and no
	// NAME.server.json), each endpoint's series and its view of the
	// window, in endpoint order.
	Endpoints []EndpointSeries
	// EndedEarly is true when the records are of a goodput run that was
	// interrupted or cut off (runfile.File.EndedEarly).
	EndedEarly bool
	// Notes are problems found while loading (a server series that could
	// not be aligned), to show with the report.
	Notes []string

	samples map[metrics.Metric]*sampleSet
	// sessions and tasks keep the run's flows for resampling; nil when it
	// had none.
	sessions, tasks *flowSamples
	// fingerprint is a hash of the values kept for resampling: it seeds
	// the run's bootstrap, so that a run is resampled alike in every
	// comparison it takes part in.
	fingerprint uint64
}

// ErrorGroup is the failed requests of one kind and HTTP status.
type ErrorGroup struct {
	Kind    record.ErrorKind
	Status  int
	Count   int64
	Example string // the first message seen, shortened
}

// maxExample bounds an error message kept as an example.
const maxExample = 200

// shorten returns msg cut to at most n runes, marked with an ellipsis when
// cut.
func shorten(msg string, n int) string {
	if r := []rune(msg); len(r) > n {
		return string(r[:n]) + "…"
	}
	return msg
}

// RunBuilder builds a Run from records, one at a time, as metrics.Summary
// does: create it with NewRunBuilder, call Add per record, then Close.
// It is not safe for concurrent use.
type RunBuilder struct {
	run     *Run
	sum     *metrics.Summary
	opts    RunOptions
	rng     *rand.Rand
	errs    map[errKey]*ErrorGroup
	lag     lagBuilder
	itl     []float64
	itlW    []int32
	one     [1]float64
	closed  bool
	warmAll bool // Metrics.IncludeWarmup
	// spanSeen counts the measured requests offered to run.Requests.
	spanSeen int64
	// reasoned is set by the first completed reply that reasoned (see
	// startReasoning).
	reasoned bool
}

// maxRequestSpans bounds the request spans a Run keeps (about 25 MB); a
// variable so that a test can lower it.
var maxRequestSpans = 200_000

type errKey struct {
	kind   record.ErrorKind
	status int
}

// NewRunBuilder returns a builder for a run whose records follow h.
func NewRunBuilder(h record.Header, o RunOptions) *RunBuilder {
	mo := o.Metrics
	mo.Percentiles = slices.Clone(mo.Percentiles)
	if o.SLO != nil {
		o.SLO.Apply(&mo)
	}
	if len(o.Gates) > 0 {
		o.Gates.Require(&mo)
	}
	if h.Window > 0 && mo.Window == 0 {
		// Records that do not place their requests in time (genai-bench's)
		// carry the run's length: rates divide by it, as analyze's do.
		mo.Window = time.Duration(h.Window)
	}
	o.Metrics = mo
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.SampleBudget <= 0 {
		o.SampleBudget = DefaultSampleBudget
	}
	step := mo.SeriesStep
	if step <= 0 {
		step = metrics.DefaultSeriesStep
	}
	b := &RunBuilder{
		run: &Run{
			Name:          "run",
			Header:        h,
			SLO:           o.SLO,
			Latency:       map[metrics.Metric]*Histogram{},
			Finish:        map[string]int64{},
			RequestStride: 1,
			samples:       map[metrics.Metric]*sampleSet{},
		},
		sum:     metrics.NewSummary(mo),
		opts:    o,
		rng:     rand.New(rand.NewPCG(o.Seed, 0x676f6f64707574)),
		errs:    map[errKey]*ErrorGroup{},
		lag:     lagBuilder{step: int64(step)},
		warmAll: mo.IncludeWarmup,
	}
	for _, m := range comparedMetrics {
		b.run.Latency[m] = &Histogram{}
		b.run.samples[m] = newSampleSet(o.SampleBudget)
	}
	return b
}

// comparedMetrics are the latency metrics a report draws and a comparison
// resamples.
var comparedMetrics = []metrics.Metric{metrics.MetricTTFT, metrics.MetricTPOT, metrics.MetricITL, metrics.MetricE2E}

// Add folds one record in. It keeps neither r nor its chunks.
func (b *RunBuilder) Add(r *record.Record) {
	if b.closed || r == nil {
		return
	}
	b.sum.Add(r)
	if r.Warmup && !b.warmAll {
		return
	}
	run := b.run
	run.Scheduled = append(run.Scheduled, r.Scheduled)
	q := metrics.Compute(r)
	if b.spanSeen%int64(run.RequestStride) == 0 {
		run.Requests = append(run.Requests, newRequestSpan(r, q, b.opts.SLO))
		if len(run.Requests) >= maxRequestSpans {
			// Keep every other span, and every 2k-th request from now on.
			kept := run.Requests[:0]
			for i := 0; i < len(run.Requests); i += 2 {
				kept = append(kept, run.Requests[i])
			}
			run.Requests = kept
			run.RequestStride *= 2
		}
	}
	b.spanSeen++
	key := b.rng.Uint64()
	if q.HasSent {
		b.lag.add(r.Scheduled, q.ClientQueue)
	}
	if !q.OK {
		k := errKey{kind: r.Error, status: r.Status}
		g := b.errs[k]
		if g == nil {
			g = &ErrorGroup{Kind: r.Error, Status: r.Status, Example: shorten(r.Msg, maxExample)}
			b.errs[k] = g
		}
		g.Count++
		return
	}
	run.InputLens = append(run.InputLens, clamp32(q.InputTokens))
	run.OutputLens = append(run.OutputLens, clamp32(q.OutputTokens))
	run.Finish[r.Finish]++
	single := func(m metrics.Metric, ok bool, d time.Duration) {
		if !ok {
			return
		}
		v := d.Seconds()
		run.Latency[m].Add(v, 1)
		b.one[0] = v
		if s := run.samples[m]; s != nil {
			s.add(key, b.one[:], nil)
		}
	}
	if q.Reasoned && !b.reasoned {
		b.startReasoning()
	}
	single(metrics.MetricTTFT, q.HasFirstToken, q.TTFT)
	single(metrics.MetricTPOT, q.HasTPOT, q.TPOT)
	single(metrics.MetricE2E, q.HasE2E, q.E2E)
	if b.reasoned {
		single(metrics.MetricTTFA, q.HasTTFA, q.TTFA)
		if q.HasTPOTReasoning {
			run.Latency[metrics.MetricTPOTReasoning].Add(q.TPOTReasoning.Seconds(), 1)
		}
		if q.HasTPOTAnswer {
			run.Latency[metrics.MetricTPOTAnswer].Add(q.TPOTAnswer.Seconds(), 1)
		}
	}
	b.itl, b.itlW = itls(r.Chunks, b.itl[:0], b.itlW[:0])
	for i, v := range b.itl {
		run.Latency[metrics.MetricITL].Add(v, int64(b.itlW[i]))
	}
	run.samples[metrics.MetricITL].add(key, b.itl, b.itlW)
}

// startReasoning begins the reasoning metrics at the first completed
// reply that reasoned. Every reply before it had no reasoning, so its TTFA
// was its TTFT and its TPOT over the answer its TPOT: the new histograms
// (and TTFA's values for resampling) start as copies of those, and a run
// that never reasons keeps none of them.
func (b *RunBuilder) startReasoning() {
	b.reasoned = true
	run := b.run
	run.Latency[metrics.MetricTTFA] = run.Latency[metrics.MetricTTFT].clone()
	run.Latency[metrics.MetricTPOTAnswer] = run.Latency[metrics.MetricTPOT].clone()
	run.Latency[metrics.MetricTPOTReasoning] = &Histogram{}
	run.samples[metrics.MetricTTFA] = run.samples[metrics.MetricTTFT].clone()
}

// sampled returns the metrics whose values run keeps for resampling:
// comparedMetrics, and TTFA when a request reasoned.
func (run *Run) sampled() []metrics.Metric {
	if run.samples[metrics.MetricTTFA] == nil {
		return comparedMetrics
	}
	return append(slices.Clone(comparedMetrics), metrics.MetricTTFA)
}

// samplesOf returns the values kept of metric m. A run in which nothing
// reasoned answers TTFA with TTFT's, which are the same.
func (run *Run) samplesOf(m metrics.Metric) *sampleSet {
	if s := run.samples[m]; s != nil || m != metrics.MetricTTFA {
		return s
	}
	return run.samples[metrics.MetricTTFT]
}

// itls appends the per-token ITLs of a request's chunks, in seconds, with
// the number of tokens each stands for: each gap between token-bearing
// chunks split evenly over the tokens of the chunk that closed it, rounded
// to the nanosecond as metrics rounds it.
func itls(chunks []record.Chunk, vals []float64, wts []int32) ([]float64, []int32) {
	prev := int64(0)
	have := false
	for _, c := range chunks {
		if c.Tokens <= 0 {
			continue
		}
		if have {
			gap := c.At - prev
			per := math.Round(float64(gap) / float64(c.Tokens))
			vals = append(vals, per/1e9)
			wts = append(wts, c.Tokens)
		}
		prev, have = c.At, true
	}
	return vals, wts
}

func clamp32(n int) int32 { return int32(min(max(n, math.MinInt32), math.MaxInt32)) }

// Close ends the run and returns it. Later calls return the same Run.
func (b *RunBuilder) Close() *Run {
	run := b.run
	if b.closed {
		return run
	}
	b.closed = true
	sessions, tasks := b.sum.Flows()
	run.Result = b.sum.Close()
	run.sessions = newFlowSamples(sessions, run.Result.Window.Seconds, b.opts.SampleBudget, b.rng)
	run.tasks = newFlowSamples(tasks, run.Result.Window.Seconds, b.opts.SampleBudget, b.rng)
	run.Gates, run.GatesOK = b.opts.Gates.Eval(run.Result)
	if len(b.opts.Gates) == 0 {
		run.Gates, run.GatesOK = nil, true
	}
	run.Lag = b.lag.series()
	for _, g := range b.errs {
		run.Errors = append(run.Errors, *g)
	}
	slices.SortFunc(run.Errors, func(x, y ErrorGroup) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.Kind, y.Kind), cmp.Compare(x.Status, y.Status))
	})
	block := blockSize(run.Result)
	h := fnv.New64a()
	var buf [8]byte
	for _, m := range run.sampled() {
		s := run.samples[m]
		s.finish(block)
		h.Write([]byte(m))
		for i, v := range s.vals {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			h.Write(buf[:])
			binary.LittleEndian.PutUint32(buf[:4], uint32(s.wt[i]))
			h.Write(buf[:4])
		}
	}
	run.fingerprint = h.Sum64()
	return run
}

// LagSeries is the client's queueing over time: for requests scheduled in
// each bucket, the mean and largest wait between their scheduled and
// actual send times, in seconds.
type LagSeries struct {
	Step   float64 // bucket width, seconds
	Starts []float64
	Count  []int64   // requests scheduled in the bucket
	Mean   []float64 // NaN for a bucket without requests
	Max    []float64
}

// maxLagBuckets bounds the lag series' memory the way metrics bounds its
// own series: past it, adjacent buckets merge.
const maxLagBuckets = 1 << 14

type lagBucket struct {
	n        int64
	sum, max float64
}

// lagBuilder accumulates client lag in buckets aligned to the run epoch.
type lagBuilder struct {
	step int64 // ns
	base int64 // bucket number of b[0]
	b    []lagBucket
}

func (l *lagBuilder) add(at int64, lag time.Duration) {
	at = max(min(at, 1<<62), -(1 << 62))
	if len(l.b) == 0 {
		l.base, l.b = floorDivInt(at, l.step), make([]lagBucket, 1)
	}
	k := floorDivInt(at, l.step)
	for max(l.base+int64(len(l.b))-1, k)-min(l.base, k)+1 > maxLagBuckets {
		l.coarsen()
		k = floorDivInt(at, l.step)
	}
	if k < l.base {
		grown := make([]lagBucket, int(l.base-k)+len(l.b))
		copy(grown[l.base-k:], l.b)
		l.b, l.base = grown, k
	}
	if need := int(k-l.base) + 1; need > len(l.b) {
		l.b = append(l.b, make([]lagBucket, need-len(l.b))...)
	}
	s := lag.Seconds()
	bk := &l.b[k-l.base]
	if bk.n == 0 || s > bk.max {
		bk.max = s
	}
	bk.n++
	bk.sum += s
}

// coarsen doubles the step, merging pairs of buckets.
func (l *lagBuilder) coarsen() {
	nb := floorDivInt(l.base, 2)
	var out []lagBucket
	for i, bk := range l.b {
		j := int(floorDivInt(l.base+int64(i), 2) - nb)
		for len(out) <= j {
			out = append(out, lagBucket{})
		}
		o := &out[j]
		if bk.n > 0 && (o.n == 0 || bk.max > o.max) {
			o.max = bk.max
		}
		o.n += bk.n
		o.sum += bk.sum
	}
	l.b, l.base, l.step = out, nb, l.step*2
}

func (l *lagBuilder) series() LagSeries {
	s := LagSeries{Step: float64(l.step) / 1e9}
	for i, bk := range l.b {
		s.Starts = append(s.Starts, float64((l.base+int64(i))*l.step)/1e9)
		s.Count = append(s.Count, bk.n)
		if bk.n == 0 {
			s.Mean = append(s.Mean, math.NaN())
			s.Max = append(s.Max, math.NaN())
			continue
		}
		s.Mean = append(s.Mean, bk.sum/float64(bk.n))
		s.Max = append(s.Max, bk.max)
	}
	return s
}

func floorDivInt(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// blockSize is how many consecutive requests Compare's bootstrap resamples
// together. Requests in flight at the same time share the server's state
// (its batch, its queue), so their latencies rise and fall together; a
// bootstrap of single requests would take a run's luck in load (a burst of
// arrivals, a quiet spell) for precision. Blocks about as long as the
// number of requests in flight (Little's L) keep those together, capped so
// that a run still has at least minBlocks blocks to resample.
func blockSize(res *metrics.Result) int {
	return blockOf(res.LittlesLaw.InFlight, res.Counts.Total)
}

// blockOf is the block size for n things of which l were in flight on
// average: ⌈l⌉, at most n ÷ minBlocks, at least 1.
func blockOf(l float64, n int64) int {
	const minBlocks = 20
	if !(l > 1) || math.IsInf(l, 0) {
		return 1
	}
	b := int(math.Ceil(l))
	if limit := int(n / minBlocks); b > limit {
		b = max(limit, 1)
	}
	return b
}
