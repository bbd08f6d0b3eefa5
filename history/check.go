package history

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

// CheckOptions configure Check. The zero value checks DefaultCheckMetrics
// against the last DefaultBaselines comparable runs with a 5 % tolerance.
type CheckOptions struct {
	// Baselines is how many of the latest comparable runs before the run
	// checked it is compared with; zero means DefaultBaselines.
	Baselines int
	// Metrics are the keys checked; nil means DefaultCheckMetrics (those
	// the run has).
	Metrics []string
	// Tolerance is the relative worsening that is not a regression even
	// when it is real: 0.05 lets p99 TTFT rise by 5 %. Zero means
	// DefaultTolerance; a negative value demands no worsening at all.
	Tolerance float64
	// Resamples, Confidence and Seed configure the bootstrap as for
	// report.Compare.
	Resamples  int
	Confidence float64
	Seed       uint64
	// Filter narrows the baselines (labels, target); its Key and Before
	// are set by Check.
	Filter Filter
}

// Check defaults.
const (
	DefaultBaselines = 5
	DefaultTolerance = 0.05
)

// DefaultCheckMetrics are the metrics Check reads when not told: the
// latencies whose p50 and p99 get bootstrap intervals, and the throughput
// and goodput.
var DefaultCheckMetrics = []string{"ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99", "e2e_p99", "output_throughput", "goodput"}

// Validate reports the first option out of range.
func (o CheckOptions) Validate() error {
	if o.Baselines < 0 || o.Baselines > 100 {
		return fmt.Errorf("baselines %d: want 1 to 100", o.Baselines)
	}
	if math.IsNaN(o.Tolerance) || o.Tolerance > 10 {
		return fmt.Errorf("tolerance %v: want a fraction such as 0.05", o.Tolerance)
	}
	for _, k := range o.Metrics {
		if Direction(k) == 0 {
			return fmt.Errorf("metric %q: neither higher nor lower is better, so it cannot regress (check a latency, a throughput, goodput, attainment or error_rate)", k)
		}
	}
	return report.CompareOptions{Resamples: o.Resamples, Confidence: o.Confidence}.Validate()
}

// Finding is one metric of a checked run against its baselines.
type Finding struct {
	Metric string
	Value  float64 // in the run checked
	// Baselines hold the metric in each baseline (as CheckResult.Baselines)
	// and Changes the run's difference from each: Rel is the relative
	// change (positive when the run is worse), and Lo, Hi the bootstrap
	// interval of the absolute difference when HasCI.
	Baselines []float64
	Changes   []Change
	Regressed bool
	// Why says in words what was found.
	Why string
}

// Change is the checked run against one baseline in one metric.
type Change struct {
	Worse  float64 // relative worsening: positive when the run is worse; NaN when undefined
	HasCI  bool
	Lo, Hi float64 // interval of run − baseline, in the metric's unit
	// Verdict is report's: noise, better or worse; empty without interval.
	Verdict string
}

// CheckResult is a run checked against the comparable runs before it.
type CheckResult struct {
	Run       Run
	Baselines []Run // newest first
	Findings  []Finding
	// Regressed is true when a metric got worse than in every baseline,
	// beyond the tolerance and, where there is one, beyond the bootstrap
	// interval.
	Regressed bool
	// Notes say what limited the check: missing record files, runs
	// Compare warns are not alike.
	Notes   []string
	Options CheckOptions
}

// Check compares run with the last o.Baselines comparable runs before it
// that were not interrupted.
// A metric regressed when, against every baseline, it is worse by more
// than o.Tolerance and, for the p50 and p99 latencies that goodput compare
// gives bootstrap intervals, the interval of the difference lies wholly on
// the worse side (the change is not noise). Asking for all baselines keeps
// one lucky earlier run from failing a build. The record files of the runs
// are read again for the intervals; a run whose records are gone is
// compared on its stored numbers alone, and a note says so. An
// interrupted run is checked all the same, and the first note and the
// verdict say it was interrupted.
func (s *Store) Check(ctx context.Context, run Run, o CheckOptions) (*CheckResult, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("history check: %w", err)
	}
	if o.Baselines == 0 {
		o.Baselines = DefaultBaselines
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if run.Kind == KindSweep {
		return nil, fmt.Errorf("history check: run %d is a sweep: check one of its points, or a bench run", run.ID)
	}
	// An interrupted run measured only part of its schedule, and its
	// throughput over a window cut short: a baseline of it could hide a
	// regression or call one where there is none.
	f := o.Filter
	f.Complete = true
	base, err := s.Comparable(ctx, run, o.Baselines, f)
	if err != nil {
		return nil, err
	}
	out := &CheckResult{Run: run, Baselines: base, Options: o}
	if run.Interrupted {
		// Judged all the same: what it did measure may show a real
		// regression, which a pass would hide. The verdict says so.
		out.Notes = append(out.Notes, fmt.Sprintf("run %d was interrupted: its numbers cover only what it measured before it stopped, "+
			"so a change, above all in throughput and goodput, may come from the interruption", run.ID))
	}
	keys := o.Metrics
	if keys == nil {
		for _, k := range DefaultCheckMetrics {
			if _, ok := run.Metrics[k]; ok {
				keys = append(keys, k)
			}
		}
	}
	if len(base) == 0 {
		out.Notes = append(out.Notes, "no comparable run before this one: nothing to check against")
		return out, nil
	}
	cand, note := loadForCompare(run)
	if note != "" {
		out.Notes = append(out.Notes, note)
	}
	comps := make([]*report.Comparison, len(base))
	for i, b := range base {
		br, note := loadForCompare(b)
		if note != "" {
			out.Notes = append(out.Notes, note)
		}
		c, err := report.Compare([]*report.Run{br, cand}, report.CompareOptions{Resamples: o.Resamples, Confidence: o.Confidence, Seed: o.Seed})
		if err != nil {
			return nil, fmt.Errorf("history check: run %d against run %d: %w", run.ID, b.ID, err)
		}
		comps[i] = c
		for _, w := range c.Warnings {
			n := fmt.Sprintf("against run %d: %s", b.ID, w.Text)
			if !slices.Contains(out.Notes, n) {
				out.Notes = append(out.Notes, n)
			}
		}
	}
	for _, k := range keys {
		f := judgeMetric(k, run, base, comps, o.Tolerance)
		out.Findings = append(out.Findings, f)
		out.Regressed = out.Regressed || f.Regressed
	}
	return out, nil
}

// judgeMetric checks metric k of run against each baseline.
func judgeMetric(k string, run Run, base []Run, comps []*report.Comparison, tol float64) Finding {
	f := Finding{Metric: k, Value: math.NaN()}
	v, ok := run.Metrics[k]
	if !ok {
		f.Why = "the run has no " + k
		return f
	}
	f.Value = v
	dir := Direction(k)
	worseAll, ci := true, false
	for i, b := range base {
		bv, bok := b.Metrics[k]
		if !bok {
			bv = math.NaN()
		}
		f.Baselines = append(f.Baselines, bv)
		ch := Change{Worse: worsening(v, bv, dir)}
		if row := comps[i].Row(k); row != nil && len(row.Diffs) == 2 && row.Diffs[1].HasCI {
			d := row.Diffs[1]
			ch.HasCI, ch.Lo, ch.Hi, ch.Verdict = true, d.Lo, d.Hi, d.Verdict
			ci = true
		}
		f.Changes = append(f.Changes, ch)
		// A negative tolerance asks for no worsening: an equal number
		// is still none.
		bad := !math.IsNaN(ch.Worse) && ch.Worse > max(tol, 0)
		if ch.HasCI {
			bad = bad && ch.Verdict == report.Worse
		}
		worseAll = worseAll && bad
	}
	f.Regressed = worseAll
	least := math.Inf(1)
	for _, c := range f.Changes {
		if !math.IsNaN(c.Worse) {
			least = math.Min(least, c.Worse)
		}
	}
	switch {
	case f.Regressed && ci:
		f.Why = fmt.Sprintf("worse than each of the %d baselines by at least %s, beyond their bootstrap intervals and the %s tolerance", len(base), pctText(least), tolText(tol))
	case f.Regressed:
		f.Why = fmt.Sprintf("worse than each of the %d baselines by at least %s, beyond the %s tolerance (no interval: a run-wide number)", len(base), pctText(least), tolText(tol))
	case math.IsInf(least, 1):
		f.Why = "no baseline has it"
	default:
		f.Why = "within the baselines' spread"
	}
	return f
}

// worsening is the relative change from base to v, positive when v is
// worse by dir; NaN when base is undefined, or 0 and v differs.
func worsening(v, base float64, dir int) float64 {
	if math.IsNaN(base) || math.IsNaN(v) {
		return math.NaN()
	}
	change := v - base
	if dir > 0 {
		change = -change
	}
	if change == 0 {
		return 0
	}
	if base == 0 {
		if change > 0 {
			return math.Inf(1)
		}
		return math.Inf(-1)
	}
	return change / math.Abs(base)
}

func pctText(f float64) string {
	if math.IsInf(f, 1) {
		return "∞"
	}
	return fmt.Sprintf("%.1f %%", 100*f)
}

// tolText is a tolerance in words: a negative one, which asks for no
// worsening at all (a zero --tolerance), is 0 %.
func tolText(tol float64) string {
	if tol <= 0 {
		return "0 %"
	}
	return pctText(tol)
}

// loadForCompare reads a stored run's records as goodput compare does,
// with the percentiles, method and SLO of its summary; when they cannot be
// read it returns the stored result alone (no intervals) and a note.
func loadForCompare(r Run) (*report.Run, string) {
	res := r.Result()
	stored := &report.Run{Name: fmt.Sprintf("run %d", r.ID), Header: record.Header{Start: r.Start, Config: r.Config}, Result: res}
	if res == nil {
		stored.Result = &metrics.Result{}
	}
	if r.RecordsPath == "" {
		return stored, fmt.Sprintf("run %d kept no record file: compared on its stored numbers, without intervals", r.ID)
	}
	if _, err := os.Stat(r.RecordsPath); err != nil {
		why := err.Error()
		if errors.Is(err, os.ErrNotExist) {
			why = "it is gone"
		}
		return stored, fmt.Sprintf("run %d: records %s: %s: compared on its stored numbers, without intervals", r.ID, r.RecordsPath, why)
	}
	opts := report.RunOptions{RunMethod: true}
	if res != nil {
		opts.Metrics.Percentiles = slices.Clone(res.Percentiles)
		opts.Metrics.Method = res.Method
		if res.Goodput != nil && res.Goodput.SLO != "" {
			if cs, err := slo.ParseConditions(res.Goodput.SLO); err == nil {
				opts.SLO = cs
			}
		}
	}
	for _, p := range []float64{50, 99} {
		if !slices.Contains(opts.Metrics.Percentiles, p) {
			opts.Metrics.Percentiles = append(opts.Metrics.Percentiles, p)
		}
	}
	loaded, err := report.LoadRun(r.RecordsPath, nil, opts)
	if err != nil {
		return stored, fmt.Sprintf("run %d: records %s: %v: compared on its stored numbers, without intervals", r.ID, r.RecordsPath, err)
	}
	loaded.Name = fmt.Sprintf("run %d", r.ID)
	return loaded, ""
}
