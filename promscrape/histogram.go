package promscrape

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	dto "github.com/prometheus/client_model/go"
)

// Histogram is a cumulative Prometheus histogram: Counts[i] observations
// were ≤ Bounds[i], and Count observations were made in all (the +Inf
// bucket, kept apart because JSON cannot hold +Inf). Bounds are finite and
// strictly increasing, Counts never decrease and never exceed Count. Sum is
// the sum of all observations, in the histogram's unit (seconds for every
// Hist).
//
// Histograms that Parse returns and that Delta and Window build all hold
// these invariants; callers that build one by hand must keep them.
type Histogram struct {
	Bounds []float64 `json:"bounds"`
	Counts []float64 `json:"counts"`
	Count  float64   `json:"count"`
	Sum    float64   `json:"sum"`
}

// Mean returns Sum/Count, and false when the histogram holds no observation.
func (h Histogram) Mean() (float64, bool) {
	if h.Count <= 0 {
		return 0, false
	}
	return h.Sum / h.Count, true
}

// sameBounds reports whether h and o have the same bucket layout, so that
// their counts can be added or subtracted bucket by bucket.
func (h Histogram) sameBounds(o Histogram) bool {
	return slices.Equal(h.Bounds, o.Bounds) && len(h.Counts) == len(o.Counts)
}

// wellFormed reports whether h has one count per bound. Parse only makes
// such histograms; one loaded from a damaged file may not be.
func (h Histogram) wellFormed() bool { return len(h.Counts) == len(h.Bounds) }

// Delta returns the observations h holds that prev did not: bucket-wise
// differences of the cumulative counts, and of Count and Sum. When any count
// fell, or the bucket layout changed, the server restarted between the two
// scrapes; then everything h holds happened since the restart, so Delta
// returns h itself and reset is true.
func (h Histogram) Delta(prev Histogram) (d Histogram, reset bool) {
	if isReset(h, prev) {
		return h.clone(), true
	}
	d = Histogram{
		Bounds: slices.Clone(h.Bounds),
		Counts: make([]float64, len(h.Counts)),
		Count:  h.Count - prev.Count,
		Sum:    h.Sum - prev.Sum,
	}
	for i := range h.Counts {
		d.Counts[i] = h.Counts[i] - prev.Counts[i]
	}
	// A scrape that raced an observation can leave a lower bucket a little
	// ahead of a higher one; keeping the difference cumulative keeps
	// Quantile's search sound.
	monotone(d.Counts, d.Count)
	return d, false
}

// isReset reports whether cur cannot have grown from prev: a different
// bucket layout, or a count that fell.
func isReset(cur, prev Histogram) bool {
	if !cur.sameBounds(prev) || cur.Count < prev.Count {
		return true
	}
	for i := range cur.Counts {
		if cur.Counts[i] < prev.Counts[i] {
			return true
		}
	}
	return false
}

// Sum returns hs added bucket by bucket: the histogram of all their
// observations together, as one server holding them all would have
// counted them, so its quantiles are as good as each one's. Histograms of
// several servers of the same engine and version share their buckets and
// add up exactly.
//
// It returns false, and no histogram, when hs is empty or the histograms'
// bucket layouts differ (or one has not one count per bound): counts of
// different buckets cannot be added, and no reading of them is exact. The
// sum shares no slice with hs.
func Sum(hs ...Histogram) (Histogram, bool) {
	if len(hs) == 0 || !hs[0].wellFormed() {
		return Histogram{}, false
	}
	s := hs[0].clone()
	for _, h := range hs[1:] {
		if !s.sameBounds(h) {
			return Histogram{}, false
		}
		s = s.add(h)
	}
	return s, true
}

// add returns h + o, bucket by bucket; both must have the same layout.
func (h Histogram) add(o Histogram) Histogram {
	s := Histogram{
		Bounds: slices.Clone(h.Bounds),
		Counts: make([]float64, len(h.Counts)),
		Count:  h.Count + o.Count,
		Sum:    h.Sum + o.Sum,
	}
	for i := range h.Counts {
		s.Counts[i] = h.Counts[i] + o.Counts[i]
	}
	return s
}

func (h Histogram) clone() Histogram {
	return Histogram{Bounds: slices.Clone(h.Bounds), Counts: slices.Clone(h.Counts), Count: h.Count, Sum: h.Sum}
}

// monotone makes counts non-decreasing and caps them at total, in place.
func monotone(counts []float64, total float64) {
	run := 0.0
	for i, c := range counts {
		run = max(run, c)
		counts[i] = min(run, total)
	}
}

// fromProto converts one parsed histogram series. It rejects a series whose
// counts or sum are not finite, or that has no bucket at all, since every
// later step (deltas, quantiles, JSON) needs finite numbers.
func fromProto(p *dto.Histogram) (Histogram, error) {
	type bucket struct{ le, n float64 }
	var finite []bucket
	inf := math.NaN()
	for _, b := range p.GetBucket() {
		le, n := b.GetUpperBound(), b.GetCumulativeCountFloat()
		if n == 0 {
			n = float64(b.GetCumulativeCount())
		}
		switch {
		case math.IsNaN(le) || math.IsInf(le, -1):
			return Histogram{}, fmt.Errorf("bucket bound le=%q is not usable", strconv.FormatFloat(le, 'g', -1, 64))
		case math.IsNaN(n) || math.IsInf(n, 0) || n < 0:
			return Histogram{}, fmt.Errorf("bucket le=%q has count %v", strconv.FormatFloat(le, 'g', -1, 64), n)
		case math.IsInf(le, 1):
			inf = n
		default:
			finite = append(finite, bucket{le, n})
		}
	}
	if len(finite) == 0 && math.IsNaN(inf) {
		return Histogram{}, fmt.Errorf("no buckets")
	}
	count := p.GetSampleCountFloat()
	if count == 0 {
		count = float64(p.GetSampleCount())
	}
	// The +Inf bucket and _count say the same thing; the bucket comes from
	// the same pass over the buckets as the others, so it wins.
	if !math.IsNaN(inf) {
		count = inf
	}
	sum := p.GetSampleSum()
	if math.IsNaN(sum) || math.IsInf(sum, 0) || math.IsInf(count, 0) {
		return Histogram{}, fmt.Errorf("sum %v or count %v is not finite", sum, count)
	}
	slices.SortStableFunc(finite, func(a, b bucket) int {
		switch {
		case a.le < b.le:
			return -1
		case a.le > b.le:
			return 1
		}
		return 0
	})
	h := Histogram{Count: count, Sum: sum}
	for _, b := range finite {
		if k := len(h.Bounds) - 1; k >= 0 && h.Bounds[k] == b.le {
			h.Counts[k] = max(h.Counts[k], b.n) // a repeated le line: keep the larger count
			continue
		}
		h.Bounds = append(h.Bounds, b.le)
		h.Counts = append(h.Counts, b.n)
	}
	if k := len(h.Counts) - 1; k >= 0 {
		h.Count = max(h.Count, slices.Max(h.Counts))
	}
	monotone(h.Counts, h.Count)
	return h, nil
}
