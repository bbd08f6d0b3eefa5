package promscrape

import (
	"math"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

func TestHistogramDelta(t *testing.T) {
	b := []float64{0.1, 0.5, 1}
	tests := []struct {
		name      string
		prev, cur Histogram
		want      Histogram
		wantReset bool
	}{
		// Plain growth: bucket-wise differences of cumulative counts.
		{"growth",
			Histogram{Bounds: b, Counts: []float64{1, 3, 4}, Count: 5, Sum: 2},
			Histogram{Bounds: b, Counts: []float64{2, 6, 8}, Count: 10, Sum: 4.5},
			Histogram{Bounds: b, Counts: []float64{1, 3, 4}, Count: 5, Sum: 2.5}, false},
		// Nothing new: all zero.
		{"no change",
			Histogram{Bounds: b, Counts: []float64{1, 3, 4}, Count: 5, Sum: 2},
			Histogram{Bounds: b, Counts: []float64{1, 3, 4}, Count: 5, Sum: 2},
			Histogram{Bounds: b, Counts: []float64{0, 0, 0}, Count: 0, Sum: 0}, false},
		// The count fell: the server restarted, everything now held is new.
		{"reset by count",
			Histogram{Bounds: b, Counts: []float64{4, 8, 9}, Count: 10, Sum: 5},
			Histogram{Bounds: b, Counts: []float64{1, 1, 2}, Count: 2, Sum: 0.7},
			Histogram{Bounds: b, Counts: []float64{1, 1, 2}, Count: 2, Sum: 0.7}, true},
		// One bucket fell while the count rose: still a restart.
		{"reset by bucket",
			Histogram{Bounds: b, Counts: []float64{4, 4, 4}, Count: 4, Sum: 0.2},
			Histogram{Bounds: b, Counts: []float64{0, 2, 5}, Count: 5, Sum: 3},
			Histogram{Bounds: b, Counts: []float64{0, 2, 5}, Count: 5, Sum: 3}, true},
		// A new bucket layout cannot be subtracted from the old one.
		{"layout changed",
			Histogram{Bounds: b, Counts: []float64{1, 1, 1}, Count: 1, Sum: 0.1},
			Histogram{Bounds: []float64{0.2, 2}, Counts: []float64{3, 4}, Count: 4, Sum: 2},
			Histogram{Bounds: []float64{0.2, 2}, Counts: []float64{3, 4}, Count: 4, Sum: 2}, true},
		// A scrape that raced an observation: the lower bucket gained one
		// more than the upper; the delta is kept cumulative.
		{"raced scrape",
			Histogram{Bounds: b, Counts: []float64{1, 2, 2}, Count: 2, Sum: 0.3},
			Histogram{Bounds: b, Counts: []float64{3, 3, 4}, Count: 4, Sum: 0.8},
			Histogram{Bounds: b, Counts: []float64{2, 2, 2}, Count: 2, Sum: 0.5}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reset := tt.cur.Delta(tt.prev)
			if reset != tt.wantReset {
				t.Errorf("reset = %v, want %v", reset, tt.wantReset)
			}
			if !slices.Equal(got.Bounds, tt.want.Bounds) || !slices.Equal(got.Counts, tt.want.Counts) ||
				!near(got.Count, tt.want.Count) || !near(got.Sum, tt.want.Sum) {
				t.Errorf("Delta = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestHistogramDeltaDoesNotAlias checks that a delta owns its slices: a
// Window adds deltas in place, which must not change the snapshots.
func TestHistogramDeltaDoesNotAlias(t *testing.T) {
	prev := Histogram{Bounds: []float64{1}, Counts: []float64{5}, Count: 5}
	cur := Histogram{Bounds: []float64{1}, Counts: []float64{1}, Count: 1}
	d, _ := cur.Delta(prev) // a reset returns a copy of cur
	d.Counts[0], d.Bounds[0] = 99, 99
	if cur.Counts[0] != 1 || cur.Bounds[0] != 1 {
		t.Fatalf("Delta aliased its receiver: %+v", cur)
	}
}

func TestSum(t *testing.T) {
	b := []float64{0.1, 0.5, 1}
	tests := []struct {
		name string
		hs   []Histogram
		want Histogram
		ok   bool
	}{
		// Two servers with the same buckets: counts, count and sum add up.
		{"two", []Histogram{
			{Bounds: b, Counts: []float64{2, 6, 8}, Count: 10, Sum: 3},
			{Bounds: b, Counts: []float64{1, 3, 4}, Count: 5, Sum: 2}},
			Histogram{Bounds: b, Counts: []float64{3, 9, 12}, Count: 15, Sum: 5}, true},
		// Three, one of which saw nothing: it adds nothing.
		{"three, one empty", []Histogram{
			{Bounds: b, Counts: []float64{2, 6, 8}, Count: 10, Sum: 3},
			{Bounds: b, Counts: []float64{0, 0, 0}},
			{Bounds: b, Counts: []float64{0, 1, 1}, Count: 2, Sum: 1.5}},
			Histogram{Bounds: b, Counts: []float64{2, 7, 9}, Count: 12, Sum: 4.5}, true},
		// One histogram is its own sum.
		{"one", []Histogram{{Bounds: b, Counts: []float64{1, 2, 3}, Count: 3, Sum: 1}},
			Histogram{Bounds: b, Counts: []float64{1, 2, 3}, Count: 3, Sum: 1}, true},
		// Nothing to add: no histogram, not an empty one.
		{"none", nil, Histogram{}, false},
		// Different bounds (another engine version): the buckets do not line up.
		{"bounds differ", []Histogram{
			{Bounds: b, Counts: []float64{2, 6, 8}, Count: 10, Sum: 3},
			{Bounds: []float64{0.1, 0.25, 1}, Counts: []float64{2, 6, 8}, Count: 10, Sum: 3}},
			Histogram{}, false},
		// One more bucket on one side.
		{"bucket count differs", []Histogram{
			{Bounds: b, Counts: []float64{2, 6, 8}, Count: 10, Sum: 3},
			{Bounds: []float64{0.1, 0.5, 1, 2}, Counts: []float64{2, 6, 8, 9}, Count: 10, Sum: 3}},
			Histogram{}, false},
		// Damaged (a count missing), even when both are damaged alike.
		{"not one count per bound", []Histogram{
			{Bounds: b, Counts: []float64{2, 6}, Count: 10, Sum: 3},
			{Bounds: b, Counts: []float64{2, 6}, Count: 10, Sum: 3}},
			Histogram{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Sum(tt.hs...)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !slices.Equal(got.Bounds, tt.want.Bounds) || !slices.Equal(got.Counts, tt.want.Counts) ||
				!near(got.Count, tt.want.Count) || !near(got.Sum, tt.want.Sum) {
				t.Errorf("Sum = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestSumQuantile reads the p99 of two servers' observations together:
// one served 90 requests, all within 0.1 s; the other 10, all in
// (0.5 s, 1 s]. Together they hold 100: the 99th ranks in the last bucket,
// 9 of its 10 in, so p99 ≈ 0.5 + (1 − 0.5) × 9/10 = 0.95 s. Neither
// server's own p99 (0.099 s and 0.995 s), nor their mean, is that.
func TestSumQuantile(t *testing.T) {
	b := []float64{0.1, 0.5, 1}
	fast := Histogram{Bounds: b, Counts: []float64{90, 90, 90}, Count: 90, Sum: 4.5}
	slow := Histogram{Bounds: b, Counts: []float64{0, 0, 10}, Count: 10, Sum: 8}
	s, ok := Sum(fast, slow)
	if !ok {
		t.Fatal("the same bounds did not add up")
	}
	e, err := s.Quantile(0.99)
	if err != nil {
		t.Fatal(err)
	}
	if !near(e.Value, 0.95) || e.Lower != 0.5 || e.Upper != 1 || e.Overflow {
		t.Errorf("p99 of the sum = %+v, want 0.95 s in (0.5 s, 1 s]", e)
	}
}

// TestSumDoesNotAlias checks that a sum owns its slices: a caller may
// keep adding to it without changing the histograms it came from.
func TestSumDoesNotAlias(t *testing.T) {
	h := Histogram{Bounds: []float64{1}, Counts: []float64{5}, Count: 5}
	s, _ := Sum(h)
	s.Counts[0], s.Bounds[0] = 99, 99
	if h.Counts[0] != 5 || h.Bounds[0] != 1 {
		t.Fatalf("Sum aliased its argument: %+v", h)
	}
}

func TestHistogramMean(t *testing.T) {
	tests := []struct {
		name   string
		h      Histogram
		want   float64
		wantOK bool
	}{
		{"mean", Histogram{Count: 4, Sum: 1}, 0.25, true},          // 1 s over 4 observations
		{"empty", Histogram{Count: 0, Sum: 0}, 0, false},           // no observation: no mean
		{"negative count", Histogram{Count: -1, Sum: 1}, 0, false}, // never valid; not a division by it
	}
	for _, tt := range tests {
		got, ok := tt.h.Mean()
		if ok != tt.wantOK || !near(got, tt.want) {
			t.Errorf("%s: Mean() = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestFromProto(t *testing.T) {
	bk := func(le float64, n uint64) *dto.Bucket {
		return &dto.Bucket{UpperBound: proto.Float64(le), CumulativeCount: proto.Uint64(n)}
	}
	bkf := func(le, n float64) *dto.Bucket {
		return &dto.Bucket{UpperBound: proto.Float64(le), CumulativeCountFloat: proto.Float64(n)}
	}
	tests := []struct {
		name    string
		in      *dto.Histogram
		want    Histogram
		wantErr string
	}{
		// Buckets out of order are sorted; the +Inf bucket becomes Count.
		{"sorted", &dto.Histogram{SampleCount: proto.Uint64(4), SampleSum: proto.Float64(1.5),
			Bucket: []*dto.Bucket{bk(1, 3), bk(0.5, 1), bk(math.Inf(1), 4)}},
			Histogram{Bounds: []float64{0.5, 1}, Counts: []float64{1, 3}, Count: 4, Sum: 1.5}, ""},
		// Float counts (a rate-derived or fractional exposition) are kept.
		{"float counts", &dto.Histogram{SampleCountFloat: proto.Float64(2.5), SampleSum: proto.Float64(1),
			Bucket: []*dto.Bucket{bkf(1, 1.5)}},
			Histogram{Bounds: []float64{1}, Counts: []float64{1.5}, Count: 2.5, Sum: 1}, ""},
		// A repeated le keeps the larger count.
		{"repeated bound", &dto.Histogram{SampleCount: proto.Uint64(3),
			Bucket: []*dto.Bucket{bk(1, 2), bk(1, 3)}},
			Histogram{Bounds: []float64{1}, Counts: []float64{3}, Count: 3}, ""},
		// A bucket above the count lifts the count (the scrape raced).
		{"count below bucket", &dto.Histogram{SampleCount: proto.Uint64(1),
			Bucket: []*dto.Bucket{bk(1, 2)}},
			Histogram{Bounds: []float64{1}, Counts: []float64{2}, Count: 2}, ""},
		// Cumulative counts that fall are made monotone.
		{"non-monotone", &dto.Histogram{SampleCount: proto.Uint64(5),
			Bucket: []*dto.Bucket{bk(1, 3), bk(2, 2), bk(math.Inf(1), 5)}},
			Histogram{Bounds: []float64{1, 2}, Counts: []float64{3, 3}, Count: 5}, ""},
		// Sad paths: nothing usable.
		{"no buckets", &dto.Histogram{SampleCount: proto.Uint64(1)}, Histogram{}, "no buckets"},
		{"NaN bound", &dto.Histogram{Bucket: []*dto.Bucket{bk(math.NaN(), 1)}}, Histogram{}, "not usable"},
		{"-Inf bound", &dto.Histogram{Bucket: []*dto.Bucket{bk(math.Inf(-1), 1)}}, Histogram{}, "not usable"},
		{"NaN count", &dto.Histogram{Bucket: []*dto.Bucket{bkf(1, math.NaN())}}, Histogram{}, "has count"},
		{"infinite sum", &dto.Histogram{SampleSum: proto.Float64(math.Inf(1)), Bucket: []*dto.Bucket{bk(1, 1)}},
			Histogram{}, "not finite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fromProto(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Bounds, tt.want.Bounds) || !slices.Equal(got.Counts, tt.want.Counts) ||
				got.Count != tt.want.Count || got.Sum != tt.want.Sum {
				t.Errorf("fromProto = %+v, want %+v", got, tt.want)
			}
		})
	}
}
