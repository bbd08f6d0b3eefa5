package vllmresult

import (
	"math"
	"slices"

	"github.com/goodput-dev/goodput/metrics"
)

// Stat is one metric's summary as vLLM prints and saves it, in
// milliseconds.
type Stat struct {
	Mean, Median, Std float64
	Percentiles       []metrics.PercentileValue
}

// stat summarises values (seconds) the way vLLM does with NumPy: mean,
// median, population standard deviation and linear-interpolation
// percentiles, all ×1000; an empty sample gives zeros, as np.mean(0) does.
func stat(values []float64, ps []float64) Stat {
	var s Stat
	if len(values) == 0 {
		for _, p := range ps {
			s.Percentiles = append(s.Percentiles, metrics.PercentileValue{P: p})
		}
		return s
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	sum := 0.0
	for _, v := range sorted {
		sum += v
	}
	mean := sum / float64(len(sorted))
	m2 := 0.0
	for _, v := range sorted {
		m2 += (v - mean) * (v - mean)
	}
	s.Mean = 1e3 * mean
	s.Std = 1e3 * math.Sqrt(m2/float64(len(sorted)))
	s.Median = 1e3 * metrics.Percentile(sorted, 50, metrics.Linear)
	for _, p := range ps {
		s.Percentiles = append(s.Percentiles, metrics.PercentileValue{P: p, Value: 1e3 * metrics.Percentile(sorted, p, metrics.Linear)})
	}
	return s
}

// Peaks returns vLLM's max_output_tokens_per_s and max_concurrent_requests
// of the requests (see peakOutput).
func Peaks(reqs []Request) (tokensPerSecond float64, concurrent int) { return peakOutput(reqs) }

// peakOutput returns vLLM's max_output_tokens_per_s and
// max_concurrent_requests over the successful requests: the most chunks
// that arrived within one second-long bucket counted from the earliest
// send (vLLM counts each chunk as one token; a whole answer brings all
// its tokens at once), and the most requests in
// flight at once, each from its send to its last token, a departure
// counted before an arrival at the same instant.
func peakOutput(reqs []Request) (tokensPerSecond float64, concurrent int) {
	minStart, maxEnd := math.Inf(1), math.Inf(-1)
	for _, q := range reqs {
		if q.Success {
			minStart = min(minStart, q.Start)
			maxEnd = max(maxEnd, q.Start+q.Latency)
		}
	}
	if math.IsInf(minStart, 1) {
		return 0, 0
	}
	buckets := make([]int, int(math.Ceil(maxEnd-minStart))+1)
	type event struct {
		at    float64
		delta int
	}
	var events []event
	for _, q := range reqs {
		if !q.Success {
			continue
		}
		t := q.Start + q.TTFT
		count := func(t float64, n int) {
			if b := int(t - minStart); b >= 0 && b < len(buckets) {
				buckets[b] += n
			}
		}
		if q.Whole {
			count(t, q.OutputLen) // every token in the one answer
		} else {
			count(t, 1)
		}
		for _, g := range q.ITL {
			t += g
			count(t, 1)
		}
		events = append(events, event{q.Start, 1}, event{q.Start + q.Latency, -1})
	}
	slices.SortFunc(events, func(a, b event) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return a.delta - b.delta // departures first
	})
	cur := 0
	for _, e := range events {
		cur += e.delta
		concurrent = max(concurrent, cur)
	}
	return float64(slices.Max(buckets)), concurrent
}

// Probes are the one-token probe requests of a run (vLLM's
// --probe-request-rate): the end-to-end latency of each that succeeded,
// in seconds, and how many failed.
type Probes struct {
	Latencies []float64
	Failed    int
}

// ProbeStats are vLLM's figures of a run's probes: probe_completed,
// probe_failed, and the median (linear), p99 (linear) and largest
// end-to-end latency of the successful ones, in milliseconds.
type ProbeStats struct {
	Completed, Failed int
	Median, P99, Max  float64
}

// Stats returns the probes' figures; ok is false when none succeeded,
// where vLLM prints and saves none.
func (p Probes) Stats() (s ProbeStats, ok bool) {
	if len(p.Latencies) == 0 {
		return ProbeStats{Failed: p.Failed}, false
	}
	sorted := slices.Clone(p.Latencies)
	slices.Sort(sorted)
	return ProbeStats{
		Completed: len(sorted), Failed: p.Failed,
		Median: 1e3 * metrics.Percentile(sorted, 50, metrics.Linear),
		P99:    1e3 * metrics.Percentile(sorted, 99, metrics.Linear),
		Max:    1e3 * sorted[len(sorted)-1],
	}, true
}
