package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"
	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/sweepserve"
	"github.com/goodput-dev/goodput/vllmargs"
)

type sweepServeFlags struct {
	serveCmd, benchCmd, afterBenchCmd string
	serveParams, benchParams, links   string
	outputDir, experiment             string
	readyTimeout, numRuns, warmup     int
	showStdout, continueOnError       bool
	dryRun, resume                    bool
	sla                               bool // serve_sla: --sla-params is required
	slaParams, slaVariable            string
}

// newSweepServeCmd is vllm bench sweep serve, under the same flags.
func newSweepServeCmd(env *Env) *cobra.Command {
	var f sweepServeFlags
	cmd := &cobra.Command{
		Use:   "serve --serve-cmd 'vllm serve …' --bench-cmd 'vllm bench serve …'",
		Short: "Sweep server settings: start the server for each, benchmark it, compare (vllm bench sweep serve)",
		Long: `sweep serve takes vllm bench sweep serve's flags and writes its layout. For each
combination of --serve-params it starts --serve-cmd with those options (in its
own process group, its output logged to SERVE-<name>.log), waits until GET
/health answers 200 (--server-ready-timeout), then runs --bench-cmd for each
combination of --bench-params, --num-runs times, resetting the server's caches
after each run (vLLM's /reset_prefix_cache, /reset_mm_cache and
/reset_encoder_cache, SGLang's /flush_cache, or --after-bench-cmd); then it
stops the server (SIGTERM, SIGKILL after 30 s) and starts the next. A
"docker run …" (or podman) server command is read for its image (vllm/vllm-openai
is vLLM) and reached on the port it publishes (-p 8001:8000); give it
-e VLLM_SERVER_DEV_MODE=1 for vLLM's cache resets, and no -d. NAME=value words
before a command (CUDA_VISIBLE_DEVICES=0,1 vllm serve …) are its environment.

A parameter file is a JSON list of objects, {"max_num_seqs": 64, …}, or an
object of named ones, {"small": {…}, …}. Keys are the commands' options
without dashes; an option the command has gets the new value in place, others
are appended; true and false set and unset a switch. With both files, every
pair runs, less those --link-vars rules out (max_num_seqs=max_concurrency
runs only pairs that agree).

A --bench-cmd that is "vllm bench serve …" or "goodput bench …" runs as goodput
bench, which takes vLLM's flags, pointed at the server when it names none; it
leaves goodput's records (run=N.jsonl) and summary beside each result. A
--bench-cmd of "goodput sweep …" sweeps the load on each server setting (its
points in run=N/), and each run's result is what that sweep found: the
operating point (the highest load meeting --slo at --attainment) with its
throughput and latencies, the goodput peak and the knees, which answers
which setting carries the most load within the SLO. Any other command runs
as it is, and must write vLLM's result JSON where --result-dir and
--result-filename (appended) say.

Results go to --output-dir/--experiment-name (default: the time): a folder
per combination, SERVE-<serve>-BENCH-<bench>, holding run=N.json (vLLM's result
with the run's parameters), warmup.json and summary.json, and summary.csv
beside them, a row per run, as vLLM writes them. The table printed at the end
gives each combination's median over its runs and how far its runs spread.
--resume -e NAME runs only what has no result yet.`,
		Example: `  goodput sweep serve --serve-cmd 'vllm serve meta-llama/Llama-3.1-8B-Instruct' \
      --bench-cmd 'vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --dataset-name random --num-prompts 500' \
      --serve-params serve.json --bench-params bench.json --link-vars max_num_seqs=max_concurrency -o results
  # Which max_num_seqs carries the most load with p99 TTFT within 500 ms?
  goodput sweep serve --serve-cmd 'vllm serve Qwen/Qwen3-8B' --serve-params serve.json \
      --bench-cmd "goodput sweep --request-rate auto --slo 'ttft<=500ms' --attainment 0.99" --num-runs 1
  # The same against the built-in simulator, two settings, two runs each:
  echo '[{"max_num_seqs": 16}, {"max_num_seqs": 64}]' > serve.json
  goodput sweep serve --serve-cmd 'goodput sim --port 8123' --serve-params serve.json \
      --bench-cmd 'vllm bench serve --num-prompts 200 --max-concurrency 64' --num-runs 2 -o results`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweepServe(cmd.Context(), env, &f)
		},
	}
	f.register(cmd)
	return cmd
}

// newSweepServeSLACmd is vllm bench sweep serve_sla, under the same flags.
func newSweepServeSLACmd(env *Env) *cobra.Command {
	var f sweepServeFlags
	cmd := &cobra.Command{
		Use:     "serve_sla --serve-cmd 'vllm serve …' --bench-cmd 'vllm bench serve …' --sla-params sla.json",
		Aliases: []string{"serve-sla"},
		Short:   "Find, for each server setting, the highest request rate or concurrency that meets an SLA (vllm bench sweep serve_sla)",
		Long: `sweep serve_sla is sweep serve that, for every combination of --serve-params,
--bench-params and --sla-params, searches the highest --sla-variable
(request_rate or max_concurrency, a whole number from 1 to 65,536) whose runs
meet the SLA, as vllm bench sweep serve_sla does. An SLA file is a JSON list of
objects of constraints on the figures of vLLM's result, all of which must hold
for the mean of a load's runs:

  [{"p99_ttft_ms": "<=500"}, {"p99_ttft_ms": "<=500", "median_tpot_ms": "<=30"}]

The search measures 65,536 (unbounded), then 1, then between the highest load
that met the SLA and the lowest that missed it, where the constraint's margin
interpolated between them (in log load) crosses zero, or their geometric middle
when that would not narrow the bracket enough, until the two are adjacent
(at most 16 loads). Each load's runs go to
SERVE-…-BENCH-…/<variable>=<value>/run=N.json, every run of one search to
SLA--<constraints>.json beside them, and every run to summary.csv. The table at
the end gives each search's highest passing load, the load that failed above
it, and the figures at the passing one.

goodput sweep --search rate --slo … --attainment … searches the same way on one
server, by the share of requests within the SLO instead of a mean figure.`,
		Example: `  echo '[{"p99_ttft_ms": "<=500"}]' > sla.json
  goodput sweep serve_sla --serve-cmd 'vllm serve Qwen/Qwen3-8B' --serve-params serve.json \
      --bench-cmd 'vllm bench serve --model Qwen/Qwen3-8B --num-prompts 500' \
      --sla-params sla.json --sla-variable max_concurrency --num-runs 1 -o results`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweepServe(cmd.Context(), env, &f)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&f.slaParams, "sla-params", "", "JSON file of SLAs, as [{\"p99_ttft_ms\": \"<=500\"}] (required)")
	cmd.Flags().StringVar(&f.slaVariable, "sla-variable", "request_rate", "what the search chooses: request_rate or max_concurrency")
	f.sla = true
	return cmd
}

// register adds sweep serve's flags to cmd.
func (f *sweepServeFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.serveCmd, "serve-cmd", "", "the server command, as 'vllm serve MODEL …' (required)")
	fl.StringVar(&f.benchCmd, "bench-cmd", "", "the benchmark command, as 'vllm bench serve …' (required)")
	fl.StringVar(&f.afterBenchCmd, "after-bench-cmd", "", "run after each benchmark instead of resetting the server's caches")
	fl.BoolVar(&f.showStdout, "show-stdout", false, "print the server's and the benchmarks' output, not only log it")
	fl.IntVar(&f.readyTimeout, "server-ready-timeout", 300, "seconds the server has to answer GET /health with 200")
	fl.StringVar(&f.serveParams, "serve-params", "", "JSON file of server parameter combinations")
	fl.StringVar(&f.benchParams, "bench-params", "", "JSON file of benchmark parameter combinations")
	fl.StringVar(&f.links, "link-vars", "", "parameters that must agree, as max_num_seqs=max_concurrency,…")
	fl.StringVarP(&f.outputDir, "output-dir", "o", "results", "directory the experiment's folder goes in")
	fl.StringVarP(&f.experiment, "experiment-name", "e", "", "the experiment's folder (default: the time, as 20061231_150405)")
	fl.IntVar(&f.numRuns, "num-runs", 3, "runs of each combination")
	fl.IntVar(&f.warmup, "warmup-num-prompts", 0, "prompts of an unmeasured warm-up run before each combination (0: none)")
	fl.BoolVar(&f.continueOnError, "continue-on-error", false, "record a failed run or server (…failure.json) and go on")
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the commands that would run, and run none")
	fl.BoolVar(&f.resume, "resume", false, "continue the experiment -e names: run only what has no result yet")
	// Its flags are few: one plain list, not the headings of sweep's.
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		_, err := fmt.Fprintf(c.OutOrStderr(), "Usage:\n  %s\n\nExamples:\n%s\n\nFlags:\n%s", c.UseLine(), c.Example, c.LocalFlags().FlagUsages())
		return err
	})
}

func runSweepServe(ctx context.Context, env *Env, f *sweepServeFlags) error {
	cfg, err := f.config()
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	cfg.Stdout, cfg.Stderr = env.Stdout, env.Stderr
	if exe, err := os.Executable(); err == nil {
		cfg.Goodput = []string{exe}
	}
	cfg.VLLMLine = func(args []string) bool {
		line, err := vllmargs.Translate(args, newBenchCmd(env).Flags())
		return err == nil && line.VLLMStyle
	}
	res, err := sweepserve.Run(ctx, cfg)
	if res == nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if !cfg.DryRun {
		fmt.Fprintln(env.Stdout)
		sweepserve.WriteTable(env.Stdout, res)
	}
	if res.Skipped > 0 {
		fmt.Fprintf(env.Stdout, "%d combination(s) skipped: their --link-vars parameters disagree.\n", res.Skipped)
	}
	if cfg.DryRun {
		fmt.Fprintf(env.Stdout, "Nothing was run. The experiment would be saved in %s.\n", res.Dir)
	} else {
		fmt.Fprintf(env.Stdout, "Saved in %s (summary.csv, a folder per combination).\n", res.Dir)
	}
	if err != nil && (ctx.Err() != nil || errors.Is(err, context.Canceled)) {
		return &ExitError{Code: ExitInterrupt, Err: fmt.Errorf("interrupted; the runs finished so far are kept: continue with --resume -e %s (and the same flags)", cfg.Experiment)}
	}
	// --continue-on-error goes on past a failure; the sweep still failed.
	if runs, servers := res.Failures(); err == nil && runs+servers > 0 {
		return fmt.Errorf("%d run(s) and %d server setting(s) failed (see their …failure.json in %s); --resume -e %s runs them again", runs, servers, res.Dir, cfg.Experiment)
	}
	return err
}

// config checks the flags and reads the parameter files.
func (f *sweepServeFlags) config() (sweepserve.Config, error) {
	cfg := sweepserve.Config{
		OutputDir: f.outputDir, Experiment: f.experiment, NumRuns: f.numRuns, WarmupPrompts: f.warmup,
		ContinueOnError: f.continueOnError, DryRun: f.dryRun, Resume: f.resume, ShowStdout: f.showStdout,
		ReadyTimeout: time.Duration(f.readyTimeout) * time.Second,
	}
	var err error
	if cfg.ServeCmd, err = splitCommand("--serve-cmd", f.serveCmd, true); err != nil {
		return cfg, err
	}
	if cfg.BenchCmd, err = splitCommand("--bench-cmd", f.benchCmd, true); err != nil {
		return cfg, err
	}
	if cfg.AfterBenchCmd, err = splitCommand("--after-bench-cmd", f.afterBenchCmd, false); err != nil {
		return cfg, err
	}
	if f.readyTimeout <= 0 {
		return cfg, fmt.Errorf("--server-ready-timeout %d: must be at least 1 (seconds)", f.readyTimeout)
	}
	if f.serveParams != "" {
		if cfg.ServeParams, err = sweepserve.ReadParams(f.serveParams); err != nil {
			return cfg, fmt.Errorf("--serve-params %w", err)
		}
	}
	if f.benchParams != "" {
		if cfg.BenchParams, err = sweepserve.ReadParams(f.benchParams); err != nil {
			return cfg, fmt.Errorf("--bench-params %w", err)
		}
	}
	if f.sla {
		if f.slaParams == "" {
			return cfg, errors.New("--sla-params is required: a JSON file of SLAs, as [{\"p99_ttft_ms\": \"<=500\"}]")
		}
		if cfg.SLAParams, err = sweepserve.ReadSLAParams(f.slaParams); err != nil {
			return cfg, fmt.Errorf("--sla-params %w", err)
		}
		cfg.SLAVariable = f.slaVariable
	}
	if cfg.Links, err = sweepserve.ParseLinks(f.links); err != nil {
		return cfg, fmt.Errorf("--link-vars %w", err)
	}
	if cfg.Experiment == "" {
		cfg.Experiment = time.Now().Format("20060102_150405")
	}
	if strings.ContainsAny(cfg.Experiment, `/\`) || cfg.Experiment == "." || cfg.Experiment == ".." {
		return cfg, fmt.Errorf("--experiment-name %q: a folder name, without slashes", cfg.Experiment)
	}
	return cfg, nil
}

// splitCommand splits a command line as a POSIX shell would (Python's
// shlex.split, which vLLM uses): quotes and backslashes, no expansion.
func splitCommand(flag, s string, required bool) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		if required {
			return nil, fmt.Errorf("%s is required: the command to run, as one quoted string", flag)
		}
		return nil, nil
	}
	argv, err := shellquote.Split(s)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %v", flag, s, err)
	}
	return argv, nil
}
