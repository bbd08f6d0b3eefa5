package sweep

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// A sweep's points are read in order of offered load. Within one mode that
// is the load's value (an unbounded rate last). A rate sweep also holds a
// synchronous point (concurrency 1), which offers exactly what it achieves,
// so it is placed at its achieved request rate: below every rate the grid
// spaces above it.

// sweepMode is the mode that orders points: the rate mode as soon as one
// point is a rate, else concurrency.
func sweepMode(points []Point) Mode {
	for _, p := range points {
		if p.Load.Mode == ModeRate {
			return ModeRate
		}
	}
	return ModeConcurrency
}

// orderKey is p's place on the offered-load axis of a sweep in mode.
func orderKey(p Point, mode Mode) float64 {
	if p.Load.Mode == mode {
		return p.Load.Value
	}
	if r := p.Mean.RequestThroughput; r > 0 && !math.IsInf(r, 0) {
		return r
	}
	return 0
}

// spanKey is like orderKey but finite: an unbounded rate sits at the rate it
// achieved. It positions loads placed between two measured points.
func spanKey(p Point, mode Mode) float64 {
	if p.Load.Unbounded() {
		return max(0, p.Mean.RequestThroughput)
	}
	return orderKey(p, mode)
}

// SortPoints sorts points in place by offered load, the order every
// analysis function expects.
func SortPoints(points []Point) {
	mode := sweepMode(points)
	slices.SortStableFunc(points, func(a, b Point) int {
		if c := cmp.Compare(orderKey(a, mode), orderKey(b, mode)); c != 0 {
			return c
		}
		// Same place: the closed-loop point first, so that the order does
		// not depend on the input's.
		return cmp.Compare(a.Load.Mode, b.Load.Mode)
	})
}

// checkPoints reports the first invalid or repeated load in points.
func checkPoints(points []Point) error {
	for i, p := range points {
		if err := p.Load.Validate(); err != nil {
			return fmt.Errorf("point %d: %w", i+1, err)
		}
		for j := range i {
			if sameLoad(points[j].Load, p.Load) {
				return fmt.Errorf("point %d: %s repeats point %d (merge repeats of one load with Merge)", i+1, p.Load, j+1)
			}
		}
	}
	return nil
}
