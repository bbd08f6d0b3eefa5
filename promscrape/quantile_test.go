package promscrape

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestQuantile(t *testing.T) {
	// Ten observations: 2 ≤ 0.1 s, 4 more ≤ 0.2 s, 3 more ≤ 0.5 s, 1 above.
	h := Histogram{Bounds: []float64{0.1, 0.2, 0.5}, Counts: []float64{2, 6, 9}, Count: 10, Sum: 3}
	tests := []struct {
		name string
		h    Histogram
		q    float64
		want Estimate
	}{
		// Rank 5 lies in (0.1, 0.2]: 3 of its 4 observations → 0.1 + 0.1·3/4.
		{"median", h, 0.5, Estimate{Q: 0.5, Value: 0.175, Lower: 0.1, Upper: 0.2}},
		// Rank 1 lies in the first bucket, whose lower bound is 0 → 0.1·1/2.
		{"first bucket from zero", h, 0.1, Estimate{Q: 0.1, Value: 0.05, Lower: 0, Upper: 0.1}},
		// Rank 9 is exactly the top of (0.2, 0.5] → its upper bound.
		{"rank on a bound", h, 0.9, Estimate{Q: 0.9, Value: 0.5, Lower: 0.2, Upper: 0.5}},
		// Rank 9.9 falls in +Inf: the highest finite bound, flagged.
		{"overflow", h, 0.99, Estimate{Q: 0.99, Value: 0.5, Lower: 0.5, Upper: 0.5, Overflow: true}},
		// q = 1 with the last observation above every bound: overflow too.
		{"max overflow", h, 1, Estimate{Q: 1, Value: 0.5, Lower: 0.5, Upper: 0.5, Overflow: true}},
		// q = 0: the lower bound of the lowest non-empty bucket.
		{"min", h, 0, Estimate{Q: 0, Value: 0, Lower: 0, Upper: 0.1}},
		// One observation is the sum, whichever bucket holds it: a queue
		// wait of 0 s, and one of 0.12 s in (0.1, 0.2].
		{"one observation of zero", Histogram{Bounds: []float64{0.3, 1}, Counts: []float64{1, 1}, Count: 1, Sum: 0}, 0.5, Estimate{Q: 0.5}},
		{"one observation", Histogram{Bounds: []float64{0.1, 0.2}, Counts: []float64{0, 1}, Count: 1, Sum: 0.12}, 0.99, Estimate{Q: 0.99, Value: 0.12, Lower: 0.12, Upper: 0.12}},
		// No observation exceeds the sum: two of 0.05 s each in (0, 0.3].
		{"capped by the sum", Histogram{Bounds: []float64{0.3}, Counts: []float64{2}, Count: 2, Sum: 0.1}, 0.99, Estimate{Q: 0.99, Value: 0.1, Lower: 0, Upper: 0.1}},
		// Leading empty buckets are skipped for q = 0.
		{"min past empty buckets",
			Histogram{Bounds: []float64{0.1, 0.2, 0.5}, Counts: []float64{0, 0, 4}, Count: 4},
			0, Estimate{Q: 0, Value: 0.2, Lower: 0.2, Upper: 0.5}},
		// A bound near the float range must not overflow the interpolation:
		// rank 2 of 4 in [0, 1e308] is half-way, 5e307.
		{"huge bound", Histogram{Bounds: []float64{1e308}, Counts: []float64{4}, Count: 4},
			0.5, Estimate{Q: 0.5, Value: 5e307, Lower: 0, Upper: 1e308}},
		// Bounds spanning the whole float range: the half-way point is 0.
		{"range wider than a float", Histogram{Bounds: []float64{-1e308, 1e308}, Counts: []float64{2, 4}, Count: 4},
			0.75, Estimate{Q: 0.75, Value: 0, Lower: -1e308, Upper: 1e308}},
		// Everything in one finite bucket, q = 1: its upper bound, no overflow.
		{"max inside", Histogram{Bounds: []float64{1, 2}, Counts: []float64{0, 3}, Count: 3},
			1, Estimate{Q: 1, Value: 2, Lower: 1, Upper: 2}},
		// An empty bucket between two full ones is passed over: rank 2 of 4
		// ends the first bucket exactly.
		{"empty middle bucket", Histogram{Bounds: []float64{1, 2, 3}, Counts: []float64{2, 2, 4}, Count: 4},
			0.75, Estimate{Q: 0.75, Value: 2.5, Lower: 2, Upper: 3}},
		// A first bound ≤ 0 has no known lower bound: the bound itself.
		{"non-positive first bound", Histogram{Bounds: []float64{-1, 1}, Counts: []float64{2, 4}, Count: 4},
			0.25, Estimate{Q: 0.25, Value: -1, Lower: -1, Upper: -1}},
		// Counts that fall (a raced scrape) are read as monotone: [3, 3, 4].
		{"non-monotone counts", Histogram{Bounds: []float64{1, 2, 3}, Counts: []float64{3, 1, 4}, Count: 4},
			0.9, Estimate{Q: 0.9, Value: 2.6, Lower: 2, Upper: 3}},
		// Fractional counts (from averaged snapshots) interpolate the same way:
		// rank 0.75 of 1.5 in the first bucket → 10·0.75/1.5.
		{"fractional counts", Histogram{Bounds: []float64{10}, Counts: []float64{1.5}, Count: 1.5},
			0.5, Estimate{Q: 0.5, Value: 5, Lower: 0, Upper: 10}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.h.Quantile(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got.Value, tt.want.Value) || got.Lower != tt.want.Lower || got.Upper != tt.want.Upper ||
				got.Overflow != tt.want.Overflow || got.Q != tt.want.Q {
				t.Errorf("Quantile(%v) = %+v, want %+v", tt.q, got, tt.want)
			}
			if got.Value < got.Lower || got.Value > got.Upper {
				t.Errorf("value %v outside its bucket [%v, %v]", got.Value, got.Lower, got.Upper)
			}
		})
	}
}

func TestQuantileErrors(t *testing.T) {
	good := Histogram{Bounds: []float64{1}, Counts: []float64{1}, Count: 1}
	tests := []struct {
		name    string
		h       Histogram
		q       float64
		wantIs  error  // when set, errors.Is must hold
		wantMsg string // otherwise the message must contain this
	}{
		{"negative q", good, -0.1, nil, "outside [0, 1]"},
		{"q above one", good, 1.5, nil, "outside [0, 1]"},
		{"NaN q", good, math.NaN(), nil, "outside [0, 1]"},
		{"infinite q", good, math.Inf(1), nil, "outside [0, 1]"},
		{"empty", Histogram{Bounds: []float64{1}, Counts: []float64{0}}, 0.5, ErrNoObservations, ""},
		{"zero value", Histogram{}, 0.5, ErrNoObservations, ""},
		{"only +Inf", Histogram{Count: 3, Sum: 9}, 0.5, ErrNoBuckets, ""},
		{"counts shorter than bounds", Histogram{Bounds: []float64{1, 2}, Counts: []float64{1}, Count: 1}, 0.5, ErrNoBuckets, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.h.Quantile(tt.q)
			switch {
			case err == nil:
				t.Fatal("no error")
			case tt.wantIs != nil && !errors.Is(err, tt.wantIs):
				t.Fatalf("error = %v, want %v", err, tt.wantIs)
			case tt.wantIs == nil && !strings.Contains(err.Error(), tt.wantMsg):
				t.Fatalf("error = %v, want one containing %q", err, tt.wantMsg)
			}
		})
	}
}
