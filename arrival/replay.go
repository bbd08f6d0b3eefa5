package arrival

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Replay is an arrival process that brings its own times instead of drawing
// gaps from a Process: a trace's timestamps, or arrivals generated from a
// trace's statistics. The schedule is its times, scaled, computed up front
// and sharded like any other.
type Replay interface {
	// Times returns the arrival times of the first n requests (every one
	// when n is 0), from the first, which is at 0, in non-decreasing order.
	// Generated arrivals are drawn from seed (--seed), which a trace's
	// own ignore. It is called once per plan, and must return the same
	// times for the same n and seed each time.
	Times(n int, seed uint64) ([]time.Duration, error)
	// String names what is replayed, for --dry-run and run headers.
	String() string
}

// validateReplay reports what of c a replay cannot take; c.Replay is set.
func (c Config) validateReplay(rateOK bool) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Arrival != KindDefault || c.Burstiness != 1 {
		bad("--arrival and --burstiness do not apply to a replay: its arrivals are the trace's")
	}
	if c.Ramp.Kind != RampNone {
		bad("--ramp-up-strategy does not apply to a replay: its rate is the trace's")
	}
	s := c.Speedup
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0) || s < 0:
		bad("--trace-speedup must be a positive finite factor, got %v", s)
	case s > 0 && rateOK && !math.IsInf(c.RequestRate, 1):
		bad("--trace-speedup and --request-rate both set a replay's speed: give one (--request-rate R replays the trace at a mean of R req/s)")
	}
	return errs
}

// replaySchedule builds the schedule of a replay: its times divided by the
// speed-up, or scaled so that their mean rate is RequestRate, cut at
// Duration. It returns the speed-up used. c must be valid.
func (c Config) replaySchedule() (Schedule, float64, error) {
	times, err := c.Replay.Times(c.NumPrompts, c.Seed)
	if err != nil {
		return Schedule{}, 0, err
	}
	if len(times) > MaxRequests {
		return Schedule{}, 0, fmt.Errorf("%s: %d arrivals exceed the limit of %d requests: narrow the replay with --num-prompts or --trace-duration", c.Replay, len(times), MaxRequests)
	}
	speed := c.Speedup
	if speed == 0 {
		speed = 1
	}
	if !math.IsInf(c.RequestRate, 1) {
		span := time.Duration(0)
		if len(times) > 0 {
			span = times[len(times)-1] - times[0]
		}
		if len(times) < 2 || span <= 0 {
			return Schedule{}, 0, errors.New("--request-rate: the replay's arrivals span no time, so no speed gives them a mean rate; replay them with --trace-speedup")
		}
		speed = c.RequestRate / (float64(len(times)-1) / span.Seconds())
	}
	// The times are rewritten in place into offsets: a replay of millions
	// of requests holds one slice of them.
	offsets := times[:0]
	var prev time.Duration
	for i, t := range times {
		if t < prev || (i == 0 && t != 0) {
			return Schedule{}, 0, fmt.Errorf("%s: arrival %d is at %v, out of order", c.Replay, i, t)
		}
		prev = t
		off := time.Duration(math.Round(float64(t) / speed))
		if off > maxOffset || off < 0 {
			return Schedule{}, 0, fmt.Errorf("%s: arrival %d would be sent after %v: the speed-up %g is too low", c.Replay, i, maxOffset, speed)
		}
		if c.Duration > 0 && off >= c.Duration {
			break
		}
		offsets = append(offsets, off)
	}
	return Schedule{Offsets: offsets}, speed, nil
}
