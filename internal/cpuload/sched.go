package cpuload

import (
	"math"
	"runtime/metrics"
	"time"
)

// schedMetric is the runtime's histogram of how long goroutines waited,
// runnable, before they ran.
const schedMetric = "/sched/latencies:seconds"

// Sched is a reading of the scheduler's latency histogram.
type Sched struct {
	counts  []uint64
	buckets []float64
}

// ReadSched reads the scheduler's latency histogram; the runtime keeps it
// at no cost to the reader.
func ReadSched() Sched {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return Sched{}
	}
	h := s[0].Value.Float64Histogram()
	return Sched{counts: append([]uint64(nil), h.Counts...), buckets: h.Buckets}
}

// SchedQuantile returns the q-quantile (0 to 1) of the waits between two
// readings, as the upper bound of its bucket, and how many waits there
// were; 0, 0 when none.
func SchedQuantile(a, b Sched, q float64) (time.Duration, uint64) {
	if len(b.counts) == 0 || len(a.counts) != len(b.counts) && len(a.counts) != 0 {
		return 0, 0
	}
	d := make([]uint64, len(b.counts))
	var n uint64
	for i := range d {
		d[i] = b.counts[i]
		if len(a.counts) > 0 {
			d[i] -= a.counts[i]
		}
		n += d[i]
	}
	if n == 0 {
		return 0, 0
	}
	rank := uint64(q*float64(n-1)) + 1
	var seen uint64
	for i, c := range d {
		if seen += c; seen >= rank {
			hi := b.buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = b.buckets[i]
			}
			return time.Duration(hi * 1e9), n
		}
	}
	return 0, n
}
