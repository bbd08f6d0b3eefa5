package sweeprun

import (
	"context"
	"errors"
	"fmt"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/sweep"
)

// SearchOutcome is what an SLO search produced.
type SearchOutcome struct {
	Result sweep.SearchResult
	// Summary reads every probe as a point of a sweep, so that the same
	// table, files and `goodput plan --from` serve a search.
	Summary  sweep.Summary
	Measured int // measurements made by this run
	Resumed  int // probes answered from the result directory
	JSONPath string
	CSVPath  string
	// AllFailed is as Outcome's.
	AllFailed *metrics.Counts
}

// Search runs the SLO search s, measuring each probe repeats times (0 means
// once) and reading the probes with o. A probe whose load the result
// directory already holds is answered from it, measuring only the repeats it
// lacks: a search given the same answers probes the same loads, so a
// resumed search measures only what the interrupted one had not. The sweep files are
// rewritten after every probe; on an error Search returns the outcome so
// far with it.
func (r *Runner) Search(ctx context.Context, s sweep.Search, repeats int, o sweep.Options) (*SearchOutcome, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if repeats < 0 || repeats > sweep.MaxRepeats {
		return nil, fmt.Errorf("repeats %d: must be from 1 to %d", repeats, sweep.MaxRepeats)
	}
	repeats = max(repeats, 1)
	if err := r.Check(s.Mode, false); err != nil {
		return nil, err
	}
	if err := r.prepareDir(s.Mode); err != nil {
		return nil, err
	}
	out := &SearchOutcome{}
	before := r.measured
	var known []sweep.Point // probes so far, one per load
	var saveErr error
	measure := func(ctx context.Context, l sweep.Load) (sweep.Point, error) {
		var parts []sweep.Point
		have := 0
		for _, p := range r.resumed {
			if p.Load == l {
				parts, have = append(parts, p), max(len(p.Repeats), 1)
				out.Resumed++
				break
			}
		}
		for have < repeats {
			p, err := r.Measure(ctx, l)
			if err != nil {
				return sweep.Point{}, err
			}
			parts = append(parts, p)
			have++
		}
		p, err := sweep.Merge(parts...)
		if err != nil {
			return sweep.Point{}, err
		}
		known = replacePoint(known, p)
		if saveErr == nil {
			_, saveErr = r.save(known, o)
		}
		return p, nil
	}
	res, runErr := s.Run(ctx, measure)
	out.Result = res
	out.Measured, out.AllFailed = r.measured-before, r.failed
	if len(known) == 0 {
		return out, errors.Join(runErr, saveErr)
	}
	sum, err := sweep.Analyze(known, o)
	if err != nil {
		return out, errors.Join(runErr, err)
	}
	out.Summary = sum
	if r.cfg.Dir != "" && saveErr == nil {
		out.JSONPath, out.CSVPath, saveErr = writeSweep(r.cfg.Dir, sum)
	}
	return out, errors.Join(runErr, saveErr)
}
