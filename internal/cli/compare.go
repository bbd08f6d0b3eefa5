package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sweepserve"
)

func newCompareCmd(env *Env) *cobra.Command {
	var (
		mf        metricsFlags
		out       string
		format    string
		resamples int
		seed      uint64
		conf      float64
		point     bool
	)
	cmd := &cobra.Command{
		Use:   "compare BASELINE RUN [RUN...]",
		Short: "Compare runs side by side, with confidence intervals and comparability warnings",
		Long: `compare sets runs side by side against the first (the baseline): throughput,
goodput, attainment, and the p50 and p99 of TTFT, TPOT, ITL and e2e, with
absolute and relative differences.

Each latency difference gets a bootstrap confidence interval (95 % by
default): each run's requests are resampled in blocks of consecutive
requests, since requests in flight together share the server's state. A
difference whose interval holds zero is called noise: a 3 % change inside
the run-to-run spread is not a regression. The intervals cover the spread
between runs of the same seeded schedule.

It warns when runs are not comparable: different output lengths or stop
criteria (ignore_eos), different prompt lengths, warm-up excluded in one run
but not the other, different percentile methods, different load shapes.

Runs are record files (any format analyze reads) or result directories, all
read with the same SLO and percentiles. The folder of a goodput sweep serve
experiment stands for the first run of each of its settings. --gate takes the gates bench does,
checked on every run after the baseline, and regression gates against the
baseline, such as 'regression(p99 ttft) <= 10%' (a rise of latency or error
rate, or a fall of throughput, goodput or attainment, is a regression).

Runs of sessions or agent tasks can be gated on them: session_goodput,
session_attainment and the statistics of session_duration, and likewise
task_goodput, task_attainment and task_completion, as in
'regression(session_goodput) <= 5%' or 'regression(p99 session_duration) <= 10%'.
A gate on sessions (tasks) fails, saying so, when a run has none.

A regression gate on a percentile, or on the sessions' or tasks' goodput or
attainment, is judged as its row is: a difference whose interval holds zero
is noise and counts as no change, so the gate never fails on what the table
calls noise. --point-estimate judges every regression gate on the point
estimates instead; the output says which was done. The command exits with
code 3 when a gate fails.`,
		Example: `  goodput compare main.jsonl pr.jsonl
  goodput compare base/ new/ --gate 'regression(p99 ttft) <= 10%' --gate 'regression(throughput) <= 5%'
  goodput compare main-chat.jsonl pr-chat.jsonl --gate 'regression(session_goodput) <= 5%' --gate 'regression(p99 session_duration) <= 10%'
  goodput compare a.jsonl b.jsonl c.jsonl --format markdown >> $GITHUB_STEP_SUMMARY
  goodput compare base/ new/ -o compare.html   # a self-contained page with the intervals drawn`,
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := expandExperiments(env, takeGoodputWords(&mf, args))
			if err != nil {
				return err
			}
			if len(files) < 2 {
				return usageErr("%s: give a baseline and at least one run to compare with it", cmd.CommandPath())
			}
			if format == "" {
				format = "text"
				if ext := strings.ToLower(filepath.Ext(out)); ext == ".html" || ext == ".htm" {
					format = "html"
				}
			}
			if format != "text" && format != "markdown" && format != "md" && format != "html" {
				return usageErr("--format %q: want text, markdown or html", format)
			}
			o := report.CompareOptions{Resamples: resamples, Seed: seed, Confidence: conf, PointEstimate: point}
			var plain []string
			for _, g := range mf.gates {
				if !report.IsRegressionGate(g) {
					plain = append(plain, g)
					continue
				}
				rg, err := report.ParseRegressionGate(g)
				if err != nil {
					return usageErr("--gate: %v", err)
				}
				o.Regressions = append(o.Regressions, rg)
			}
			mf.gates = plain
			var mo metrics.Options
			gates, err := mf.apply(&mo)
			if err != nil {
				return err
			}
			o.Gates = gates
			for _, rg := range o.Regressions {
				if rg.Quantity.P > 0 {
					mo.Percentiles = append(mo.Percentiles, rg.Quantity.P)
				}
			}
			// The intervals are for p50 and p99.
			for _, p := range []float64{50, 99} {
				if !slices.Contains(mo.Percentiles, p) {
					mo.Percentiles = append(mo.Percentiles, p)
				}
			}
			if err := o.Validate(); err != nil {
				return usageErr("%v", err)
			}
			ro, err := runOptions(mo, nil)
			if err != nil {
				return err
			}
			ro.Seed = seed
			if n := slices.Index(files, "-"); n >= 0 && slices.Index(files[n+1:], "-") >= 0 {
				return usageErr("compare: standard input can be read once: give \"-\" for one run at most")
			}
			inputs := slices.Clone(files)
			for _, f := range files {
				if kind, file, err := report.Locate(f); err == nil {
					inputs = append(inputs, report.InputFiles(kind, file)...)
				}
			}
			if err := outputNotInput("--output", out, inputs...); err != nil {
				return err
			}
			runs := make([]*report.Run, len(files))
			for i, f := range files {
				in, err := report.Load(f, env.Stdin, ro)
				if err != nil {
					return fmt.Errorf("compare: %w", err)
				}
				if in.Sweep != nil {
					return usageErr("compare: %s is a sweep: compare takes runs (record files or run directories)", f)
				}
				runs[i] = in.Run
			}
			c, err := report.Compare(runs, o)
			if err != nil {
				return err
			}
			err = writeOutput(env, out, func(w io.Writer) error {
				switch format {
				case "text":
					return report.WriteCompareText(w, c)
				case "html":
					return report.WriteCompareHTML(w, c, report.HTMLOptions{Tool: "goodput " + Version})
				}
				return report.WriteCompareMarkdown(w, c)
			})
			if err != nil {
				return err
			}
			if out != "" && out != "-" {
				fmt.Fprintf(env.Stdout, "Wrote %s\n", out)
			}
			if !c.Pass {
				failed, total := 0, 0
				for _, rs := range c.Gates {
					for _, g := range rs {
						total++
						if !g.Pass {
							failed++
						}
					}
				}
				for _, g := range c.Regressions {
					total++
					if !g.Pass {
						failed++
					}
				}
				return &ExitError{Code: ExitGateFail, Err: fmt.Errorf("compare: %d of %d gates failed", failed, total)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "-", `file to write, "-" for standard output`)
	f.StringVar(&format, "format", "", "text, markdown or html (default: html for an --output ending .html, else text)")
	f.IntVar(&resamples, "resamples", report.DefaultResamples, "bootstrap resamples per run (100 to 100000)")
	f.Uint64Var(&seed, "seed", 1, "seed of the bootstrap, so that a comparison is reproducible")
	f.Float64Var(&conf, "confidence", report.DefaultConfidence, "coverage of the intervals, e.g. 0.95 or 0.99")
	f.BoolVar(&point, "point-estimate", false, "judge regression gates on point estimates, even where the interval calls the difference noise")
	mf.register(cmd, true)
	return cmd
}

// expandExperiments replaces the folder of a sweep over server settings
// (goodput sweep serve) with the first run of each of its settings, and
// says so.
func expandExperiments(env *Env, files []string) ([]string, error) {
	var out []string
	for _, f := range files {
		combos, ok, err := sweepserve.ReadExperiment(f)
		if err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		if !ok {
			out = append(out, f)
			continue
		}
		runs, err := sweepserve.FirstRuns(f, combos)
		if err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		fmt.Fprintf(env.Stderr, "compare: %s is a sweep over server settings: comparing the first run of each of its %d settings (name run files to compare others)\n", f, len(runs))
		out = append(out, runs...)
	}
	return out, nil
}
