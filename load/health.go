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
