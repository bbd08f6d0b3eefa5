package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/vllmargs"
	"github.com/goodput-dev/goodput/vllmresult"
)

// benchFlags are the flag values of `goodput bench` that need work before
// they fit bench.Config.
type benchFlags struct {
	rate    string
	arrival string
	ramp    string
	format  string
	quiet   bool
	report  string
	startAt string
	dryRun  bool

	targetFlags
	simFlags
	metrics metricsFlags
	vllm    vllmFlags
	live    liveFlags
	hist    historyFlags
}

func newBenchCmd(env *Env) *cobra.Command { return benchCommand(env, runBench) }

// benchCommand builds the bench command, whose flags, once parsed, run
// calls with: bench's own run, or `goodput k8s` reading a bench command
// line without running it.
func benchCommand(env *Env, run func(*cobra.Command, *Env, bench.Config, *benchFlags) error) *cobra.Command {
	cfg := bench.DefaultConfig()
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Load-test an OpenAI-compatible server (or the built-in simulator) and report TTFT, TPOT, ITL, throughput and goodput",
		Long: `bench drives one LLM server with a workload at a given load and reports
TTFT, TPOT, ITL and end-to-end latency at percentiles, throughput, goodput and
SLO attainment. Every request becomes a record, written to --result-dir as it
completes.

Without --base-url it starts the built-in simulator (a vLLM-compatible server
modelling Llama-3.1-8B on one H100) on 127.0.0.1 and benchmarks it over HTTP.

TTFT counts from each request's scheduled time, so a generator that falls
behind cannot hide queueing; the run reports its own lag and says when the
generator, not the server, was the limit.`,
		Example: `  goodput bench
  goodput bench serve --model meta-llama/Llama-3.1-8B-Instruct --port 8000 --num-prompts 500   # vllm bench serve's line
  goodput bench --base-url http://127.0.0.1:8000 --request-rate 8 --num-prompts 500 \
      --random-input-len 512 --random-output-len 128 --goodput ttft:500 tpot:50
  goodput bench --base-url http://127.0.0.1:8000 --backend openai-chat --max-concurrency 32 \
      --dataset-name sharegpt --dataset-path ShareGPT_V3.json --result-dir runs --save-result`,
		// The flags are parsed here, after a vllm bench serve command line
		// is put in goodput's spelling (abbreviations, underscores, several
		// values after one flag); see package vllmargs.
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.InitDefaultHelpFlag()
			// `goodput bench sweep …` is `vllm bench sweep …` with only
			// the program's name changed: goodput sweep.
			if len(args) > 0 && args[0] == "sweep" && cmd.HasParent() {
				root := cmd.Root()
				root.SetArgs(append([]string{"sweep"}, args[1:]...))
				return root.ExecuteContext(cmd.Context())
			}
			// `goodput bench serve …` is `vllm bench serve …` likewise.
			serve := len(args) > 0 && args[0] == "serve"
			if serve {
				args = args[1:]
			}
			line, err := vllmargs.Translate(args, cmd.Flags())
			if err != nil {
				return usageErr("%s: %v", cmd.CommandPath(), err)
			}
			if serve && !line.VLLMStyle {
				line.VLLMStyle, line.Because = true, "bench serve"
			}
			if err := cmd.Flags().Parse(line.Args); err != nil {
				return usageErr("%s: %v", cmd.CommandPath(), plainFlagError(err))
			}
			if help, _ := cmd.Flags().GetBool("help"); help {
				return cmd.Help()
			}
			if err := goodputArgs(&f.metrics)(cmd, cmd.Flags().Args()); err != nil {
				return err
			}
			f.vllm.line = line
			return run(cmd, env, cfg, &f)
		},
	}
	fl := cmd.Flags()
	registerTargetFlags(fl, &cfg, &f.targetFlags)

	fl.StringVar(&f.rate, "request-rate", "inf", "requests per second (inf: all at once, or a closed loop with --max-concurrency)")
	fl.Float64Var(&cfg.Arrival.Burstiness, "burstiness", cfg.Arrival.Burstiness, "gamma shape of arrivals: 1 Poisson, <1 burstier, >1 smoother")
	fl.StringVar(&f.arrival, "arrival", "", "arrival process: poisson, gamma or constant (default: by --burstiness)")
	fl.StringVar(&f.ramp, "ramp-up-strategy", "", "ramp the rate up: linear or exponential")
	fl.Float64Var(&cfg.Arrival.Ramp.From, "ramp-up-start-rps", 0, "rate at the start of the ramp")
	fl.DurationVar(&cfg.Arrival.Ramp.Over, "ramp-up-duration", 0, "how long the ramp takes")
	fl.Var(oneLoad{dst: &cfg.Arrival.MaxConcurrency}, "max-concurrency", "cap on requests in flight (alone: a closed loop of this many)")
	fl.IntVar(&cfg.Arrival.NumPrompts, "num-prompts", 1000, "requests to send (200 against the built-in simulator)")
	fl.DurationVar(&cfg.Arrival.Duration, "duration", 0, "stop scheduling after this long; alone, it lifts the --num-prompts default (with both, whichever comes first)")
	fl.Uint64Var(&cfg.Arrival.Seed, "seed", 0, "seed for arrivals and prompts")
	fl.IntVar(&cfg.Arrival.Shard, "shard", 0, "this process's shard, 0 ≤ shard < --shards (default $JOB_COMPLETION_INDEX)")
	fl.IntVar(&cfg.Arrival.Shards, "shards", 0, "split the schedule over this many processes")
	fl.StringVar(&f.startAt, "start-at", "", "agreed start time of a sharded run, RFC 3339 (e.g. 2026-11-29T10:00:00Z): wait for it and count the schedule from it")

	registerWorkloadFlags(fl, &cfg)

	fl.DurationVar(&cfg.LagThreshold, "lag-threshold", cfg.LagThreshold, "p99 generator lag above which the run is called generator-limited")

	fl.StringVar(&cfg.ResultDir, "result-dir", "", "directory for the records (JSON Lines, written as measured) and summaries")
	fl.StringVar(&cfg.RunName, "run-name", "", "file name stem in --result-dir (default goodput-<time>)")
	fl.BoolVar(&cfg.SaveResult, "save-result", false, "also write a JSON summary to --result-dir")
	fl.BoolVar(&cfg.Overwrite, "overwrite", false, "replace the files of an earlier run with the same --run-name in --result-dir")
	fl.BoolVar(&cfg.IgnoreWriteErrors, "ignore-write-errors", false, "keep measuring when records can no longer be written to --result-dir (the summary still covers every request)")
	fl.StringVar(&f.format, "format", "text", "output: text, json, or vllm (text, plus a vllm bench serve result JSON in --result-dir)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the load plan and the workload, send nothing")
	fl.StringVar(&f.report, "report", "", "also write the run's self-contained HTML report to this file (needs --result-dir)")

	registerSimFlags(fl, &f.simFlags, true)
	f.live.register(fl)
	f.hist.register(fl)

	f.metrics.register(cmd, true)
	registerVLLMFlags(fl, &cfg, &f.vllm)
	// Two flags keep vLLM's meaning in bench (see docs/vllm.md).
	fl.Lookup("label").Usage = "prefix of vLLM's result file name (default: the backend); key=value labels the records, as --record-label"
	fl.Lookup("num-warmups").Usage = "warm-up requests sent before the run, left out of it (not taken from --num-prompts)"
	fl.Lookup("save-result").Usage = "write vLLM's result JSON (in --result-dir or the current directory), goodput's records and JSON summary beside it"
	return cmd
}

func runBench(cmd *cobra.Command, env *Env, cfg bench.Config, f *benchFlags) error {
	gates, err := prepareBench(cmd, env, &cfg, f)
	if err != nil {
		return err
	}
	// A dataset vLLM fetched is read from where it put it; not for a
	// Kubernetes Job, whose pods have caches of their own.
	if err := fromHubCache(&cfg, &f.vllm.notes); err != nil {
		return err
	}
	if cfg.BaseURL == "" {
		// A newcomer's first run should answer in seconds.
		if !cmd.Flags().Changed("num-prompts") && !cmd.Flags().Changed("duration") && !replaysWhole(cmd, &cfg) {
			cfg.Arrival.NumPrompts = simDefaultPrompts
		}
	}
	if f.dryRun {
		// A dry run refuses what the run would: the simulator's address
		// stands in for the one it would start.
		check := cfg
		if check.BaseURL == "" {
			check.BaseURL = "http://127.0.0.1:8000"
		}
		if err := check.Validate(); err != nil {
			return usageErr("%v", err)
		}
		for _, n := range f.vllm.notes {
			fmt.Fprintf(env.Stderr, "goodput: %s\n", n)
		}
		return printBenchPlan(env, cfg)
	}
	return runBenchPrepared(cmd, env, cfg, f, gates)
}

// prepareBench turns the flags that need parsing into cfg and returns the
// gates: everything bench does before it needs a server.
func prepareBench(cmd *cobra.Command, env *Env, cfg *bench.Config, f *benchFlags) (slo.Gates, error) {
	var err error
	if cfg.Arrival.RequestRate, err = parseRate(f.rate); err != nil {
		if strings.Contains(f.rate, ",") {
			return nil, usageErr("--request-rate %q: bench runs one load; to measure several, run goodput sweep --request-rate %s", f.rate, f.rate)
		}
		return nil, usageErr("--request-rate: %v", err)
	}
	if f.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, f.startAt)
		if err != nil {
			return nil, usageErr("--start-at %q: want an RFC 3339 time such as 2026-11-29T10:00:00Z", f.startAt)
		}
		cfg.StartAt = t
	}
	if err := shardFromJob(cmd, env, cfg); err != nil {
		return nil, err
	}
	cfg.Node = env.getenv(nodeEnv)
	// One --seed makes both the schedule and the prompts reproducible.
	cfg.Workload.Seed = cfg.Arrival.Seed
	cfg.Arrival.Arrival = arrivalKind(f.arrival)
	cfg.Arrival.Ramp.Kind = rampKind(f.ramp)
	notes, err := f.vllm.apply(cmd, cfg, &f.targetFlags, &f.metrics)
	if err != nil {
		return nil, err
	}
	f.vllm.notes = notes
	// vLLM's summary lines, and its queueing blocks where asked for, need
	// its view of each request.
	cfg.VLLMFile.Collect = f.vllm.line.VLLMStyle || slices.ContainsFunc(cfg.VLLMFile.Metrics, func(m string) bool {
		return m == vllmresult.MetricQueue || m == vllmresult.MetricE2ELQueued
	})
	if err := f.targetFlags.apply(env, cfg); err != nil {
		return nil, err
	}
	if err := simFlagsWithServer(cmd.Flags(), cfg.BaseURL); err != nil {
		return nil, err
	}
	if f.report != "" && cfg.ResultDir == "" {
		return nil, usageErr("--report reads the saved run: give --result-dir too")
	}
	switch f.format {
	case "text", "json":
	case "vllm":
		if cfg.ResultDir == "" {
			return nil, usageErr("--format vllm writes a file: give --result-dir")
		}
		cfg.VLLMResult = true
	default:
		return nil, usageErr("--format %q: want text, json or vllm", f.format)
	}
	gates, err := f.metrics.apply(&cfg.Metrics)
	if err != nil {
		return nil, err
	}
	if err := cfg.Metrics.Validate(); err != nil {
		return nil, usageErr("%v", err)
	}

	if cmd.Flags().Changed("duration") && !cmd.Flags().Changed("num-prompts") {
		cfg.Arrival.NumPrompts = 0 // the duration alone bounds the run
	}
	note, err := applyScenario(cmd, cfg)
	if err != nil {
		return nil, err
	}
	if note != "" {
		f.vllm.notes = append(f.vllm.notes, note)
	}
	if err := applyReplay(cmd, cfg); err != nil {
		return nil, err
	}
	return gates, nil
}

// runBenchPrepared is runBench past its preparation.
func runBenchPrepared(cmd *cobra.Command, env *Env, cfg bench.Config, f *benchFlags, gates slo.Gates) error {
	ctx := cmd.Context()
	simulated := cfg.BaseURL == ""
	if simulated {
		if err := checkWorkload(&cfg); err != nil {
			return err
		}
		// A bad flag is told before the simulator starts, whose address
		// the configuration gets only once it listens.
		probe := cfg
		probe.BaseURL = "http://127.0.0.1"
		if err := probe.Validate(); err != nil {
			return usageErr("%v", err)
		}
		stop, err := startSim(ctx, env, &cfg, &f.simFlags)
		if err != nil {
			return err
		}
		defer stop()
		if url := vllmDefaultServer(ctx); url != "" {
			fmt.Fprintf(env.Stderr, "goodput: a server answers at %s, where vllm bench serve sends without --host or --port; this run measures the built-in simulator: give --port 8000 (or --base-url %s) to measure that server\n", url, url)
		}
	}
	for _, n := range f.vllm.notes {
		fmt.Fprintf(env.Stderr, "goodput: %s\n", n)
	}
	if err := cfg.Validate(); err != nil {
		return usageErr("%v", err)
	}
	bench.Version = Version

	var progress = env.Stderr
	if f.quiet {
		progress = nil
	}
	live, err := f.live.start(env, &cfg)
	if err != nil {
		return err
	}
	defer live.finish(ctx)
	hist, err := f.hist.open(ctx, env)
	if err != nil {
		return err
	}
	defer hist.close()
	out, err := bench.Run(ctx, cfg, progress, env.IsTerminal && !f.quiet)
	if errors.Is(err, bench.ErrResultExists) {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if out == nil {
		if ctx.Err() != nil {
			// Interrupted before the run began (waiting for the server to
			// be ready, discovering its model, tokenizing): nothing was
			// measured, and an interruption is not a failure.
			return &ExitError{Code: ExitInterrupt, Err: errors.New("interrupted before the run started; nothing was measured")}
		}
		return err
	}
	// A run that measured always prints its summary, even when some file
	// could not be written (err then says which, and how much is on disk).
	o := summaryOptions(cfg, out, simulated)
	// vLLM prints P50 beside the median for percentiles that name it.
	o.P50 = cmd.Flags().Changed("metric-percentiles")
	if perr := printOutcome(env, f.format, out, o); perr != nil || err != nil {
		return errors.Join(err, perr)
	}
	aside := env.besideJSON(f.format)
	histErr := hist.bench(ctx, aside.Stdout, &cfg, out)
	if f.vllm.plotTimeline {
		// vLLM colours gaps by two thresholds; the timeline marks the
		// gaps above the upper one.
		th, _ := timelineThresholds(f.vllm.timelineITL)
		if err := writeHTMLReportWith(aside, out.RecordsPath, besideResult(cfg, out, ".timeline.html"), cfg.Metrics, report.HTMLOptions{LongGap: th[1] / 1e3}); err != nil {
			return errors.Join(histErr, err)
		}
	}
	if f.vllm.plotDataset {
		if err := writeDatasetStats(aside, out.RecordsPath, besideResult(cfg, out, ".dataset_stats.png")); err != nil {
			return errors.Join(histErr, err)
		}
	}
	if f.report != "" {
		if err := writeHTMLReport(aside, out.RecordsPath, f.report, cfg.Metrics); err != nil {
			return err
		}
	}
	if out.Stopped != "" {
		return fmt.Errorf("%s; the records measured so far are kept", out.Stopped)
	}
	if out.Gone != "" {
		return errors.New(out.Gone)
	}
	if c := out.Result.Counts; !out.Run.Interrupted && c.Total > 0 && c.Completed == 0 {
		return fmt.Errorf("every one of the %d measured requests failed%s%s", c.Total, firstError(c), notFoundHint(cfg, c))
	}
	if c := out.Result.Counts; !out.Run.Interrupted && c.Completed > 0 && c.NoToken == c.Completed {
		// Answers without a token measure no TTFT, TPOT or ITL: a run of
		// nothing else measured nothing a benchmark is for.
		return fmt.Errorf("none of the %d measured requests carried an output token (%d failed, %d answered without one), so no latency was measured: check --endpoint, --backend and what the server streams",
			c.Total, c.Failed, c.NoToken)
	}
	if err := reportGates(aside, gates, out.Result); err != nil {
		return err
	}
	if out.Run.Interrupted {
		return &ExitError{Code: ExitInterrupt, Err: errors.New("interrupted; the records measured so far are kept")}
	}
	return histErr
}

// summaryOptions shapes the terminal summary: vLLM's lines where the run
// has their figures, and the built-in simulator named in the title.
func summaryOptions(cfg bench.Config, out *bench.Outcome, simulated bool) report.TextOptions {
	o := report.TextOptions{Notes: append(slices.Clone(out.Notes), out.Findings...)}
	if simulated {
		o.Title = "Serving Benchmark Result (built-in simulator)"
	}
	for _, m := range cfg.VLLMFile.Metrics {
		switch m {
		case "ttft", "tpot", "itl", "e2el":
			o.Metrics = append(o.Metrics, m)
		}
	}
	if len(cfg.VLLMFile.Metrics) > 0 && o.Metrics == nil {
		o.Metrics = []string{} // only queue metrics: goodput prints those in its client block
	}
	if cfg.NoStream {
		// A whole answer has no token times: TPOT and ITL are not measured.
		if o.Metrics == nil {
			o.Metrics = []string{"ttft", "e2el"}
		}
		o.Metrics = slices.DeleteFunc(o.Metrics, func(m string) bool { return m == "tpot" || m == "itl" })
	}
	v := &report.VLLMLines{RequestRate: cfg.Arrival.RequestRate, Unit: bench.ArrivalUnit(&cfg)}
	if cfg.VLLMFile.MaxConcurrencyGiven || cfg.Arrival.MaxConcurrency > 0 {
		c := cfg.Arrival.MaxConcurrency
		v.MaxConcurrency = &c
	}
	if f := out.VLLM; f != nil {
		v.RequestGoodput = f.RequestGoodput
		v.Peak = &report.Peak{OutputTokensPerSecond: f.PeakOutputTokensPerSecond, ConcurrentRequests: f.PeakConcurrentRequests}
		if n := peakNote(out.Result, v.Peak); n != "" {
			o.Notes = append(o.Notes, n)
		}
		if c := cfg.Arrival.MaxConcurrency; c > 0 && v.Peak.ConcurrentRequests > c {
			// vLLM's seconds: a request counts in every second it was
			// active in, so those that follow one another in a second
			// all count there, past the cap on those in flight at once.
			o.Notes = append(o.Notes, fmt.Sprintf("Peak concurrent requests counts, as vLLM does, every request active at some time in one second: %d here, more than the %d --max-concurrency lets be in flight at once",
				v.Peak.ConcurrentRequests, c))
		}
		for _, q := range f.Queue {
			v.Queue = append(v.Queue, queueBlock(q))
		}
	}
	v.SpecDecode = out.VLLMSpecDecode()
	v.Diffusion = out.VLLMDiffusion()
	if pr := out.Probes; pr != nil {
		st, _ := pr.Stats()
		v.Probes = &report.Probes{Completed: st.Completed, Failed: st.Failed, Median: st.Median, P99: st.P99, Max: st.Max}
	}
	o.VLLM = v
	return o
}

// queueBlock is one of vLLM's client-side queueing blocks, with vLLM's
// titles, in seconds.
func queueBlock(q vllmresult.NamedStat) report.Block {
	b := report.Block{Title: "Client-side Queueing", Short: "Client Queue Time"}
	if q.Name == vllmresult.MetricE2ELQueued {
		b.Title, b.Short = "Queue-inclusive End-to-end Latency", "E2EL incl. Client Queue"
	}
	b.D = metrics.Distribution{Count: int64(q.Count), Mean: q.Mean / 1e3, Median: q.Median / 1e3}
	for _, p := range q.Percentiles {
		b.D.Percentiles = append(b.D.Percentiles, metrics.PercentileValue{P: p.P, Value: p.Value / 1e3})
	}
	return b
}

// besideResult is where vLLM writes a picture of the run: beside its
// result file, the file's .json replaced by ext (--plot-timeline's
// .timeline.html, --plot-dataset-stats' .dataset_stats.png).
func besideResult(cfg bench.Config, out *bench.Outcome, ext string) string {
	p := out.ResultPath
	if p == "" {
		p = bench.VLLMResultPath(cfg, out.ModelID, out.Run.Epoch)
	}
	return strings.TrimSuffix(p, filepath.Ext(p)) + ext
}

func printOutcome(env *Env, format string, out *bench.Outcome, o report.TextOptions) error {
	if format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"result": out.Result, "generator": out.Generator, "token_check": out.Tokens,
			"notes": out.Notes, "findings": out.Findings, "warnings": out.Warnings, "records": out.RecordsPath, "records_written": out.RecordsWritten, "summary": out.SummaryPath,
			"interrupted": out.Run.Interrupted, "server": out.Server, "servers": out.Servers, "trace_prefix_reuse": out.PrefixReuse,
			"probes": out.Probes, "vllm": out.VLLM,
		})
	}
	if err := report.Text(env.Stdout, out.Result, o); err != nil {
		return err
	}
	if out.Server != nil {
		if err := serverview.Text(env.Stdout, out.Server); err != nil {
			return err
		}
	}
	for _, s := range out.Servers {
		if s.Server == nil {
			continue
		}
		if err := serverview.Text(env.Stdout, s.Server); err != nil {
			return err
		}
	}
	if out.PrefixReuse != nil && (out.Server == nil || out.Server.TracePrefixHitRate == nil) {
		fmt.Fprintf(env.Stdout, "Trace's theoretical prefix hit rate: %s\n", out.PrefixReuse)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(env.Stdout, "WARNING: %s\n", w)
	}
	fmt.Fprintln(env.Stdout, out.Generator.Line())
	if out.ResultPath != "" {
		fmt.Fprintf(env.Stdout, "Wrote %s\n", out.ResultPath)
	}
	if out.RecordsPath != "" {
		fmt.Fprintf(env.Stdout, "Wrote %s (%d records)\n", out.RecordsPath, out.RecordsWritten)
	}
	for _, p := range []string{out.SummaryPath, out.VLLMPath, out.ServerPath} {
		if p != "" {
			fmt.Fprintf(env.Stdout, "Wrote %s\n", p)
		}
	}
	for _, s := range out.Servers {
		if s.Path != "" {
			fmt.Fprintf(env.Stdout, "Wrote %s (%s)\n", s.Path, s.Endpoint)
		}
	}
	return nil
}

// firstError names the most common failure kind of a run and its first
// message: ": 40 connect (dial tcp …: connection refused)".
func firstError(c metrics.Counts) string {
	kind, most, m := c.MostCommonError()
	if kind == "" {
		return ""
	}
	s := fmt.Sprintf(": %d %s", most, kind)
	if m != "" {
		s += " (" + m + ")"
		if strings.Contains(m, "continuous_usage_stats") {
			// vLLM's extension, which hosted OpenAI-style APIs refuse.
			s += "; --usage final asks for the usage at the end only, --usage none for none"
		}
	}
	return s
}

// notFoundHint names the URL the requests went to when every one was
// answered 404 (a server's message rarely says which path it lacks), and
// the flags that choose it: "" otherwise.
func notFoundHint(cfg bench.Config, c metrics.Counts) string {
	if len(c.Errors) != 1 || c.Errors["http"] == 0 || !strings.HasPrefix(c.ErrorExamples["http"], "http 404") {
		return ""
	}
	a, err := backend.Lookup(cfg.Backend)
	if err != nil {
		return ""
	}
	target, err := a.URL(cfg.BaseURL, cfg.Endpoint)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("; the server has no POST %s: --backend %s sends its requests there, and --endpoint changes the path", target, cfg.Backend)
}

// simDefaultPrompts is --num-prompts against the built-in simulator when the
// user gave neither it nor --duration.
const simDefaultPrompts = 200

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func parseRate(s string) (float64, error) {
	if strings.EqualFold(s, "inf") {
		return math.Inf(1), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v <= 0 {
		return 0, fmt.Errorf("%q: want a positive number of requests per second, or inf", s)
	}
	return v, nil
}

func parseLabels(specs []string) (map[string]string, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, s := range specs {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want key=value", s)
		}
		m[k] = v
	}
	return m, nil
}

// goodputArgs accepts positional words only as the continuation of a vLLM
// style `--goodput ttft:500 tpot:50`, whose later words the flag parser
// leaves as arguments.
var goodputWord = regexp.MustCompile(`^(ttft|tpot|e2el|itl):[0-9.]+$`)

func goodputArgs(m *metricsFlags) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		for _, a := range args {
			if !goodputWord.MatchString(a) || len(m.goodput) == 0 {
				return usageErr("%s: unexpected argument %q", cmd.CommandPath(), a)
			}
			m.goodput = append(m.goodput, a)
		}
		return nil
	}
}

func arrivalKind(s string) arrival.Kind { return arrival.Kind(strings.ToLower(s)) }

func rampKind(s string) arrival.RampKind { return arrival.RampKind(strings.ToLower(s)) }

// jobIndexEnv is set by Kubernetes in each pod of an Indexed Job: 0, 1, …
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// nodeEnv names the machine under the host, recorded in the run header;
// the manifests of `goodput k8s` set it to the pod's node.
const nodeEnv = "NODE_NAME"

// shardFromJob takes this process's shard from $JOB_COMPLETION_INDEX when
// --shards splits the schedule and --shard is not given, so that the pods
// of one Indexed Job each run their own shard with the same arguments.
func shardFromJob(cmd *cobra.Command, env *Env, cfg *bench.Config) error {
	v := env.getenv(jobIndexEnv)
	if v == "" || cfg.Arrival.Shards < 2 || cmd.Flags().Changed("shard") {
		return nil
	}
	k, err := strconv.Atoi(v)
	if err != nil || k < 0 || k >= cfg.Arrival.Shards {
		return usageErr("$%s=%q: want a shard index in [0, %d) for --shards %d, or give --shard", jobIndexEnv, v, cfg.Arrival.Shards, cfg.Arrival.Shards)
	}
	cfg.Arrival.Shard = k
	return nil
}

// printBenchPlan prints what a run would send, without a network: the
// arrival plan with its schedule's statistics, and the workload.
func printBenchPlan(env *Env, cfg bench.Config) error {
	cfg.Arrival.Unit = bench.ArrivalUnit(&cfg)
	// A run whose size is its dataset's reads it first, and so does its
	// plan.
	if err := bench.FitToDataset(&cfg); err != nil {
		return usageErr("%v", err)
	}
	plan, err := cfg.Arrival.Plan()
	if err != nil {
		return usageErr("%v", err)
	}
	wl := cfg.Workload
	if wl.Limit == 0 && cfg.Arrival.NumPrompts > 0 {
		wl.Limit = cfg.Arrival.NumPrompts
	}
	src, err := bench.NewContent(cfg, wl)
	if err != nil {
		return usageErr("%v", err)
	}
	target := cfg.BaseURL
	if target == "" {
		target = "the built-in simulator"
	}
	fmt.Fprintf(env.Stdout, "Target: %s (%s)\nLoad: %s\nWorkload: %s\n", target, cfg.Backend, strings.TrimRight(plan.String(), "\n"), src.String())
	if cfg.Warmups > 0 {
		fmt.Fprintf(env.Stdout, "Warm-up: the first %d requests are excluded from statistics\n", cfg.Warmups)
	}
	if cfg.WarmupRequests > 0 {
		fmt.Fprintf(env.Stdout, "Warm-up: %d requests sent before the run, left out of it\n", cfg.WarmupRequests)
	}
	if cfg.WarmupTime > 0 {
		fmt.Fprintf(env.Stdout, "Warm-up: requests scheduled in the first %v are excluded from statistics\n", cfg.WarmupTime)
	}
	if cfg.ProbeRate > 0 {
		fmt.Fprintf(env.Stdout, "Probes: one-token requests (%q) at %g/s beside the run, outside --max-concurrency and its figures\n", bench.ProbePrompt, cfg.ProbeRate)
	}
	fmt.Fprintln(env.Stdout, "Dry run: nothing was sent.")
	return nil
}

// vllmDefaultTarget is where vllm bench serve sends when its command line
// names no server (--host 127.0.0.1 --port 8000).
var vllmDefaultTarget = "127.0.0.1:8000"

// vllmDefaultServer returns the URL of an OpenAI-compatible server that
// answers /v1/models at vllmDefaultTarget within a moment, "" when none
// does: a vLLM command line without --host or --port means that server,
// where goodput runs its simulator.
func vllmDefaultServer(ctx context.Context) string {
	url := "http://" + vllmDefaultTarget
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/models", nil)
	if err != nil {
		return ""
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&list) != nil || len(list.Data) == 0 {
		return ""
	}
	return url
}
