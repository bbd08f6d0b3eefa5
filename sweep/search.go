package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/goodput-dev/goodput/internal/human"
)

// Search finds the highest load that meets the SLO by bracketing and
// bisection: it probes Start, doubles the load until a probe fails (or
// halves it until one passes), then bisects the bracket between the highest
// pass and the lowest failure until it is within Tolerance or MaxProbes
// probes are spent.
//
// Bisection assumes that passing is monotone in load. With noise near the
// threshold it still ends on a bracket whose lower end passed and whose
// upper end failed, but the true threshold can lie outside it by about the
// width of the noise band; repeat probes (Measure returning several
// Repeats) narrow that band.
type Search struct {
	Mode  Mode
	Start float64 // first load probed; 0 means 1
	// Target is the SLO attainment a probe must reach (0 means
	// DefaultTarget). Accept, if set, replaces that test, for example to
	// require a p99 TTFT as well. Either way a rate probe whose server
	// finished well below the offered rate (Point.Delivery) fails: its
	// attainment does not hold in a longer run.
	Target float64
	Accept func(Point) bool
	// Tolerance is the relative width at which a rate bracket is narrow
	// enough: high − low ≤ Tolerance × low (0 means 0.05). A concurrency
	// bracket is narrow enough when its ends are adjacent integers.
	Tolerance float64
	MaxProbes int // 0 means 12
	// Limit is the highest load doubling may reach (0 means MaxConcurrency
	// or 1e6 req/s); the search reports a pass at Limit as such rather
	// than probing forever.
	Limit float64
}

// SearchResult is the bracket a Search ended on.
type SearchResult struct {
	// Found is false when no probe passed, down to concurrency 1 or the
	// smallest rate probed.
	Found bool
	Best  Point   // the probe at Low; zero when not found
	Low   float64 // the highest load that passed; 0 when none did
	High  float64 // the lowest load above Low that failed; +Inf when none did
	// Converged says the bracket reached the tolerance; false means the
	// probes ran out first, or Low reached the Limit without a failure.
	Converged bool
	Probes    []Point // every probe, in the order taken
	Mode      Mode
	Target    float64
}

// Uncertainty is the bracket's width relative to its lower end,
// (High − Low) ÷ Low: the most by which Low can understate the threshold if
// passing is monotone. It is +Inf when the bracket is open.
func (r SearchResult) Uncertainty() float64 {
	if !r.Found || math.IsInf(r.High, 1) {
		return math.Inf(1)
	}
	return (r.High - r.Low) / r.Low
}

// String states the result in words.
func (r SearchResult) String() string {
	unit := func(v float64) string {
		if r.Mode == ModeRate {
			return human.Number(v) + " req/s"
		}
		return "concurrency " + human.Count(v)
	}
	target := human.Percent(r.Target) + " SLO attainment"
	switch {
	case !r.Found && len(r.Probes) == 0:
		return "no probes were made"
	case !r.Found:
		return fmt.Sprintf("no load met %s; the lowest probed, %s, failed", target, unit(r.High)) + r.shortAtHigh(unit)
	case math.IsInf(r.High, 1):
		return fmt.Sprintf("every probe met %s, up to %s; the limit lies higher", target, unit(r.Low))
	}
	s := fmt.Sprintf("highest load meeting %s: %s (it fails at %s; within %s)",
		target, unit(r.Low), unit(r.High), human.Percent(r.Uncertainty()))
	if !r.Converged {
		s += ", stopped by the probe limit before the tolerance"
	}
	return s + r.shortAtHigh(unit)
}

// shortAtHigh says why the probe at High failed when its server did not
// keep pace with its rate; it is empty otherwise.
func (r SearchResult) shortAtHigh(unit func(float64) string) string {
	for _, p := range r.Probes {
		if p.Load.Value == r.High && p.short() {
			return "; at " + unit(r.High) + " the server did not keep pace: " + shortfall(p)
		}
	}
	return ""
}

func (s Search) withDefaults() Search {
	if s.Start == 0 {
		s.Start = 1
	}
	if s.Target == 0 {
		s.Target = DefaultTarget
	}
	if s.Tolerance == 0 {
		s.Tolerance = 0.05
	}
	if s.MaxProbes == 0 {
		s.MaxProbes = 12
	}
	if s.Limit == 0 {
		s.Limit = 1e6
		if s.Mode == ModeConcurrency {
			s.Limit = MaxConcurrency
		}
	}
	return s
}

// Validate reports every problem with s.
func (s Search) Validate() error {
	s = s.withDefaults()
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if s.Mode != ModeConcurrency && s.Mode != ModeRate {
		bad("search mode %q: unknown (want concurrency or request_rate)", string(s.Mode))
	}
	if !usable(s.Limit) || s.Limit <= 0 || (s.Mode == ModeConcurrency && (s.Limit > MaxConcurrency || s.Limit != math.Trunc(s.Limit))) {
		bad("search limit %v: must be a positive load (whole, at most %d, for concurrency)", s.Limit, MaxConcurrency)
	}
	if !usable(s.Start) || s.Start <= 0 || s.Start > s.Limit || (s.Mode == ModeConcurrency && s.Start != math.Trunc(s.Start)) {
		bad("search start %v: must be a positive load no higher than the limit (whole for concurrency)", s.Start)
	}
	if math.IsNaN(s.Target) || s.Target <= 0 || s.Target > 1 {
		bad("search target %v: must be in (0, 1]", s.Target)
	}
	if !usable(s.Tolerance) || s.Tolerance <= 0 {
		bad("search tolerance %v: must be positive", s.Tolerance)
	}
	if s.MaxProbes < 1 || s.MaxProbes > MaxPoints {
		bad("search probes %d: must be from 1 to %d", s.MaxProbes, MaxPoints)
	}
	return errors.Join(errs...)
}

// minRate is the lowest rate the downward search probes: below one request
// a minute a probe would take longer than any test.
const minRate = 1.0 / 60

// Run performs the search, measuring one probe at a time. On an error from
// measure or a cancelled ctx it returns the result so far with the error.
func (s Search) Run(ctx context.Context, measure Measure) (SearchResult, error) {
	if err := s.Validate(); err != nil {
		return SearchResult{}, err
	}
	if measure == nil {
		return SearchResult{}, errors.New("search: no measure function")
	}
	s = s.withDefaults()
	res := SearchResult{High: math.Inf(1), Mode: s.Mode, Target: s.Target}
	accept := s.Accept
	if accept == nil {
		accept = func(p Point) bool {
			a := p.Mean.Attainment
			return !math.IsNaN(a) && a >= s.Target-attainmentSlack
		}
	}
	probe := func(v float64) (bool, error) {
		l := Load{Mode: s.Mode, Value: v}
		if err := ctx.Err(); err != nil {
			return false, fmt.Errorf("search: stopped before %s: %w", l, err)
		}
		p, err := measure(ctx, l)
		if err != nil {
			return false, fmt.Errorf("search: measure %s: %w", l, err)
		}
		p.Load = l
		if p, err = Merge(p); err != nil {
			return false, fmt.Errorf("search: %s: %w", l, err)
		}
		res.Probes = append(res.Probes, p)
		if accept(p) && !p.short() {
			res.Found, res.Best, res.Low = true, p, v
			return true, nil
		}
		res.High = v
		return false, nil
	}
	left := func() bool { return len(res.Probes) < s.MaxProbes }

	// Bracket.
	pass, err := probe(s.Start)
	if err != nil {
		return res, err
	}
	for left() {
		var next float64
		if pass {
			if !math.IsInf(res.High, 1) || res.Low >= s.Limit {
				break
			}
			next = min(res.Low*2, s.Limit)
		} else {
			if res.Found {
				break
			}
			next = res.High / 2
			if s.Mode == ModeConcurrency {
				next = math.Floor(next)
			}
			if next < 1 && s.Mode == ModeConcurrency || next < minRate && s.Mode == ModeRate {
				break
			}
		}
		if pass, err = probe(next); err != nil {
			return res, err
		}
	}

	// Bisect.
	narrow := func() bool {
		if s.Mode == ModeConcurrency {
			return res.High-res.Low <= 1
		}
		return res.High-res.Low <= s.Tolerance*res.Low
	}
	for res.Found && !math.IsInf(res.High, 1) && !narrow() && left() {
		mid := (res.Low + res.High) / 2
		if s.Mode == ModeConcurrency {
			mid = math.Floor(mid)
		}
		if _, err := probe(mid); err != nil {
			return res, err
		}
	}
	res.Converged = res.Found && !math.IsInf(res.High, 1) && narrow()
	return res, nil
}
