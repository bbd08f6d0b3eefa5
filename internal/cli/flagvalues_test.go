package cli

import (
	"testing"
	"time"
)

// --ready-check-timeout takes goodput's durations and vLLM's seconds.
func TestSecondsOrDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"60", time.Minute, true},
		{"0.5", 500 * time.Millisecond, true},
		{"0", 0, true},
		{"90s", 90 * time.Second, true},
		{"2m", 2 * time.Minute, true},
		{"-3", 0, false},
		{"NaN", 0, false},
		{"1e300", 0, false},
		{"soon", 0, false},
	} {
		var d time.Duration
		err := secondsOrDuration{&d}.Set(tt.in)
		if (err == nil) != tt.ok || tt.ok && d != tt.want {
			t.Errorf("%q: %v, %v; want %v (ok %v)", tt.in, d, err, tt.want, tt.ok)
		}
	}
}
