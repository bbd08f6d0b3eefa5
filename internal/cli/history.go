package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/atomicfile"
	"github.com/goodput-dev/goodput/history"
	"github.com/goodput-dev/goodput/report"
)

// historyQuery are the flags shared by the history subcommands.
type historyQuery struct {
	dsn    string
	labels []string
	target string
	kind   string
	format string
}

func newHistoryCmd(env *Env) *cobra.Command {
	var q historyQuery
	cmd := &cobra.Command{
		Use:   "history",
		Short: "List, show, trend and check the runs bench and sweep recorded with --history; add runs measured earlier",
		Long: `history reads a run history: the runs that bench and sweep recorded with
--history (or $` + history.EnvStore + `), each with its summary, configuration,
labels, target (URL, model, the server's own version where it says) and the
path of its record file. add records a bench run measured earlier (one
whose recording failed, or one run without --history) from its files.

The store is a SQLite file, or a PostgreSQL database given as a postgres://
URL; its schema is brought up to date when opened.

Runs are comparable when their model, workload, load shape, SLO, stop
criteria, warm-up and percentile method agree, as compare judges them: trend
and check work within those. check compares a run (the latest, by default)
with the last --baselines comparable runs before it and exits with code 3
when a metric got worse than in every one of them, beyond --tolerance and,
for p50 and p99 latencies, beyond compare's bootstrap interval.`,
		Example: `  goodput bench --history runs.db --record-label branch=main
  goodput history list --history runs.db --label branch=main
  goodput history show 12 --history runs.db
  goodput history trend ttft_p99 --history runs.db --html trend.html
  goodput history check --history postgres://ci@db:5432/goodput --baselines 5 --tolerance 5%
  goodput history add --history runs.db runs/nightly.jsonl`,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&q.dsn, "history", "", "the history: a SQLite file or a postgres:// URL (default $"+history.EnvStore+")")
	pf.StringArrayVar(&q.labels, "label", nil, "only runs with this label, key=value (repeatable)")
	pf.StringVar(&q.target, "target", "", "only runs of this model, or whose server URL or description contains this")
	pf.StringVar(&q.format, "format", "text", "text or json")
	pf.StringVar(&q.kind, "kind", "", "only runs of this kind: bench, sweep or point")
	cmd.AddCommand(historyList(env, &q), historyShow(env, &q), historyTrend(env, &q), historyCheck(env, &q), historyAdd(env, &q))
	return cmd
}

// open opens the store and parses the shared filter.
func (q *historyQuery) open(cmd *cobra.Command, env *Env) (*history.Store, history.Filter, error) {
	var f history.Filter
	if q.format != "text" && q.format != "json" {
		return nil, f, usageErr("--format %q: want text or json", q.format)
	}
	labels, err := parseLabels(q.labels)
	if err != nil {
		return nil, f, usageErr("--label: %v", err)
	}
	f.Labels, f.Target = labels, q.target
	switch q.kind {
	case "":
	case string(history.KindBench), string(history.KindSweep), string(history.KindPoint):
		f.Kinds = []history.Kind{history.Kind(q.kind)}
	default:
		return nil, f, usageErr("--kind %q: want bench, sweep or point", q.kind)
	}
	dsn := q.dsn
	if dsn == "" {
		dsn = env.getenv(history.EnvStore)
	}
	if dsn == "" {
		return nil, f, usageErr("%s: no history: give --history (a SQLite file or a postgres:// URL) or set $%s", cmd.CommandPath(), history.EnvStore)
	}
	// Every history command here reads: a file that is not there, or
	// holds no history, is a mistake, not an empty history, and is never
	// written.
	s, err := history.OpenExisting(cmd.Context(), dsn)
	return s, f, err
}

// usageArgs makes a positional-argument check's error a usage error.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageErr("%s: %v", cmd.CommandPath(), err)
		}
		return nil
	}
}

// pickRun returns the run an argument names, or the latest f selects.
func pickRun(cmd *cobra.Command, s *history.Store, f history.Filter, arg string) (history.Run, error) {
	if arg == "" {
		r, err := s.Latest(cmd.Context(), f)
		if errors.Is(err, history.ErrNotFound) {
			return r, fmt.Errorf("%s: no recorded run matches: record one with bench --history", cmd.CommandPath())
		}
		return r, err
	}
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return history.Run{}, usageErr("%s: run %q: want a run id from goodput history list", cmd.CommandPath(), arg)
	}
	return s.Get(cmd.Context(), id)
}

func historyJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func historyList(env *Env, q *historyQuery) *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List recorded runs, newest first",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return usageErr("--limit %d: must not be negative", limit)
			}
			s, f, err := q.open(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			f.Limit = limit
			runs, err := s.List(cmd.Context(), f)
			if err != nil {
				return err
			}
			if q.format == "json" {
				return historyJSON(env.Stdout, jsonRuns(runs))
			}
			return history.WriteList(env.Stdout, runs)
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many runs (0: all)")
	return cmd
}

// jsonRun is a stored run as the json format writes it.
type jsonRun struct {
	ID            int64                `json:"id"`
	Kind          history.Kind         `json:"kind"`
	Sweep         int64                `json:"sweep,omitempty"`
	Name          string               `json:"name"`
	Start         string               `json:"start"`
	Tool          string               `json:"tool"`
	Target        history.Target       `json:"target"`
	Labels        map[string]string    `json:"labels,omitempty"`
	Records       string               `json:"records,omitempty"`
	Interrupted   bool                 `json:"interrupted,omitempty"`
	Key           string               `json:"comparable_key"`
	Comparability report.Comparability `json:"comparability"`
	Metrics       map[string]float64   `json:"metrics"`
	Config        json.RawMessage      `json:"config,omitempty"`
}

func toJSON(r history.Run, full bool) jsonRun {
	j := jsonRun{ID: r.ID, Kind: r.Kind, Sweep: r.ParentID, Name: r.Name, Start: r.Start.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Tool: r.Tool, Target: r.Target, Labels: r.Labels, Records: r.RecordsPath, Interrupted: r.Interrupted,
		Key: r.Key, Comparability: r.Comparability, Metrics: r.Metrics}
	if full {
		j.Config = r.Config
	}
	return j
}

func jsonRuns(runs []history.Run) []jsonRun {
	out := make([]jsonRun, 0, len(runs))
	for _, r := range runs {
		out = append(out, toJSON(r, false))
	}
	return out
}

func historyShow(env *Env, q *historyQuery) *cobra.Command {
	return &cobra.Command{
		Use:   "show [RUN]",
		Short: "Show one recorded run in full (default: the latest)",
		Args:  usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, f, err := q.open(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := pickRun(cmd, s, f, strings.Join(args, ""))
			if err != nil {
				return err
			}
			if q.format == "json" {
				return historyJSON(env.Stdout, toJSON(r, true))
			}
			return history.WriteRun(env.Stdout, r)
		},
	}
}

func historyTrend(env *Env, q *historyQuery) *cobra.Command {
	var (
		run  string
		last int
		html string
	)
	cmd := &cobra.Command{
		Use:   "trend METRIC",
		Short: "A metric across the runs comparable with one (default: the latest), as a table or an HTML page",
		Long: `trend shows METRIC across the runs comparable with --run (default: the latest
run the filters select), oldest first, with each run's change from the one
before. METRIC is any key goodput history show lists: ttft_p99, tpot_p50,
e2e_mean, output_throughput, goodput, attainment, error_rate, …; for sweeps
operating_request_throughput, goodput_peak, knee_load, …`,
		Example: `  goodput history trend ttft_p99 --history runs.db
  goodput history trend goodput --history runs.db --label branch=main --html goodput.html`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if last < 0 {
				return usageErr("--last %d: must not be negative", last)
			}
			s, f, err := q.open(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := pickRun(cmd, s, f, run)
			if err != nil {
				return err
			}
			t, err := s.Trend(cmd.Context(), r, args[0], last, f)
			if errors.Is(err, history.ErrNoMetric) {
				return usageErr("%v", err) // the argument names nothing recorded
			}
			if err != nil {
				return err
			}
			if html != "" {
				page := func(w io.Writer) error {
					return report.WriteTrendHTML(w, t.Report(), report.HTMLOptions{Tool: "goodput " + Version})
				}
				if html == "-" {
					return writeOutput(env, html, page)
				}
				if err := atomicfile.Write(html, page); err != nil {
					return fmt.Errorf("--html: %w", err)
				}
				fmt.Fprintf(env.Stdout, "Wrote %s\n", html)
				return nil
			}
			if q.format == "json" {
				return historyJSON(env.Stdout, t.Report())
			}
			return history.WriteTrend(env.Stdout, t)
		},
	}
	cmd.Flags().StringVar(&run, "run", "", "the run whose comparable runs to trend (default: the latest)")
	cmd.Flags().IntVar(&last, "last", history.DefaultTrendRuns, "at most this many runs, the latest")
	cmd.Flags().StringVar(&html, "html", "", "write the trend as a self-contained HTML page to this file")
	return cmd
}

func historyCheck(env *Env, q *historyQuery) *cobra.Command {
	var (
		run       string
		o         history.CheckOptions
		tolerance string
		keys      []string
	)
	cmd := &cobra.Command{
		Use:   "check [RUN]",
		Short: "Check a run (default: the latest) for regressions against the comparable runs before it; exit 3 on one",
		Long: `check compares a run (default: the latest the filters select) with the last
--baselines comparable runs before it. A metric regressed when it is worse
than in every one of them by more than --tolerance and, for the p50 and p99
latencies, when compare's bootstrap interval of each difference lies wholly
on the worse side. LEAST CHANGE is the smallest worsening against any
baseline. The record files are read again for the intervals; a run whose
records are gone is judged on its stored numbers, and a note says so.

Interrupted runs (stopped by Ctrl-C or a signal before their schedule
ended) are never baselines: they measured part of the load over a window
cut short. An interrupted run that is checked is judged all the same, so
that a regression in what it measured still fails, but a note and the
verdict say it was interrupted ("interrupted": true in JSON).

Exit codes: 0 no regression (or nothing to compare with), 3 a regression.`,
		Example: `  goodput bench --base-url http://127.0.0.1:8000 --goodput ttft:500 tpot:50 --history runs.db \
      --record-label branch=$BRANCH && goodput history check --history runs.db --label branch=$BRANCH`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				run = args[0]
			}
			tol, err := parseFraction(tolerance)
			if err != nil {
				return usageErr("--tolerance: %v", err)
			}
			o.Tolerance = tol
			if tol == 0 {
				o.Tolerance = -1e-12 // asked for none: any worsening counts
			}
			if len(keys) > 0 {
				o.Metrics = keys
			}
			if o.Baselines <= 0 {
				return usageErr("--baselines %d: want at least 1", o.Baselines)
			}
			if err := o.Validate(); err != nil {
				return usageErr("%v", err)
			}
			s, f, err := q.open(cmd, env)
			if err != nil {
				return err
			}
			defer s.Close()
			r, err := pickRun(cmd, s, f, run)
			if err != nil {
				return err
			}
			o.Filter = f
			c, err := s.Check(cmd.Context(), r, o)
			if err != nil {
				return err
			}
			if q.format == "json" {
				if err := historyJSON(env.Stdout, checkJSON(c)); err != nil {
					return err
				}
			} else if err := history.WriteCheck(env.Stdout, c); err != nil {
				return err
			}
			if c.Regressed {
				var names []string
				for _, f := range c.Findings {
					if f.Regressed {
						names = append(names, f.Metric)
					}
				}
				return &ExitError{Code: ExitGateFail, Err: fmt.Errorf("history check: run %d regressed in %s", r.ID, strings.Join(names, ", "))}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.Baselines, "baselines", history.DefaultBaselines, "compare with this many of the latest comparable runs before it")
	fl.StringVar(&tolerance, "tolerance", "5%", "worsening allowed even when it is real, as a percentage or a fraction")
	fl.StringArrayVar(&keys, "metric", nil, "a metric to check (repeatable; default: "+strings.Join(history.DefaultCheckMetrics, ", ")+")")
	fl.IntVar(&o.Resamples, "resamples", report.DefaultResamples, "bootstrap resamples per run")
	fl.Uint64Var(&o.Seed, "seed", 1, "seed of the bootstrap")
	fl.Float64Var(&o.Confidence, "confidence", report.DefaultConfidence, "coverage of the intervals")
	return cmd
}

// parseFraction reads "5%" or "0.05".
func parseFraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v != v {
		return 0, fmt.Errorf("%q: want a percentage such as 5%% or a fraction such as 0.05", s)
	}
	if pct {
		v /= 100
	}
	if v > 10 {
		return 0, fmt.Errorf("%q: more than 1000 %%", s)
	}
	return v, nil
}

// checkJSON is a check as the json format writes it; NaN is null.
func checkJSON(c *history.CheckResult) any {
	num := func(v float64) *float64 {
		if v != v || v > 1e308 || v < -1e308 {
			return nil
		}
		return &v
	}
	type change struct {
		Baseline int64    `json:"baseline"`
		Value    *float64 `json:"baseline_value"`
		Worse    *float64 `json:"worsening"`
		Lo       *float64 `json:"ci_lo,omitempty"`
		Hi       *float64 `json:"ci_hi,omitempty"`
		Verdict  string   `json:"verdict,omitempty"`
	}
	type finding struct {
		Metric    string   `json:"metric"`
		Value     *float64 `json:"value"`
		Regressed bool     `json:"regressed"`
		Why       string   `json:"why"`
		Changes   []change `json:"changes"`
	}
	var fs []finding
	for _, f := range c.Findings {
		out := finding{Metric: f.Metric, Value: num(f.Value), Regressed: f.Regressed, Why: f.Why}
		for i, ch := range f.Changes {
			cj := change{Baseline: c.Baselines[i].ID, Value: num(f.Baselines[i]), Worse: num(ch.Worse), Verdict: ch.Verdict}
			if ch.HasCI {
				cj.Lo, cj.Hi = num(ch.Lo), num(ch.Hi)
			}
			out.Changes = append(out.Changes, cj)
		}
		fs = append(fs, out)
	}
	var base []int64
	for _, b := range c.Baselines {
		base = append(base, b.ID)
	}
	return map[string]any{"run": c.Run.ID, "interrupted": c.Run.Interrupted, "baselines": base, "regressed": c.Regressed, "findings": fs, "notes": c.Notes}
}
