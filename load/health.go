package load

import (
	"context"
	"sync"
	"time"
)

// lags collects per-request dispatch lag from many goroutines.
type lags struct {
	mu sync.Mutex // guards v
	v  []time.Duration
}

func (l *lags) add(d time.Duration) {
	l.mu.Lock()
	l.v = append(l.v, d)
	l.mu.Unlock()
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
// how late each wake-up was. On a healthy process wake-ups are late by tens
// of microseconds; milliseconds mean the process is starved of CPU and its
// own timestamps are suspect.
func probeTimers(ctx context.Context, period time.Duration) []time.Duration {
	var out []time.Duration
	t := time.NewTimer(period)
	defer t.Stop()
	due := time.Now().Add(period)
	for {
		select {
		case <-ctx.Done():
			return out
		case <-t.C:
			// time.Now, not the value on t.C: the goroutine's wake-up is
			// what a starved process delays.
			out = append(out, max(0, time.Since(due)))
			due = time.Now().Add(period)
			t.Reset(period)
		}
	}
}
