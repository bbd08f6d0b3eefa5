package serverview

import (
	"math"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// t0 is the fixtures' epoch.
var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// at returns the instant sec seconds after t0.
func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

// pts builds one point a second from t = 0 with the given values.
func pts(values ...float64) []promscrape.Point {
	out := make([]promscrape.Point, len(values))
	for i, v := range values {
		out[i] = promscrape.Point{At: at(float64(i)), Value: v}
	}
	return out
}

func TestQueueTrend(t *testing.T) {
	tests := []struct {
		name     string
		pts      []promscrape.Point
		from, to float64
		trailing bool
		span     time.Duration
		rise     float64
	}{
		// No points at all.
		{"empty", nil, 0, 10, true, 0, 0},
		// The queue never held a request.
		{"all zero", pts(0, 0, 0, 0), 0, 10, true, 0, 0},
		// Rising by 2 a second for 3 s: the fitted line rises by 6.
		{"linear", pts(1, 3, 5, 7), 0, 10, true, 3 * time.Second, 6},
		// Noise: 10 14 12 16 has a least-squares slope of 8/5 per second,
		// so 4.8 over 3 s, though the ends differ by 6.
		{"noisy", pts(10, 14, 12, 16), 0, 10, true, 3 * time.Second, 4.8},
		// A steady queue spans time but does not rise.
		{"steady", pts(5, 5, 5), 0, 10, true, 2 * time.Second, 0},
		// A draining queue falls: negative rise.
		{"draining", pts(9, 6, 3), 0, 10, true, 2 * time.Second, -6},
		// Two non-zero points are too few to call a trend.
		{"too few", pts(0, 0, 4, 9), 0, 10, true, 0, 0},
		// Live: the queue emptied at the last scrape, so there is no
		// trailing run however long the earlier one was.
		{"trailing ended", pts(1, 2, 3, 4, 0), 0, 10, true, 0, 0},
		// A finished run reads the longest run instead: 1..4 over 3 s.
		{"longest", pts(1, 2, 3, 4, 0), 0, 10, false, 3 * time.Second, 3},
		// Of two runs the longer in time wins, not the later one.
		{"longest of two", pts(2, 4, 6, 8, 0, 1, 1, 1), 0, 10, false, 3 * time.Second, 6},
		// Live reads the later run even when it is shorter.
		{"trailing of two", pts(2, 4, 6, 8, 0, 1, 1, 1), 0, 10, true, 2 * time.Second, 0},
		// Points outside [from, to] are ignored: only 5 7 9 at t = 2..4.
		{"window bounds", pts(100, 1, 5, 7, 9, 50), 2, 4, true, 2 * time.Second, 4},
		// Scrapes stamped at the same instant span no time.
		{"no span", []promscrape.Point{{At: at(1), Value: 1}, {At: at(1), Value: 2}, {At: at(1), Value: 3}}, 0, 10, true, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			span, rise := queueTrend(tt.pts, at(tt.from), at(tt.to), tt.trailing)
			if span != tt.span || math.Abs(rise-tt.rise) > 1e-9 {
				t.Errorf("queueTrend = %v, %v; want %v, %v", span, rise, tt.span, tt.rise)
			}
		})
	}
}
