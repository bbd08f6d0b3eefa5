package sim

import (
	"context"
	"time"
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
	timer *time.Timer // reused by Sleep; only the engine loop sleeps
}

// NewWallClock returns the system clock, with its epoch now.
func NewWallClock() Clock { return &wallClock{epoch: time.Now()} }

func (c *wallClock) Now() time.Duration { return time.Since(c.epoch) }

// spinWindow is how long before a deadline Sleep stops trusting the timer
// and polls the clock instead. Go's timers sleep in the kernel's poller,
// whose timeout has millisecond resolution, so a timer alone typically
// fires up to a millisecond late; polling the last stretch lands within
// microseconds when the CPU is free.
const spinWindow = time.Millisecond

func (c *wallClock) Sleep(ctx context.Context, t time.Duration, wake <-chan struct{}) {
	d := t - c.Now()
	if d <= 0 {
		return
	}
	if wake == nil && d < forever {
		// A step's end: poll for the last stretch. Never spin for more than
		// a fifth of the wait, so that short steps do not become a busy
		// loop. The poll keeps the processor: yielding would queue the loop
		// behind every stream it is about to wake.
		spin := min(spinWindow, d/5)
		if d > spin {
			c.timerSleep(ctx, t-spin, nil)
		}
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
