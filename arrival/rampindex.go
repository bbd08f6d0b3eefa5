package arrival

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// rampByRequest reports whether the ramp is vLLM's, over the run's
// requests.
func (c Config) rampByRequest() bool { return c.RampEnd != 0 }

// validateRequestRamp checks vLLM's form of the ramp, with vLLM's rules:
// the ramp sets the rate (no --request-rate), runs over a known number of
// requests, and only climbs.
func (c Config) validateRequestRamp() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	r := c.Ramp
	switch r.Kind {
	case RampLinear, RampExponential:
	default:
		bad("--ramp-up-strategy %q is unknown: want linear or exponential", string(r.Kind))
		return errs
	}
	if !math.IsInf(c.RequestRate, 1) {
		bad("--ramp-up-end-rps sets the rate: leave out --request-rate")
	}
	if r.Over != 0 {
		bad("--ramp-up-end-rps ramps over the requests and --ramp-up-duration over time: give one of them")
	}
	if c.NumPrompts == 0 {
		bad("--ramp-up-end-rps ramps over --num-prompts requests: give --num-prompts")
	}
	switch {
	case math.IsNaN(r.From) || math.IsInf(r.From, 0) || r.From < 0:
		bad("--ramp-up-start-rps must be a finite rate ≥ 0, got %v", r.From)
	case math.IsNaN(c.RampEnd) || math.IsInf(c.RampEnd, 0) || c.RampEnd < 0:
		bad("--ramp-up-end-rps must be a finite rate ≥ 0, got %v", c.RampEnd)
	case r.From > c.RampEnd:
		bad("--ramp-up-start-rps %v is above --ramp-up-end-rps %v: the ramp only climbs", r.From, c.RampEnd)
	case r.Kind == RampExponential && r.From == 0:
		bad("--ramp-up-start-rps must be > 0 for an exponential ramp: a rate of 0 never grows")
	}
	return errs
}

// RateAt returns the rate request i is sent at: the ramp's rate at
// progress i/(N−1) for vLLM's ramp over N = NumPrompts requests, else
// RequestRate. The config must be valid.
func (c Config) RateAt(i int) float64 {
	r := c.Ramp
	if !c.rampByRequest() {
		return c.RequestRate
	}
	progress := float64(i) / float64(max(c.NumPrompts-1, 1))
	if r.Kind == RampLinear {
		return r.From + (c.RampEnd-r.From)*progress
	}
	return r.From * math.Pow(c.RampEnd/r.From, progress)
}

// requestRampSchedule draws vLLM's ramp: the gap before request i is a
// gap of the process at request i's rate. Request 0 goes at once, so a
// linear ramp may start from 0.
func (c Config) requestRampSchedule() (Schedule, error) {
	rng := rand.New(rand.NewPCG(c.Seed, rngStream))
	proc := c.process()
	offsets := make([]time.Duration, 0, c.NumPrompts)
	t := 0.0
	for i := range c.NumPrompts {
		if i > 0 {
			rate := c.RateAt(i)
			if rate <= 0 {
				return Schedule{}, errors.New("the ramp's rate is 0 after the first request: raise --ramp-up-start-rps or --ramp-up-end-rps")
			}
			t += proc.Gap(rng) / rate
		}
		if t > maxOffset.Seconds() {
			return Schedule{}, fmt.Errorf("request %d would be sent after %v: the ramp's rates are too low for --num-prompts %d", i, maxOffset, c.NumPrompts)
		}
		off := time.Duration(math.Round(t * float64(time.Second)))
		if c.Duration > 0 && off >= c.Duration {
			break
		}
		offsets = append(offsets, off)
	}
	return Schedule{Offsets: offsets}, nil
}
