package load

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// lags collects per-request dispatch lag from many goroutines.
type lags struct {
	mu sync.Mutex // guards v
	v  []time.Duration
}

// set records the lag of request i (in schedule order).
func (l *lags) set(i int, d time.Duration) {
	l.mu.Lock()
	l.grow(i)
	l.v[i] = d
	l.mu.Unlock()
}

// add adds d to the lag of request i.
func (l *lags) add(i int, d time.Duration) {
	l.mu.Lock()
	l.grow(i)
	l.v[i] += d
	l.mu.Unlock()
}

// grow makes room for request i; l.mu must be held.
func (l *lags) grow(i int) {
	for len(l.v) <= i {
		l.v = append(l.v, 0)
	}
}

func (l *lags) all() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v
}

// burstLag measures the open loop's dispatch lag. A request due at its own
// moment is as late as its dispatch is after that moment, so that a
// generator falling behind a schedule shows a growing lag. Requests due at
// one same moment (a burst, such as --request-rate inf) cannot all leave
// at once: each after the first is as late as its dispatch is after the
// previous one's, so that the lag judges how fast the burst went out, not
// its length. The first of a burst is measured from the moment.
type burstLag struct {
	prevDue, prevSent time.Duration
	started           bool
}

// of returns the lag of a request due at due and dispatched at sent; the
// caller passes requests in schedule order.
func (b *burstLag) of(due, sent time.Duration) time.Duration {
	from := due
	if b.started && due == b.prevDue {
		from = max(due, b.prevSent)
	}
	b.prevDue, b.prevSent, b.started = due, sent, true
	return sent - from
}

// burstWatch follows the start-up burst: which requests belong to it and
// when the last of them was sent. Safe for concurrent use.
type burstWatch struct {
	mu       sync.Mutex  // guards the fields below
	due      int64       // the moment the burst was due, ns from the epoch
	size     int         // requests in it; 0: no burst
	byWorker bool        // its members are each worker's first request (a closed loop's), not requests 0 to size−1
	last     int64       // the latest send among its members
	sends    []burstSend // each member's send
}

// burstSend is the send of a burst's request i at ns from the epoch, and
// the moment from which it could leave: when the burst was due, or, when
// it waited for a concurrency slot, when it got one.
type burstSend struct {
	i        int
	from, at int64
}

// burstGap is the lag of a burst's request i: the time from the send
// before it.
type burstGap struct {
	i   int
	gap time.Duration
}

// begin declares a burst of n requests due at due: each worker's first
// when byWorker (a closed loop's), else requests 0 to n−1. With n < 2
// there is none.
func (b *burstWatch) begin(n int, due int64, byWorker bool) {
	if n < 2 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.size, b.due, b.last, b.byWorker = n, due, due, byWorker
	b.sends = make([]burstSend, 0, n)
}

// sent notes that request i, free to leave from from, left at sent; first
// says whether it was its worker's first.
func (b *burstWatch) sent(i int, from, sent int64, first bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.size == 0 {
		return
	}
	in := i < b.size
	if b.byWorker {
		in = first
	}
	if in {
		b.last = max(b.last, sent)
		b.sends = append(b.sends, burstSend{i, max(from, b.due), sent})
	}
}

// gaps returns the lag of each of the burst's requests that was sent: the
// time from the send before it (in the order they were sent), or from the
// moment it could leave when that came later; the first from the moment
// the burst was due.
func (b *burstWatch) gaps() []burstGap {
	b.mu.Lock()
	defer b.mu.Unlock()
	slices.SortFunc(b.sends, func(x, y burstSend) int { return cmp.Compare(x.at, y.at) })
	out := make([]burstGap, len(b.sends))
	prev := b.due
	for k, s := range b.sends {
		out[k] = burstGap{s.i, time.Duration(max(s.at-max(prev, s.from), 0))}
		prev = max(prev, s.at)
	}
	return out
}

// result returns the burst as the run saw it.
func (b *burstWatch) result() Burst {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.size == 0 {
		return Burst{}
	}
	return Burst{Requests: b.size, Drain: time.Duration(b.last - b.due)}
}
