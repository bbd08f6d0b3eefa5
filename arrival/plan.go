package arrival

import (
	"fmt"
	"math"
	"strings"
)

// Plan is what a run will do: exactly one of Open and Closed is set.
// Config.Plan builds it; the runner executes it.
type Plan struct {
	// Open is the open-loop schedule, already limited by --num-prompts and
	// --duration and already sharded.
	Open *Schedule
	// Concurrency caps requests in flight in an open loop (0 = no cap). A
	// request that finds no free slot waits, and the runner must count that
	// wait as client queue: the schedule stays the open-loop one.
	Concurrency int
	// Closed is the closed loop, already sharded.
	Closed *Closed
	// Config is what the plan was built from, for display.
	Config Config
	// Total is how many requests the whole run's schedule holds, every
	// shard together; 0 when it is bounded by --duration alone and the
	// number is not known in advance.
	Total int
	// Speedup is the factor a replay's times were divided by: the
	// --trace-speedup, or the one that gave the --request-rate; 0 for
	// other plans.
	Speedup float64
	// Warning says what the shard's share makes of the run, when the
	// caller should tell the user (Closed.UnevenShards); "" otherwise.
	Warning string
}

// String describes the plan on a few lines, for --dry-run.
func (p Plan) String() string {
	var b strings.Builder
	c := p.Config
	shard := ""
	if c.Shards > 1 {
		shard = fmt.Sprintf(", shard %d of %d", c.Shard, c.Shards)
	}
	one, many := "request", "requests"
	if c.Unit != "" {
		one, many = c.Unit, c.Unit+"s"
	}
	switch {
	case p.Closed != nil && c.Unit != "":
		cl := p.Closed
		fmt.Fprintf(&b, "closed loop: %d concurrent %s (users)%s, each starting its next %s when its last one ends\n", cl.Concurrency, plural(cl.Concurrency, one, many), shard, one)
		fmt.Fprintf(&b, "stops after %s\n", limits(cl.Count, cl.Duration.String(), cl.Duration > 0, many))
	case p.Closed != nil:
		cl := p.Closed
		fmt.Fprintf(&b, "closed loop: %d concurrent %s%s, each sent when the previous one ends\n", cl.Concurrency, plural(cl.Concurrency, "request", "requests"), shard)
		fmt.Fprintf(&b, "stops after %s\n", limits(cl.Count, cl.Duration.String(), cl.Duration > 0, many))
		if cl.SeqStride > 1 {
			fmt.Fprintf(&b, "sequence numbers %d, %d, %d, …\n", cl.Seq(0), cl.Seq(1), cl.Seq(2))
		}
	case p.Open != nil && c.Replay != nil:
		fmt.Fprintf(&b, "open loop: replay of %s at %s%s\n", c.Replay, speedText(p.Speedup, c.RequestRate), shard)
		switch n := p.Open.Len(); {
		case c.NumPrompts > 0 && n < c.NumPrompts && c.Duration == 0:
			// The replay runs out of rows before the count binds.
			fmt.Fprintf(&b, "stops at the replay's end, after %d %s\n", n, plural(n, one, many))
		case c.NumPrompts > 0 || c.Duration > 0:
			fmt.Fprintf(&b, "stops after %s\n", limits(c.NumPrompts, c.Duration.String(), c.Duration > 0, many))
		}
		fmt.Fprintf(&b, "schedule: %s\n", p.Open)
		if p.Concurrency > 0 {
			fmt.Fprintf(&b, "at most %d in flight: a request waiting for a slot counts the wait as client queue\n", p.Concurrency)
		}
	case p.Open != nil:
		rate := "req/s"
		if c.Unit != "" {
			rate = many + "/s"
		}
		if c.rampByRequest() {
			fmt.Fprintf(&b, "open loop: %s arrivals, ramp %s from %g to %g %s over the run's %s%s, seed %d\n",
				c.process(), c.Ramp.Kind, c.Ramp.From, c.RampEnd, rate, many, shard, c.Seed)
		} else if math.IsInf(c.RequestRate, 1) {
			fmt.Fprintf(&b, "open loop: every %s at once%s\n", one, shard)
		} else {
			fmt.Fprintf(&b, "open loop: %s arrivals at %g %s%s, seed %d\n", c.process(), c.RequestRate, rate, shard, c.Seed)
			if c.Ramp.Kind != RampNone {
				fmt.Fprintf(&b, "ramp-up: %s\n", c.Ramp)
			}
		}
		fmt.Fprintf(&b, "stops after %s\n", limits(c.NumPrompts, c.Duration.String(), c.Duration > 0, many))
		sched := p.Open.String()
		if c.Unit != "" {
			sched = strings.NewReplacer("requests", many, "req/s", many+"/s").Replace(sched)
		}
		fmt.Fprintf(&b, "schedule: %s\n", sched)
		if p.Concurrency > 0 && c.Unit != "" {
			fmt.Fprintf(&b, "at most %d %s at once: one that arrives to find none free waits, and the wait counts as its first request's client queue\n", p.Concurrency, many)
		} else if p.Concurrency > 0 {
			fmt.Fprintf(&b, "at most %d in flight: a request waiting for a slot counts the wait as client queue\n", p.Concurrency)
		}
	default:
		b.WriteString("empty plan\n")
	}
	if p.Warning != "" {
		fmt.Fprintf(&b, "warning: %s\n", p.Warning)
	}
	return b.String()
}

// limits renders the stop condition of a run that counts in units.
func limits(count int, dur string, hasDur bool, units string) string {
	switch {
	case count > 0 && hasDur:
		return fmt.Sprintf("%d %s or %s, whichever comes first", count, units, dur)
	case count > 0:
		return fmt.Sprintf("%d %s", count, units)
	default:
		return dur
	}
}

// speedText says how fast a replay runs: "its own speed", "10× its speed",
// or the mean rate it was rescaled to.
func speedText(speed, rate float64) string {
	switch {
	case !math.IsInf(rate, 1):
		return fmt.Sprintf("a mean of %g req/s (%.4g× its speed)", rate, speed)
	case speed == 1:
		return "its own speed"
	default:
		return fmt.Sprintf("%g× its speed", speed)
	}
}

// plural returns one for n = 1, many otherwise.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
