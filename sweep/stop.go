package sweep

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/goodput-dev/goodput/internal/human"
)

// StopRule says when a sweep is clearly past saturation, so that loads
// above can be skipped. The zero value never stops; DefaultStopRule is
// what `goodput sweep` uses.
type StopRule struct {
	// MinGain and LoadFactor: the sweep is saturated when the throughput at
	// the newest load is less than (1 + MinGain) times the throughput at a
	// load LoadFactor times lower, while latency rose. LoadFactor 0 turns
	// this test off; otherwise it must exceed 1.
	MinGain    float64
	LoadFactor float64
	// Floor: the sweep is saturated when SLO attainment at the newest load
	// fell below Floor after some lower load reached it. 0 turns this test
	// off.
	Floor float64
}

// DefaultStopRule stops when doubling the load bought under 3 % more
// throughput at higher latency, or when attainment collapsed below 5 %.
func DefaultStopRule() StopRule { return StopRule{MinGain: 0.03, LoadFactor: 2, Floor: 0.05} }

// Validate reports every problem with r.
func (r StopRule) Validate() error {
	var errs []error
	if !usable(r.MinGain) || r.MinGain < 0 {
		errs = append(errs, fmt.Errorf("stop rule: minimum gain %v: must be a non-negative number", r.MinGain))
	}
	if !usable(r.LoadFactor) || (r.LoadFactor != 0 && r.LoadFactor <= 1) {
		errs = append(errs, fmt.Errorf("stop rule: load factor %v: must be 0 (off) or above 1", r.LoadFactor))
	}
	if math.IsNaN(r.Floor) || r.Floor < 0 || r.Floor > 1 {
		errs = append(errs, fmt.Errorf("stop rule: attainment floor %v: must be in [0, 1]", r.Floor))
	}
	return errors.Join(errs...)
}

// Saturated reports whether the sweep is clearly past saturation judging
// by its highest load so far, and why in words. points are the loads
// measured up to now (in any order); throughput and latency are the
// statistics o names. It is a pure function, so a caller can also use it
// after a run to explain where the run stopped.
func Saturated(points []Point, rule StopRule, o Options) (bool, string) {
	if len(points) < 2 {
		return false, ""
	}
	o = o.withDefaults()
	ps := slices.Clone(points)
	SortPoints(ps)
	mode := sweepMode(ps)
	last := ps[len(ps)-1]

	if rule.Floor > 0 {
		a := last.Mean.Attainment
		best := -1
		for i, p := range ps[:len(ps)-1] {
			if p.Mean.Attainment >= rule.Floor && (best < 0 || p.Mean.Attainment > ps[best].Mean.Attainment) {
				best = i
			}
		}
		if best >= 0 && (math.IsNaN(a) || a < rule.Floor) {
			return true, fmt.Sprintf("SLO attainment collapsed to %s at %s (it was %s at %s)",
				human.Percent(a), last.Load.Short(), human.Percent(ps[best].Mean.Attainment), ps[best].Load.Short())
		}
	}

	if rule.LoadFactor > 1 {
		top := orderKey(last, mode)
		ref := -1
		for i, p := range ps[:len(ps)-1] {
			k := orderKey(p, mode)
			if k > 0 && (math.IsInf(top, 1) || top >= rule.LoadFactor*k) {
				ref = i // the highest load at least LoadFactor times lower
			}
		}
		if ref < 0 {
			return false, ""
		}
		a := ps[ref]
		thrA, thrB := o.Throughput.Of(a.Mean), o.Throughput.Of(last.Mean)
		latA, latB := o.Latency.Of(a.Mean), o.Latency.Of(last.Mean)
		if usable(thrA) && usable(thrB) && usable(latA) && usable(latB) &&
			thrB < thrA*(1+rule.MinGain) && latB > latA {
			factor := "more than " + human.Factor(rule.LoadFactor)
			if !math.IsInf(top, 1) {
				factor = human.Factor(top / orderKey(a, mode))
			}
			var change string
			switch gain := thrB/thrA - 1; {
			case math.Abs(gain) < 0.0005:
				change = "did not rise"
			case gain < 0:
				change = "fell " + human.Percent(-gain)
			default:
				change = "rose only " + human.Percent(gain)
			}
			latChange := human.Factor(latB / latA)
			if latA <= 0 {
				latChange = "from " + human.Seconds(latA) + " to " + human.Seconds(latB)
			}
			return true, fmt.Sprintf("%s %s from %s to %s (%s the load) while %s rose %s",
				o.Throughput.Label(), change, a.Load.Short(), last.Load.Short(), factor, o.Latency.Label(), latChange)
		}
	}
	return false, ""
}
