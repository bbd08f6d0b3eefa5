package metrics

import (
	"cmp"
	"slices"
	"sort"
)

// selectRanks returns, for each 0-based rank in ranks, the value that would
// sit at that index if the union of stores were sorted. Every rank must be in
// [0, total weight). It never sorts the bulk of the data: it counts the
// values per bucket, finds the bucket holding each rank, and orders just the
// values of those buckets, so the cost is one pass over the allocated bucket
// pages plus one pass over each bucket that holds a wanted rank.
func selectRanks(stores []*store, ranks []int64) []int64 {
	var list []weighted
	for _, s := range stores {
		list = append(list, s.list...)
	}
	slices.SortFunc(list, func(a, b weighted) int { return cmp.Compare(a.v, b.v) })
	// The list splits into values below the buckets, inside them, and above.
	inLo := sort.Search(len(list), func(i int) bool { return list[i].v >= 0 })
	inHi := sort.Search(len(list), func(i int) bool { return list[i].v >= inRange })
	mid := list[inLo:inHi]

	bs := bucketCounts(stores, mid)
	cum := make([]int64, len(bs)+1)
	for i, b := range bs {
		cum[i+1] = cum[i] + b.n
	}
	below := cumWeights(list[:inLo])
	above := cumWeights(list[inHi:])
	nBelow, nIn := below[len(below)-1], cum[len(bs)]

	out := make([]int64, len(ranks))
	var view bucketView
	viewH := -1
	for i, r := range ranks {
		switch {
		case r < nBelow:
			out[i] = list[searchCum(below, r)].v
		case r < nBelow+nIn:
			r -= nBelow
			j := searchCum(cum, r)
			h := bs[j].h
			if h != viewH {
				view.load(stores, mid, h, bs[j].dense)
				viewH = h
			}
			lo := view.vals[searchCum(view.cum, r-cum[j])]
			out[i] = int64(h)<<loBits | int64(lo)
		default:
			out[i] = list[inHi+searchCum(above, r-nBelow-nIn)].v
		}
	}
	return out
}

// bucketCount is a non-empty bucket of a union of stores.
type bucketCount struct {
	h     int
	n     int64
	dense bool // some store keeps it as counts
}

// bucketCounts lists the non-empty buckets of the union of stores, in
// order, with the in-range list values mid (sorted) counted in.
func bucketCounts(stores []*store, mid []weighted) []bucketCount {
	var bs []bucketCount
	m := 0
	for p := range nPages {
		used := m < len(mid) && mid[m].v>>(loBits+pageBits) == int64(p)
		for _, s := range stores {
			used = used || s.pages[p] != nil
		}
		if !used {
			continue
		}
		for i := range pageSize {
			h := p<<pageBits | i
			c := bucketCount{h: h}
			for _, s := range stores {
				if pg := s.pages[p]; pg != nil {
					c.n += pg[i].count()
					c.dense = c.dense || pg[i].dense != nil
				}
			}
			for ; m < len(mid) && mid[m].v>>loBits == int64(h); m++ {
				c.n += mid[m].w
			}
			if c.n > 0 {
				bs = append(bs, c)
			}
		}
	}
	return bs
}

// bucketView is one bucket's values in order: the distinct low halves and,
// in cum, prefix sums of their counts (len(vals)+1 entries).
type bucketView struct {
	vals []uint16
	cum  []int64
	hist []int64 // scratch for large buckets, kept between loads
}

// smallBucket is the most entries a bucket may hold for load to sort them;
// above it, counting into a 64 Ki table is cheaper.
const smallBucket = 4096

// load fills v with bucket h of the union of stores plus the in-range list
// values mid (sorted) that fall in it.
func (v *bucketView) load(stores []*store, mid []weighted, h int, dense bool) {
	from := int64(h) << loBits
	m0 := sort.Search(len(mid), func(i int) bool { return mid[i].v >= from })
	m1 := m0 + sort.Search(len(mid)-m0, func(i int) bool { return mid[m0+i].v >= from+nBuckets })
	var entries int
	for _, s := range stores {
		if b := s.peek(h); b != nil {
			entries += int(b.count())
		}
	}
	v.vals, v.cum = v.vals[:0], append(v.cum[:0], 0)

	if !dense && entries <= smallBucket {
		items := make([]weighted, 0, entries+m1-m0)
		for _, s := range stores {
			if b := s.peek(h); b != nil {
				b.each(func(lo uint16) { items = append(items, weighted{int64(lo), 1}) })
			}
		}
		for _, e := range mid[m0:m1] {
			items = append(items, weighted{e.v - from, e.w})
		}
		slices.SortFunc(items, func(a, b weighted) int { return cmp.Compare(a.v, b.v) })
		for _, e := range items {
			if n := len(v.vals); n > 0 && int64(v.vals[n-1]) == e.v {
				v.cum[n] += e.w
				continue
			}
			v.vals = append(v.vals, uint16(e.v))
			v.cum = append(v.cum, v.cum[len(v.cum)-1]+e.w)
		}
		return
	}

	if v.hist == nil {
		v.hist = make([]int64, nBuckets)
	}
	hist := v.hist
	clear(hist)
	for _, s := range stores {
		b := s.peek(h)
		if b == nil {
			continue
		}
		if b.dense != nil {
			for lo, c := range b.dense {
				hist[lo] += int64(c)
			}
		}
		b.each(func(lo uint16) { hist[lo]++ })
	}
	for _, e := range mid[m0:m1] {
		hist[e.v-from] += e.w
	}
	for lo, c := range hist {
		if c > 0 {
			v.vals = append(v.vals, uint16(lo))
			v.cum = append(v.cum, v.cum[len(v.cum)-1]+c)
		}
	}
}

// peek returns bucket h without allocating, or nil if its page does not
// exist.
func (s *store) peek(h int) *bucket {
	p := s.pages[h>>pageBits]
	if p == nil {
		return nil
	}
	return &p[h&(pageSize-1)]
}

// each calls f with every listed or staged low half of b (not its counts).
func (b *bucket) each(f func(uint16)) {
	for _, blk := range b.full {
		for _, lo := range blk {
			f(lo)
		}
	}
	for _, lo := range b.cur {
		f(lo)
	}
}

// cumWeights returns prefix sums of the weights: c[i] is the weight of
// ws[:i], so c has len(ws)+1 entries.
func cumWeights(ws []weighted) []int64 {
	c := make([]int64, len(ws)+1)
	for i, e := range ws {
		c[i+1] = c[i] + e.w
	}
	return c
}

// searchCum returns the index i such that cum[i] ≤ r < cum[i+1]: the slot
// holding 0-based rank r, given prefix sums cum.
func searchCum(cum []int64, r int64) int {
	return sort.Search(len(cum)-1, func(i int) bool { return cum[i+1] > r })
}
