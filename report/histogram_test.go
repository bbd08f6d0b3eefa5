package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestHistogramAdd(t *testing.T) {
	tests := []struct {
		name            string
		vals            []float64
		weights         []int64
		count           int64
		min, max        float64
		nonPos, binnedN int64
	}{
		// Nothing added: every accessor reads zero.
		{name: "empty", count: 0},
		// One value, counted once, is both extremes.
		{name: "one", vals: []float64{0.25}, weights: []int64{1}, count: 1, min: 0.25, max: 0.25, binnedN: 1},
		// A weight counts the value that many times (a chunk of k tokens).
		{name: "weighted", vals: []float64{0.01, 0.02}, weights: []int64{3, 2}, count: 5, min: 0.01, max: 0.02, binnedN: 5},
		// Zero and negative values (a record whose clock went backwards)
		// are counted apart from the bins but keep the extremes exact.
		{name: "non-positive", vals: []float64{0, -0.5, 0.1}, weights: []int64{1, 1, 1}, count: 3, min: -0.5, max: 0.1, nonPos: 2, binnedN: 1},
		// NaN, zero and negative weights are ignored.
		{name: "ignored", vals: []float64{math.NaN(), 1, 2}, weights: []int64{1, 0, -3}, count: 0},
		// Values beyond the bins' range land in the end bins, extremes exact.
		{name: "out of range", vals: []float64{1e-12, 1e9}, weights: []int64{1, 1}, count: 2, min: 1e-12, max: 1e9, binnedN: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h Histogram
			for i, v := range tt.vals {
				h.Add(v, tt.weights[i])
			}
			if h.Count() != tt.count || h.Min() != tt.min || h.Max() != tt.max {
				t.Fatalf("count %d min %v max %v, want %d %v %v", h.Count(), h.Min(), h.Max(), tt.count, tt.min, tt.max)
			}
			if h.nonPos != tt.nonPos {
				t.Errorf("non-positive %d, want %d", h.nonPos, tt.nonPos)
			}
			var binned int64
			for _, c := range h.bins {
				binned += c
			}
			if binned != tt.binnedN {
				t.Errorf("binned %d, want %d", binned, tt.binnedN)
			}
		})
	}
}

func TestHistogramQuantile(t *testing.T) {
	var uniform Histogram
	for i := 1; i <= 1000; i++ {
		uniform.Add(float64(i)/1000, 1) // 1 ms to 1 s
	}
	var equal Histogram
	equal.Add(0.05, 10)
	var withNeg Histogram
	withNeg.Add(-1, 5)
	withNeg.Add(2, 5)
	tests := []struct {
		name string
		h    *Histogram
		q    float64
		want float64
		tol  float64 // relative
	}{
		// An empty histogram reads zero.
		{"empty", &Histogram{}, 0.5, 0, 0},
		// The median of 1..1000 ms is 500 ms, to within a fine bin.
		{"uniform median", &uniform, 0.5, 0.5, 0.012},
		// The 99th percentile is 990 ms, to within a fine bin.
		{"uniform p99", &uniform, 0.99, 0.99, 0.012},
		// q = 1 is the exact maximum (the bin edge is clamped to it).
		{"uniform max", &uniform, 1, 1, 0},
		// Equal values: every quantile is the value itself, exactly.
		{"equal", &equal, 0.999, 0.05, 0},
		// A rank among the non-positive values reads the minimum.
		{"non-positive rank", &withNeg, 0.3, -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.h.Quantile(tt.q)
			if math.Abs(got-tt.want) > tt.tol*math.Abs(tt.want) {
				t.Errorf("Quantile(%v) = %v, want %v ± %v%%", tt.q, got, tt.want, 100*tt.tol)
			}
		})
	}
}

func TestHistogramDisplay(t *testing.T) {
	t.Run("linear bars count exactly", func(t *testing.T) {
		// 10 values at each of 5, 15, 25, 35 ms: four bars of a 10 ms grid
		// starting at zero, since the values lie near it.
		var h Histogram
		for _, v := range []float64{0.005, 0.015, 0.025, 0.035} {
			h.Add(v, 10)
		}
		b := h.Display(4)
		if b.Log || b.Over != 0 || b.Count != 40 {
			t.Fatalf("log %v over %d count %d, want linear, 0, 40", b.Log, b.Over, b.Count)
		}
		if len(b.Bars) != 4 || b.Bars[0].Lo != 0 || math.Abs(b.Bars[0].Hi-0.01) > 1e-12 {
			t.Fatalf("bars %+v, want four 10 ms bars from 0", b.Bars)
		}
		want := []int64{10, 10, 10, 10}
		for i, bar := range b.Bars {
			if bar.Count != want[i] {
				t.Errorf("bar %d [%v, %v) holds %d, want %d", i, bar.Lo, bar.Hi, bar.Count, want[i])
			}
		}
	})
	t.Run("far from zero", func(t *testing.T) {
		// Values between 100 and 140 ms: the bars start at a round number
		// at or below 100 ms, not at zero, so that the shape is visible.
		var h Histogram
		for i := range 40 {
			h.Add(0.1005+float64(i)/1000, 1)
		}
		b := h.Display(20)
		if b.Bars[0].Lo > 0.1 || b.Bars[0].Lo < 0.09 {
			t.Errorf("first bar starts at %v s, want a round value in [90 ms, 100 ms]", b.Bars[0].Lo)
		}
	})
	t.Run("outliers go to Over", func(t *testing.T) {
		// 1000 requests at 10 ms and one at 10 s: the chart covers up to
		// the 99.9th percentile and counts the outlier beyond it.
		var h Histogram
		h.Add(0.010, 1000)
		h.Add(10, 1)
		b := h.Display(50)
		if b.Over != 1 {
			t.Fatalf("Over = %d, want 1 (bars %+v)", b.Over, b.Bars)
		}
		if top := b.Bars[len(b.Bars)-1].Hi; top > 0.011 {
			t.Errorf("chart reaches %v s, want it to stop near 10 ms", top)
		}
	})
	t.Run("markers widen the range", func(t *testing.T) {
		// An SLO bound at 20 ms is drawn on the chart even though the
		// 99.9th percentile is 10 ms.
		var h Histogram
		h.Add(0.010, 2000)
		h.Add(0.5, 1)
		b := h.Display(50, 0.020)
		if top := b.Bars[len(b.Bars)-1].Hi; top < 0.020 {
			t.Errorf("chart stops at %v s, before the 20 ms marker", top)
		}
		if b.Over != 1 {
			t.Errorf("Over = %d, want the 500 ms value beyond the marker", b.Over)
		}
	})
	t.Run("a marker beyond the maximum", func(t *testing.T) {
		// Every TPOT is 15 ms and the SLO is 20 ms: the chart reaches the
		// SLO, so its line is drawn where it belongs, not at the edge.
		var h Histogram
		h.Add(0.015, 400)
		b := h.Display(60, 0.020)
		if top := b.Bars[len(b.Bars)-1].Hi; top < 0.020 {
			t.Errorf("chart stops at %v s, before the 20 ms SLO", top)
		}
		if b.Over != 0 || b.Bars[0].Count != 400 {
			t.Errorf("first bar %+v, over %d; want all 400 in the first bar", b.Bars[0], b.Over)
		}
	})
	t.Run("wide range is logarithmic", func(t *testing.T) {
		// Values from 1 ms to 1 s span three decades: bars of equal ratio.
		var h Histogram
		for i := 0; i <= 300; i++ {
			h.Add(1e-3*math.Pow(10, float64(i)/100), 1)
		}
		b := h.Display(30)
		if !b.Log {
			t.Fatal("want a logarithmic axis")
		}
		r0 := b.Bars[0].Hi / b.Bars[0].Lo
		for i, bar := range b.Bars[1:] {
			if r := bar.Hi / bar.Lo; math.Abs(r-r0) > 1e-9*r0 {
				t.Fatalf("bar %d ratio %v, want %v like the first", i+1, r, r0)
			}
		}
		if b.Bars[0].Lo > 1e-3 || b.Bars[len(b.Bars)-1].Hi < 0.99 {
			t.Errorf("bars cover [%v, %v], want [1 ms, 1 s]", b.Bars[0].Lo, b.Bars[len(b.Bars)-1].Hi)
		}
	})
	t.Run("equal values", func(t *testing.T) {
		// Every value 50 ms: one non-empty bar that holds them all.
		var h Histogram
		h.Add(0.05, 7)
		b := h.Display(60)
		nonEmpty := 0
		for _, bar := range b.Bars {
			if bar.Count > 0 {
				nonEmpty++
				if bar.Count != 7 || bar.Lo > 0.05 || bar.Hi <= 0.05 {
					t.Errorf("bar %+v, want [≤50 ms, >50 ms) holding 7", bar)
				}
			}
		}
		if nonEmpty != 1 {
			t.Errorf("%d non-empty bars, want 1", nonEmpty)
		}
	})
	t.Run("only non-positive", func(t *testing.T) {
		var h Histogram
		h.Add(0, 3)
		h.Add(-0.1, 2)
		b := h.Display(10)
		if len(b.Bars) != 1 || b.Bars[0].Count != 5 {
			t.Errorf("bars %+v, want one bar of 5", b.Bars)
		}
	})
	t.Run("empty and zero bars", func(t *testing.T) {
		var h Histogram
		if b := h.Display(10); len(b.Bars) != 0 || b.Count != 0 {
			t.Errorf("empty histogram: %+v", b)
		}
		h.Add(1, 1)
		if b := h.Display(0); len(b.Bars) != 0 {
			t.Errorf("maxBars 0: %+v", b)
		}
	})
}

// TestHistogramDisplayConserves checks on random samples that bars and
// Over together hold every value, and that there are never more than
// maxBars+1 bars.
func TestHistogramDisplayConserves(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var h Histogram
		n := 1 + rng.IntN(500)
		scale := math.Pow(10, float64(rng.IntN(8)-6))
		for range n {
			v := scale * rng.ExpFloat64()
			if rng.IntN(50) == 0 {
				v *= 1000 // outliers
			}
			if rng.IntN(100) == 0 {
				v = 0
			}
			h.Add(v, int64(1+rng.IntN(3)))
		}
		maxB := 1 + rng.IntN(80)
		b := h.Display(maxB)
		sum := b.Over
		for i, bar := range b.Bars {
			sum += bar.Count
			if i > 0 && bar.Lo < b.Bars[i-1].Lo {
				t.Fatalf("trial %d: bars out of order: %+v", trial, b.Bars)
			}
		}
		if sum != h.Count() {
			t.Fatalf("trial %d: bars hold %d of %d values", trial, sum, h.Count())
		}
		if len(b.Bars) > maxB+1 {
			t.Fatalf("trial %d: %d bars for maxBars %d", trial, len(b.Bars), maxB)
		}
	}
}
