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
	timer *time.Timer        // reused by Sleep; only the engine loop sleeps
	fine  *finesleep.Sleeper // for the last stretch of a step; made by Sleep
}

// NewWallClock returns the system clock, with its epoch now.
func NewWallClock() Clock { return &wallClock{epoch: time.Now()} }

// Close releases the clock's timers; a later Sleep makes them again. The
// server calls it when its loop ends.
func (c *wallClock) Close() error {
	if c.timer != nil {
		c.timer.Stop()
	}
	fine := c.fine
	c.fine = nil
	return fine.Close()
}

func (c *wallClock) Now() time.Duration { return time.Since(c.epoch) }

// fineWindow is how long before a step's end Sleep stops trusting Go's
// timer, which fires up to a millisecond late on an idle process, and
// sleeps on the kernel's high-resolution timer instead (package
// finesleep), which wakes within tens of microseconds without keeping a
// CPU busy.
const fineWindow = time.Millisecond

func (c *wallClock) Sleep(ctx context.Context, t time.Duration, wake <-chan struct{}) {
	d := t - c.Now()
	if d <= 0 {
		return
	}
	if wake == nil && d < forever {
		// A step's end: no wake-up can come, and the last stretch is
		// slept on the fine timer. It does not look at ctx: it lasts a
		// millisecond at most.
		fine := min(fineWindow, d)
		if d > fine {
			c.timerSleep(ctx, t-fine, nil)
		}
		if c.fine == nil {
			c.fine = finesleep.New()
		}
		for left := t - c.Now(); left > 0 && ctx.Err() == nil; left = t - c.Now() {
			c.fine.For(left)
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
