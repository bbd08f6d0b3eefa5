package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
)

// expand returns the sample the set represents when request j appears
// counts[j] times (nil: once), sorted: the definition quantile must match.
func expand(s *sampleSet, counts []int32) []float64 {
	var out []float64
	for i, v := range s.vals {
		n := int64(s.wt[i])
		if counts != nil {
			n *= int64(counts[s.req[i]])
		}
		for range n {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// randomSet builds a set of n requests with 1–5 weighted values each.
func randomSet(rng *rand.Rand, n int, block int) *sampleSet {
	s := newSampleSet(1 << 30)
	for range n {
		k := 1 + rng.IntN(5)
		vals := make([]float64, k)
		wts := make([]int32, k)
		for i := range vals {
			vals[i] = math.Round(rng.ExpFloat64()*1000) / 1000 // ties happen
			wts[i] = int32(1 + rng.IntN(3))
		}
		s.add(rng.Uint64(), vals, wts)
	}
	s.finish(block)
	return s
}

// TestSampleSetQuantileMatchesMetrics pins the resampled percentile to the
// definition: metrics.Percentile of the expanded, sorted sample, for both
// methods, whole samples and resamples, and every percentile.
func TestSampleSetQuantileMatchesMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ps := []float64{0, 0.1, 1, 25, 49.9, 50, 50.1, 75, 90, 99, 99.9, 100}
	for trial := range 60 {
		s := randomSet(rng, 1+rng.IntN(40), 1+rng.IntN(3))
		var counts []int32
		if trial%2 == 1 {
			counts = make([]int32, s.clusters())
			for range s.clusters() {
				counts[rng.IntN(s.clusters())]++
			}
		}
		exp := expand(s, counts)
		total := s.size(counts)
		if total != int64(len(exp)) {
			t.Fatalf("trial %d: size %d, expanded %d", trial, total, len(exp))
		}
		for _, m := range []metrics.Method{metrics.Linear, metrics.NearestRank} {
			for _, p := range ps {
				got := s.quantile(counts, total, p, m)
				want := metrics.Percentile(exp, p, m)
				if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Fatalf("trial %d %s p%v: got %v, want %v (sample %v)", trial, m, p, got, want, exp)
				}
			}
		}
	}
}

func TestSampleSetQuantileEdges(t *testing.T) {
	s := newSampleSet(10)
	s.finish(1)
	// An empty sample has no percentile.
	if v := s.quantile(nil, 0, 50, metrics.Linear); !math.IsNaN(v) {
		t.Errorf("empty: %v, want NaN", v)
	}
	s = newSampleSet(10)
	s.add(1, []float64{0.2}, nil)
	s.finish(1)
	// One value is every percentile; NaN p has none; p outside [0, 100]
	// is clamped.
	for _, tt := range []struct {
		p    float64
		want float64
	}{{0, 0.2}, {100, 0.2}, {-5, 0.2}, {150, 0.2}} {
		if v := s.quantile(nil, 1, tt.p, metrics.Linear); v != tt.want {
			t.Errorf("p%v = %v, want %v", tt.p, v, tt.want)
		}
	}
	if v := s.quantile(nil, 1, math.NaN(), metrics.Linear); !math.IsNaN(v) {
		t.Errorf("NaN p = %v", v)
	}
}

func TestSampleSetThinning(t *testing.T) {
	// 4,000 requests of 10 values each into a budget of 5,000 values: the
	// set keeps a uniform sample of requests, each with all its values.
	rng := rand.New(rand.NewPCG(8, 9))
	s := newSampleSet(5000)
	for i := range 4000 {
		vals := make([]float64, 10)
		for k := range vals {
			vals[k] = float64(i) // every value of request i is i
		}
		s.add(rng.Uint64(), vals, nil)
	}
	if s.seen != 4000 {
		t.Fatalf("seen %d, want 4000", s.seen)
	}
	if len(s.vals) > 5000 || len(s.vals) < 1250 {
		t.Fatalf("kept %d values, want at most the budget and at least a quarter of it", len(s.vals))
	}
	if s.level == 0 {
		t.Fatal("never thinned")
	}
	// Whole requests: each kept request still has its ten values.
	perReq := map[int32]int{}
	for i := range s.vals {
		perReq[s.req[i]]++
		if s.vals[i] != s.vals[firstOf(s, s.req[i])] {
			t.Fatalf("request %d mixes values", s.req[i])
		}
	}
	for r, n := range perReq {
		if n != 10 {
			t.Fatalf("request %d kept %d of its 10 values", r, n)
		}
	}
	// Uniform over arrival order: the kept requests' mean index is near
	// the middle (1999.5 ± a few standard errors).
	var sum float64
	for r := range perReq {
		sum += s.vals[firstOf(s, r)]
	}
	mean := sum / float64(len(perReq))
	if se := 1155 / math.Sqrt(float64(len(perReq))); math.Abs(mean-1999.5) > 5*se {
		t.Errorf("kept requests' mean index %v, want 1999.5 ± %v", mean, 5*se)
	}
	want := math.Sqrt(float64(len(s.keys)) / 4000)
	if got := s.scale(); math.Abs(got-want) > 1e-12 {
		t.Errorf("scale %v, want %v", got, want)
	}
	// A set that never thinned scales by one.
	if got := newSampleSet(10).scale(); got != 1 {
		t.Errorf("empty set scale %v, want 1", got)
	}
}

func firstOf(s *sampleSet, r int32) int {
	for i, q := range s.req {
		if q == r {
			return i
		}
	}
	return -1
}

func TestReplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	s := newSampleSet(1 << 20)
	for range 500 {
		s.add(rng.Uint64(), []float64{rng.NormFloat64() + 10}, nil)
	}
	s.finish(1)
	est := []float64{s.quantile(nil, s.size(nil), 50, metrics.Linear)}
	reps := s.replicates(rand.New(rand.NewPCG(2, 2)), 2000, []float64{50}, est, metrics.Linear)
	if len(reps) != 1 || len(reps[0]) != 2000 {
		t.Fatalf("shape %d×%d, want 1×2000", len(reps), len(reps[0]))
	}
	// The bootstrap spread of a normal sample's median is about
	// 1.2533·σ/√n = 0.056; allow a generous band.
	sd := stddev(reps[0])
	if sd < 0.035 || sd > 0.08 {
		t.Errorf("bootstrap sd of the median %v, want about 0.056", sd)
	}
	// The replicates centre on the estimate.
	if m := mean(reps[0]); math.Abs(m-est[0]) > 0.02 {
		t.Errorf("replicates centre on %v, estimate %v", m, est[0])
	}
	// The same seed gives the same replicates.
	again := s.replicates(rand.New(rand.NewPCG(2, 2)), 2000, []float64{50}, est, metrics.Linear)
	if !slices.Equal(reps[0], again[0]) {
		t.Error("replicates are not reproducible with the same seed")
	}
	// A set without values has none.
	if r := newSampleSet(1).replicates(rng, 10, []float64{50}, est, metrics.Linear); r != nil {
		t.Errorf("empty set gave %v", r)
	}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func stddev(xs []float64) float64 {
	m := mean(xs)
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(xs)))
}

func TestInterval(t *testing.T) {
	a := make([]float64, 1000)
	b := make([]float64, 1000)
	for i := range a {
		a[i] = float64(i)
		b[i] = float64(i) + 5
	}
	// A constant shift of 5 gives the interval [5, 5].
	if lo, hi, ok := interval(a, b, 0.95); !ok || lo != 5 || hi != 5 {
		t.Errorf("interval = [%v, %v] %v, want [5, 5]", lo, hi, ok)
	}
	// Differences 0..999 − 0: the central 95 % runs from the 2.5th to the
	// 97.5th percentile.
	zero := make([]float64, 1000)
	lo, hi, ok := interval(zero, a, 0.95)
	if !ok || math.Abs(lo-24.975) > 1e-9 || math.Abs(hi-974.025) > 1e-9 {
		t.Errorf("interval = [%v, %v], want [24.975, 974.025]", lo, hi)
	}
	// No replicates, or only NaN ones: no interval.
	if _, _, ok := interval(nil, a, 0.95); ok {
		t.Error("interval of nothing")
	}
	if _, _, ok := interval([]float64{math.NaN()}, []float64{1}, 0.95); ok {
		t.Error("interval of NaN")
	}
}

func TestBlockSize(t *testing.T) {
	tests := []struct {
		name  string
		l     float64
		total int64
		want  int
	}{
		{"one request at a time", 1, 1000, 1},
		{"nothing in flight", 0, 1000, 1},
		{"rounds L up", 15.2, 1000, 16},
		{"capped to keep 20 blocks", 400, 1000, 50},
		{"tiny run", 30, 10, 1},
		{"NaN", math.NaN(), 1000, 1},
		{"infinite", math.Inf(1), 1000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &metrics.Result{Counts: metrics.Counts{Total: tt.total}, LittlesLaw: metrics.LittlesLaw{InFlight: tt.l}}
			if got := blockSize(res); got != tt.want {
				t.Errorf("blockSize = %d, want %d", got, tt.want)
			}
		})
	}
}
