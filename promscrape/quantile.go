package promscrape

import (
	"errors"
	"fmt"
	"math"
)

// Errors Quantile returns; test for them with errors.Is.
var (
	ErrNoObservations = errors.New("histogram holds no observations")
	ErrNoBuckets      = errors.New("histogram has no finite bucket")
)

// Estimate is a quantile read from a histogram. The true quantile lies
// between Lower and Upper, the bounds of the bucket that holds its rank;
// Value interpolates linearly inside that bucket, as Prometheus's
// histogram_quantile does, so it is only as precise as the buckets are.
type Estimate struct {
	Q     float64 `json:"q"`
	Value float64 `json:"value"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	// Overflow is true when the rank fell in the +Inf bucket: the true
	// quantile is above the highest finite bound, and Value, Lower and Upper
	// are all that bound.
	Overflow bool `json:"overflow,omitempty"`
}

// Quantile estimates the q-quantile (0 ≤ q ≤ 1) of the observations h holds.
//
// It finds the first bucket whose cumulative count reaches the rank q·Count
// and interpolates linearly between that bucket's bounds; the first bucket's
// lower bound is 0 (latencies are not negative) unless its upper bound is
// itself ≤ 0, in which case the bound is returned. A rank in the +Inf bucket
// returns the highest finite bound with Overflow set. Leading empty buckets
// are skipped, so q = 0 gives the lower bound of the lowest bucket that holds
// an observation rather than 0.
//
// The sum then tightens it (see bySum): one observation is known exactly.
//
// It returns ErrNoObservations for an empty histogram, ErrNoBuckets when
// only the +Inf bucket exists, and an error for q outside [0, 1] or NaN.
func (h Histogram) Quantile(q float64) (Estimate, error) {
	e, err := h.bucketQuantile(q)
	if err != nil {
		return e, err
	}
	return h.bySum(e), nil
}

// bySum tightens an estimate with the histogram's sum, when the
// observations cannot be negative (no bound below 0) and the sum is a
// plausible one: one observation is the sum itself, whatever bucket holds
// it, and no observation exceeds the sum. A single queue wait of 0 s in a
// bucket up to 0.3 s read 150 ms at p50 without it.
func (h Histogram) bySum(e Estimate) Estimate {
	if len(h.Bounds) == 0 || h.Bounds[0] < 0 || h.Sum < 0 || math.IsNaN(h.Sum) || math.IsInf(h.Sum, 0) {
		return e
	}
	if h.Count == 1 {
		return Estimate{Q: e.Q, Value: h.Sum, Lower: h.Sum, Upper: h.Sum}
	}
	if h.Sum > 0 && e.Upper > h.Sum {
		e.Upper = h.Sum
		e.Lower, e.Value = min(e.Lower, h.Sum), min(e.Value, h.Sum)
	}
	return e
}

// bucketQuantile is Quantile from the buckets alone.
func (h Histogram) bucketQuantile(q float64) (Estimate, error) {
	if math.IsNaN(q) || q < 0 || q > 1 {
		return Estimate{}, fmt.Errorf("quantile %v is outside [0, 1]", q)
	}
	if h.Count <= 0 {
		return Estimate{}, ErrNoObservations
	}
	if len(h.Bounds) == 0 || len(h.Counts) != len(h.Bounds) {
		return Estimate{}, ErrNoBuckets
	}
	rank := q * h.Count
	below := 0.0 // cumulative count under the current bucket, kept monotone
	for i, upper := range h.Bounds {
		at := min(max(below, h.Counts[i]), h.Count)
		if at >= rank && at > 0 && at > below {
			lower := 0.0
			if i > 0 {
				lower = h.Bounds[i-1]
			} else if upper <= 0 {
				return Estimate{Q: q, Value: upper, Lower: upper, Upper: upper}, nil
			}
			// The fraction first: bounds near the float range (a 1e308
			// bucket) must not overflow the interpolation.
			frac := (rank - below) / (at - below)
			v := lower + (upper-lower)*frac
			if math.IsInf(v, 0) || math.IsNaN(v) {
				v = lower*(1-frac) + upper*frac
			}
			return Estimate{Q: q, Value: min(max(v, lower), upper), Lower: lower, Upper: upper}, nil
		}
		below = at
	}
	top := h.Bounds[len(h.Bounds)-1]
	return Estimate{Q: q, Value: top, Lower: top, Upper: top, Overflow: true}, nil
}
