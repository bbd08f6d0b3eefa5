package sim

import (
	"sort"
	"time"
)

// emitRecord hands v.rec to VirtualPlan.Follow, keeping what it releases
// for admit, and then to emit.
func (v *virtualRun) emitRecord() error {
	if v.follow != nil {
		v.released = append(v.released, v.follow(&v.rec)...)
	}
	return v.emit(&v.rec)
}

// admit appends the requests Follow released to the run, arriving no
// earlier than now, and inserts them in order, the send order of a run
// whose first next entries are sent, by arrival time (ties in the order
// released). It returns the new order.
//
// Growing v.seqs may move it; the engine keeps pointing at the sequences
// already submitted, in the old array, which stays alive while it does,
// and only submit takes new pointers, from the current one.
func (v *virtualRun) admit(order []int, next int, now time.Duration) []int {
	if len(v.released) == 0 {
		return order
	}
	for _, q := range v.released {
		q.At = max(q.At, now)
		i := len(v.reqs)
		v.reqs = append(v.reqs, q)
		v.seqs = append(v.seqs, seq{})
		// The unsent part of order is sorted by arrival: insert after the
		// last entry that does not arrive later.
		k := next + sort.Search(len(order)-next, func(k int) bool { return v.reqs[order[next+k]].At > q.At })
		order = append(order, 0)
		copy(order[k+1:], order[k:])
		order[k] = i
	}
	v.released = v.released[:0]
	return order
}
