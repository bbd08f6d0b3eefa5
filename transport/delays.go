package transport

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Delays is a histogram of durations in logarithmic buckets, eight to each
// doubling (values within 12.5 % of one another share a bucket), safe for
// concurrent Add. Its memory is fixed however many values it counts, so a
// transport can count every read of a long run.
type Delays struct {
	counts [delayBuckets]atomic.Uint64
	n      atomic.Uint64
	max    atomic.Int64
}

// delayBuckets covers 1 ns to 2^40 ns (18 minutes): 40 doublings of 8.
const delayBuckets = 40 * 8

// delayBucket returns the bucket of d ns (at least 1).
func delayBucket(d int64) int {
	if d < 8 {
		return int(max(d, 0))
	}
	e := bits.Len64(uint64(d)) - 1 // 2^e ≤ d < 2^(e+1), e ≥ 3
	m := int(d>>(e-3)) & 7         // the three bits after the leading one
	return min(e*8+m-16, delayBuckets-1)
}

// delayLow returns the smallest value of bucket i.
func delayLow(i int) int64 {
	if i < 8 {
		return int64(i)
	}
	e, m := (i+16)/8, (i+16)%8
	return int64(8+m) << (e - 3)
}

// Add counts one duration; negative ones count as zero.
func (h *Delays) Add(d time.Duration) {
	ns := max(int64(d), 0)
	h.counts[delayBucket(ns)].Add(1)
	h.n.Add(1)
	for {
		m := h.max.Load()
		if ns <= m || h.max.CompareAndSwap(m, ns) {
			return
		}
	}
}

// Count returns how many durations were added.
func (h *Delays) Count() int64 { return int64(h.n.Load()) }

// Max returns the largest duration added, exactly.
func (h *Delays) Max() time.Duration { return time.Duration(h.max.Load()) }

// Quantile returns the q-quantile (0 ≤ q ≤ 1) as the upper end of its
// bucket, so it overstates by at most 12.5 % and never exceeds Max; 0 when
// nothing was added.
func (h *Delays) Quantile(q float64) time.Duration {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	rank := uint64(q*float64(n-1)) + 1 // the rank-th smallest, from 1
	var seen uint64
	for i := range h.counts {
		if seen += h.counts[i].Load(); seen >= rank {
			hi := delayLow(i+1) - 1
			return time.Duration(min(hi, h.max.Load()))
		}
	}
	return h.Max()
}

// Merge adds o's counts to h.
func (h *Delays) Merge(o *Delays) {
	if o == nil {
		return
	}
	for i := range o.counts {
		if c := o.counts[i].Load(); c > 0 {
			h.counts[i].Add(c)
		}
	}
	h.n.Add(o.n.Load())
	for {
		m, om := h.max.Load(), o.max.Load()
		if om <= m || h.max.CompareAndSwap(m, om) {
			return
		}
	}
}
