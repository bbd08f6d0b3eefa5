package sim

import (
	"math"
	"testing"
	"time"
)

func TestFrontEndQueuesABurst(t *testing.T) {
	// 1,000 requests at once, 1 ms of service each and 2 ms of latency:
	// the last is ready after about a second, not after 3 ms, and they
	// become ready one by one, in order.
	f := newFrontEnd(Calibration{RequestOverhead: 2 * time.Millisecond, FrontEndService: time.Millisecond}, 7)
	var prev time.Duration
	var sum float64
	for i := range 1000 {
		ready := f.admit(0, 100, false)
		if ready <= prev {
			t.Fatalf("request %d ready at %v, not after the one before it (%v)", i, ready, prev)
		}
		sum += float64(ready - prev)
		prev = ready
	}
	// Service times vary by ±50 % around 1 ms: the total is within 5 % of
	// a second with overwhelming probability (σ of the sum ≈ 0.9 %).
	if total := time.Duration(sum) - 2*time.Millisecond; math.Abs(total.Seconds()-1) > 0.05 {
		t.Errorf("the burst took %v to pass, want about 1 s", total)
	}
}

func TestFrontEndCosts(t *testing.T) {
	cal := Calibration{RequestOverhead: 3 * time.Millisecond, FrontEndService: 2 * time.Millisecond,
		FrontEndPerToken: 10 * time.Microsecond, ChatTemplate: 20 * time.Millisecond}
	tests := []struct {
		name     string
		prompt   int
		chat     bool
		min, max time.Duration // the service varies by ±50 %
	}{
		// Idle: latency + half to one and a half the service.
		{"completion", 100, false, 3*time.Millisecond + 1500*time.Microsecond, 3*time.Millisecond + 4500*time.Microsecond},
		// A chat request renders its template too.
		{"chat", 100, true, 3*time.Millisecond + 11500*time.Microsecond, 3*time.Millisecond + 34500*time.Microsecond},
		// Tokenizing a long prompt takes longer.
		{"long prompt", 10000, false, 3*time.Millisecond + 51*time.Millisecond, 3*time.Millisecond + 153*time.Millisecond},
	}
	for _, tt := range tests {
		f := newFrontEnd(cal, 1)
		at := time.Hour // idle: arrival is when the work starts
		if got := f.admit(at, tt.prompt, tt.chat) - at; got < tt.min || got > tt.max {
			t.Errorf("%s: ready after %v, want between %v and %v", tt.name, got, tt.min, tt.max)
		}
	}
	// No costs, no delay, and no draws from the generator.
	f := newFrontEnd(Calibration{}, 1)
	if got := f.admit(time.Second, 100, true); got != time.Second {
		t.Errorf("free front end: ready at %v, want at arrival", got)
	}
}
