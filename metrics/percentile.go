package metrics

import (
	"fmt"
	"math"
	"strings"
)

// Method is how a percentile is read from a finite sample.
type Method int

// Percentile methods. Linear is the default because it is what NumPy and
// `vllm bench serve` use, so numbers agree with theirs.
const (
	// Linear interpolates between the two closest ranks: with n sorted
	// values x[0..n−1] and h = p/100·(n−1), the result is
	// x[⌊h⌋] + (h−⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]) (NumPy's "linear").
	Linear Method = iota
	// NearestRank picks x[round(p/100·(n−1))], rounding halves to even
	// exactly as Python's round() does, which is what the seed documents'
	// worked example uses.
	NearestRank
)

// String returns the method's canonical name, the one ParseMethod accepts
// and the one written to summary files.
func (m Method) String() string {
	switch m {
	case Linear:
		return "linear"
	case NearestRank:
		return "nearest-rank"
	}
	return fmt.Sprintf("method(%d)", int(m))
}

// ParseMethod parses a percentile method name: "linear", or "nearest-rank"
// (also spelt "nearest_rank" or "nearest").
func ParseMethod(s string) (Method, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "linear":
		return Linear, nil
	case "nearest-rank", "nearest_rank", "nearest":
		return NearestRank, nil
	}
	return 0, fmt.Errorf("percentile method %q: unknown (want linear or nearest-rank)", s)
}

// MarshalText writes the canonical name, so JSON summaries say which method
// produced their percentiles.
func (m Method) MarshalText() ([]byte, error) {
	if m != Linear && m != NearestRank {
		return nil, fmt.Errorf("percentile method %d: unknown", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText is the inverse of MarshalText.
func (m *Method) UnmarshalText(b []byte) error {
	v, err := ParseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// rankOf says which order statistics of n values percentile p needs: the
// result is x[lo] + frac·(x[hi] − x[lo]). p is clamped to [0, 100]; n must be
// at least 1.
func rankOf(n int64, p float64, m Method) (lo, hi int64, frac float64) {
	p = max(0, min(100, p))
	h := p / 100 * float64(n-1)
	if m == NearestRank {
		i := int64(math.RoundToEven(h))
		return i, i, 0
	}
	lo = int64(math.Floor(h))
	frac = h - float64(lo)
	hi = lo + 1
	if frac == 0 || hi > n-1 {
		return lo, lo, 0
	}
	return lo, hi, frac
}

// lerp interpolates between a and b the way NumPy does (from b downwards
// when frac ≥ 0.5), so results agree with NumPy to the last bit in the common
// case. It returns a exactly when frac is 0 and never leaves [a, b].
func lerp(a, b, frac float64) float64 {
	if frac == 0 || a == b {
		return a
	}
	d := b - a
	v := a + d*frac
	if frac >= 0.5 {
		v = b - d*(1-frac)
	}
	return max(min(v, max(a, b)), min(a, b))
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of sorted, which the
// caller must have sorted in ascending order. p outside [0, 100] is clamped.
// It returns NaN when sorted is empty or p is NaN.
func Percentile(sorted []float64, p float64, m Method) float64 {
	return PercentileOf(int64(len(sorted)), p, m, func(lo, hi int64) (float64, float64) {
		return sorted[lo], sorted[hi]
	})
}

// PercentileOf returns the p-th percentile (0 ≤ p ≤ 100) of a sample of n
// values that the caller holds in some form other than a sorted slice (a
// weighted resample, say), read with method m to the very bit Percentile
// would give for the same values sorted. values(lo, hi) must return the
// lo-th and hi-th smallest values (0-based), where hi is lo or lo+1; it is
// called at most once. p outside [0, 100] is clamped. It returns NaN when n
// is less than 1 or p is NaN, without calling values.
func PercentileOf(n int64, p float64, m Method, values func(lo, hi int64) (float64, float64)) float64 {
	if n < 1 || math.IsNaN(p) {
		return math.NaN()
	}
	lo, hi, frac := rankOf(n, p, m)
	a, b := values(lo, hi)
	return lerp(a, b, frac)
}

// Percentiles returns Percentile(sorted, p, m) for each p in ps, in order.
func Percentiles(sorted []float64, ps []float64, m Method) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = Percentile(sorted, p, m)
	}
	return out
}
