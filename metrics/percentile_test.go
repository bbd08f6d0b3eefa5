package metrics

import (
	"encoding/json"
	"math"
	"testing"
)

func TestPercentile(t *testing.T) {
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		m      Method
		want   float64 // NaN means NaN
	}{
		{"empty is NaN", nil, 50, Linear, math.NaN()},
		{"empty is NaN nearest", []float64{}, 50, NearestRank, math.NaN()},
		{"NaN p is NaN", []float64{1, 2}, math.NaN(), Linear, math.NaN()},
		{"one value, any p", []float64{7}, 99, Linear, 7},
		{"one value p0", []float64{7}, 0, NearestRank, 7},
		// Two values: linear interpolates, nearest rank rounds half to even
		// (Python's round(0.5) = 0), so p50 picks the first.
		{"two values p50 linear", []float64{1, 3}, 50, Linear, 2},
		{"two values p50 nearest, half to even", []float64{1, 3}, 50, NearestRank, 1},
		{"two values p75 nearest rounds up", []float64{1, 3}, 75, NearestRank, 3},
		{"two values p25 linear", []float64{1, 3}, 25, Linear, 1.5},
		{"p0 is the min", []float64{1, 2, 9}, 0, Linear, 1},
		{"p100 is the max", []float64{1, 2, 9}, 100, Linear, 9},
		{"p above 100 clamps to the max", []float64{1, 2, 9}, 250, Linear, 9},
		{"negative p clamps to the min", []float64{1, 2, 9}, -5, NearestRank, 1},
		// Seed: p99 of {.2,.5,.7}: h = 1.98.
		{"seed ttft p99 linear", []float64{0.2, 0.5, 0.7}, 99, Linear, 0.696},
		{"seed ttft p99 nearest", []float64{0.2, 0.5, 0.7}, 99, NearestRank, 0.7},
		{"seed ttft p50", []float64{0.2, 0.5, 0.7}, 50, Linear, 0.5},
		{"duplicates stay put", []float64{4, 4, 4, 4}, 37, Linear, 4},
		{"duplicates then a step", []float64{1, 1, 1, 5}, 90, Linear, 1 + 0.7*4},
		// Five values 10..50: p90 → h = 3.6 → 40 + .6·10 = 46; nearest
		// round(3.6) = 4 → 50; p10 → h = .4 → 14 / round(.4) = 0 → 10.
		{"p90 of five linear", []float64{10, 20, 30, 40, 50}, 90, Linear, 46},
		{"p90 of five nearest", []float64{10, 20, 30, 40, 50}, 90, NearestRank, 50},
		{"p10 of five linear", []float64{10, 20, 30, 40, 50}, 10, Linear, 14},
		{"p10 of five nearest", []float64{10, 20, 30, 40, 50}, 10, NearestRank, 10},
		// h = 2.5 exactly: nearest rank rounds half to even → index 2.
		{"p50 of six nearest half to even", []float64{1, 2, 3, 4, 5, 6}, 50, NearestRank, 3},
		{"p50 of six linear", []float64{1, 2, 3, 4, 5, 6}, 50, Linear, 3.5},
		{"negative values", []float64{-3, -1}, 50, Linear, -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Percentile(tt.sorted, tt.p, tt.m)
			if math.IsNaN(tt.want) {
				if !math.IsNaN(got) {
					t.Fatalf("got %v, want NaN", got)
				}
				return
			}
			if !near(got, tt.want) {
				t.Fatalf("got %.17g, want %.17g", got, tt.want)
			}
		})
	}
}

func TestPercentilesKeepsOrder(t *testing.T) {
	got := Percentiles([]float64{1, 2, 3, 4, 5}, []float64{100, 0, 50}, Linear)
	want := []float64{5, 1, 3}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Percentiles = %v, want %v", got, want)
		}
	}
}

// TestPercentileOf checks the accessor form: the ranks it asks for (once,
// adjacent), the value it makes of them, and no read when there is nothing
// to read.
func TestPercentileOf(t *testing.T) {
	tests := []struct {
		name string
		n    int64
		p    float64
		m    Method
		lo   int64   // ranks the accessor must be asked for; -1: not asked
		want float64 // NaN means NaN
	}{
		// An empty sample is NaN and the accessor is not called.
		{"empty", 0, 50, Linear, -1, math.NaN()},
		// A negative size is as empty, not an index below zero.
		{"negative size", -3, 50, Linear, -1, math.NaN()},
		// NaN p is NaN without a read.
		{"NaN p", 5, math.NaN(), NearestRank, -1, math.NaN()},
		// Five values 10..50: p90 → h = 3.6 → ranks 3 and 4 → 46.
		{"p90 linear", 5, 90, Linear, 3, 46},
		// Nearest rank reads one rank: round(3.6) = 4.
		{"p90 nearest", 5, 90, NearestRank, 4, 50},
		// h = 2 exactly: one rank, no interpolation.
		{"p50 on a rank", 5, 50, Linear, 2, 30},
		// p above 100 clamps to the last rank.
		{"p clamps high", 5, 250, Linear, 4, 50},
		// Negative p clamps to the first.
		{"p clamps low", 5, -1, Linear, 0, 10},
		// A sample far larger than any slice: ranks are int64 throughout.
		{"huge sample", 1 << 40, 100, Linear, 1<<40 - 1, 10 * (1 << 40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			gotLo := int64(-1)
			got := PercentileOf(tt.n, tt.p, tt.m, func(lo, hi int64) (float64, float64) {
				calls++
				gotLo = lo
				if hi != lo && hi != lo+1 {
					t.Errorf("asked for ranks %d and %d: not adjacent", lo, hi)
				}
				if lo < 0 || hi >= tt.n {
					t.Errorf("asked for ranks %d and %d of %d values", lo, hi, tt.n)
				}
				return 10 * float64(lo+1), 10 * float64(hi+1)
			})
			if calls > 1 {
				t.Errorf("accessor called %d times, want at most once", calls)
			}
			if gotLo != tt.lo {
				t.Errorf("asked for rank %d, want %d", gotLo, tt.lo)
			}
			if math.IsNaN(tt.want) {
				if !math.IsNaN(got) {
					t.Fatalf("got %v, want NaN", got)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("got %.17g, want %.17g", got, tt.want)
			}
		})
	}
}

// TestLerpStaysInside checks that interpolation never leaves [a, b], which
// a + t·(b − a) can by one ulp, and is exact at the ends.
func TestLerpStaysInside(t *testing.T) {
	tests := []struct {
		a, b, frac float64
	}{
		{0.1, 0.7, 0.98}, // NumPy's branch from b
		{0.1, 0.7, 0.01}, // from a
		{1e308, 1.7e308, 0.5},
		{-1, 1, 0.999999999},
		{3, 3, 0.5},   // equal ends
		{0.2, 0.3, 0}, // frac 0 gives a exactly
	}
	for _, tt := range tests {
		v := lerp(tt.a, tt.b, tt.frac)
		if v < tt.a || v > tt.b || math.IsInf(v, 0) {
			t.Errorf("lerp(%v, %v, %v) = %v: outside the ends", tt.a, tt.b, tt.frac, v)
		}
		if tt.frac == 0 && v != tt.a {
			t.Errorf("lerp(%v, %v, 0) = %v, want a", tt.a, tt.b, v)
		}
	}
}

func TestRankOf(t *testing.T) {
	tests := []struct {
		n           int64
		p           float64
		m           Method
		lo, hi      int64
		fracNonZero bool
	}{
		{1, 50, Linear, 0, 0, false},                                    // one value: rank 0 only
		{2, 50, Linear, 0, 1, true},                                     // between the two
		{3, 50, Linear, 1, 1, false},                                    // exact rank: no second lookup
		{3, 100, Linear, 2, 2, false},                                   // top: never past the end
		{1 << 40, 99, NearestRank, 1088516511497, 1088516511497, false}, // .99·(2⁴⁰−1) = 1088516511497.25: large n stays exact
	}
	for _, tt := range tests {
		lo, hi, frac := rankOf(tt.n, tt.p, tt.m)
		if lo != tt.lo || hi != tt.hi || (frac != 0) != tt.fracNonZero {
			t.Errorf("rankOf(%d, %v, %v) = %d, %d, %v; want %d, %d, frac≠0 %v", tt.n, tt.p, tt.m, lo, hi, frac, tt.lo, tt.hi, tt.fracNonZero)
		}
	}
}

func TestParseMethod(t *testing.T) {
	tests := []struct {
		in      string
		want    Method
		wantErr bool
	}{
		{"linear", Linear, false},
		{"  LINEAR ", Linear, false},         // case and space tolerant
		{"nearest-rank", NearestRank, false}, // canonical
		{"nearest_rank", NearestRank, false}, // snake spelling
		{"nearest", NearestRank, false},      // short
		{"", 0, true},                        // empty
		{"lower", 0, true},                   // a NumPy method we do not offer
	}
	for _, tt := range tests {
		got, err := ParseMethod(tt.in)
		if (err != nil) != tt.wantErr || (err == nil && got != tt.want) {
			t.Errorf("ParseMethod(%q) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestMethodJSON(t *testing.T) {
	for _, m := range []Method{Linear, NearestRank} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back Method
		if err := json.Unmarshal(b, &back); err != nil || back != m {
			t.Errorf("%v → %s → %v, %v", m, b, back, err)
		}
	}
	if b, _ := json.Marshal(NearestRank); string(b) != `"nearest-rank"` {
		t.Errorf("NearestRank marshals as %s", b)
	}
	if _, err := json.Marshal(Method(7)); err == nil {
		t.Error("an unknown method marshalled without error")
	}
	var m Method
	if err := json.Unmarshal([]byte(`"median"`), &m); err == nil {
		t.Error("an unknown method name unmarshalled without error")
	}
}

func FuzzParseMethod(f *testing.F) {
	for _, s := range []string{"linear", "nearest-rank", "nearest", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMethod(s)
		if err != nil {
			return
		}
		back, err := ParseMethod(m.String())
		if err != nil || back != m {
			t.Fatalf("%q → %v → %v, %v", s, m, back, err)
		}
	})
}
