package metrics

import (
	"math/bits"

	"github.com/goodput-dev/goodput/record"
)

// The pooled ITL and inter-chunk samples are the one part of a Summary whose
// size grows with tokens rather than requests: a million streams of 128
// tokens is 127 million values. store keeps them compactly and still answers
// any order statistic exactly (see selectRanks), and keeps exact sums for
// the mean and standard deviation.
//
// A value v in [0, 2³²) ns (up to 4.29 s) goes to bucket v>>16, which
// stores only its low 16 bits: the bucket number holds the rest. A bucket
// starts as a list of low halves (two bytes a value). Once it holds more
// values than a table of counts would cost, it switches to that table: one
// uint32 count per nanosecond of its 65.5 µs span (256 KiB), which is exact
// and stops growing. Values still arrive through a staging block and are
// counted a block at a time, so the counting stays within cache.
//
// Values outside [0, 2³²) (negative gaps from bad data, latencies of
// several seconds) and values with a large weight go to a list of (value,
// weight) pairs, 16 bytes each, sorted when a percentile is read.
//
// Memory is therefore about two bytes per value while buckets are well
// filled, and at most about 320 KiB per bucket in use: a run whose gaps fall
// within a few milliseconds of each other needs a few tens of MiB however
// long it is. Sparse buckets cost more per value (a bucket's first block
// holds 32 values), and per-request latencies past 4.29 s (e2e of long
// replies, TTFT past the knee) take the list's 16 bytes, so a million such
// requests add 16 MiB and a sort of a million values to each Snapshot.

const (
	loBits   = 16
	nBuckets = 1 << loBits
	// The bucket table is allocated a page of buckets at a time, so a
	// store whose values sit in a few buckets costs a few KiB, not the
	// whole table's 4 MiB.
	pageBits = 8
	pageSize = 1 << pageBits
	nPages   = nBuckets / pageSize
	// inRange bounds the values a bucket can hold: [0, inRange) ns.
	inRange = 1 << 32
	// maxCopies is the largest weight stored as repeated copies; above it a
	// (value, weight) pair is cheaper. A chunk of k tokens gives its
	// per-token ITL weight k, so only unusually large chunks use the list.
	maxCopies = 16
	// List blocks start small so that a run touching thousands of buckets
	// wastes little, and stop growing so that no block is ever large. Full
	// blocks are never copied, so storage never needs twice its size.
	firstBlock = 32
	maxBlock   = 1 << 15
	// denseAt is the list length at which a bucket switches to counts: the
	// list then weighs as much as the table.
	denseAt = nBuckets * 4 / 2
)

// bucket holds the values whose top 16 bits are its index.
type bucket struct {
	cur   []uint16          // values being appended: the open list block, or the staging block once dense
	full  [][]uint16        // closed list blocks (list mode only)
	dense *[nBuckets]uint32 // counts by low half (dense mode only)
	n     int64             // values in full and dense (not counting cur)
}

// count returns how many values the bucket holds.
func (b *bucket) count() int64 { return b.n + int64(len(b.cur)) }

// weighted is a value standing for w equal samples.
type weighted struct {
	v int64
	w int64
}

// page is a slice of the bucket table: buckets p·pageSize … (p+1)·pageSize−1.
type page [pageSize]bucket

// store is a multiset of int64 nanosecond values. The zero value is empty
// and ready to use; it allocates pages of buckets as values arrive.
type store struct {
	pages [nPages]*page
	list  []weighted // out-of-range values and values of weight > maxCopies
	n     int64      // total weight
	// sum and sq are Σv and Σv² over the in-range values (whether they sit
	// in a bucket or, for a large weight, in the list). Out-of-range values
	// are summed from the list when needed.
	sum, sq u128
}

// bucket returns bucket h, allocating its page if needed.
func (s *store) bucket(h uint32) *bucket {
	p := s.pages[h>>pageBits]
	if p == nil {
		p = new(page)
		s.pages[h>>pageBits] = p
	}
	return &p[h&(pageSize-1)]
}

// add inserts one value.
func (s *store) add(v int64) {
	s.n++
	if uint64(v) >= inRange {
		s.list = append(s.list, weighted{v, 1})
		return
	}
	u := uint64(v)
	s.sum.add(u)
	s.sq.add(u * u)
	h := uint32(v) >> loBits
	b := s.bucket(h)
	if len(b.cur) == cap(b.cur) {
		s.spill(b, h)
	}
	b.cur = append(b.cur, uint16(v))
}

// addGaps inserts the gaps between consecutive arrivals of cs, whose
// chunks the caller has checked all carry one token. It is add with the loop
// inside, for the pooled gaps, where per-call overhead would dominate: the
// inner loop makes no call (a call would push its running values out of
// registers), and leaves to add whatever needs one.
func (s *store) addGaps(cs []record.Chunk) {
	if len(cs) < 2 {
		return
	}
	pages := &s.pages
	var fast, sum, sqLo, sqHi uint64 // Σv fits 64 bits for fewer than 2³² values
	prev := cs[0].At
	for i := 1; i < len(cs); i++ {
		for ; i < len(cs); i++ {
			at := cs[i].At
			v := uint64(at - prev)
			if v >= inRange {
				break
			}
			p := pages[(v>>(loBits+pageBits))&(nPages-1)] // the mask only drops a bounds check
			if p == nil {
				break
			}
			b := &p[(v>>loBits)&(pageSize-1)]
			n := len(b.cur)
			if n == cap(b.cur) {
				break
			}
			prev = at
			b.cur = b.cur[:n+1]
			b.cur[n] = uint16(v)
			sum += v
			var carry uint64
			sqLo, carry = bits.Add64(sqLo, v*v, 0)
			sqHi += carry
			fast++
		}
		if i < len(cs) {
			s.add(cs[i].At - prev)
			prev = cs[i].At
		}
	}
	s.n += int64(fast)
	s.sum.add(sum)
	s.sq.addWide(sqHi, sqLo)
}

// addN inserts w copies of v; w < 1 inserts nothing. w must be below 2³²
// (it is a chunk's token count).
func (s *store) addN(v, w int64) {
	switch {
	case w < 1:
	case uint64(v) >= inRange:
		s.list = append(s.list, weighted{v, w})
		s.n += w
	case w <= maxCopies:
		for range w {
			s.add(v)
		}
	default:
		s.list = append(s.list, weighted{v, w})
		s.n += w
		u := uint64(v)
		s.sum.addWide(bits.Mul64(uint64(w), u))
		s.sq.addWide(bits.Mul64(uint64(w), u*u))
	}
}

// spill makes room in b.cur, which is full: in list mode it closes the
// block (switching the bucket to counts once it is big enough); in dense
// mode it counts the staged values and empties the staging block.
func (s *store) spill(b *bucket, h uint32) {
	if b.dense == nil && b.count() >= denseAt {
		b.dense = new([nBuckets]uint32)
		b.n = 0 // recounted block by block
		for _, f := range b.full {
			s.count(b, h, f)
		}
		b.full = nil
	}
	if b.dense != nil {
		s.count(b, h, b.cur)
		b.cur = b.cur[:0]
		return
	}
	n := firstBlock
	if c := cap(b.cur); c > 0 {
		b.full = append(b.full, b.cur)
		b.n += int64(len(b.cur))
		n = min(2*c, maxBlock)
	}
	b.cur = make([]uint16, 0, n)
}

// count adds the low halves vs of bucket h to its table. A count that would
// reach 2³² moves to the list as one entry of weight 2³²; its sums are
// already counted, so it stays among the in-range values.
func (s *store) count(b *bucket, h uint32, vs []uint16) {
	d := b.dense
	for i := 0; i < len(vs); i++ {
		for ; i < len(vs); i++ {
			c := d[vs[i]] + 1
			if c == 0 {
				break
			}
			d[vs[i]] = c
		}
		if i < len(vs) {
			// The table held 2³²−1 of this value; with this one they
			// leave the bucket for the list.
			s.list = append(s.list, weighted{int64(h)<<loBits | int64(vs[i]), 1 << 32})
			b.n -= 1 << 32
			d[vs[i]] = 0
		}
	}
	b.n += int64(len(vs))
}

// reset drops every value and releases the memory.
func (s *store) reset() { *s = store{} }
