package sim

import (
	"context"
	"time"

	"github.com/goodput-dev/goodput/internal/finesleep"
)

// Clock is the time source of the wall-clock engine loop. Times are offsets
// from the clock's own epoch. Tests inject a fake Clock to make the loop's
// timing deterministic; NewWallClock is the real one.
type Clock interface {
	// Now returns the time since the clock's epoch.
	Now() time.Duration
	// Sleep blocks until Now() ≥ t, a value arrives on wake, or ctx is done,
	// whichever comes first. wake may be nil. Only the engine loop calls
	// Sleep, so an implementation need not be safe for concurrent Sleeps;
	// Now must be safe for concurrent use.
	Sleep(ctx context.Context, t time.Duration, wake <-chan struct{})
}

// wallClock is the system's monotonic clock.
type wallClock struct {
	epoch time.Time
	timer *time.Timer       // reused by Sleep; only the engine loop sleeps
	steps *finesleep.Waiter // for steps' ends; made by Sleep
}

// NewWallClock returns the system clock, with its epoch now.
func NewWallClock() Clock { return &wallClock{epoch: time.Now()} }

// Close releases the clock's timers; a later Sleep makes them again. The
// server calls it when its loop ends.
func (c *wallClock) Close() error {
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.steps == nil {
		return nil
	}
	steps := c.steps
	c.steps = nil
	return steps.Close()
}

func (c *wallClock) Now() time.Duration { return time.Since(c.epoch) }

// fineWindow is how long before a step's end Sleep stops trusting Go's
// timer, which fires up to a millisecond late on an idle process, and
// waits on the kernel's high-resolution timer instead (package finesleep),
// which wakes within tens of microseconds without keeping a CPU busy.
const fineWindow = time.Millisecond

// pollTail is how long before a step's end Sleep stops waiting and polls
// the clock: more than the fine wait is usually late, and short enough
// that the poll costs a few percent of a CPU.
const pollTail = 200 * time.Microsecond

func (c *wallClock) Sleep(ctx context.Context, t time.Duration, wake <-chan struct{}) {
	if t <= c.Now() {
		return
	}
	if wake == nil && t < forever {
		// A step's end: no wake-up can come. The fine wait ends a little
		// early, and the last stretch is polled: the kernel's timer wakes
		// tens of microseconds late, and a step's end should not.
		if c.steps == nil {
			c.steps = finesleep.NewWaiter(fineWindow)
		}
		c.steps.Until(ctx, t-pollTail, c.Now)
		for c.Now() < t && ctx.Err() == nil {
		}
		return
	}
	c.timerSleep(ctx, t, wake)
}

// timerSleep blocks on a timer until t, a wake-up or ctx's end.
func (c *wallClock) timerSleep(ctx context.Context, t time.Duration, wake <-chan struct{}) {
	d := t - c.Now()
	if d <= 0 {
		return
	}
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-c.timer.C:
	case <-wake:
		c.timer.Stop()
	case <-ctx.Done():
		c.timer.Stop()
	}
}
