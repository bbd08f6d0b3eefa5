package arrival

import (
	"math"
	"testing"
	"time"
)

func TestProfileRate(t *testing.T) {
	lin := Ramp{Kind: RampLinear, From: 2, Over: 10 * time.Second}
	exp := Ramp{Kind: RampExponential, From: 1, Over: 4 * time.Second}
	down := Ramp{Kind: RampLinear, From: 30, Over: 10 * time.Second}
	tests := []struct {
		name string
		p    profile
		t    float64
		want float64
	}{
		{"steady", profile{rate: 7}, 123, 7},
		{"linear start", profile{lin, 20}, 0, 2},
		{"linear midway", profile{lin, 20}, 5, 11},
		{"linear end hits the target", profile{lin, 20}, 10, 20},
		{"linear after the ramp", profile{lin, 20}, 1000, 20},
		{"exponential start", profile{exp, 16}, 0, 1},
		{"exponential doubles each second", profile{exp, 16}, 1, 2},
		{"exponential midway", profile{exp, 16}, 2, 4},
		{"exponential end hits the target", profile{exp, 16}, 4, 16},
		{"ramp down midway", profile{down, 10}, 5, 20},
		{"linear from zero", profile{Ramp{RampLinear, 0, 10 * time.Second}, 10}, 2.5, 2.5},
	}
	for _, tt := range tests {
		if got := tt.p.rateAt(tt.t); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: rate at %vs = %v, want %v", tt.name, tt.t, got, tt.want)
		}
	}
}

func TestProfileIntegral(t *testing.T) {
	tests := []struct {
		name string
		p    profile
		t    float64
		want float64
	}{
		// (2+20)/2·10 = 110 arrivals expected during the ramp.
		{"linear ramp", profile{Ramp{RampLinear, 2, 10 * time.Second}, 20}, 10, 110},
		// 110 during the ramp + 20·5 after it.
		{"linear then steady", profile{Ramp{RampLinear, 2, 10 * time.Second}, 20}, 15, 210},
		// ∫₀⁴ 2^s ds = 15/ln 2.
		{"exponential ramp", profile{Ramp{RampExponential, 1, 4 * time.Second}, 16}, 4, 15 / math.Ln2},
		// From = target: an exponential ramp that stays flat.
		{"flat exponential", profile{Ramp{RampExponential, 5, 4 * time.Second}, 5}, 2, 10},
		{"steady", profile{rate: 3}, 2, 6},
		{"start", profile{Ramp{RampLinear, 0, time.Second}, 3}, 0, 0},
	}
	for _, tt := range tests {
		if got := tt.p.integral(tt.t); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: Λ(%v) = %v, want %v", tt.name, tt.t, got, tt.want)
		}
	}
}

func TestProfileAtInvertsIntegral(t *testing.T) {
	profiles := []profile{
		{rate: 4},
		{Ramp{RampLinear, 2, 10 * time.Second}, 20},
		{Ramp{RampLinear, 0, 3 * time.Second}, 50},
		{Ramp{RampLinear, 30, 10 * time.Second}, 10}, // ramp down
		{Ramp{RampLinear, 5, 10 * time.Second}, 5},   // flat: a = 0
		{Ramp{RampExponential, 1, 4 * time.Second}, 16},
		{Ramp{RampExponential, 8, 4 * time.Second}, 8}, // flat: k = 0
		{Ramp{RampExponential, 40, 4 * time.Second}, 2},
	}
	for _, p := range profiles {
		for _, u := range []float64{0, 0.001, 1, 7.5, 42, 109.99, 110, 500} {
			tm := p.at(u)
			if got := p.integral(tm); math.Abs(got-u) > 1e-9*max(1, u) {
				t.Errorf("%+v: Λ(at(%v)) = %v", p, u, got)
			}
		}
	}
}

// TestRampSchedule checks a whole ramped schedule with the constant
// process, whose arrivals sit exactly where Λ crosses each integer.
func TestRampSchedule(t *testing.T) {
	tests := []struct {
		name       string
		ramp       Ramp
		rate       float64
		inRamp     int           // arrivals at offsets < Over
		steadyGaps time.Duration // every gap after the ramp
	}{
		// Λ(10 s) = 110: arrivals at Λ = 0, 1, …, 109 fall inside the ramp.
		{"linear 2→20 over 10s", Ramp{RampLinear, 2, 10 * time.Second}, 20, 110, 50 * time.Millisecond},
		// Λ(4 s) = 15/ln 2 ≈ 21.6: arrivals 0…21.
		{"exponential 1→16 over 4s", Ramp{RampExponential, 1, 4 * time.Second}, 16, 22, 62500 * time.Microsecond},
		// Λ(2 s) = 10: arrivals 0…9.
		{"linear 0→10 over 2s", Ramp{RampLinear, 0, 2 * time.Second}, 10, 10, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		c.Arrival, c.RequestRate, c.Ramp, c.Duration = KindConstant, tt.rate, tt.ramp, tt.ramp.Over+5*time.Second
		s, err := c.schedule()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		in := 0
		for _, off := range s.Offsets {
			if off < tt.ramp.Over {
				in++
			}
		}
		if in != tt.inRamp {
			t.Errorf("%s: %d arrivals during the ramp, want %d", tt.name, in, tt.inRamp)
		}
		for i := in + 1; i < s.Len(); i++ {
			if gap := s.Offsets[i] - s.Offsets[i-1]; absDur(gap-tt.steadyGaps) > time.Microsecond {
				t.Fatalf("%s: gap %d after the ramp is %v, want %v", tt.name, i, gap, tt.steadyGaps)
			}
		}
		// Gaps shrink during a ramp up: the rate really climbs.
		if first, last := s.Offsets[1]-s.Offsets[0], s.Offsets[in-1]-s.Offsets[in-2]; first <= last {
			t.Errorf("%s: first gap %v is not longer than the last ramp gap %v", tt.name, first, last)
		}
	}
}

// TestPoissonRampCounts checks that a ramped Poisson schedule is the
// non-homogeneous Poisson process of the ramp: counts per window match Λ.
func TestPoissonRampCounts(t *testing.T) {
	c := DefaultConfig()
	c.RequestRate, c.Duration = 400, 20*time.Second
	c.Ramp = Ramp{RampLinear, 40, 10 * time.Second}
	s, err := c.schedule()
	if err != nil {
		t.Fatal(err)
	}
	p := c.profile()
	for _, w := range [][2]float64{{0, 2}, {4, 6}, {8, 10}, {10, 12}, {18, 20}} {
		want := p.integral(w[1]) - p.integral(w[0])
		got := 0
		for _, off := range s.Offsets {
			if sec := off.Seconds(); sec >= w[0] && sec < w[1] {
				got++
			}
		}
		// Poisson counts have standard deviation sqrt(mean); allow 5.
		if math.Abs(float64(got)-want) > 5*math.Sqrt(want) {
			t.Errorf("window %v s: %d arrivals, want %.0f ± %.0f", w, got, want, 5*math.Sqrt(want))
		}
	}
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
