package metrics

import (
	"math/big"
	"math/bits"
)

// u128 is an unsigned 128-bit accumulator. Sums of nanosecond values and of
// their squares are kept in it exactly, so means and variances computed
// from them suffer no rounding until the final division: no cancellation,
// however many values and however small their spread.
type u128 struct{ hi, lo uint64 }

func (a *u128) add(x uint64) {
	var c uint64
	a.lo, c = bits.Add64(a.lo, x, 0)
	a.hi += c
}

func (a *u128) addWide(hi, lo uint64) {
	var c uint64
	a.lo, c = bits.Add64(a.lo, lo, 0)
	a.hi += hi + c
}

func (a u128) float() float64 { return float64(a.hi)*0x1p64 + float64(a.lo) }

func (a u128) big() *big.Int {
	x := new(big.Int).SetUint64(a.hi)
	x.Lsh(x, 64)
	return x.Or(x, new(big.Int).SetUint64(a.lo))
}
