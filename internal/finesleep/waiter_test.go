package finesleep

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// A Waiter sleeps on its timer until the last stretch, then on its fine
// sleeper until the deadline: it never returns early, and with the fine
// sleep off it trusts the timer alone.
func TestWaiter(t *testing.T) {
	start := time.Now()
	var reads atomic.Int64
	clock := func() time.Duration { reads.Add(1); return time.Since(start) }

	w := NewWaiter(time.Millisecond)
	defer w.Close()
	due := 5 * time.Millisecond
	if !w.Until(t.Context(), due, clock) {
		t.Fatal("returned false with a live context")
	}
	if now := time.Since(start); now < due {
		t.Errorf("returned at %v, before the deadline %v", now, due)
	}
	if n := reads.Load(); n < 2 {
		t.Errorf("read the clock %d times: the last stretch was not checked against it", n)
	}

	coarse := NewWaiter(-1)
	defer coarse.Close()
	reads.Store(0)
	start = time.Now()
	coarse.Until(t.Context(), due, clock)
	if n := reads.Load(); n != 1 {
		t.Errorf("fine sleep off: read the clock %d times, want once (then the timer alone)", n)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if w.Until(ctx, time.Hour, clock) {
		t.Error("returned true with a cancelled context")
	}

	// In a synctest bubble the kernel's timer cannot move the clock: the
	// wait ends on the Go timer, on time, instead of never.
	synctest.Test(t, func(t *testing.T) {
		w := NewWaiter(time.Millisecond)
		defer w.Close()
		start := time.Now()
		w.Until(t.Context(), due, func() time.Duration { return time.Since(start) })
		if got := time.Since(start); got != due {
			t.Errorf("virtual time: woke at %v, want %v", got, due)
		}
	})
}
