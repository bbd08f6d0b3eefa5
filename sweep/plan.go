package sweep

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
)

// Spacing is how the loads between two bounds are spread.
type Spacing string

// Spacings.
const (
	// SpacingGeometric spaces loads by equal ratios (1, 2, 4, 8, …): it
	// covers several orders of magnitude of concurrency with few points.
	SpacingGeometric Spacing = "geometric"
	// SpacingLinear spaces loads by equal steps, which puts more of them
	// near the upper bound, where a rate sweep's knee usually lies.
	SpacingLinear Spacing = "linear"
)

// adverb is how prose says "spaced …": "geometrically", "linearly".
func (s Spacing) adverb() string {
	if s == SpacingLinear {
		return "linearly"
	}
	return "geometrically"
}

// Plan limits. They keep a typing slip from planning a sweep of days.
const (
	MaxPoints  = 1000 // loads in a grid or a list
	MaxRepeats = 100  // measurements per load
	MaxRefine  = 100  // refinement loads
)

// Auto describes an automatic sweep, in four phases:
//
//  1. synchronous: concurrency 1, one request at a time, the best latency
//     the server can give;
//  2. saturation: the highest load — concurrency Max, or an unbounded
//     request rate in rate mode;
//  3. grid: Points loads strictly between the two, spaced by Spacing. In
//     concurrency mode they run from 1 to Max; in rate mode from the
//     request rate achieved in phase 1 to the one achieved in phase 2, so
//     they are known only once both are measured;
//  4. refine: Refine loads placed between the power knee of the points so
//     far and its neighbours, half below and half above (all on one side
//     when the knee has a neighbour on one side only). None when no knee
//     is found.
//
// Build one with DefaultAuto and adjust it.
type Auto struct {
	Max     int // saturation concurrency in concurrency mode (≥ 2); unused in rate mode
	Points  int // grid loads, 0 to MaxPoints
	Spacing Spacing
	Refine  int // refinement loads, 0 to MaxRefine
}

// DefaultAuto returns the automatic sweep `goodput sweep` runs in mode:
// concurrency 1 to 256 with 7 geometric loads between (2, 4, …, 128), or in
// rate mode 8 linearly spaced rates; then 2 refinement loads.
func DefaultAuto(mode Mode) Auto {
	if mode == ModeRate {
		return Auto{Points: 8, Spacing: SpacingLinear, Refine: 2}
	}
	return Auto{Max: 256, Points: 7, Spacing: SpacingGeometric, Refine: 2}
}

// Plan is a sweep to run: either an explicit list of Loads or an Auto
// sweep. It is a pure value: Steps and Print describe it without a network,
// and Run executes it.
type Plan struct {
	Mode  Mode
	Loads []Load // explicit loads, all of Mode; measured in increasing order
	Auto  *Auto  // set instead of Loads for an automatic sweep

	// Repeats is the number of measurements per load (0 means 1).
	Repeats int
	// Stop ends the increasing part of the sweep (the list, or the grid)
	// once the loads measured so far are saturated. The zero value never
	// stops.
	Stop StopRule
	// Options say how points are read: the knee that refinement centres on
	// and the statistics the stop rule compares.
	Options Options
	// Resume holds points measured by an earlier run of this plan. A load
	// they cover is measured again only for the repeats it lacks, and Run
	// returns them with the rest.
	Resume []Point
}

// repeats is Repeats with its default applied.
func (p Plan) repeats() int { return max(1, p.Repeats) }

// Validate reports every problem with p, each naming what is wrong.
func (p Plan) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if p.Mode != ModeConcurrency && p.Mode != ModeRate {
		bad("sweep mode %q: unknown (want concurrency or request_rate)", string(p.Mode))
	}
	switch {
	case p.Auto == nil && len(p.Loads) == 0:
		bad("sweep: no loads (give a list, or auto)")
	case p.Auto != nil && len(p.Loads) > 0:
		bad("sweep: both a list of loads and auto (choose one)")
	case len(p.Loads) > MaxPoints:
		bad("sweep: %d loads, more than the %d allowed", len(p.Loads), MaxPoints)
	}
	for i, l := range p.Loads {
		if err := l.Validate(); err != nil {
			bad("load %d: %w", i+1, err)
		} else if l.Mode != p.Mode {
			bad("load %d: %s is not a %s load", i+1, l, p.Mode)
		}
		for j := range i {
			if sameLoad(p.Loads[j], l) {
				bad("load %d: %s repeats load %d", i+1, l, j+1)
				break
			}
		}
	}
	if a := p.Auto; a != nil {
		if p.Mode == ModeConcurrency && (a.Max < 2 || a.Max > MaxConcurrency) {
			bad("auto: maximum concurrency %d: must be from 2 to %d", a.Max, MaxConcurrency)
		}
		if a.Points < 0 || a.Points > MaxPoints {
			bad("auto: %d grid points: must be from 0 to %d", a.Points, MaxPoints)
		}
		if a.Spacing != SpacingGeometric && a.Spacing != SpacingLinear {
			bad("auto: spacing %q: unknown (want geometric or linear)", string(a.Spacing))
		}
		if a.Refine < 0 || a.Refine > MaxRefine {
			bad("auto: %d refinement points: must be from 0 to %d", a.Refine, MaxRefine)
		}
	}
	if p.Repeats < 0 || p.Repeats > MaxRepeats {
		bad("repeats %d: must be from 1 to %d", p.Repeats, MaxRepeats)
	}
	if err := p.Stop.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := p.Options.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := checkPoints(p.Resume); err != nil {
		bad("resume: %w", err)
	}
	return errors.Join(errs...)
}

// Phase names a step of a plan.
type Phase string

// Phases, in the order they run.
const (
	PhaseList        Phase = "list"        // an explicit list of loads
	PhaseSynchronous Phase = "synchronous" // auto: concurrency 1
	PhaseSaturation  Phase = "saturation"  // auto: the highest load
	PhaseGrid        Phase = "grid"        // auto: loads between the two
	PhaseRefine      Phase = "refine"      // auto: loads around the knee
)

// Step is one phase of a plan as far as it can be known before running.
type Step struct {
	Phase Phase
	// Loads are the loads the step measures, in order. Resolved is false
	// when they depend on measurements not yet made (then Loads is nil and
	// Note says how they will be chosen).
	Loads    []Load
	Resolved bool
	Note     string
}

// Steps lays out p as far as p.Resume allows: every explicit or
// concurrency-grid load, and in rate mode the grid once its two bounds
// have results, and the refinement once the grid has. Early stop is not
// predicted: a run measures at most these loads.
func (p Plan) Steps() ([]Step, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Auto == nil {
		loads := sortedLoads(p.Loads)
		return []Step{{Phase: PhaseList, Loads: loads, Resolved: true,
			Note: fmt.Sprintf("%d %s loads in increasing order", len(loads), modeNoun(p.Mode))}}, nil
	}
	a := *p.Auto
	sync, sat := p.syncLoad(), p.satLoad()
	steps := []Step{
		{Phase: PhaseSynchronous, Loads: []Load{sync}, Resolved: true,
			Note: "one request at a time: the best latency the server can give"},
		{Phase: PhaseSaturation, Loads: []Load{sat}, Resolved: true, Note: "the highest load: what the server does when flooded"},
	}
	known := p.Resume
	grid := Step{Phase: PhaseGrid}
	gridLoads, ok, note := p.grid(find(known, sync), find(known, sat))
	grid.Loads, grid.Resolved, grid.Note = gridLoads, ok, note
	steps = append(steps, grid)

	ref := Step{Phase: PhaseRefine, Note: fmt.Sprintf("%d loads around the power knee, chosen once the grid is measured", a.Refine)}
	if a.Refine == 0 {
		ref.Resolved, ref.Note = true, "none"
	} else if ok && allKnown(known, append([]Load{sync, sat}, gridLoads...)) {
		ref.Loads, ref.Note = p.refine(known)
		ref.Resolved = true
	}
	return append(steps, ref), nil
}

// syncLoad and satLoad are the first two loads of an auto plan.
func (p Plan) syncLoad() Load { return Concurrency(1) }

func (p Plan) satLoad() Load {
	if p.Mode == ModeRate {
		return Rate(math.Inf(1))
	}
	return Concurrency(p.Auto.Max)
}

// grid returns the loads of the grid phase. In rate mode they need the
// measured synchronous and saturation points; ok is false while either is
// missing, and note says why.
func (p Plan) grid(sync, sat *Point) (loads []Load, ok bool, note string) {
	a := *p.Auto
	if a.Points == 0 {
		return nil, true, "none"
	}
	if p.Mode == ModeConcurrency {
		vs := spaced(1, float64(a.Max), a.Points, a.Spacing)
		for _, v := range vs {
			loads = appendNew(loads, Concurrency(int(math.Round(v))), nil)
		}
		loads = slices.DeleteFunc(loads, func(l Load) bool { return l.Value <= 1 || l.Value >= float64(a.Max) })
		return loads, true, fmt.Sprintf("%d concurrencies spaced %s between 1 and %d", len(loads), a.Spacing.adverb(), a.Max)
	}
	if sync == nil || sat == nil {
		return nil, false, fmt.Sprintf("%d request rates spaced %s between the rates achieved by the synchronous and saturation loads, chosen once both are measured",
			a.Points, a.Spacing.adverb())
	}
	lo, hi := sync.Mean.RequestThroughput, sat.Mean.RequestThroughput
	if !usable(lo) || !usable(hi) || lo <= 0 || hi <= lo*(1+1e-9) {
		return nil, true, fmt.Sprintf("none: the saturation load achieved %s req/s, no more than the synchronous load's %s",
			human.Number(hi), human.Number(lo))
	}
	for _, v := range spaced(lo, hi, a.Points, a.Spacing) {
		loads = appendNew(loads, Rate(roundSig(v, 3)), nil)
	}
	return loads, true, fmt.Sprintf("%d request rates spaced %s between %s and %s req/s (achieved by the synchronous and saturation loads)",
		len(loads), a.Spacing.adverb(), human.Number(lo), human.Number(hi))
}

// refine returns the refinement loads around the power knee of known
// points, and a note on how they were chosen.
func (p Plan) refine(known []Point) ([]Load, string) {
	n := p.Auto.Refine
	if n == 0 || len(known) == 0 {
		return nil, "none"
	}
	ps := slices.Clone(known)
	SortPoints(ps)
	k := PowerKnee(ps, p.Options)
	if !k.Found {
		return nil, "none: no knee to refine (" + k.Note + ")"
	}
	mode := sweepMode(ps)
	below, above := n/2, n-n/2
	switch {
	case k.Index == 0:
		below, above = 0, n
	case k.Index == len(ps)-1:
		below, above = n, 0
	}
	var loads []Load
	add := func(from, to Point, count int) {
		lo, hi := spanKey(from, mode), spanKey(to, mode)
		if count == 0 || !usable(lo) || !usable(hi) || lo <= 0 || hi <= lo {
			return
		}
		for _, v := range spaced(lo, hi, count, SpacingGeometric) {
			var l Load
			if p.Mode == ModeConcurrency {
				l = Concurrency(int(math.Round(v)))
			} else {
				l = Rate(roundSig(v, 3))
			}
			if key := l.Value; key > lo && key < hi {
				loads = appendNew(loads, l, ps)
			}
		}
	}
	if k.Index > 0 {
		add(ps[k.Index-1], ps[k.Index], below)
	}
	if k.Index < len(ps)-1 {
		add(ps[k.Index], ps[k.Index+1], above)
	}
	slices.SortFunc(loads, func(a, b Load) int { return compareValue(a, b) })
	if len(loads) == 0 {
		return nil, "none: the knee's neighbours leave no untried load between them"
	}
	return loads, fmt.Sprintf("%d loads around the power knee at %s", len(loads), k.Load.Short())
}

// spaced returns n values strictly between lo and hi.
func spaced(lo, hi float64, n int, s Spacing) []float64 {
	out := make([]float64, 0, n)
	for i := 1; i <= n; i++ {
		f := float64(i) / float64(n+1)
		if s == SpacingLinear {
			out = append(out, lo+(hi-lo)*f)
		} else {
			out = append(out, lo*math.Pow(hi/lo, f))
		}
	}
	return out
}

// roundSig rounds v to sig significant digits, so that planned rates read
// 4.37 req/s rather than 4.3712003 and come out the same when a resumed
// plan recomputes them from the same measurements.
func roundSig(v float64, sig int) float64 {
	if v == 0 || !usable(v) {
		return v
	}
	scale := math.Pow(10, float64(sig)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*scale) / scale
}

// appendNew appends l unless it is already in loads or among points.
func appendNew(loads []Load, l Load, points []Point) []Load {
	for _, x := range loads {
		if sameLoad(x, l) {
			return loads
		}
	}
	if find(points, l) != nil {
		return loads
	}
	return append(loads, l)
}

// find returns the point of load l, or nil.
func find(points []Point, l Load) *Point {
	for i := range points {
		if sameLoad(points[i].Load, l) {
			return &points[i]
		}
	}
	return nil
}

func allKnown(points []Point, loads []Load) bool {
	for _, l := range loads {
		if find(points, l) == nil {
			return false
		}
	}
	return true
}

// compareValue orders loads of one mode by value.
func compareValue(a, b Load) int {
	switch {
	case a.Value < b.Value:
		return -1
	case a.Value > b.Value:
		return 1
	}
	return 0
}

func sortedLoads(ls []Load) []Load {
	out := slices.Clone(ls)
	slices.SortStableFunc(out, compareValue)
	return out
}

func modeNoun(m Mode) string {
	if m == ModeRate {
		return "request-rate"
	}
	return "concurrency"
}

// Remaining returns the loads that still need measurements (all the loads
// Steps resolves, less those p.Resume already holds at full repeats) and
// the steps whose loads cannot be known until more is measured.
func (p Plan) Remaining() ([]Load, []Step, error) {
	steps, err := p.Steps()
	if err != nil {
		return nil, nil, err
	}
	var todo []Load
	var pending []Step
	for _, s := range steps {
		if !s.Resolved {
			pending = append(pending, s)
			continue
		}
		for _, l := range s.Loads {
			if q := find(p.Resume, l); q == nil || len(q.samples()) < p.repeats() {
				todo = append(todo, l)
			}
		}
	}
	return todo, pending, nil
}

// Print writes p for --dry-run: each step with its loads (those p.Resume
// already holds marked "done"), the repeats and the stop rule.
func (p Plan) Print(w io.Writer) error {
	steps, err := p.Steps()
	if err != nil {
		return err
	}
	var b strings.Builder
	kind := "list"
	if p.Auto != nil {
		kind = "auto"
	}
	reps := "1 measurement"
	if p.repeats() > 1 {
		reps = fmt.Sprintf("%d measurements", p.repeats())
	}
	fmt.Fprintf(&b, "sweep plan: %s, %s, %s per load\n", modeNoun(p.Mode), kind, reps)
	for i, s := range steps {
		fmt.Fprintf(&b, "  %d. %-11s  ", i+1, s.Phase)
		switch {
		case !s.Resolved:
			b.WriteString("(pending) " + s.Note)
		case len(s.Loads) == 0:
			b.WriteString(s.Note)
		default:
			for j, l := range s.Loads {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(l.String())
				if q := find(p.Resume, l); q != nil && len(q.samples()) >= p.repeats() {
					b.WriteString(" (done)")
				} else if q != nil {
					fmt.Fprintf(&b, " (%d of %d done)", len(q.samples()), p.repeats())
				}
			}
			if s.Phase != PhaseSynchronous && s.Phase != PhaseSaturation {
				b.WriteString("\n     " + strings.Repeat(" ", 11) + "  " + s.Note)
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("early stop: " + describeStop(p.Stop, p.Options.withDefaults()) + "\n")
	_, err = w.Write([]byte(b.String()))
	return err
}

func describeStop(r StopRule, o Options) string {
	var parts []string
	if r.LoadFactor > 1 {
		parts = append(parts, fmt.Sprintf("when %s gains under %s for %s the load while %s rises",
			o.Throughput.Label(), human.Percent(r.MinGain), human.Factor(r.LoadFactor), o.Latency.Label()))
	}
	if r.Floor > 0 {
		parts = append(parts, "when SLO attainment collapses below "+human.Percent(r.Floor))
	}
	if len(parts) == 0 {
		return "off"
	}
	return strings.Join(parts, ", or ")
}
