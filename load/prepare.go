package load

import "context"

// readyQueue hands out the requests a Preparer built ahead of their turn,
// in schedule order. At most p.prepareAhead() are ready beyond those
// taken, and the next is built only once one is taken, never merely
// because it will be needed: a start-up burst takes its requests at once
// and the places it frees are refilled from those PrepareFirst built, so
// no building competes with the burst's sends for the CPU.
type readyQueue struct {
	ready chan struct{} // a token per request built and not yet taken
	room  chan struct{} // a token per place a take freed, for the builder
	done  chan struct{} // closed once the builder has stopped
}

// prepare calls pr.Prepare for each request of p in schedule order, past
// the ones PrepareFirst built ready, one each time a request is taken
// from the queue it returns, until ctx ends or every request is built;
// the queue's done closes then. Requests PrepareFirst built already cost
// it only a look (see Preparer).
func prepare(ctx context.Context, p Plan, pr Preparer) *readyQueue {
	ahead := p.prepareAhead()
	q := &readyQueue{
		ready: make(chan struct{}, ahead),
		room:  make(chan struct{}, ahead),
		done:  make(chan struct{}),
	}
	for range ahead {
		q.ready <- struct{}{} // built by PrepareFirst
	}
	go func() {
		defer close(q.done)
		for i := ahead; p.total() == 0 || i < p.total(); i++ {
			select {
			case <-q.room:
			case <-ctx.Done():
				return
			}
			pr.Prepare(p.seq(i))
			q.ready <- struct{}{} // never blocks: a take freed its place
		}
	}()
	return q
}

// take waits until the next request in schedule order is ready and takes
// it; it reports false if ctx ends first.
func (q *readyQueue) take(ctx context.Context) bool {
	select {
	case <-q.ready:
		// Never blocks: tokens ready, places free and the one the builder
		// holds are never more than the queue's capacity.
		q.room <- struct{}{}
		return true
	case <-ctx.Done():
		return false
	}
}
