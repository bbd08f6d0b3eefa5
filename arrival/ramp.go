package arrival

import (
	"fmt"
	"math"
	"time"
)

// RampKind names how the rate climbs during a ramp-up.
type RampKind string

// Ramp kinds, the values of --ramp-up-strategy.
const (
	RampNone        RampKind = ""            // no ramp: the target rate from the start
	RampLinear      RampKind = "linear"      // rate grows by the same amount each second
	RampExponential RampKind = "exponential" // rate grows by the same factor each second
)

// Ramp raises the arrival rate from From to the target rate over the first
// Over of the run; after that the rate is steady. `vllm bench serve` ramps
// over the request index; goodput ramps over time, so that a ramp means the
// same thing whatever the number of requests.
type Ramp struct {
	Kind RampKind      // --ramp-up-strategy
	From float64       // --ramp-up-start-rps: rate at time 0, requests per second
	Over time.Duration // --ramp-up-duration
}

func (r Ramp) String() string {
	if r.Kind == RampNone {
		return "none"
	}
	return fmt.Sprintf("%s from %g req/s over %v", r.Kind, r.From, r.Over)
}

// profile is a rate over time: an optional ramp, then a steady rate. It maps
// operational time u (the expected number of arrivals so far) to real time t
// in seconds through the integrated rate Λ(t) = ∫₀ᵗ rate(s) ds.
type profile struct {
	ramp Ramp
	rate float64 // steady rate after the ramp, finite and > 0
}

// rateAt returns the rate at t seconds.
func (p profile) rateAt(t float64) float64 {
	T := p.ramp.Over.Seconds()
	if p.ramp.Kind == RampNone || t >= T {
		return p.rate
	}
	r0, r1 := p.ramp.From, p.rate
	if p.ramp.Kind == RampLinear {
		return r0 + (r1-r0)*t/T
	}
	return r0 * math.Pow(r1/r0, t/T)
}

// integral returns Λ(t), the expected number of arrivals in [0, t].
func (p profile) integral(t float64) float64 {
	T := p.ramp.Over.Seconds()
	if p.ramp.Kind == RampNone {
		return p.rate * t
	}
	if t >= T {
		return p.rampArrivals() + p.rate*(t-T)
	}
	r0, r1 := p.ramp.From, p.rate
	if p.ramp.Kind == RampLinear {
		return r0*t + (r1-r0)*t*t/(2*T)
	}
	k := math.Log(r1/r0) / T
	if k == 0 {
		return r0 * t
	}
	return r0 * math.Expm1(k*t) / k
}

// rampArrivals returns Λ(Over), the expected arrivals during the ramp.
func (p profile) rampArrivals() float64 {
	T := p.ramp.Over.Seconds()
	r0, r1 := p.ramp.From, p.rate
	switch p.ramp.Kind {
	case RampLinear:
		return (r0 + r1) * T / 2
	case RampExponential:
		if r0 == r1 {
			return r0 * T
		}
		return (r1 - r0) * T / math.Log(r1/r0)
	}
	return 0
}

// at inverts integral: it returns the time t in seconds at which Λ(t) = u.
func (p profile) at(u float64) float64 {
	if u <= 0 {
		// Also keeps a ramp from zero away from 0/0 below.
		return 0
	}
	if p.ramp.Kind == RampNone {
		return u / p.rate
	}
	T := p.ramp.Over.Seconds()
	if ramp := p.rampArrivals(); u >= ramp {
		return T + (u-ramp)/p.rate
	}
	r0, r1 := p.ramp.From, p.rate
	if p.ramp.Kind == RampLinear {
		// Solve a·t² + r0·t − u = 0 with a = (r1−r0)/(2T). This form of
		// the root avoids cancellation when a is small and stays valid
		// for ramps down (a < 0) and ramps from zero (r0 = 0).
		a := (r1 - r0) / (2 * T)
		return 2 * u / (r0 + math.Sqrt(r0*r0+4*a*u))
	}
	k := math.Log(r1/r0) / T
	if k == 0 {
		return u / r0
	}
	return math.Log1p(k*u/r0) / k
}
