package sim

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Bucket boundaries of vLLM's histograms, in seconds.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
		0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	itlBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
		0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	requestBuckets = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50,
		60, 120, 240, 480, 960, 1920, 7680}
)

// tokenBuckets returns vLLM's 1-2-5 buckets for token counts: 1, 2, 5, 10,
// 20, 50, … up to and including the last one not above limit.
func tokenBuckets(limit int) []float64 {
	var out []float64
	for mag := 1; mag <= limit && mag > 0; mag *= 10 {
		for _, m := range []int{1, 2, 5} {
			if v := m * mag; v <= limit {
				out = append(out, float64(v))
			}
		}
	}
	return out
}

// metrics is the simulator's /metrics, with vLLM's names, types, labels and
// buckets, on a registry of its own. Every method is safe on a nil *metrics
// (virtual time keeps none) and for concurrent use.
type metrics struct {
	reg *prometheus.Registry

	running, waiting, kvUsage              prometheus.Gauge
	preemptions, promptTokens, genTokens   prometheus.Counter
	prefixQueries, prefixHits              prometheus.Counter
	success                                map[string]prometheus.Counter
	ttft, itl, tpot                        prometheus.Histogram
	e2e, queue, prefill, decode, inference prometheus.Histogram
	reqPromptTokens, reqGenTokens          prometheus.Histogram
}

// newMetrics registers the vLLM metric set on a new registry. The labels
// model_name and engine are constant: one simulated engine serves one model.
func newMetrics(model string, maxModelLen int) *metrics {
	reg := prometheus.NewRegistry()
	labels := prometheus.Labels{"model_name": model, "engine": "0"}
	gauge := func(name, help string) prometheus.Gauge {
		g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help, ConstLabels: labels})
		reg.MustRegister(g)
		return g
	}
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels})
		reg.MustRegister(c)
		return c
	}
	histogram := func(name, help string, buckets []float64) prometheus.Histogram {
		h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets, ConstLabels: labels})
		reg.MustRegister(h)
		return h
	}
	m := &metrics{
		reg:           reg,
		running:       gauge("vllm:num_requests_running", "Number of requests in model execution batches."),
		waiting:       gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed."),
		kvUsage:       gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage."),
		preemptions:   counter("vllm:num_preemptions_total", "Cumulative number of preemptions from the engine."),
		promptTokens:  counter("vllm:prompt_tokens_total", "Number of prefill tokens processed."),
		genTokens:     counter("vllm:generation_tokens_total", "Number of generation tokens processed."),
		prefixQueries: counter("vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens."),
		prefixHits:    counter("vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens."),
		ttft:          histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", ttftBuckets),
		itl:           histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itlBuckets),
		tpot:          histogram("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.", itlBuckets),
		e2e:           histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", requestBuckets),
		queue:         histogram("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", requestBuckets),
		prefill:       histogram("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", requestBuckets),
		decode:        histogram("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", requestBuckets),
		inference:     histogram("vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.", requestBuckets),
		reqPromptTokens: histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.",
			tokenBuckets(maxModelLen)),
		reqGenTokens: histogram("vllm:request_generation_tokens", "Number of generation tokens processed.",
			tokenBuckets(maxModelLen)),
	}
	success := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "vllm:request_success_total", Help: "Count of successfully processed requests.", ConstLabels: labels,
	}, []string{"finished_reason"})
	reg.MustRegister(success)
	m.success = make(map[string]prometheus.Counter)
	for _, r := range []string{finishStop, finishLength, finishAbort} {
		m.success[r] = success.WithLabelValues(r) // present from the start, at zero
	}
	return m
}

func (m *metrics) setQueues(running, waiting int) {
	if m == nil {
		return
	}
	m.running.Set(float64(running))
	m.waiting.Set(float64(waiting))
}

func (m *metrics) setKVUsage(u float64) {
	if m == nil {
		return
	}
	m.kvUsage.Set(u)
}

func (m *metrics) stepped(running, waiting int, kvUsage float64) {
	if m == nil {
		return
	}
	m.setQueues(running, waiting)
	m.kvUsage.Set(kvUsage)
}

func (m *metrics) preempted() {
	if m == nil {
		return
	}
	m.preemptions.Inc()
}

func (m *metrics) prefixLookup(queried, hit int) {
	if m == nil {
		return
	}
	m.prefixQueries.Add(float64(queried))
	m.prefixHits.Add(float64(hit))
}

func (m *metrics) firstToken(s *seq, at time.Duration) {
	if m == nil {
		return
	}
	m.ttft.Observe((at - s.arrival).Seconds())
	m.promptTokens.Add(float64(s.promptLen))
	m.genTokens.Inc()
}

func (m *metrics) nextToken(gap time.Duration) {
	if m == nil {
		return
	}
	m.itl.Observe(gap.Seconds())
	m.genTokens.Inc()
}

// finished records a request's end. Aborted requests count in
// request_success_total{finished_reason="abort"}, as in vLLM, but not in the
// latency histograms.
func (m *metrics) finished(s *seq, reason string, at time.Duration) {
	if m == nil {
		return
	}
	m.success[reason].Inc()
	if reason == finishAbort {
		return
	}
	// Every phase is observed when the request finishes, as vLLM does: the
	// histograms then cover the same requests, and their sums over a window
	// add up to the e2e sum.
	m.e2e.Observe((at - s.arrival).Seconds())
	m.queue.Observe((s.scheduled - s.ready).Seconds())
	m.prefill.Observe((s.firstToken - s.scheduled).Seconds())
	m.decode.Observe((s.lastToken - s.firstToken).Seconds())
	m.inference.Observe((s.lastToken - s.scheduled).Seconds())
	if s.generated > 1 {
		m.tpot.Observe((s.lastToken - s.firstToken).Seconds() / float64(s.generated-1))
	}
	m.reqPromptTokens.Observe(float64(s.promptLen))
	m.reqGenTokens.Observe(float64(s.generated))
}
