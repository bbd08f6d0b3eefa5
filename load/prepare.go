package load

import (
	"context"
	"sync/atomic"
)

// readyQueue hands out the requests a Preparer built ahead of their turn,
// in schedule order. At most p.prepareAhead() are ready beyond those
// taken, and the next is built only once one is taken, never merely
// because it will be needed: a start-up burst takes its requests at once
// and the places it frees are refilled from those PrepareFirst built, so
// no building competes with the burst's sends for the CPU.
//
// Takes come one at a time (the runner takes under its lock, or from its
// one scheduler). A take that finds its request built costs two atomic
// operations and wakes nobody: the builder is woken only when a take
// leaves it room to build, so the burst's takes, which leave it none,
// cost it no wake-up and take no lock it holds.
type readyQueue struct {
	ahead int64         // requests kept built beyond those taken (p.prepareAhead())
	built atomic.Int64  // requests built, in schedule order
	taken atomic.Int64  // requests taken
	room  chan struct{} // capacity 1: a take left the builder room
	fresh chan struct{} // capacity 1: a request was built
	done  chan struct{} // closed once the builder has stopped
}

// prepare calls pr.Prepare for each request of p in schedule order, past
// the ones PrepareFirst built, each time a take leaves fewer than
// p.prepareAhead() ready, until ctx ends or every request is built; the
// queue's done closes then. Run calls PrepareFirst before it.
func prepare(ctx context.Context, p Plan, pr Preparer) *readyQueue {
	q := &readyQueue{
		ahead: int64(p.prepareAhead()),
		room:  make(chan struct{}, 1),
		fresh: make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	first := int64(p.firstPrepared())
	q.built.Store(first)
	go func() {
		defer close(q.done)
		total := int64(p.total())
		for i := first; total == 0 || i < total; i++ {
			for i-q.taken.Load() >= q.ahead {
				select {
				case <-q.room:
				case <-ctx.Done():
					return
				}
			}
			pr.Prepare(p.seq(int(i)))
			q.built.Store(i + 1)
			select {
			case q.fresh <- struct{}{}:
			default: // a wake-up is pending already
			}
		}
	}()
	return q
}

// take waits until the next request in schedule order is ready and takes
// it; it reports false if ctx ends first. One take at a time.
func (q *readyQueue) take(ctx context.Context) bool {
	n := q.taken.Load()
	for q.built.Load() <= n {
		select {
		case <-q.fresh:
		case <-ctx.Done():
			return false
		}
	}
	q.taken.Store(n + 1)
	if q.built.Load()-(n+1) < q.ahead {
		select {
		case q.room <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
	return true
}
