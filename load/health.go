package load

import (
	"context"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/internal/finesleep"
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

// probeTimers sleeps for period again and again until ctx ends and returns
// how late each wake-up was. It waits as the open loop does (a
// finesleep.Waiter with Plan.FineWait's window), so a healthy process wakes it within a fraction
// of a millisecond; milliseconds mean the process is starved of CPU and its
// own timestamps are suspect.
func probeTimers(ctx context.Context, period, fine time.Duration) []time.Duration {
	w := finesleep.NewWaiter(fine)
	defer w.Close()
	start := time.Now()
	clock := func() time.Duration { return time.Since(start) }
	var out []time.Duration
	for due := period; w.Until(ctx, due, clock); due = clock() + period {
		// The clock after the wake-up, not the deadline: the goroutine's
		// wake-up is what a starved process delays.
		out = append(out, max(0, clock()-due))
	}
	return out
}
