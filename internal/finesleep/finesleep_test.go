package finesleep

import (
	"slices"
	"testing"
	"time"
)

// For never returns before its duration has passed, and returns at once
// for none; after Close, and as the zero value, it still sleeps.
func TestForNeverEndsEarly(t *testing.T) {
	s := New()
	closed := New()
	closed.Close()
	for name, s := range map[string]*Sleeper{"new": s, "closed": closed, "zero": {}} {
		for _, d := range []time.Duration{0, -time.Millisecond, time.Microsecond, 300 * time.Microsecond, 2 * time.Millisecond} {
			start := time.Now()
			s.For(d)
			if got := time.Since(start); got < d {
				t.Errorf("%s: For(%v) returned after %v", name, d, got)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

// BenchmarkLateness reports how late a 500 µs sleep ends, at the median
// and at the 99th percentile, in µs: For against time.Sleep.
func BenchmarkLateness(b *testing.B) {
	for _, s := range []struct {
		name  string
		sleep func(time.Duration)
	}{{"finesleep", New().For}, {"time.Sleep", time.Sleep}} {
		b.Run(s.name, func(b *testing.B) {
			const d = 500 * time.Microsecond
			var late []time.Duration
			for b.Loop() {
				start := time.Now()
				s.sleep(d)
				late = append(late, time.Since(start)-d)
			}
			slices.Sort(late)
			b.ReportMetric(float64(late[len(late)/2].Microseconds()), "p50-late-µs")
			b.ReportMetric(float64(late[len(late)*99/100].Microseconds()), "p99-late-µs")
		})
	}
}
