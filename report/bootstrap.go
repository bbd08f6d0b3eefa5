package report

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/goodput-dev/goodput/metrics"
)

// quantile returns percentile p (0–100) of the sample in which request j
// appears counts[j] times (nil counts: once each), read with method m as
// metrics.Percentile reads a sorted slice: the weighted sample is the
// sorted slice with each value repeated as often as its weight says. total
// is the sample's size, Σ counts[j] × clusterW[j]. It returns NaN for an
// empty sample. s must be finished.
func (s *sampleSet) quantile(counts []int32, total int64, p float64, m metrics.Method) float64 {
	return metrics.PercentileOf(total, p, m, func(lo, hi int64) (float64, float64) {
		if lo == hi {
			v := s.at(counts, total, lo)
			return v, v
		}
		return s.at2(counts, total, lo)
	})
}

// weight returns the copies of value i in the resample.
func (s *sampleSet) weight(counts []int32, i int) int64 {
	if counts == nil {
		return int64(s.wt[i])
	}
	return int64(counts[s.req[i]]) * int64(s.wt[i])
}

// at returns the value at 0-based position pos of the weighted sample,
// scanning from whichever end is nearer: the tail percentiles a report
// asks for most are a short scan from the top.
func (s *sampleSet) at(counts []int32, total, pos int64) float64 {
	if pos < total/2 {
		var cum int64
		for i := range s.vals {
			cum += s.weight(counts, i)
			if cum > pos {
				return s.vals[i]
			}
		}
		return s.vals[len(s.vals)-1]
	}
	fromTop := total - 1 - pos
	var cum int64
	for i := len(s.vals) - 1; i >= 0; i-- {
		cum += s.weight(counts, i)
		if cum > fromTop {
			return s.vals[i]
		}
	}
	return s.vals[0]
}

// at2 returns the values at positions pos and pos+1 in one scan.
func (s *sampleSet) at2(counts []int32, total, pos int64) (float64, float64) {
	if pos+1 >= total {
		v := s.at(counts, total, pos)
		return v, v
	}
	if pos < total/2 {
		var cum int64
		for i := range s.vals {
			cum += s.weight(counts, i)
			if cum > pos {
				if cum > pos+1 {
					return s.vals[i], s.vals[i]
				}
				// pos is the last copy of value i: pos+1 is the next value
				// that appears in the resample.
				for j := i + 1; j < len(s.vals); j++ {
					if s.weight(counts, j) > 0 {
						return s.vals[i], s.vals[j]
					}
				}
				return s.vals[i], s.vals[i]
			}
		}
		v := s.vals[len(s.vals)-1]
		return v, v
	}
	// From the top, pos+1 is reached first.
	fromTop := total - 2 - pos
	var cum int64
	for i := len(s.vals) - 1; i >= 0; i-- {
		cum += s.weight(counts, i)
		if cum > fromTop {
			if cum > fromTop+1 {
				return s.vals[i], s.vals[i]
			}
			for j := i - 1; j >= 0; j-- {
				if s.weight(counts, j) > 0 {
					return s.vals[j], s.vals[i]
				}
			}
			return s.vals[i], s.vals[i]
		}
	}
	v := s.vals[0]
	return v, v
}

// size returns Σ counts[j] × clusterW[j], the resample's number of values.
func (s *sampleSet) size(counts []int32) int64 {
	var n int64
	for j, w := range s.clusterW {
		if counts == nil {
			n += w
		} else {
			n += int64(counts[j]) * w
		}
	}
	return n
}

// replicates draws n bootstrap resamples of s's requests and returns, for
// each percentile in ps, the n values of the statistic, each moved towards
// the full-sample estimate by scale() when s holds a subsample; est gives
// each percentile's estimate on the whole run (the exact value from
// metrics). The result for a set without values is nil.
func (s *sampleSet) replicates(rng *rand.Rand, n int, ps, est []float64, m metrics.Method) [][]float64 {
	if s == nil || len(s.vals) == 0 {
		return nil
	}
	k := s.clusters()
	sc := s.scale()
	base := make([]float64, len(ps))
	all := s.size(nil)
	for i, p := range ps {
		base[i] = s.quantile(nil, all, p, m)
	}
	out := make([][]float64, len(ps))
	for i := range out {
		out[i] = make([]float64, n)
	}
	counts := make([]int32, k)
	for b := range n {
		total := s.draw(rng, counts)
		for i, p := range ps {
			v := s.quantile(counts, total, p, m)
			// The deviation from the sample's own estimate, scaled to the
			// whole run, added to the whole run's estimate.
			out[i][b] = est[i] + sc*(v-base[i])
		}
	}
	return out
}

// draw fills counts with one bootstrap resample of s's clusters (how
// many times each is drawn) and returns the resample's number of values.
func (s *sampleSet) draw(rng *rand.Rand, counts []int32) int64 {
	clear(counts)
	k := len(counts)
	for range k {
		counts[rng.IntN(k)]++
	}
	return s.size(counts)
}

// mean returns the mean of the resample in which request j appears
// counts[j] times, of total values.
func (s *sampleSet) mean(counts []int32, total int64) float64 {
	var sum float64
	for i, v := range s.vals {
		sum += float64(s.weight(counts, i)) * v
	}
	return sum / float64(total)
}

// meanReplicates draws n bootstrap resamples of s's requests and returns
// the n values of f × their mean, each moved towards est (the statistic
// on the whole run) as replicates moves a percentile: a flow goodput is f
// = flows ÷ W times the mean good tokens per flow. It returns nil for a
// set without values.
func (s *sampleSet) meanReplicates(rng *rand.Rand, n int, f, est float64) []float64 {
	if s == nil || len(s.vals) == 0 {
		return nil
	}
	base := f * s.mean(nil, s.size(nil))
	sc := s.scale()
	out := make([]float64, n)
	counts := make([]int32, s.clusters())
	for b := range out {
		total := s.draw(rng, counts)
		out[b] = est + sc*(f*s.mean(counts, total)-base)
	}
	return out
}

// interval returns the central conf interval (0.95 for 95 %) of the
// differences b[i] − a[i] between two independent sets of replicates, by
// the percentile method. ok is false when either set is empty.
func interval(a, b []float64, conf float64) (lo, hi float64, ok bool) {
	n := min(len(a), len(b))
	if n == 0 {
		return 0, 0, false
	}
	d := make([]float64, 0, n)
	for i := range n {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			d = append(d, b[i]-a[i])
		}
	}
	if len(d) == 0 {
		return 0, 0, false
	}
	slices.Sort(d)
	tail := (1 - conf) / 2 * 100
	return metrics.Percentile(d, tail, metrics.Linear), metrics.Percentile(d, 100-tail, metrics.Linear), true
}
