package metrics

import (
	"math"
	"math/big"
	"slices"
)

// describe summarises the union of stores as a Distribution in seconds:
// order statistics by selectRanks, mean and standard deviation from the
// exact sums.
func describe(stores []*store, ps []float64, m Method) Distribution {
	var n int64
	for _, s := range stores {
		n += s.n
	}
	if n == 0 {
		return Distribution{}
	}
	want := append(slices.Clone(ps), 50) // the median last
	ranks := make([]int64, 0, 2*len(want)+2)
	ranks = append(ranks, 0, n-1)
	for _, p := range want {
		lo, hi, _ := rankOf(n, p, m)
		ranks = append(ranks, lo, hi)
	}
	vals := selectRanks(stores, ranks)
	read := func(i int) float64 {
		_, _, frac := rankOf(n, want[i], m)
		return lerp(seconds(vals[2+2*i]), seconds(vals[3+2*i]), frac)
	}
	mean, m2 := unionMoments(stores)
	d := Distribution{
		Count:       n,
		Mean:        mean / 1e9,
		Std:         math.Sqrt(max(0, m2/float64(n))) / 1e9,
		Min:         seconds(vals[0]),
		Max:         seconds(vals[1]),
		Median:      read(len(want) - 1),
		Percentiles: make([]PercentileValue, len(ps)),
	}
	for i, p := range ps {
		d.Percentiles[i] = PercentileValue{P: p, Value: read(i)}
	}
	return d
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// unionMoments returns the mean and the sum of squared deviations (M2, so
// that the population variance is M2/n) of the union of stores, in ns. The
// in-range part comes exactly from the integer sums; the rare out-of-range
// values are taken in two passes and the parts combined with Chan et al.'s
// formula, so nothing cancels catastrophically.
func unionMoments(stores []*store) (mean, m2 float64) {
	var sum, sq u128
	var nIn int64
	var out []weighted
	for _, s := range stores {
		sum.addWide(s.sum.hi, s.sum.lo)
		sq.addWide(s.sq.hi, s.sq.lo)
		nIn += s.n
		for _, e := range s.list {
			if uint64(e.v) >= inRange {
				out = append(out, e)
				nIn -= e.w
			}
		}
	}
	if nIn > 0 {
		// M2 = (n·Σv² − (Σv)²) / n, exactly.
		n := big.NewInt(nIn)
		s := sum.big()
		num := new(big.Int).Mul(n, sq.big())
		num.Sub(num, new(big.Int).Mul(s, s))
		m2, _ = new(big.Float).Quo(new(big.Float).SetInt(num), new(big.Float).SetInt(n)).Float64()
		mean, _ = new(big.Float).Quo(new(big.Float).SetInt(s), new(big.Float).SetInt(n)).Float64()
	}
	if len(out) == 0 {
		return mean, m2
	}
	var nOut, meanOut, m2Out float64
	for _, e := range out {
		nOut += float64(e.w)
		meanOut += float64(e.w) * float64(e.v)
	}
	meanOut /= nOut
	for _, e := range out {
		d := float64(e.v) - meanOut
		m2Out += float64(e.w) * d * d
	}
	if nIn == 0 {
		return meanOut, m2Out
	}
	a := float64(nIn)
	t := a + nOut
	d := meanOut - mean
	return mean + d*nOut/t, m2 + m2Out + d*d*a*nOut/t
}
