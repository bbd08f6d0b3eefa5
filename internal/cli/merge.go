package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/merge"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/vllmresult"
)

// mergeFlags are the flag values of `goodput merge`.
type mergeFlags struct {
	output, report, format string
	wait                   bool
	shards                 int
	waitTimeout            time.Duration
	allowPartial           bool
	checks                 merge.Options
	metrics                metricsFlags
}

func newMergeCmd(env *Env) *cobra.Command {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:   "merge FILE_OR_DIR...",
		Short: "Merge the shards of a sharded run into one run, and say which are missing or partial",
		Long: `merge reads the record files of one run, usually its shards (bench --shards,
one file per shard, several machines), puts every record on one clock and
prints the run's summary: percentiles over all records, never averaged per
shard. A directory stands for the record files in it.

It checks the shards against each other: it names each shard that is missing
and each that is partial (cut off when its process was killed, interrupted,
started late, short of its planned requests), checks that their sequence
numbers together are the planned schedule, and warns when the shards began
further apart than --max-start-spread or their clocks, measured against the
server at the start, disagree by more than --max-clock-spread. The merged
window is given with the span of it when every shard was sending.

Files without a shard header are merged as the concurrent clients of one
run: they must have been run with the same settings and begun within
--max-start-spread of each other, and a copy of one file is refused.

--output writes the merged records (one file, listing its parts, each record
labelled with its shard; gzip-compressed when its name ends in .gz) and
--report its HTML report. With --wait, merge
first waits in the directory until all --shards have finished (the merge
step of a Kubernetes Job), for at most --wait-timeout.

An incomplete run exits with code 1 after writing everything, unless
--allow-partial; a failed --gate exits with 3.`,
		Example: `  goodput merge runs/ --output runs/merged.jsonl --report runs/report.html
  goodput merge runs/goodput-20261129-100000-shard*.jsonl --gate 'p99(ttft)<=500ms'
  goodput merge /results/run --wait --shards 4 --wait-timeout 30m --output /results/run/merged.jsonl`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(cmd, env, &f, takeGoodputWords(&f.metrics, args))
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "", "write the merged records to this file (NAME.jsonl, or NAME.jsonl.gz compressed)")
	fl.StringVar(&f.report, "report", "", "also write the merged run's HTML report to this file (needs --output)")
	fl.StringVar(&f.format, "format", "text", "output: text or json")
	fl.BoolVar(&f.wait, "wait", false, "first wait in the directory until every shard has finished (needs --shards)")
	fl.IntVar(&f.shards, "shards", 0, "shards of the run, for --wait")
	fl.DurationVar(&f.waitTimeout, "wait-timeout", 2*time.Hour, "with --wait, merge what is there after this long")
	fl.BoolVar(&f.allowPartial, "allow-partial", false, "exit 0 even when shards are missing or partial")
	fl.DurationVar(&f.checks.MaxStartSpread, "max-start-spread", merge.DefaultMaxStartSpread, "warn when the shards began further apart than this; refuse files without a shard header begun further apart (two runs, not one run's clients)")
	fl.DurationVar(&f.checks.MaxClockSpread, "max-clock-spread", merge.DefaultMaxClockSpread, "warn when the shards' clocks disagree by more than this")
	f.metrics.register(cmd, true)
	return cmd
}

func runMerge(cmd *cobra.Command, env *Env, f *mergeFlags, args []string) error {
	if len(args) == 0 {
		return usageErr("%s: give the record files of a run, or their directory", cmd.CommandPath())
	}
	if f.format != "text" && f.format != "json" {
		return usageErr("--format %q: want text or json", f.format)
	}
	if f.report != "" && f.output == "" {
		return usageErr("--report renders the merged records: give --output too")
	}
	if cmd.Flags().Changed("shards") && !f.wait {
		return usageErr("--shards says how many shards --wait waits for: give --wait too (without it, merge reads the shards that are there and names the missing ones)")
	}
	if f.wait {
		if len(args) != 1 || f.shards < 1 {
			return usageErr("--wait watches one directory for --shards shards: give both")
		}
		w := &merge.Waiter{Dir: args[0], Count: f.shards, Timeout: f.waitTimeout,
			Progress: func(s string) { fmt.Fprintf(env.Stderr, "goodput merge: %s\n", s) }}
		pending, err := w.Wait(cmd.Context())
		if err != nil {
			return fmt.Errorf("--wait: %w", err)
		}
		if len(pending) > 0 {
			fmt.Fprintf(env.Stderr, "goodput merge: waited %v; merging without a finished file of %d shards\n", f.waitTimeout, len(pending))
		}
	}
	var opts metrics.Options
	gates, err := f.metrics.apply(&opts)
	if err != nil {
		return err
	}
	files, err := merge.Files(args)
	if err != nil {
		return err
	}
	if f.output != "" {
		if files, err = merge.WithoutOutput(files, f.output); err != nil {
			return usageErr("%v", err)
		}
	}
	set, err := merge.Open(files, env.Stdin, f.checks)
	if err != nil {
		return err
	}
	defer set.Close()
	sum := metrics.NewSummary(opts)
	// The merged records are on the earliest shard's clock: no send
	// comes before 0.
	peak := vllmresult.NewPeakCounter(0)
	add := func(recs []record.Record) {
		for i := range recs {
			sum.Add(&recs[i])
			peak.AddRecord(&recs[i])
		}
	}
	var rep *merge.Report
	if f.output != "" {
		rep, err = set.WriteFile(f.output, "goodput "+Version, f.checks, add)
	} else {
		if err = set.Each(func(_ int, recs []record.Record) error { add(recs); return nil }); err == nil {
			rep, err = set.Report(f.checks)
		}
	}
	if err != nil {
		return err
	}
	a := newAnalysis(sum.Close(), rep.Notes, peak)
	res := a.Result
	if err := printMerge(env, f.format, a, rep); err != nil {
		return err
	}
	// Standard output holds the summary alone in JSON; what was written
	// and the gates go beside it.
	info := env.besideJSON(f.format)
	if f.output != "" {
		fmt.Fprintf(info.Stdout, "Wrote %s\n", f.output)
		if err := copyServerSeries(set.ServerFile(), f.output); err != nil {
			fmt.Fprintf(info.Stdout, "WARNING: the server's series was not copied beside the merged run: %v\n", err)
		}
	}
	if f.report != "" {
		if err := writeHTMLReport(info, f.output, f.report, opts); err != nil {
			return err
		}
	}
	gateErr := reportGates(info, gates, res)
	if !rep.Complete() && !f.allowPartial {
		return fmt.Errorf("the merged run is not the planned one (%s): its numbers cover what was measured; --allow-partial accepts it", rep.Gaps())
	}
	return gateErr
}

func printMerge(env *Env, format string, a analysis, rep *merge.Report) error {
	if format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"result": a.Result, "merge": rep})
	}
	o := a.textOptions()
	o.Title = "Merged Benchmark Result"
	if err := report.Text(env.Stdout, a.Result, o); err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(env.Stdout, "WARNING: %s\n", w)
	}
	return nil
}

// copyServerSeries copies a shard's saved server series beside the merged
// records (NAME.jsonl or NAME.jsonl.gz), where report finds it; nothing
// when there is none.
func copyServerSeries(src, mergedRecords string) error {
	if src == "" {
		return nil
	}
	base, ok := strings.CutSuffix(strings.TrimSuffix(mergedRecords, report.GzipSuffix), report.RecordsSuffix)
	if !ok {
		return errors.New("the merged file's name does not end in " + report.RecordsSuffix + " (or " + report.RecordsSuffix + report.GzipSuffix + ")")
	}
	// The series keeps its own form: a compressed one stays compressed.
	dst := base + report.ServerSuffix
	if strings.HasSuffix(src, report.GzipSuffix) {
		dst += report.GzipSuffix
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
