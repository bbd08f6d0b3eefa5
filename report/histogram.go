package report

import (
	"math"
	"slices"

	"github.com/goodput-dev/goodput/report/svgchart"
)

// Fine bins: binsPerDecade bins of equal ratio per power of ten, from
// histMin to histMin·10^histDecades seconds. At 200 per decade a bin is
// 1.16 % wide, finer than any bar a chart draws, so re-binning for display
// moves a value by at most that much.
const (
	binsPerDecade = 200
	histDecades   = 15
	histMin       = 1e-9 // seconds: one nanosecond, the resolution of a record
	histBins      = binsPerDecade * histDecades
)

// Histogram counts latencies (seconds) in fine logarithmic bins so that a
// pooled sample of any size (every ITL of a million requests) is kept in a
// fixed 24 KiB, and can be re-binned into the bars of a chart. Values at or
// below zero are counted apart; the extremes are kept exactly. The zero
// value is ready to use.
type Histogram struct {
	bins     []int64 // allocated on the first positive value
	nonPos   int64   // values ≤ 0 (a clock that went backwards in a record file)
	count    int64
	min, max float64
}

// Add counts v, weight times. NaN is ignored.
func (h *Histogram) Add(v float64, weight int64) {
	if math.IsNaN(v) || weight <= 0 {
		return
	}
	if h.count == 0 || v < h.min {
		h.min = v
	}
	if h.count == 0 || v > h.max {
		h.max = v
	}
	h.count += weight
	if v <= 0 {
		h.nonPos += weight
		return
	}
	if h.bins == nil {
		h.bins = make([]int64, histBins)
	}
	h.bins[binOf(v)] += weight
}

// clone returns an independent copy of h.
func (h *Histogram) clone() *Histogram {
	c := *h
	c.bins = slices.Clone(h.bins)
	return &c
}

// Count returns the number of values added.
func (h *Histogram) Count() int64 { return h.count }

// Min and Max return the extremes, 0 when the histogram is empty.
func (h *Histogram) Min() float64 { return h.min }

// Max returns the largest value added, 0 when the histogram is empty.
func (h *Histogram) Max() float64 { return h.max }

func binOf(v float64) int {
	i := int(math.Floor(math.Log10(v/histMin) * binsPerDecade))
	return min(max(i, 0), histBins-1)
}

// binLow returns the lower edge of fine bin i.
func binLow(i int) float64 { return histMin * math.Pow(10, float64(i)/binsPerDecade) }

// Quantile returns an estimate of the q-quantile (0 ≤ q ≤ 1), the upper
// edge of the fine bin that holds its rank, clamped to the exact extremes;
// 0 for an empty histogram. Charts use it to choose their range, never to
// report a percentile: those come exactly from metrics.
func (h *Histogram) Quantile(q float64) float64 {
	if h.count == 0 {
		return 0
	}
	rank := int64(math.Ceil(q * float64(h.count)))
	if rank <= h.nonPos {
		return h.min
	}
	cum := h.nonPos
	for i, c := range h.bins {
		cum += c
		if cum >= rank {
			return min(max(binLow(i+1), h.min), h.max)
		}
	}
	return h.max
}

// Display re-bins h into at most about maxBars bars covering the values
// from the smallest to hi, the larger of the 99.9th percentile and
// include (an SLO bound, a percentile marker) so that every marker lies on
// the chart. Values above hi are counted in Over. A range spanning more
// than a factor of 50, or one whose median lies in its first 8 %, is drawn
// on a logarithmic axis, where both a fast and a slow mode stay visible.
func (h *Histogram) Display(maxBars int, include ...float64) svgchart.Bars {
	out := svgchart.Bars{Count: h.count}
	if h.count == 0 || maxBars < 1 {
		return out
	}
	hi := h.Quantile(0.999)
	for _, v := range include {
		if v > hi && !math.IsInf(v, 0) {
			hi = v
		}
	}
	if hi <= 0 {
		// Only values ≤ 0: one bar holds them.
		out.Bars = []svgchart.Bar{{Lo: h.min, Hi: 0, Count: h.nonPos}}
		out.Over = h.count - h.nonPos
		return out
	}
	lo := h.min
	// A bulk crammed into the first few linear bars by a far tail (half
	// the values in the first 8 % of the range) is drawn on a logarithmic
	// axis too, where the bulk and the tail both have bars.
	crammed := hi/lo > 4 && h.Quantile(0.5)-lo < 0.08*(hi-lo)
	if lo > 0 && (hi/lo > 50 || crammed) {
		out.Log = true
		return h.logBars(out, lo, hi, maxBars)
	}
	return h.linearBars(out, lo, hi, maxBars)
}

func (h *Histogram) linearBars(out svgchart.Bars, lo, hi float64, maxBars int) svgchart.Bars {
	// Values that are (nearly) all equal sit in the middle of a window 2 %
	// of their size wide, rather than in one bar as wide as the chart.
	if pad := 0.01 * math.Abs(hi); hi-lo < 2*pad {
		mid := (lo + hi) / 2
		lo, hi = mid-pad, mid+pad
	}
	span := hi - lo
	// Start at zero when the values lie near it, so that bar heights are
	// read against the origin; else at a round number below the minimum.
	start := 0.0
	if lo < 0 || lo > 0.25*hi {
		step := svgchart.NiceStep(span / float64(maxBars))
		start = math.Floor(lo/step) * step
	}
	binW := svgchart.NiceStep(math.Max(hi-start, span) / float64(maxBars))
	n := int(math.Ceil((hi-start)/binW + 1e-9))
	n = min(max(n, 1), maxBars+1)
	out.Bars = make([]svgchart.Bar, n)
	for i := range out.Bars {
		out.Bars[i] = svgchart.Bar{Lo: start + float64(i)*binW, Hi: start + float64(i+1)*binW}
	}
	// The top bar's edge is at or above hi, which is at most the maximum;
	// a value equal to hi belongs in the last bar, not in Over.
	top := out.Bars[n-1].Hi
	place := func(v float64, c int64) {
		if v > hi && v >= top {
			out.Over += c
			return
		}
		i := int((v - start) / binW)
		out.Bars[min(max(i, 0), n-1)].Count += c
	}
	if h.nonPos > 0 {
		place(h.min, h.nonPos)
	}
	for i, c := range h.bins {
		if c == 0 {
			continue
		}
		place(h.center(i), c)
	}
	return out
}

func (h *Histogram) logBars(out svgchart.Bars, lo, hi float64, maxBars int) svgchart.Bars {
	decades := math.Log10(hi / lo)
	// Whole fine bins per bar, so that every fine bin falls in one bar.
	per := int(math.Ceil(decades * binsPerDecade / float64(maxBars)))
	per = max(per, 1)
	first := binOf(lo)
	last := binOf(hi)
	n := (last-first)/per + 1
	out.Bars = make([]svgchart.Bar, n)
	for i := range out.Bars {
		a := first + i*per
		out.Bars[i] = svgchart.Bar{Lo: binLow(a), Hi: binLow(a + per)}
	}
	for i, c := range h.bins {
		if c == 0 {
			continue
		}
		k := (i - first) / per
		if i < first {
			k = 0
		}
		if k >= n {
			out.Over += c
			continue
		}
		out.Bars[k].Count += c
	}
	return out
}

// center returns a value inside fine bin i: its geometric centre, clamped
// to the exact extremes so that a sample of equal values lands on them.
func (h *Histogram) center(i int) float64 {
	c := math.Sqrt(binLow(i) * binLow(i+1))
	return min(max(c, h.min), h.max)
}

// cdf returns at most maxPoints points (value, share of values at or
// below it) of h's distribution, from its smallest value to its largest:
// the upper edges of the fine bins, thinned evenly.
func (h *Histogram) cdf(maxPoints int) [][2]float64 {
	if h.count == 0 || maxPoints < 2 {
		return nil
	}
	var all [][2]float64
	cum := h.nonPos
	if cum > 0 {
		all = append(all, [2]float64{h.min, float64(cum) / float64(h.count)})
	}
	for i, c := range h.bins {
		if c == 0 {
			continue
		}
		cum += c
		all = append(all, [2]float64{min(max(binLow(i+1), h.min), h.max), float64(cum) / float64(h.count)})
	}
	if len(all) <= maxPoints {
		return all
	}
	out := make([][2]float64, 0, maxPoints)
	step := float64(len(all)-1) / float64(maxPoints-1)
	for k := range maxPoints {
		out = append(out, all[int(math.Round(float64(k)*step))])
	}
	return out
}

// markedHistogram draws h (values in seconds, or any unit drawn as is
// when unit is 1) with its markers (values in h's unit). The range covers
// the bulk of the values, to the 99.9th percentile, and the markers that
// lie near it; a marker far beyond (an SLO ten times the slowest
// request) is named at the right end instead of stretching the axis until
// the values fill one corner.
func markedHistogram(title, axis, what string, h *Histogram, unit float64, ms []svgchart.Marker) *svgchart.Frame {
	top := h.Quantile(0.999)
	var include []float64
	for i := range ms {
		if ms[i].Value <= 2*top || top <= 0 {
			include = append(include, ms[i].Value)
		}
		ms[i].Value *= unit
	}
	return svgchart.HistogramChart(title, axis, what, h.Display(maxBars, include...), unit, ms)
}
