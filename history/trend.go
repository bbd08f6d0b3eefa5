package history

import (
	"context"
	"fmt"
	"slices"

	"github.com/goodput-dev/goodput/report"
)

// Trend is one metric across comparable runs, oldest first.
type Trend struct {
	Metric string
	// Runs are the comparable runs, oldest first; Values[i] is the
	// metric in Runs[i], and Has[i] says whether that run had it.
	Runs   []Run
	Values []float64
	Has    []bool
	// Comparability is what the runs share.
	Comparability string
}

// DefaultTrendRuns is how many runs a trend shows when not told.
const DefaultTrendRuns = 50

// Trend returns metric across r and the runs comparable with it that
// started before it, among those f selects: the last n of them with r
// (n ≤ 0 means DefaultTrendRuns), oldest first.
func (s *Store) Trend(ctx context.Context, r Run, metric string, n int, f Filter) (Trend, error) {
	if n <= 0 {
		n = DefaultTrendRuns
	}
	before, err := s.Comparable(ctx, r, n-1, f)
	if err != nil {
		return Trend{}, err
	}
	runs := append(before, r)
	slices.Reverse(runs[:len(runs)-1])
	t := Trend{Metric: metric, Runs: runs, Comparability: Describe(r.Comparability)}
	any := false
	for _, run := range runs {
		v, ok := run.Metrics[metric]
		t.Values = append(t.Values, v)
		t.Has = append(t.Has, ok)
		any = any || ok
	}
	if !any {
		return t, fmt.Errorf("history: %w %q (run %d has: %s)", ErrNoMetric, metric, r.ID, keyList(r.Metrics))
	}
	return t, nil
}

// keyList names the keys of m for an error message.
func keyList(m map[string]float64) string {
	keys := MetricKeys(m)
	if len(keys) == 0 {
		return "no metrics"
	}
	out := ""
	for i, k := range keys {
		if i > 0 {
			out += ", "
		}
		out += k
	}
	return out
}

// Latest returns the newest run f selects, or an error wrapping ErrNotFound.
func (s *Store) Latest(ctx context.Context, f Filter) (Run, error) {
	f.Limit = 1
	runs, err := s.List(ctx, f)
	if err != nil {
		return Run{}, err
	}
	if len(runs) == 0 {
		return Run{}, fmt.Errorf("history %s: %w: nothing matches", s.where, ErrNotFound)
	}
	return runs[0], nil
}

// Report returns t as report.WriteTrendHTML draws it.
func (t Trend) Report() report.Trend {
	out := report.Trend{Metric: t.Metric, Seconds: IsLatency(t.Metric), Better: Direction(t.Metric), Comparability: t.Comparability,
		Fraction: t.Metric == "attainment" || t.Metric == "error_rate" || t.Metric == "littles_law_gap"}
	for i, r := range t.Runs {
		out.Points = append(out.Points, report.TrendPoint{ID: r.ID, Name: r.Name, Start: r.Start, Server: r.Target.ServerVersion,
			Value: t.Values[i], Defined: t.Has[i]})
	}
	return out
}
