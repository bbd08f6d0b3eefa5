package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Measure measures the server at one load and returns the result. A Point
// with several Repeats counts as that many measurements; one without counts
// as one, equal to its Mean. Run sets the returned Point's Load to load.
//
// An auto plan in rate mode starts with a concurrency load (one request
// at a time), so Measure must handle both modes.
//
// Measure owns the network: it runs the load (for example with the load
// package's Runner), summarises the records (metrics.Summary) and converts
// the summary with FromResult. It must return promptly once ctx is done.
// Request failures are data in the Sample (ErrorRate, Attainment); a
// returned error means the tool itself could not measure, and stops Run.
type Measure func(ctx context.Context, load Load) (Point, error)

// Run executes plan, measuring each load plan.Repeats times with measure
// (one call at a time), and returns every point known, sorted by load:
// those in plan.Resume and those it measured. onPoint, if not nil, is
// called with each newly measured point (its repeats merged with any
// resumed ones) as soon as it is complete, so a caller can save progress.
//
// Loads are measured in plan order: an explicit list in increasing order;
// an auto plan's synchronous and saturation loads, then the grid in
// increasing order, then the refinement. plan.Stop ends the list or the
// grid early once Saturated says the points measured so far are past
// saturation; refinement still follows. Run does not report an early stop
// as an error: call Saturated on the result to explain it.
//
// On an error from measure or a cancelled ctx, Run returns the points
// complete so far with the error.
func Run(ctx context.Context, plan Plan, measure Measure, onPoint func(Point)) ([]Point, error) {
	if err := plan.Validate(); err != nil {
		return nil, err
	}
	if measure == nil {
		return nil, errors.New("sweep: no measure function")
	}
	r := &runner{plan: plan, measure: measure, onPoint: onPoint, points: slices.Clone(plan.Resume)}
	err := r.run(ctx)
	out := slices.Clone(r.points)
	SortPoints(out)
	return out, err
}

// runner holds the state of one Run. It is used by one goroutine.
type runner struct {
	plan    Plan
	measure Measure
	onPoint func(Point)
	points  []Point // every point known: resumed, then measured
}

func (r *runner) run(ctx context.Context) error {
	p := r.plan
	if p.Auto == nil {
		return r.ascending(ctx, sortedLoads(p.Loads))
	}
	sync, err := r.at(ctx, p.syncLoad())
	if err != nil {
		return err
	}
	sat, err := r.at(ctx, p.satLoad())
	if err != nil {
		return err
	}
	grid, _, _ := p.grid(&sync, &sat)
	if err := r.ascending(ctx, grid); err != nil {
		return err
	}
	refine, _ := p.refine(r.points)
	for _, l := range refine {
		if _, err := r.at(ctx, l); err != nil {
			return err
		}
	}
	return nil
}

// ascending measures loads in order until the stop rule says the sweep is
// saturated. It judges each load against the points at or below it only:
// an auto plan's saturation point, measured early, is above the grid and
// must not make the first grid load look saturated.
func (r *runner) ascending(ctx context.Context, loads []Load) error {
	for _, l := range loads {
		pt, err := r.at(ctx, l)
		if err != nil {
			return err
		}
		if r.saturated(pt) {
			return nil
		}
	}
	return nil
}

func (r *runner) saturated(top Point) bool {
	mode := sweepMode(r.points)
	limit := orderKey(top, mode)
	below := []Point{top}
	for _, q := range r.points {
		if !sameLoad(q.Load, top.Load) && orderKey(q, mode) < limit {
			below = append(below, q)
		}
	}
	ok, _ := Saturated(below, r.plan.Stop, r.plan.Options)
	return ok
}

// at returns the point for load l with the plan's repeats, measuring only
// the repeats that the points known so far lack.
func (r *runner) at(ctx context.Context, l Load) (Point, error) {
	want := r.plan.repeats()
	var parts []Point
	have, idx := 0, -1
	for i := range r.points {
		if sameLoad(r.points[i].Load, l) {
			idx, have = i, len(r.points[i].samples())
			parts = append(parts, r.points[i])
			break
		}
	}
	if have >= want {
		return r.points[idx], nil
	}
	for have < want {
		if err := ctx.Err(); err != nil {
			return Point{}, fmt.Errorf("sweep: stopped before %s: %w", l, err)
		}
		p, err := r.measure(ctx, l)
		if err != nil {
			return Point{}, fmt.Errorf("sweep: measure %s (measurement %d of %d): %w", l, have+1, want, err)
		}
		p.Load = l
		parts = append(parts, p)
		have += len(p.samples())
	}
	merged, err := Merge(parts...)
	if err != nil {
		return Point{}, fmt.Errorf("sweep: %s: %w", l, err)
	}
	if idx >= 0 {
		r.points[idx] = merged
	} else {
		r.points = append(r.points, merged)
	}
	if r.onPoint != nil {
		r.onPoint(merged)
	}
	return merged, nil
}
