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
// of the requests (see PeakCounter).
func Peaks(reqs []Request) (tokensPerSecond float64, concurrent int) {
	// Every send is known here: the floor is the earliest successful one,
	// m itself, and the counter keeps nothing.
	floor := int64(math.MaxInt64)
	for _, q := range reqs {
		if q.Success {
			floor = min(floor, int64(math.Round(q.Start*1e9)))
		}
	}
	p := NewPeakCounter(floor)
	for _, q := range reqs {
		p.addRequest(q)
	}
	tokensPerSecond, concurrent, _ = p.Figures()
	return tokensPerSecond, concurrent
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
