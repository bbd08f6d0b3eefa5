package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// reference is the plain way: every value expanded, sorted.
type reference []int64

func (r *reference) addN(v, w int64) {
	for range w {
		*r = append(*r, v)
	}
}

// checkAgainst compares every order statistic that matters, the mean and
// the std of stores with the reference, at a spread of ranks.
func checkAgainst(t *testing.T, stores []*store, ref reference) {
	t.Helper()
	slices.Sort(ref)
	n := int64(len(ref))
	var total int64
	for _, s := range stores {
		total += s.n
	}
	if total != n {
		t.Fatalf("store holds %d values, reference %d", total, n)
	}
	if n == 0 {
		return
	}
	ranks := []int64{0, n - 1, n / 2, n / 3, (n * 99) / 100, (n * 999) / 1000, n / 7}
	for i := range 16 {
		ranks = append(ranks, int64(i)*n/16)
	}
	got := selectRanks(stores, ranks)
	for i, r := range ranks {
		if got[i] != ref[r] {
			t.Fatalf("rank %d of %d: got %d, want %d", r, n, got[i], ref[r])
		}
	}
	var sum float64
	for _, v := range ref {
		sum += float64(v)
	}
	mean := sum / float64(n)
	var m2 float64
	for _, v := range ref {
		d := float64(v) - mean
		m2 += d * d
	}
	gm, gm2 := unionMoments(stores)
	if math.Abs(gm-mean) > 1e-9*max(1, math.Abs(mean)) {
		t.Errorf("mean = %.17g, want %.17g", gm, mean)
	}
	if math.Abs(gm2-m2) > 1e-9*max(1, m2) {
		t.Errorf("M2 = %.17g, want %.17g", gm2, m2)
	}
}

// TestStoreMatchesSort is the property test: on random data of several
// shapes, selection and moments agree with sorting every value.
func TestStoreMatchesSort(t *testing.T) {
	tests := []struct {
		name string
		n    int
		gen  func(r *rand.Rand) (v, w int64)
	}{
		// Typical decode gaps, 5–15 ms, spread over ~150 buckets.
		{"uniform ms gaps", 20000, func(r *rand.Rand) (int64, int64) { return 5e6 + r.Int64N(10e6), 1 }},
		// All in one bucket and few distinct values: heavy duplicates.
		{"duplicates in one bucket", 5000, func(r *rand.Rand) (int64, int64) { return 10e6 + r.Int64N(4), 1 }},
		// Enough values in one bucket to switch it to counts, and then
		// some more staged: exercises the dense path.
		{"dense bucket", denseAt + 3*maxBlock + 17, func(r *rand.Rand) (int64, int64) { return 7<<loBits + r.Int64N(1<<loBits), 1 }},
		// Outside the buckets: negative, ≥ 2³², and the extremes.
		{"out of range mixed in", 3000, func(r *rand.Rand) (int64, int64) {
			switch r.IntN(6) {
			case 0:
				return -r.Int64N(1e9), 1
			case 1:
				return inRange + r.Int64N(1e12), 1
			case 2:
				return []int64{math.MinInt64 / 4, math.MaxInt64 / 4, inRange - 1, inRange, 0, -1}[r.IntN(6)], 1
			}
			return r.Int64N(1e9), 1
		}},
		// Weighted values: small weights are copies, large ones list
		// entries; both must count k times.
		{"weights small and large", 2000, func(r *rand.Rand) (int64, int64) {
			return 1e6 + r.Int64N(3e6), 1 + r.Int64N(40)
		}},
		// One value only.
		{"single", 1, func(r *rand.Rand) (int64, int64) { return 42, 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(tt.name))))
			var s store
			var ref reference
			for range tt.n {
				v, w := tt.gen(rng)
				if w == 1 && rng.IntN(2) == 0 {
					s.add(v)
				} else {
					s.addN(v, w)
				}
				ref.addN(v, w)
			}
			checkAgainst(t, []*store{&s}, ref)
		})
	}
}

// TestStoreUnion checks selection over several stores at once, as the ITL
// distribution reads one-token gaps and per-token values together.
func TestStoreUnion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var a, b, c store
	var ref reference
	for range 4000 {
		v := rng.Int64N(2e7)
		switch rng.IntN(3) {
		case 0:
			a.add(v)
			ref.addN(v, 1)
		case 1:
			w := 1 + rng.Int64N(30)
			b.addN(v, w)
			ref.addN(v, w)
		default:
			c.add(-v)
			ref.addN(-v, 1)
		}
	}
	checkAgainst(t, []*store{&a, &b, &c}, ref)
}

// TestAddGapsMatchesAdd checks the fast path against one add per gap,
// including gaps that leave the buckets and buckets filling up.
func TestAddGapsMatchesAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cs := make([]record.Chunk, 3*maxBlock)
	at := int64(0)
	for i := range cs {
		cs[i] = record.Chunk{At: at, Tokens: 1}
		switch rng.IntN(50) {
		case 0:
			at += inRange + rng.Int64N(1e9) // a stall of over 4.29 s
		case 1:
			at -= rng.Int64N(1e6) // out of order
		default:
			at += 3<<loBits + rng.Int64N(100) // one hot bucket
		}
	}
	var fast, slow store
	fast.addGaps(cs)
	var ref reference
	for i := 1; i < len(cs); i++ {
		g := cs[i].At - cs[i-1].At
		slow.add(g)
		ref.addN(g, 1)
	}
	if fast.n != slow.n || fast.sum != slow.sum || fast.sq != slow.sq {
		t.Fatalf("fast n=%d sum=%v sq=%v; slow n=%d sum=%v sq=%v", fast.n, fast.sum, fast.sq, slow.n, slow.sum, slow.sq)
	}
	checkAgainst(t, []*store{&fast}, ref)
	var empty store
	empty.addGaps(cs[:1])
	if empty.n != 0 || empty.pages != [nPages]*page{} {
		t.Errorf("one chunk gave %d gaps", empty.n)
	}
}

// TestDenseCountOverflow checks that a count reaching 2³² moves to the
// list rather than wrapping to zero. Adding four billion values takes too
// long for a unit test, so the count is set just below the limit.
func TestDenseCountOverflow(t *testing.T) {
	var s store
	const v = 5<<loBits | 123
	s.add(v)
	b := s.peek(5)
	for i := 0; b.dense == nil; i++ {
		if i > 2*denseAt {
			t.Fatal("bucket did not switch to counts")
		}
		s.add(v)
	}
	staged := int64(len(b.cur))
	before := b.dense[123]
	extra := int64(math.MaxUint32) - int64(before) // pretend that many more arrived
	b.dense[123] = math.MaxUint32
	b.n += extra
	s.n += extra
	// Count the staged copies (at least one) through the limit.
	b.cur = append(b.cur, 123)
	s.n++
	s.count(b, 5, b.cur)
	b.cur = b.cur[:0]
	want := int64(math.MaxUint32) + staged + 1
	if got := b.count() + weightOf(s.list); got != want {
		t.Fatalf("bucket + list hold %d, want %d", got, want)
	}
	if len(s.list) != 1 || s.list[0].w != 1<<32 || s.list[0].v != v {
		t.Fatalf("list = %v, want one entry of 2³² at %d", s.list, v)
	}
	got := selectRanks([]*store{&s}, []int64{0, s.n - 1})
	if got[0] != v || got[1] != v {
		t.Fatalf("ranks read %v, want %d", got, v)
	}
}

func weightOf(ws []weighted) int64 {
	var n int64
	for _, e := range ws {
		n += e.w
	}
	return n
}

func TestStoreEdgeCases(t *testing.T) {
	var s store
	s.addN(5, 0)  // no weight: nothing
	s.addN(5, -3) // negative weight: nothing
	if s.n != 0 || s.pages != [nPages]*page{} || len(s.list) != 0 {
		t.Fatalf("empty adds changed the store: n=%d", s.n)
	}
	s.add(math.MaxInt64)
	s.add(math.MinInt64)
	got := selectRanks([]*store{&s}, []int64{0, 1})
	if got[0] != math.MinInt64 || got[1] != math.MaxInt64 {
		t.Fatalf("extremes read %v", got)
	}
	mean, m2 := unionMoments([]*store{&s})
	if math.IsNaN(mean) || math.IsNaN(m2) || math.IsInf(m2, 0) {
		t.Fatalf("extremes gave mean %v, M2 %v", mean, m2)
	}
	s.reset()
	if s.n != 0 || s.pages != [nPages]*page{} {
		t.Fatal("reset kept data")
	}
}

func TestU128(t *testing.T) {
	var a u128
	a.add(math.MaxUint64)
	a.add(1)
	if a.hi != 1 || a.lo != 0 {
		t.Fatalf("MaxUint64 + 1 = %v", a)
	}
	a.addWide(2, math.MaxUint64)
	if a.hi != 3 || a.lo != math.MaxUint64 {
		t.Fatalf("carry-free wide add = %v", a)
	}
	if got := a.big().String(); got != "73786976294838206463" { // 4·2⁶⁴ − 1
		t.Fatalf("big = %s", got)
	}
	if f := a.float(); f != 0x1p66 {
		t.Fatalf("float = %v", f)
	}
}
