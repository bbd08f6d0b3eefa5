package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/sweeprun"
)

// sweepFlags are the flag values of `goodput sweep` that need work before
// they fit a plan and a sweeprun.Config.
type sweepFlags struct {
	concurrency, rate string // a list, "auto", or in search mode the start
	points, refine    int
	spacing           string
	autoMax           int
	repeats           int
	noStop            bool
	earlyStop         bool
	attainment        float64
	knee              string

	search         string
	searchTol      float64
	searchProbes   int
	searchMaxLimit float64

	dryRun, resume bool
	virtual        bool
	samePrompts    bool
	minRounds      int
	idleTimeout    time.Duration
	resultDir      string
	arrival        string
	quiet          bool
	report         string
	format         string
	warmupFirst    int
	recordLabels   []string

	targetFlags
	simFlags
	metrics metricsFlags
	req     requestFlags
	live    liveFlags
	hist    historyFlags
}

// sweepDirLayout is the default --result-dir, under the working directory.
const sweepDirLayout = "sweep-20060102-150405"

func newSweepCmd(env *Env) *cobra.Command {
	cfg := bench.DefaultConfig()
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Measure across loads: find the knee, the goodput peak and the highest load that meets the SLO",
		Long: `sweep measures a server at a series of loads, by concurrency (a closed loop of N
requests in flight) or by request rate (open-loop arrivals), and reads the
latency-throughput curve: the knee (the load maximising throughput ÷ latency,
and the point of greatest curvature), the goodput peak, and the operating point,
the highest load whose SLO attainment meets --attainment, as every load below it
does too (a load that passes above one that failed is noted as a stray, not
taken). It prints one row per load and a verdict in plain words.

A rate point must also keep pace: when its requests end (completed or failed)
below 90 % of the offered rate, the run was short enough for the server's batch
to absorb every arrival, and its attainment would not hold in a longer one. Such
a point is marked "short" in the notes, warned of with both rates, and counts as
failing: it is never the operating point or the search's answer. For a point
of n < 900 requests the bound loosens to 1 − 3/√n of the rate, the spread of n
Poisson arrivals. Give more --num-prompts or a --duration to measure it.

Loads: --concurrency 1,2,4,8 or --request-rate 0.5,1,2,inf, or "auto": one
request at a time, then the saturation load, then --points loads between
(geometric for concurrency, linear for rates), then --refine loads around the
knee. Without either it sweeps --concurrency auto. An auto sweep stops early
once it is clearly past saturation (doubling the load bought under 3 % more
throughput while latency rose, or attainment collapsed below 5 %); give
--no-early-stop to measure every load. A list is measured in full unless
--early-stop asks for the same rule; the loads it skips are named.

SLO search: --search rate|concurrency finds the highest load whose attainment
of --slo reaches --attainment, by doubling then bisection, and reports the
bracket. A single --request-rate or --concurrency value is where it starts.
A tail target reads as an attainment: p99 TTFT ≤ 500 ms is --slo 'ttft<=500ms'
--attainment 0.99, 99 % of requests within it.

Every point is one benchmark like goodput bench: its records and summary go to
--result-dir (default ./sweep-<time>) as <point>.jsonl and
<point>.summary.json (c16, r2.5, rinf; c16-r2 for a second repeat), labelled
point=, load= and repeat=. sweep.json and sweep.csv hold the curve and are
rewritten after every point; goodput plan --from sweep.json sizes a fleet from
it. After an interruption, --resume --result-dir DIR measures only the points
that have no summary yet.

Every point sends the same prompts (repeat k uses --seed + k − 1), so that only
the load changes between points. A server's prefix cache could then serve one
point from the prompts of an earlier one: disable prefix caching on the server,
or use a workload whose prompts do not repeat. The built-in simulator runs with
its prefix cache off when the prompts cannot share prefixes within a point
(random prompts with no --random-prefix-len), which removes the effect.

Without --base-url it sweeps the built-in simulator over HTTP on 127.0.0.1, and
between points it waits until the server's /metrics show nothing running or
waiting (--idle-timeout). With --virtual it runs the simulator's engine in
virtual time instead: the same prompts and arrival schedules, no HTTP, no
waiting, so a what-if sweep over a GPU and model (--sim-gpu, --sim-model,
--sim-tensor-parallel-size, --sim-profile) takes seconds.

To sweep the server's own settings instead (--max-num-seqs, batching, …),
restarting it for each, see goodput sweep serve (vllm bench sweep serve) and
goodput sweep serve_sla (vllm bench sweep serve_sla), and goodput sweep plot
(vllm bench sweep plot) to draw what they measured.`,
		Example: `  goodput sweep --dry-run
  goodput sweep --base-url http://127.0.0.1:8000 --concurrency 1,2,4,8,16,32,64 --num-prompts 400 \
      --slo 'ttft<=500ms,tpot<=50ms' --repeats 3 --result-dir runs/c-sweep
  goodput sweep --base-url http://127.0.0.1:8000 --request-rate auto --resume --result-dir runs/r-sweep
  # How many H100s for 50 req/s of chat at p99 TTFT ≤ 500 ms?
  goodput sweep --virtual --sim-gpu H100 --request-rate auto --num-prompts 3000 --random-input-len 256 \
      --random-output-len 256 --slo 'ttft<=500ms' --attainment 0.99 --result-dir h100
  goodput plan --from h100/sweep.json --peak-qps 50
  goodput sweep --virtual --search rate --slo 'ttft<=500ms,tpot<=50ms' --attainment 0.99`,
		Args: goodputArgs(&f.metrics),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd, env, cfg, &f)
		},
	}
	fl := cmd.Flags()
	registerTargetFlags(fl, &cfg, &f.targetFlags)
	registerWorkloadFlags(fl, &cfg)
	registerPrefixRepetitionFlags(fl, &cfg.Workload)
	registerRequestFlags(fl, &cfg, &f.req, "sweep")
	registerSimFlags(fl, &f.simFlags, true)
	f.metrics.register(cmd, true)
	f.live.register(fl)
	f.hist.register(fl)

	auto := sweep.DefaultAuto(sweep.ModeConcurrency)
	fl.Var(nonEmpty{&f.concurrency, `give concurrencies such as 1,2,4,8, or "auto"`}, "concurrency", `concurrencies to sweep, e.g. 1,2,4,8,16, or "auto"`)
	fl.StringVar(&f.rate, "request-rate", "", `request rates to sweep (req/s), e.g. 1,2,4,inf, or "auto"`)
	fl.IntVar(&f.points, "points", auto.Points, "auto: loads between the synchronous and the saturation load (default 7 by concurrency, 8 by rate)")
	fl.IntVar(&f.refine, "refine", auto.Refine, "auto: loads added around the knee")
	fl.StringVar(&f.spacing, "spacing", "", "auto: geometric or linear (default geometric by concurrency, linear by rate)")
	fl.IntVar(&f.autoMax, "auto-max-concurrency", auto.Max, "auto by concurrency: the saturation load")
	fl.IntVar(&f.repeats, "repeats", 1, "measurements per load; the spread is reported")
	fl.BoolVar(&f.noStop, "no-early-stop", false, "measure every planned load even past saturation (what a list gets anyway)")
	fl.BoolVar(&f.earlyStop, "early-stop", false, "a list of loads: skip the loads above saturation, as an auto sweep does")
	fl.Float64Var(&f.attainment, "attainment", sweep.DefaultTarget, "SLO attainment the operating point (or a search) must reach, in (0, 1]")
	fl.StringVar(&f.knee, "knee-latency", string(sweep.StatE2EMean), "latency the knee divides throughput by: e2e_mean, e2e_p50, ttft_p99, tpot_p99, …")

	fl.StringVar(&f.search, "search", "", "find the highest load meeting --slo at --attainment: rate or concurrency")
	fl.Float64Var(&f.searchTol, "search-tolerance", 0.05, "search: stop when the rate bracket is within this fraction of its low end")
	fl.IntVar(&f.searchProbes, "search-max-probes", 12, "search: most loads to measure")
	fl.Float64Var(&f.searchMaxLimit, "search-limit", 0, "search: highest load to try (default 1e6 req/s, or the largest concurrency)")

	fl.Float64Var(&cfg.Arrival.Burstiness, "burstiness", cfg.Arrival.Burstiness, "rate points: gamma shape of arrivals: 1 Poisson, <1 burstier, >1 smoother")
	fl.StringVar(&f.arrival, "arrival", "", "rate points: arrival process: poisson, gamma or constant (default: by --burstiness)")
	fl.Var(oneLoad{dst: &cfg.Arrival.MaxConcurrency, many: "one cap for every rate point; to sweep concurrencies, give --concurrency %s"}, "max-concurrency", "rate points: cap on requests in flight")
	fl.IntVar(&cfg.Arrival.NumPrompts, "num-prompts", 200, "requests per point")
	fl.DurationVar(&cfg.Arrival.Duration, "duration", 0, "stop scheduling each point after this long; alone, it lifts the --num-prompts default (with both, whichever comes first)")
	fl.IntVar(&f.minRounds, "min-rounds", sweeprun.DefaultMinRounds, "concurrency points send at least this many times their concurrency in requests (0: off)")
	fl.BoolVar(&f.samePrompts, "same-prompts", false, "send the same prompts at every load; by default each load gets its own, so that a server's prefix cache holds none of them from an earlier load")
	fl.Uint64Var(&cfg.Arrival.Seed, "seed", 0, "seed for arrivals and prompts (repeat k uses seed + k − 1; each load's prompts their own, see --same-prompts)")

	fl.BoolVar(&f.dryRun, "dry-run", false, "print the plan and send nothing")
	fl.BoolVar(&f.resume, "resume", false, "continue the sweep in --result-dir: measure only the points without a summary")
	fl.BoolVar(&f.virtual, "virtual", false, "run the simulator's engine in virtual time: no HTTP, no waiting")
	fl.DurationVar(&f.idleTimeout, "idle-timeout", sweeprun.DefaultIdleTimeout, "before each point, wait up to this long for the server to be idle (0: do not wait)")
	fl.StringVar(&f.resultDir, "result-dir", "", "directory for every point's records and summary and the sweep files (default ./sweep-<time>)")
	fl.DurationVar(&cfg.LagThreshold, "lag-threshold", cfg.LagThreshold, "p99 generator lag above which a point is called generator-limited")
	fl.BoolVar(&f.quiet, "quiet", false, "no live progress within a point")
	fl.StringVar(&f.report, "report", "", "also write the sweep's self-contained HTML report to this file")
	fl.StringVar(&f.format, "format", "text", "output: text (a table and the verdict) or json (the sweep file's contents)")
	// The same words as bench's: --num-warmups are vLLM's extra requests
	// before each point, --warmup-first goodput's warm-up of a point's
	// first requests, --record-label the records' labels (--label stays
	// the old spelling of it, since a sweep writes no vLLM file).
	fl.Lookup("num-warmups").Usage = "warm-up requests sent before each point, left out of it (not taken from --num-prompts)"
	fl.IntVar(&f.warmupFirst, "warmup-first", 0, "treat the first N requests of each point as warm-up: sent, excluded from statistics (--num-warmups before it took vLLM's meaning)")
	fl.StringArrayVar(&f.recordLabels, "record-label", nil, "label every record, as key=value (repeatable)")
	fl.Lookup("label").Usage = "label every record, as key=value (repeatable; as --record-label)"
	cmd.AddCommand(newSweepServeCmd(env), newSweepServeSLACmd(env), newSweepPlotCmd(env), newSweepParetoCmd(env))
	return cmd
}

// freeDir returns dir, or when it exists (a sweep started in the same
// second: the default name has the time to the second, and a virtual
// sweep takes less), the first of dir-2, dir-3, … that does not.
func freeDir(base string) string {
	dir := base
	for n := 2; n < 1000; n++ {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			break
		}
		dir = fmt.Sprintf("%s-%d", base, n)
	}
	return dir
}

// sweepJob is what the flags ask for: a plan, or a search.
type sweepJob struct {
	plan    *sweep.Plan
	search  *sweep.Search
	options sweep.Options
	repeats int
}

func (j sweepJob) mode() sweep.Mode {
	if j.search != nil {
		return j.search.Mode
	}
	return j.plan.Mode
}

func runSweep(cmd *cobra.Command, env *Env, cfg bench.Config, f *sweepFlags) error {
	ctx := cmd.Context()
	job, err := f.job(cmd)
	if err != nil {
		return err
	}
	if f.format != "text" && f.format != "json" {
		return usageErr("--format %q: want text or json", f.format)
	}
	cfg.Arrival.Arrival = arrivalKind(f.arrival)
	if cmd.Flags().Changed("duration") && !cmd.Flags().Changed("num-prompts") {
		cfg.Arrival.NumPrompts = 0 // the duration alone bounds each point
	}
	scenarioNote, err := applyScenario(cmd, &cfg)
	if err != nil {
		return err
	}
	if err := applyReplay(cmd, &cfg); err != nil {
		return err
	}
	f.targetFlags.labels = append(f.targetFlags.labels, f.recordLabels...)
	if f.warmupFirst < 0 {
		return usageErr("--warmup-first %d: want 0 or more", f.warmupFirst)
	}
	cfg.WarmupRequests, cfg.Warmups = cfg.Warmups, f.warmupFirst
	if f.virtual && cfg.WarmupRequests > 0 {
		return usageErr("--num-warmups: a virtual-time sweep starts every point on an idle engine and sends no request to warm; --warmup-first N leaves each point's first N requests out of its statistics")
	}
	if err := f.targetFlags.apply(env, &cfg); err != nil {
		return err
	}
	notes, err := f.req.apply(cmd.Flags(), &cfg)
	if err != nil {
		return err
	}
	note, err := f.req.tokenizer(&cfg)
	if err != nil {
		return err
	}
	for _, n := range []string{note, scenarioNote, randomIgnoreEOS(cmd.Flags(), &cfg)} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	for _, n := range notes {
		fmt.Fprintln(env.Stderr, "goodput: "+n)
	}
	if !f.virtual {
		// With --virtual and --base-url the error below says more.
		if err := simFlagsWithServer(cmd.Flags(), cfg.BaseURL); err != nil {
			return err
		}
	}
	gates, err := f.metrics.apply(&cfg.Metrics)
	if err != nil {
		return err
	}
	if len(gates) > 0 && job.plan == nil {
		return usageErr("--gate: an SLO search has no operating point to gate; gate a sweep, or a point with goodput analyze")
	}
	if err := cfg.Metrics.Validate(); err != nil {
		return usageErr("%v", err)
	}
	simOpts, err := f.simFlags.options()
	if err != nil {
		return err
	}
	if f.virtual {
		switch {
		case cfg.BaseURL != "":
			return usageErr("--virtual runs the simulator without a server: drop --base-url")
		case len(f.simFaults) > 0:
			return usageErr("--sim-fault: faults are injected over HTTP; a virtual-time sweep has none")
		case f.simReplicas > 1:
			return usageErr("--sim-replicas: a virtual-time sweep runs one simulated engine; sweep several over HTTP without --virtual")
		case f.live.listen != "" || f.live.push != "":
			return usageErr("--metrics-listen, --metrics-push: a virtual-time sweep sends no requests to export")
		}
	}
	if f.resume && f.resultDir == "" {
		return usageErr("--resume needs --result-dir: the directory of the sweep to resume")
	}
	var hubNotes []string
	if err := fromHubCache(&cfg, &hubNotes); err != nil {
		return err
	}
	for _, n := range hubNotes {
		fmt.Fprintf(env.Stderr, "goodput: %s\n", n)
	}
	if err := checkWorkload(&cfg); err != nil {
		return err
	}
	dir := f.resultDir
	if dir == "" {
		dir = freeDir(time.Now().Format(sweepDirLayout))
	}

	rcfg := sweeprun.Config{
		Bench: cfg, Dir: dir, Resume: f.resume, MinRounds: f.minRounds,
		IdleTimeout: f.idleTimeout, Log: env.Stderr, SamePrompts: f.samePrompts,
	}
	if !f.quiet {
		rcfg.Progress, rcfg.Terminal = env.Stderr, env.IsTerminal
	}
	if f.virtual {
		rcfg.Virtual = &simOpts
	}
	bench.Version = Version

	if f.dryRun {
		return dryRunSweep(env, rcfg, job, simOpts)
	}
	if cfg.BaseURL == "" {
		// The simulator, in wall-clock or virtual time, speaks one API.
		if err := checkSimBackend(&rcfg.Bench); err != nil {
			return err
		}
	}
	if !f.virtual && cfg.BaseURL == "" {
		// A bad flag is told before the simulator starts (the check
		// stands in for its address).
		if err := rcfg.Validate(); err != nil {
			return usageErr("%v", err)
		}
		if err := checkSimReasoning(simOpts, &rcfg.Bench); err != nil {
			return err
		}
		if !sweeprun.SharesPrefixes(cfg.Workload) && !session.Enabled(cfg.Workload, cfg.Sessions) && !simOpts.DisablePrefixCaching && !f.simFlags.engine.prefixCachingGiven() {
			// Every point sends the same prompts: with no prefix shared
			// within a point, the cache could only carry one point's
			// prompts into the next.
			simOpts.DisablePrefixCaching = true
			fmt.Fprintln(env.Stderr, "goodput: the simulator's prefix cache is off: these prompts share no prefix within a point, so it could only serve a point from an earlier one's prompts")
		}
		stop, err := startSims(ctx, env, &rcfg.Bench, simOpts, f.simReplicas)
		if err != nil {
			return err
		}
		defer stop()
		fmt.Fprintln(env.Stderr, "goodput: sweeping the simulator in wall-clock time, over HTTP; --virtual runs its engine in virtual time, in seconds")
	}
	live, err := f.live.start(env, &rcfg.Bench)
	if err != nil {
		return err
	}
	defer live.finish(ctx)
	hist, err := f.hist.open(ctx, env)
	if err != nil {
		return err
	}
	defer hist.close()
	runner, err := newSweepRunner(rcfg)
	if err != nil {
		return err
	}
	if err := runner.Check(job.mode(), job.plan != nil && job.plan.Auto != nil); err != nil {
		return sweepSetupErr(err)
	}
	for _, n := range runner.Notes() {
		fmt.Fprintln(env.Stderr, "goodput: "+n)
	}
	if u := bench.ArrivalUnit(&rcfg.Bench); u != "" {
		fmt.Fprintf(env.Stderr, "goodput: each point's load counts %ss: its rate is %ss per second, its concurrency concurrent %ss (users); the table's req/s columns count their requests\n", u, u, u)
	}
	if job.search != nil {
		out, err := runner.Search(ctx, *job.search, job.repeats, job.options)
		if out != nil && len(out.Summary.Points) > 0 {
			if perr := printSearch(env, out, simOpts, f.virtual, f.format); perr != nil && err == nil {
				err = perr
			}
			if herr := hist.sweep(ctx, env.besideJSON(f.format), &rcfg.Bench, dir, out.JSONPath, out.Summary); herr != nil && err == nil {
				err = herr
			}
		}
		if err == nil && out != nil {
			err = measuredNothing(out.Summary.Points, out.AllFailed, cfg, dir)
		}
		return sweepExit(ctx, err, dir)
	}
	out, err := runner.Run(ctx, *job.plan)
	if out != nil && len(out.Summary.Points) > 0 {
		if perr := printSweep(env, out, simOpts, f.virtual, f.format); perr != nil && err == nil {
			err = perr
		}
		if herr := hist.sweep(ctx, env.besideJSON(f.format), &rcfg.Bench, dir, out.JSONPath, out.Summary); herr != nil && err == nil {
			err = herr
		}
		if f.report != "" && out.JSONPath != "" {
			if rerr := writeHTMLReport(env.besideJSON(f.format), out.JSONPath, f.report, cfg.Metrics); rerr != nil && err == nil {
				err = rerr
			}
		}
		if len(gates) > 0 && err == nil {
			err = gateOperatingPoint(env.besideJSON(f.format), gates, out, cfg.Metrics)
		}
	}
	if err == nil && out != nil {
		err = measuredNothing(out.Summary.Points, out.AllFailed, cfg, dir)
	}
	return sweepExit(ctx, err, dir)
}

// measuredNothing fails a sweep none of whose points measured an output
// token, as bench fails such a run: every request failed or answered
// nothing, so no load was measured. Where every request of a load failed,
// it says with what, as bench does.
func measuredNothing(points []sweep.Point, allFailed *metrics.Counts, cfg bench.Config, dir string) error {
	if len(points) == 0 {
		return nil
	}
	for _, p := range points {
		if p.Mean.OutputThroughput > 0 {
			return nil
		}
	}
	why := "check --base-url, --endpoint, --backend and what the server answers"
	if c := allFailed; c != nil {
		why = "every request of a load failed" + firstError(*c) + notFoundHint(cfg, *c)
	}
	return fmt.Errorf("none of the %d loads measured an output token (error rate %.0f%% at the first): %s; the points' records are in %s",
		len(points), 100*points[0].Mean.ErrorRate, why, dir)
}

// newSweepRunner builds the runner; a configuration error is a usage
// error, unreadable data in the result directory the tool's (see
// sweepSetupErr).
func newSweepRunner(cfg sweeprun.Config) (*sweeprun.Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, usageErr("%v", err)
	}
	r, err := sweeprun.New(cfg)
	if err != nil {
		return nil, sweepSetupErr(err)
	}
	return r, nil
}

// sweepSetupErr maps an error setting up a sweep to its exit: unreadable
// data in the result directory is the tool's failure (1); anything else is
// the flags' (2).
func sweepSetupErr(err error) error {
	var ue *sweeprun.UnreadableError
	if errors.As(err, &ue) {
		return err
	}
	return &ExitError{Code: ExitUsage, Err: err}
}

// sweepExit maps the end of a sweep to an exit: an interruption keeps
// what was measured and says how to continue.
func sweepExit(ctx context.Context, err error, dir string) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return &ExitError{Code: ExitInterrupt, Err: fmt.Errorf(
			"interrupted; the points measured so far are kept: continue with --resume --result-dir %s (and the same flags)", dir)}
	}
	return err
}

// job turns the load flags into a plan or a search.
func (f *sweepFlags) job(cmd *cobra.Command) (sweepJob, error) {
	changed := cmd.Flags().Changed
	knee, err := sweep.ParseStat(f.knee)
	if err != nil {
		return sweepJob{}, usageErr("--knee-latency: %v", err)
	}
	if math.IsNaN(f.attainment) || f.attainment <= 0 || f.attainment > 1 {
		return sweepJob{}, usageErr("--attainment %v: must be in (0, 1], e.g. 0.9", f.attainment)
	}
	if f.repeats < 1 || f.repeats > sweep.MaxRepeats {
		return sweepJob{}, usageErr("--repeats %d: must be from 1 to %d", f.repeats, sweep.MaxRepeats)
	}
	job := sweepJob{options: sweep.Options{Latency: knee, Target: f.attainment}, repeats: f.repeats}
	if f.concurrency != "" && f.rate != "" {
		return sweepJob{}, usageErr("give --concurrency or --request-rate, not both")
	}

	if f.search != "" {
		return f.searchJob(changed, job)
	}
	for _, name := range []string{"search-tolerance", "search-max-probes", "search-limit"} {
		if changed(name) {
			return sweepJob{}, usageErr("--%s applies only with --search", name)
		}
	}
	mode, spec, flag := sweep.ModeConcurrency, f.concurrency, "--concurrency"
	if f.rate != "" {
		mode, spec, flag = sweep.ModeRate, f.rate, "--request-rate"
	}
	plan := sweep.Plan{Mode: mode, Repeats: f.repeats, Options: job.options}
	auto := spec == "" || strings.EqualFold(spec, "auto")
	switch {
	case f.noStop && f.earlyStop:
		return sweepJob{}, usageErr("give --early-stop or --no-early-stop, not both")
	case f.earlyStop && auto:
		return sweepJob{}, usageErr("--early-stop applies to a list of loads; an auto sweep stops early unless --no-early-stop")
	case f.earlyStop || (auto && !f.noStop):
		// A load the user listed is never skipped unless they asked.
		plan.Stop = sweep.DefaultStopRule()
	}
	if auto {
		a := sweep.DefaultAuto(mode)
		if changed("points") {
			a.Points = f.points
		}
		if changed("refine") {
			a.Refine = f.refine
		}
		if f.spacing != "" {
			a.Spacing = sweep.Spacing(strings.ToLower(f.spacing))
		}
		if mode == sweep.ModeConcurrency {
			a.Max = f.autoMax
		} else if changed("auto-max-concurrency") {
			return sweepJob{}, usageErr("--auto-max-concurrency applies to --concurrency auto")
		}
		plan.Auto = &a
	} else {
		for _, name := range []string{"points", "refine", "spacing", "auto-max-concurrency"} {
			if changed(name) {
				return sweepJob{}, usageErr("--%s applies only to an auto sweep, not to the list %s %s", name, flag, spec)
			}
		}
		if plan.Loads, err = sweep.ParseLoads(mode, spec); err != nil {
			return sweepJob{}, usageErr("%s: %v", flag, err)
		}
	}
	if err := plan.Validate(); err != nil {
		return sweepJob{}, usageErr("%v", err)
	}
	job.plan = &plan
	return job, nil
}

// searchJob builds the SLO search of --search.
func (f *sweepFlags) searchJob(changed func(string) bool, job sweepJob) (sweepJob, error) {
	s := sweep.Search{Target: f.attainment, Tolerance: f.searchTol, MaxProbes: f.searchProbes, Limit: f.searchMaxLimit}
	switch strings.ToLower(f.search) {
	case "rate", "request-rate", "request_rate":
		s.Mode = sweep.ModeRate
	case "concurrency":
		s.Mode = sweep.ModeConcurrency
	default:
		return sweepJob{}, usageErr("--search %q: want rate or concurrency", f.search)
	}
	for _, name := range []string{"points", "refine", "spacing", "auto-max-concurrency", "no-early-stop", "early-stop"} {
		if changed(name) {
			return sweepJob{}, usageErr("--%s applies to a sweep, not to --search", name)
		}
	}
	start, flag := f.rate, "--request-rate"
	if s.Mode == sweep.ModeConcurrency {
		start, flag = f.concurrency, "--concurrency"
	} else if f.concurrency != "" {
		return sweepJob{}, usageErr("--search rate starts from a --request-rate, not a --concurrency")
	}
	if s.Mode == sweep.ModeConcurrency && f.rate != "" {
		return sweepJob{}, usageErr("--search concurrency starts from a --concurrency, not a --request-rate")
	}
	if start != "" {
		loads, err := sweep.ParseLoads(s.Mode, start)
		if err != nil {
			return sweepJob{}, usageErr("%s: %v", flag, err)
		}
		if len(loads) != 1 || loads[0].Unbounded() {
			return sweepJob{}, usageErr("%s %s: a search starts from one finite load", flag, start)
		}
		s.Start = loads[0].Value
	}
	if err := s.Validate(); err != nil {
		return sweepJob{}, usageErr("--search: %v", err)
	}
	job.search = &s
	return job, nil
}

// dryRunSweep prints what the sweep would do. It starts no simulator and
// sends nothing.
func dryRunSweep(env *Env, cfg sweeprun.Config, job sweepJob, simOpts sim.Options) error {
	if cfg.Virtual == nil && cfg.Bench.BaseURL == "" {
		info, err := sim.Resolve(simOpts)
		if err != nil {
			return usageErr("simulator: %v", err)
		}
		cfg.Bench.Target = "built-in simulator: " + describeProfile(info.Profile) + " (started when the sweep runs)"
		cfg.Bench.BaseURL = "http://127.0.0.1:0" // a placeholder: nothing is sent
	}
	r, err := newSweepRunner(cfg)
	if err != nil {
		return err
	}
	if err := r.Check(job.mode(), job.plan != nil && job.plan.Auto != nil); err != nil {
		return sweepSetupErr(err)
	}
	w := env.Stdout
	fmt.Fprintf(w, "target: %s\n", r.Target())
	if job.search != nil {
		s := *job.search
		start := s.Start
		if start == 0 {
			start = 1
		}
		fmt.Fprintf(w, "SLO search by %s from %s: double until a probe misses %s attainment, then bisect; at most %d probes, %d measurement(s) each\n",
			s.Mode, sweep.Load{Mode: s.Mode, Value: start}.Short(), percentText(s.Target), s.MaxProbes, job.repeats)
	} else {
		p := *job.plan
		p.Resume = r.Resumed()
		if err := p.Print(w); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "each point: %s\n", pointSize(r, cfg, job))
	fmt.Fprintf(w, "SLO: %s\n", sloText(cfg.Bench))
	fmt.Fprintf(w, "results: %s (dry run: nothing was sent, nothing written)\n", cfg.Dir)
	return nil
}

// pointSize says how many requests each point sends, naming the
// concurrency points that the --min-rounds floor raises.
func pointSize(r *sweeprun.Runner, cfg sweeprun.Config, job sweepJob) string {
	a := cfg.Bench.Arrival
	var parts []string
	if a.NumPrompts > 0 {
		s := fmt.Sprintf("%d requests", a.NumPrompts)
		var loads []sweep.Load
		if job.plan != nil {
			steps, _ := job.plan.Steps()
			for _, st := range steps {
				loads = append(loads, st.Loads...)
			}
		}
		slices.SortFunc(loads, func(x, y sweep.Load) int { return cmp.Compare(x.Value, y.Value) })
		var raised []string
		for _, l := range loads {
			if n := r.Requests(l); n > a.NumPrompts {
				raised = append(raised, fmt.Sprintf("%d at concurrency %s", n, l.Short()))
			}
		}
		if len(raised) > 0 {
			s += fmt.Sprintf(" (at least %d × the concurrency: %s)", cfg.MinRounds, strings.Join(raised, ", "))
		}
		parts = append(parts, s)
	}
	if a.Duration > 0 {
		parts = append(parts, "at most "+a.Duration.String())
	}
	if cfg.Bench.Warmups > 0 {
		parts = append(parts, fmt.Sprintf("the first %d warm-up", cfg.Bench.Warmups))
	}
	if cfg.Bench.WarmupRequests > 0 {
		parts = append(parts, fmt.Sprintf("after %d warm-up requests", cfg.Bench.WarmupRequests))
	}
	return strings.Join(parts, ", ")
}

func sloText(cfg bench.Config) string {
	if cfg.Metrics.SLO == "" {
		return "none (attainment is the success rate)"
	}
	return cfg.Metrics.SLO
}

func percentText(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", 100*f), "0"), ".") + " %"
}

// printSweep writes the table, the verdict, where the files are and how to
// size a fleet from them.
func printSweep(env *Env, out *sweeprun.Outcome, simOpts sim.Options, virtual bool, format string) error {
	if format == "json" {
		// The sweep file's contents, for scripts; where the files went is
		// said on standard error.
		if err := sweep.WriteJSON(env.Stdout, out.Summary); err != nil {
			return err
		}
		printShort(env.Stderr, out.Summary)
		return printFiles(&Env{Stdout: env.Stderr}, out.JSONPath, out.CSVPath, out.Summary, simOpts, virtual)
	}
	if err := sweep.WriteTable(env.Stdout, out.Summary); err != nil {
		return err
	}
	printShort(env.Stdout, out.Summary)
	if out.Stopped != "" {
		skipped := make([]string, len(out.Skipped))
		for i, l := range out.Skipped {
			skipped[i] = l.Short()
		}
		fmt.Fprintf(env.Stdout, "Stopped early, past saturation: %s; not measured: %s (every load is measured without the early stop).\n", out.Stopped, strings.Join(skipped, ", "))
	}
	if out.Resumed > 0 {
		fmt.Fprintf(env.Stdout, "Measured %d point(s) now; %d came from the result directory.\n", out.Measured, out.Resumed)
	}
	return printFiles(env, out.JSONPath, out.CSVPath, out.Summary, simOpts, virtual)
}

// printSearch writes the probes, the bracket and the files.
func printSearch(env *Env, out *sweeprun.SearchOutcome, simOpts sim.Options, virtual bool, format string) error {
	if format == "json" {
		// The probes as a sweep file, with the search's answer on standard
		// error beside the files.
		if err := sweep.WriteJSON(env.Stdout, out.Summary); err != nil {
			return err
		}
		printShort(env.Stderr, out.Summary)
		fmt.Fprintf(env.Stderr, "Search: %s\n", out.Result)
		return printFiles(&Env{Stdout: env.Stderr}, out.JSONPath, out.CSVPath, out.Summary, simOpts, virtual)
	}
	if err := sweep.WriteTable(env.Stdout, out.Summary); err != nil {
		return err
	}
	printShort(env.Stdout, out.Summary)
	fmt.Fprintf(env.Stdout, "Search: %s\n", out.Result)
	return printFiles(env, out.JSONPath, out.CSVPath, out.Summary, simOpts, virtual)
}

// printShort warns of every rate point whose server did not keep pace
// with its offered rate (the table marks them "short").
func printShort(w io.Writer, s sweep.Summary) {
	for _, line := range s.ShortWarnings() {
		fmt.Fprintln(w, "Warning: "+line+".")
	}
}

func printFiles(env *Env, jsonPath, csvPath string, s sweep.Summary, simOpts sim.Options, virtual bool) error {
	if jsonPath == "" {
		return nil
	}
	fmt.Fprintf(env.Stdout, "Wrote %s and %s; every point's records and summary are in %s\n", jsonPath, csvPath, filepath.Dir(jsonPath))
	if !s.Operating.Found {
		return nil
	}
	hint := "goodput plan --from " + jsonPath + " --peak-qps <QPS>"
	if virtual {
		if info, err := sim.Resolve(simOpts); err == nil && info.Profile.TensorParallel > 1 {
			hint += fmt.Sprintf(" --gpus-per-replica %d", info.Profile.TensorParallel)
		}
	}
	_, err := fmt.Fprintf(env.Stdout, "Size a fleet for a peak demand from the operating point: %s --gpu-hour-cost <price>\n", hint)
	return err
}

// gateOperatingPoint checks the gates against the sweep's operating point,
// recomputed from the records of its first measurement: "at the load this
// server should run at, does it keep these promises?". With no operating
// point every gate fails.
func gateOperatingPoint(env *Env, gates slo.Gates, out *sweeprun.Outcome, mo metrics.Options) error {
	op := out.Summary.Operating
	if !op.Found {
		fmt.Fprintf(env.Stdout, "Gates: no operating point (%s), so every gate fails\n", op.Note)
		return &ExitError{Code: ExitGateFail, Err: fmt.Errorf("%d of %d gates failed: no operating point", len(gates), len(gates))}
	}
	if out.JSONPath == "" {
		return errors.New("--gate needs the points' records: give --result-dir")
	}
	records := filepath.Join(filepath.Dir(out.JSONPath), sweeprun.Measurement{Load: op.Load, Repeat: 1}.Name()+".jsonl")
	a, err := analyzeFiles(env, []string{records}, mo, runDefaults{})
	if err != nil {
		return fmt.Errorf("--gate: %w", err)
	}
	fmt.Fprintf(env.Stdout, "Gates at the operating point (%s):\n", op.Load.Short())
	return reportGates(env, gates, a.Result)
}
