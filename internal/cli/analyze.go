package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/merge"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/vllmresult"
)

func newAnalyzeCmd(env *Env) *cobra.Command {
	var mf metricsFlags
	var format string
	cmd := &cobra.Command{
		Use:   "analyze FILE...",
		Short: "Recompute every metric from saved records, with any SLO and percentiles",
		Long: `analyze reads records and prints the same summary bench does, so a run can
be judged again with another SLO, other percentiles or another percentile
method without re-running it.

It reads goodput record files (JSON Lines, "-" for standard input), result
directories holding one run (or the shards of one run), run summary files, the seeds' simple request log ({"arrival": s, "token_times": [s, ...]} as a JSON array
or JSON Lines), vllm bench serve results saved with --save-result
--save-detailed, AIPerf's profile_export.jsonl, GuideLLM's benchmarks.json
or .yaml (a sweep's report holds a run per benchmark: name one as FILE#N,
from 1), genai-bench's result of one load (an experiment folder holds a
file per load: name one, or the folder when it holds one), and
inference-perf's per_request_lifecycle_metrics.json (a run per stage, told
apart by the stage reports beside it: FILE#N too). Any of them may be
gzip-compressed (run.jsonl.gz). Several goodput files (the shards of one
run, or the clients of one run begun within a second of each other) are
merged on their common clock; files of different runs, or a copy of one,
are refused.

A goodput run is judged by its own SLO, the one its summary file beside
the records recorded, and its own percentile method, unless --slo,
--goodput or --percentile-method says otherwise.`,
		Example: `  goodput analyze results/goodput-20261129-080000.jsonl
  goodput analyze run.jsonl --slo 'ttft<=300ms,tpot<=30ms' --metric-percentiles 50,95,99.9
  goodput analyze vllm-result.json --goodput ttft:500 tpot:50 --format json
  goodput analyze artifacts/my-run/profile_export.jsonl --slo 'ttft<=500ms'
  goodput analyze benchmarks.json#3
  goodput analyze reports-20260101-120000/per_request_lifecycle_metrics.json#2
  goodput analyze shard-*.jsonl --gate 'p99(ttft)<=500ms' --gate 'attainment>=0.9'`,
		Args: func(cmd *cobra.Command, args []string) error {
			var files []string
			for _, a := range args {
				if goodputWord.MatchString(a) && len(mf.goodput) > 0 {
					mf.goodput = append(mf.goodput, a)
					continue
				}
				files = append(files, a)
			}
			if len(files) == 0 {
				return usageErr("%s: give at least one record file", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var files []string
			for _, a := range args {
				if !(goodputWord.MatchString(a) && len(mf.goodput) > 0) {
					files = append(files, a)
				}
			}
			if format != "text" && format != "json" {
				return usageErr("--format %q: want text or json", format)
			}
			var opts metrics.Options
			gates, err := mf.apply(&opts)
			if err != nil {
				return err
			}
			own := runDefaults{
				slo:    !cmd.Flags().Changed("slo") && !cmd.Flags().Changed("goodput"),
				method: !cmd.Flags().Changed("percentile-method"),
			}
			a, err := analyzeFiles(env, files, opts, own)
			if err != nil {
				return err
			}
			res := a.Result
			if format == "json" {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else if err := report.Text(env.Stdout, res, a.textOptions()); err != nil {
				return err
			}
			return reportGates(env.besideJSON(format), gates, res)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	mf.register(cmd, true)
	return cmd
}

// runDefaults says what analyze takes from the run itself where no flag
// says otherwise: the SLO its summary recorded, the percentile method its
// header did.
type runDefaults struct{ slo, method bool }

// analysis is what analyze makes of records.
type analysis struct {
	Result *metrics.Result
	// Notes are printed before the summary: the SLO the run was judged
	// by, the merge's account of its shards, warnings.
	Notes []string
	// Peak is vLLM's busiest second of output and most requests active
	// in one second; nil where a record's time came before the run's
	// clock began, which leaves vLLM's seconds unknown.
	Peak *report.Peak
}

// newAnalysis is the analysis of records summarised as res, with vLLM's
// peaks as peak counted them.
func newAnalysis(res *metrics.Result, notes []string, peak *vllmresult.PeakCounter) analysis {
	a := analysis{Result: res, Notes: notes}
	if tps, conc, ok := peak.Figures(); ok {
		a.Peak = &report.Peak{OutputTokensPerSecond: tps, ConcurrentRequests: conc}
	}
	return a
}

// textOptions prints the analysis as bench prints a run: the notes, then
// the summary with vLLM's peak lines.
func (a analysis) textOptions() report.TextOptions {
	o := report.TextOptions{Notes: a.Notes}
	if a.Peak != nil {
		o.VLLM = &report.VLLMLines{Peak: a.Peak}
		if n := peakNote(a.Result, a.Peak); n != "" {
			o.Notes = append(slices.Clone(o.Notes), n)
		}
	}
	return o
}

// peakNote explains a peak of output below the mean rate, which a run of
// less than a few whole seconds shows; empty otherwise.
func peakNote(res *metrics.Result, pk *report.Peak) string {
	mean := res.Throughput.OutputTokensPerSecond
	if pk.OutputTokensPerSecond >= mean {
		return ""
	}
	// Whole seconds from the first send: a run of less than a few of
	// them fills none, and its peak reads below its mean.
	return fmt.Sprintf("Peak output token throughput counts the tokens of whole seconds from the first send, as vLLM does: over a run of %s s it reads below the mean rate (%s tok/s)",
		strconv.FormatFloat(res.Window.Seconds, 'f', 2, 64), strconv.FormatFloat(mean, 'f', 2, 64))
}

// analyzeFiles folds every record of files into one Summary. Files with a
// run header are placed on the clock of the earliest one, so the shards of a
// run merge exactly; the merge's account of the shards joins the notes.
func analyzeFiles(env *Env, files []string, opts metrics.Options, own runDefaults) (analysis, error) {
	var all []string
	for _, name := range files {
		// A result directory or a summary file stands for its run's
		// records; the directory of a sharded run for every shard's; a
		// genai-bench experiment folder for its one load.
		fs, err := report.RunFiles(name)
		if err != nil {
			return analysis{}, err
		}
		all = append(all, fs...)
	}
	files = all
	var notes []string
	if own.slo {
		cs, note := runSLO(files)
		if cs != nil {
			cs.Apply(&opts)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	set, err := merge.Open(files, env.Stdin, merge.Options{})
	if err != nil {
		return analysis{}, err
	}
	defer set.Close()
	if own.method {
		if m, ok := runMethod(set.Parts()); ok {
			opts.Method = m
		}
	}
	// A file whose records do not say when their requests were sent
	// (genai-bench's) carries its run's window.
	if w, err := set.Window(); err != nil {
		return analysis{}, err
	} else if w > 0 {
		opts.Window = w
	}
	sum := metrics.NewSummary(opts)
	// Records are on the clock of the run's start (the earliest file's),
	// so no send comes before 0.
	peak := vllmresult.NewPeakCounter(0)
	err = set.Each(func(_ int, b []record.Record) error {
		for i := range b {
			sum.Add(&b[i])
			peak.AddRecord(&b[i])
		}
		return nil
	})
	if err != nil {
		return analysis{}, err
	}
	rep, err := set.Report(merge.Options{})
	if err != nil {
		return analysis{}, err
	}
	notes = append(notes, rep.Notes...)
	for _, w := range rep.Warnings {
		notes = append(notes, "WARNING: "+w)
	}
	return newAnalysis(sum.Close(), notes, peak), nil
}

// runSLO returns the SLO that the summaries beside files recorded, when
// they agree on one, with a note that says so; nil where none recorded
// one, with a note where they disagree or one cannot be read.
func runSLO(files []string) (slo.Conditions, string) {
	var (
		found slo.Conditions
		from  []string
	)
	for _, f := range files {
		sum, err := report.SummaryBeside(f)
		if err != nil {
			return nil, fmt.Sprintf("the run's SLO is not used (%v): the default SLO judges it", err)
		}
		if sum == nil {
			continue
		}
		path, _ := report.SummaryPath(f)
		cs, err := sum.SLO()
		switch {
		case err != nil:
			return nil, fmt.Sprintf("the run's SLO is not used (%s: %v): the default SLO judges it", path, err)
		case cs == nil:
			continue
		case found != nil && cs.String() != found.String():
			return nil, fmt.Sprintf("the runs' summaries record different SLOs (%s, %s): the default SLO judges them; --slo names one", found, cs)
		}
		found = cs
		from = append(from, filepath.Base(path))
	}
	if found == nil {
		return nil, ""
	}
	return found, fmt.Sprintf("SLO: the run's own, %s, from %s (--slo or --goodput judges it by another)", found, strings.Join(from, ", "))
}

// runMethod returns the percentile method every part's header recorded,
// when they agree.
func runMethod(parts []merge.Part) (metrics.Method, bool) {
	var m metrics.Method
	for i, p := range parts {
		pm, ok := report.HeaderMethod(p.Header)
		if !ok || i > 0 && pm != m {
			return 0, false
		}
		m = pm
	}
	return m, len(parts) > 0
}
