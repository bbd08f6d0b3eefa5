package cli

import (
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/merge"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
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
apart by the stage reports beside it: FILE#N too). Several goodput files
(the shards of one run) are merged on their common clock.`,
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
			res, notes, err := analyzeFiles(env, files, opts)
			if err != nil {
				return err
			}
			if format == "json" {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(res); err != nil {
					return err
				}
			} else if err := report.Text(env.Stdout, res, report.TextOptions{Notes: notes}); err != nil {
				return err
			}
			return reportGates(env.besideJSON(format), gates, res)
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output: text or json")
	mf.register(cmd, true)
	return cmd
}

// analyzeFiles folds every record of files into one Summary. Files with a
// run header are placed on the clock of the earliest one, so the shards of a
// run merge exactly; the merge's account of the shards joins the notes.
func analyzeFiles(env *Env, files []string, opts metrics.Options) (*metrics.Result, []string, error) {
	var all []string
	for _, name := range files {
		// A result directory or a summary file stands for its run's
		// records; the directory of a sharded run for every shard's; a
		// genai-bench experiment folder for its one load.
		fs, err := report.RunFiles(name)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, fs...)
	}
	files = all
	set, err := merge.Open(files, env.Stdin)
	if err != nil {
		return nil, nil, err
	}
	defer set.Close()
	// A file whose records do not say when their requests were sent
	// (genai-bench's) carries its run's window.
	if w, err := set.Window(); err != nil {
		return nil, nil, err
	} else if w > 0 {
		opts.Window = w
	}
	sum := metrics.NewSummary(opts)
	err = set.Each(func(_ int, b []record.Record) error {
		for i := range b {
			sum.Add(&b[i])
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	rep, err := set.Report(merge.Options{})
	if err != nil {
		return nil, nil, err
	}
	notes := rep.Notes
	for _, w := range rep.Warnings {
		notes = append(notes, "WARNING: "+w)
	}
	return sum.Close(), notes, nil
}
