package finesleep

import (
	"context"
	"time"
)

// Waiter waits until deadlines: on a Go timer, then, for the last stretch
// of at most its window, on a Sleeper. The window should cover the Go
// timer's lateness: a millisecond. A Waiter is for one goroutine at a time.
type Waiter struct {
	timer  *time.Timer
	fine   *Sleeper // nil when window ≤ 0
	window time.Duration
}

// NewWaiter returns a Waiter with the given window; with none (≤ 0) it
// waits on the Go timer alone. Close releases it.
func NewWaiter(window time.Duration) *Waiter {
	w := &Waiter{timer: time.NewTimer(time.Hour), window: window}
	w.timer.Stop()
	if window > 0 {
		w.fine = New()
	}
	return w
}

// Close releases the Waiter's timers.
func (w *Waiter) Close() error {
	w.timer.Stop()
	return w.fine.Close()
}

// Until blocks until clock() ≥ due, clock being any monotonic clock that
// runs at the system's pace. It reports false, at once, if ctx ends first;
// the last stretch does not look at ctx, since it lasts a millisecond at
// most.
func (w *Waiter) Until(ctx context.Context, due time.Duration, clock func() time.Duration) bool {
	wait := due - clock()
	if wait <= 0 {
		return ctx.Err() == nil
	}
	fine := max(0, min(w.window, wait))
	if wait > fine && !w.sleep(ctx, wait-fine) {
		return false
	}
	if fine <= 0 {
		return true
	}
	// The fine sleeper runs on the system's clock: once, and again if it
	// ended a hair early. A clock it does not move (a synctest bubble's)
	// is left to the Go timer.
	for range 2 {
		left := due - clock()
		if left <= 0 {
			return true
		}
		w.fine.For(left)
	}
	if left := due - clock(); left > 0 {
		return w.sleep(ctx, left)
	}
	return true
}

// sleep waits d on the Go timer; false if ctx ends first.
func (w *Waiter) sleep(ctx context.Context, d time.Duration) bool {
	w.timer.Reset(d)
	select {
	case <-w.timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
