// Package clientmetrics exports goodput's own view of its runs to
// Prometheus while they go: requests by outcome and error kind, TTFT,
// TPOT, ITL and end-to-end latency histograms as the client measured them
// (from each request's scheduled time, like every goodput number), input
// and output tokens, requests in flight, the generator's dispatch lag, and
// the requests and tokens that met the run's SLO (goodput). Every series
// is labelled with the run's target (its base URL) and its name, so a
// dashboard can set the client's TTFT beside the server's and tell a
// sweep's points apart.
//
// The histograms have the buckets vLLM gives its own (so that a client and
// a server quantile are read alike) and are also native histograms, which
// a scraper that negotiates the protobuf format receives.
package clientmetrics

import (
	"os"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// Names of the exported metrics.
const (
	Requests         = "goodput_requests_total"
	WarmupRequests   = "goodput_warmup_requests_total"
	InFlight         = "goodput_requests_in_flight"
	TTFT             = "goodput_time_to_first_token_seconds"
	TPOT             = "goodput_time_per_output_token_seconds"
	ITL              = "goodput_inter_token_latency_seconds"
	E2E              = "goodput_e2e_request_latency_seconds"
	DispatchLag      = "goodput_dispatch_lag_seconds"
	InputTokens      = "goodput_input_tokens_total"
	OutputTokens     = "goodput_output_tokens_total"
	GoodRequests     = "goodput_good_requests_total"
	GoodOutputTokens = "goodput_good_output_tokens_total"
	RunInfo          = "goodput_run_info"
	RunStart         = "goodput_run_start_timestamp_seconds"
)

// Label names. Every series has target and run.
const (
	LabelTarget    = "target"
	LabelRun       = "run"
	LabelOutcome   = "outcome"    // success or failure
	LabelErrorKind = "error_kind" // record.ErrorKind; empty for a success
)

// Outcomes, the values of LabelOutcome.
const (
	OutcomeSuccess = "success"
	OutcomeFailure = "failure"
)

// Bucket boundaries, in seconds: vLLM's own for TTFT, for the per-token
// latencies and for whole requests, so that client and server histograms
// line up; exponential from 10 µs for the generator's lag.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	tokenBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
		0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	requestBuckets = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50,
		60, 120, 240, 480, 960, 1920, 7680}
	lagBuckets = prometheus.ExponentialBuckets(1e-5, 4, 10)
)

// Exporter holds goodput's client metrics on a registry of its own. It is
// a bench.Observer: give it to bench.Config.Observer (a sweep passes it to
// every point) and serve Registry. It is safe for concurrent use.
type Exporter struct {
	reg *prometheus.Registry

	requests, warmups         *prometheus.CounterVec
	inputTokens, outputTokens *prometheus.CounterVec
	goodRequests, goodTokens  *prometheus.CounterVec
	inFlight                  *prometheus.GaugeVec
	ttft, tpot, itl, e2e, lag *prometheus.HistogramVec
	info                      *prometheus.GaugeVec
	start                     *prometheus.GaugeVec
	version                   string
	mu                        sync.Mutex     // guards runs
	runs                      map[string]int // names begun, to tell repeats apart
}

var _ bench.Observer = (*Exporter)(nil)

// New returns an Exporter whose registry also holds the Go runtime's and
// the process's own collectors (goodput's CPU matters to its numbers).
// version is goodput's, for goodput_run_info.
func New(version string) *Exporter {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	run := []string{LabelTarget, LabelRun}
	counter := func(name, help string, extra ...string) *prometheus.CounterVec {
		c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, append(run[:2:2], extra...))
		reg.MustRegister(c)
		return c
	}
	hist := func(name, help string, buckets []float64) *prometheus.HistogramVec {
		h := prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: name, Help: help, Buckets: buckets,
			NativeHistogramBucketFactor:    1.1,
			NativeHistogramMaxBucketNumber: 160,
		}, run)
		reg.MustRegister(h)
		return h
	}
	e := &Exporter{reg: reg, version: version, runs: map[string]int{},
		requests:     counter(Requests, "Measured requests that ended, by outcome and error kind (warm-up excluded).", LabelOutcome, LabelErrorKind),
		warmups:      counter(WarmupRequests, "Warm-up requests that ended; they count in no other metric."),
		inputTokens:  counter(InputTokens, "Prompt tokens of successful measured requests."),
		outputTokens: counter(OutputTokens, "Output tokens of successful measured requests."),
		goodRequests: counter(GoodRequests, "Successful measured requests that met the run's SLO (only for runs with an SLO)."),
		goodTokens:   counter(GoodOutputTokens, "Output tokens of requests that met the run's SLO: goodput's numerator (only for runs with an SLO)."),
		ttft:         hist(TTFT, "Time to first token as the client saw it, from the request's scheduled time.", ttftBuckets),
		tpot:         hist(TPOT, "Time per output token after the first, one observation per request of two or more tokens.", tokenBuckets),
		itl:          hist(ITL, "Inter-token latency, one observation per token after the first (a chunk's gap split over its tokens).", tokenBuckets),
		e2e:          hist(E2E, "End-to-end request latency, from the scheduled time to the last token.", requestBuckets),
		lag:          hist(DispatchLag, "How late the generator sent each request after its scheduled time.", lagBuckets),
	}
	e.inFlight = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: InFlight, Help: "Requests sent and not yet ended."}, run)
	e.info = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: RunInfo, Help: "1 for each run, labelled with its model, SLO and goodput's version."},
		append(run[:2:2], "model", "slo", "version"))
	e.start = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: RunStart, Help: "When the run started, in seconds since the Unix epoch."}, run)
	reg.MustRegister(e.inFlight, e.info, e.start)
	return e
}

// Registry returns the registry to serve or push.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Begin starts following a run: bench.Observer.
func (e *Exporter) Begin(info bench.RunInfo) bench.RunObserver {
	name := info.Name
	e.mu.Lock()
	e.runs[name]++
	if n := e.runs[name]; n > 1 {
		// Two runs of one name (a repeated --run-name) stay apart.
		name += "#" + strconv.Itoa(n)
	}
	e.mu.Unlock()
	lv := []string{info.BaseURL, name}
	e.info.WithLabelValues(info.BaseURL, name, info.Model, info.SLO, e.version).Set(1)
	e.start.WithLabelValues(lv...).Set(float64(info.Header.Start.UnixNano()) / 1e9)
	o := &runObserver{
		e: e, labels: lv, good: info.Good,
		inFlight: e.inFlight.WithLabelValues(lv...),
		ttft:     e.ttft.WithLabelValues(lv...), tpot: e.tpot.WithLabelValues(lv...),
		itl: e.itl.WithLabelValues(lv...), e2e: e.e2e.WithLabelValues(lv...), lag: e.lag.WithLabelValues(lv...),
		inputTokens: e.inputTokens.WithLabelValues(lv...), outputTokens: e.outputTokens.WithLabelValues(lv...),
		warmups: e.warmups.WithLabelValues(lv...),
	}
	// Series that a dashboard divides by exist from the start, at zero.
	o.success = e.requests.WithLabelValues(info.BaseURL, name, OutcomeSuccess, "")
	if info.Good != nil {
		o.goodRequests = e.goodRequests.WithLabelValues(lv...)
		o.goodTokens = e.goodTokens.WithLabelValues(lv...)
	}
	return o
}

// runObserver is one run's series.
type runObserver struct {
	e      *Exporter
	labels []string // target, run
	good   func(metrics.Request) bool

	inFlight                  prometheus.Gauge
	ttft, tpot, itl, e2e, lag prometheus.Observer
	success, warmups          prometheus.Counter
	inputTokens, outputTokens prometheus.Counter
	goodRequests, goodTokens  prometheus.Counter // nil without an SLO
}

func (o *runObserver) Sending() { o.inFlight.Inc() }
func (o *runObserver) Done()    { o.inFlight.Dec() }
func (o *runObserver) End()     {}

// Record counts one finished record, as metrics.Summary reads it.
func (o *runObserver) Record(r *record.Record) {
	if r.Warmup {
		o.warmups.Inc()
		return
	}
	q := metrics.Compute(r)
	if q.HasSent {
		o.lag.Observe(q.ClientQueue.Seconds())
	}
	if !q.OK {
		o.e.requests.WithLabelValues(o.labels[0], o.labels[1], OutcomeFailure, string(q.Error)).Inc()
		return
	}
	o.success.Inc()
	o.inputTokens.Add(float64(q.InputTokens))
	o.outputTokens.Add(float64(q.OutputTokens))
	if o.good != nil && o.good(q) {
		o.goodRequests.Inc()
		o.goodTokens.Add(float64(q.OutputTokens))
	}
	if q.HasFirstToken {
		o.ttft.Observe(q.TTFT.Seconds())
	}
	if q.HasTPOT {
		o.tpot.Observe(q.TPOT.Seconds())
	}
	if q.HasE2E {
		o.e2e.Observe(q.E2E.Seconds())
	}
	observeITL(o.itl, r.Chunks)
}

// observeITL observes each token's share of the gap before its chunk, as
// metrics defines per-token ITL; chunks without tokens are skipped.
func observeITL(h prometheus.Observer, cs []record.Chunk) {
	started := false
	var prev int64
	for _, c := range cs {
		if c.Tokens <= 0 {
			continue
		}
		if !started {
			started, prev = true, c.At
			continue
		}
		per := float64(c.At-prev) / float64(c.Tokens) / 1e9
		prev = c.At
		for range c.Tokens {
			h.Observe(per)
		}
	}
}

// hostname names this process for a Pushgateway's grouping key.
func hostname() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "goodput"
	}
	return h
}

// MetricNames lists the metric families an Exporter exports of its own
// (not the Go runtime's and the process's), as a dashboard names them:
// histograms by their family name.
func MetricNames() []string {
	return []string{Requests, WarmupRequests, InFlight, TTFT, TPOT, ITL, E2E, DispatchLag, InputTokens, OutputTokens,
		GoodRequests, GoodOutputTokens, RunInfo, RunStart}
}
