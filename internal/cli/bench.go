package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sim"
)

// benchFlags are the flag values of `goodput bench` that need work before
// they fit bench.Config.
type benchFlags struct {
	rate      string
	arrival   string
	ramp      string
	headers   []string
	extraBody string
	usage     string
	labels    []string
	format    string
	quiet     bool

	simGPU, simModel, simProfile string
	simTP                        int
	simFaults                    []string
	simSeed                      uint64

	metrics metricsFlags
}

func newBenchCmd(env *Env) *cobra.Command {
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
  goodput bench --base-url http://127.0.0.1:8000 --request-rate 8 --num-prompts 500 \
      --random-input-len 512 --random-output-len 128 --goodput ttft:500 tpot:50
  goodput bench --base-url http://127.0.0.1:8000 --backend openai-chat --max-concurrency 32 \
      --dataset-name sharegpt --dataset-path ShareGPT_V3.json --result-dir runs --save-result`,
		Args: goodputArgs(&f.metrics),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBench(cmd, env, cfg, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cfg.BaseURL, "base-url", "", "server base URL, e.g. http://127.0.0.1:8000 (default: start the built-in simulator)")
	fl.StringVar(&cfg.Endpoint, "endpoint", "", "API path (default: the backend's, e.g. /v1/completions)")
	fl.StringVar(&cfg.Backend, "backend", cfg.Backend, "protocol: "+strings.Join(backend.Names(), ", "))
	fl.StringVar(&cfg.Model, "model", "", "model name (default: the first of the server's /v1/models)")
	fl.StringArrayVar(&f.headers, "header", nil, "extra HTTP header as Name=value (repeatable)")
	fl.StringVar(&cfg.APIKey, "api-key", "", "API key sent as a Bearer token (default: $OPENAI_API_KEY)")
	fl.StringVar(&f.extraBody, "extra-body", "", "JSON object merged into every request body")
	fl.StringVar(&f.usage, "usage", "continuous", "usage reports to ask OpenAI-style servers for: continuous, final or none")
	fl.BoolVar(&cfg.Insecure, "insecure", false, "skip TLS certificate verification")
	fl.BoolVar(&cfg.TokenIDPrompts, "token-id-prompts", false, "send random prompts as token ids (completions and llama.cpp only)")

	fl.StringVar(&f.rate, "request-rate", "inf", "requests per second (inf: all at once, or a closed loop with --max-concurrency)")
	fl.Float64Var(&cfg.Arrival.Burstiness, "burstiness", cfg.Arrival.Burstiness, "gamma shape of arrivals: 1 Poisson, <1 burstier, >1 smoother")
	fl.StringVar(&f.arrival, "arrival", "", "arrival process: poisson, gamma or constant (default: by --burstiness)")
	fl.StringVar(&f.ramp, "ramp-up-strategy", "", "ramp the rate up: linear or exponential")
	fl.Float64Var(&cfg.Arrival.Ramp.From, "ramp-up-start-rps", 0, "rate at the start of the ramp")
	fl.DurationVar(&cfg.Arrival.Ramp.Over, "ramp-up-duration", 0, "how long the ramp takes")
	fl.IntVar(&cfg.Arrival.MaxConcurrency, "max-concurrency", 0, "cap on requests in flight (alone: a closed loop of this many)")
	fl.IntVar(&cfg.Arrival.NumPrompts, "num-prompts", 1000, "requests to send (200 against the built-in simulator)")
	fl.DurationVar(&cfg.Arrival.Duration, "duration", 0, "stop scheduling after this long (with --num-prompts, whichever comes first)")
	fl.Uint64Var(&cfg.Arrival.Seed, "seed", 0, "seed for arrivals and prompts")
	fl.IntVar(&cfg.Arrival.Shard, "shard", 0, "this process's shard, 0 ≤ shard < --shards")
	fl.IntVar(&cfg.Arrival.Shards, "shards", 0, "split the schedule over this many processes")

	wl := &cfg.Workload
	fl.StringVar(&wl.Dataset, "dataset-name", wl.Dataset, "workload: random, sharegpt or custom")
	fl.StringVar(&wl.Path, "dataset-path", "", "file of the sharegpt or custom dataset")
	fl.IntVar(&wl.Random.InputLen, "random-input-len", wl.Random.InputLen, "prompt tokens of the random dataset")
	fl.IntVar(&wl.Random.OutputLen, "random-output-len", wl.Random.OutputLen, "output tokens of the random dataset")
	fl.Float64Var(&wl.Random.RangeRatio, "random-range-ratio", wl.Random.RangeRatio, "lengths drawn uniformly in [len·(1−r), len·(1+r)]")
	fl.IntVar(&wl.Random.PrefixLen, "random-prefix-len", wl.Random.PrefixLen, "tokens of a prefix shared by every prompt")
	fl.IntVar(&wl.Custom.OutputLen, "custom-output-len", wl.Custom.OutputLen, "output tokens for custom lines without output_len")
	fl.BoolVar(&wl.NoShuffle, "disable-shuffle", false, "keep a dataset file's order")
	fl.BoolVar(&wl.Request.IgnoreEOS, "ignore-eos", false, "ask the server to ignore end-of-sequence, so outputs have the requested length")
	fl.IntVar(&wl.Request.MinTokens, "min-tokens", 0, "ask for at least this many output tokens")
	fl.IntVar(&wl.Request.MaxTokens, "max-tokens", 0, "cap every request's output tokens")
	fl.BoolVar(&cfg.NoCalibrate, "no-calibrate", false, "do not fit random prompt lengths to the server's /tokenize")

	fl.IntVar(&cfg.Warmups, "num-warmups", 0, "treat the first N requests as warm-up (sent, excluded from statistics)")
	fl.DurationVar(&cfg.WarmupTime, "warmup-seconds", 0, "treat requests scheduled in this first span as warm-up")
	fl.DurationVar(&cfg.RequestTimeout, "request-timeout", cfg.RequestTimeout, "give up on a request after this long")
	fl.DurationVar(&cfg.ReadyTimeout, "ready-check-timeout", cfg.ReadyTimeout, "wait up to this long for the server to become ready")
	fl.DurationVar(&cfg.LagThreshold, "lag-threshold", cfg.LagThreshold, "p99 generator lag above which the run is called generator-limited")

	fl.StringVar(&cfg.ResultDir, "result-dir", "", "directory for the records (JSON Lines, written as measured) and summaries")
	fl.StringVar(&cfg.RunName, "run-name", "", "file name stem in --result-dir (default goodput-<time>)")
	fl.BoolVar(&cfg.SaveResult, "save-result", false, "also write a JSON summary to --result-dir")
	fl.StringVar(&f.format, "format", "text", "output: text, json, or vllm (text, plus a vllm bench serve result JSON in --result-dir)")
	fl.StringArrayVar(&f.labels, "label", nil, "label every record, as key=value (repeatable)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress output")

	fl.StringVar(&f.simGPU, "sim-gpu", "", "simulator GPU when no --base-url (default H100-SXM)")
	fl.StringVar(&f.simModel, "sim-model", "", "simulator model when no --base-url (default Llama-3.1-8B)")
	fl.StringVar(&f.simProfile, "sim-profile", "", "simulator profile file (YAML or JSON)")
	fl.IntVar(&f.simTP, "sim-tensor-parallel-size", 0, "simulator tensor parallelism")
	fl.StringArrayVar(&f.simFaults, "sim-fault", nil, "simulator fault (repeatable): "+sim.FaultKeys)
	fl.Uint64Var(&f.simSeed, "sim-seed", 0, "simulator seed")

	f.metrics.register(cmd, true)
	return cmd
}

func runBench(cmd *cobra.Command, env *Env, cfg bench.Config, f *benchFlags) error {
	ctx := cmd.Context()
	var err error
	if cfg.Arrival.RequestRate, err = parseRate(f.rate); err != nil {
		return usageErr("--request-rate: %v", err)
	}
	cfg.Arrival.Arrival = arrivalKind(f.arrival)
	cfg.Arrival.Ramp.Kind = rampKind(f.ramp)
	if cfg.Headers, err = backend.ParseHeaders(f.headers); err != nil {
		return usageErr("--header: %v", err)
	}
	if f.extraBody != "" {
		if cfg.Extra, err = backend.ParseExtra(f.extraBody); err != nil {
			return usageErr("--extra-body: %v", err)
		}
	}
	if cfg.Usage, err = backend.ParseUsageMode(f.usage); err != nil {
		return usageErr("--usage: %v", err)
	}
	if cfg.APIKey == "" {
		cfg.APIKey = env.getenv("OPENAI_API_KEY")
	}
	if cfg.Labels, err = parseLabels(f.labels); err != nil {
		return usageErr("--label: %v", err)
	}
	switch f.format {
	case "text", "json":
	case "vllm":
		if cfg.ResultDir == "" {
			return usageErr("--format vllm writes a file: give --result-dir")
		}
		cfg.VLLMResult = true
	default:
		return usageErr("--format %q: want text, json or vllm", f.format)
	}
	gates, err := f.metrics.apply(&cfg.Metrics)
	if err != nil {
		return err
	}
	if err := cfg.Metrics.Validate(); err != nil {
		return usageErr("%v", err)
	}

	if cfg.BaseURL == "" {
		// A newcomer's first run should answer in seconds.
		if !cmd.Flags().Changed("num-prompts") && !cmd.Flags().Changed("duration") {
			cfg.Arrival.NumPrompts = simDefaultPrompts
		}
		stop, err := startSim(ctx, env, &cfg, f)
		if err != nil {
			return err
		}
		defer stop()
	}
	if err := cfg.Validate(); err != nil {
		return usageErr("%v", err)
	}
	bench.Version = Version

	var progress = env.Stderr
	if f.quiet {
		progress = nil
	}
	out, err := bench.Run(ctx, cfg, progress, env.IsTerminal && !f.quiet)
	if err != nil {
		return err
	}
	if err := printOutcome(env, f.format, out); err != nil {
		return err
	}
	if err := reportGates(env, gates, out.Result); err != nil {
		return err
	}
	if out.Run.Interrupted {
		return &ExitError{Code: ExitInterrupt, Err: errors.New("interrupted; the records measured so far are kept")}
	}
	return nil
}

func printOutcome(env *Env, format string, out *bench.Outcome) error {
	if format == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{
			"result": out.Result, "generator": out.Generator, "token_check": out.Tokens,
			"warnings": out.Warnings, "records": out.RecordsPath, "summary": out.SummaryPath,
			"interrupted": out.Run.Interrupted,
		})
	}
	if err := report.Text(env.Stdout, out.Result, report.TextOptions{Notes: out.Notes}); err != nil {
		return err
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(env.Stdout, "WARNING: %s\n", w)
	}
	if !out.Generator.Limited {
		fmt.Fprintf(env.Stdout, "Generator: kept up (p99 dispatch lag %.3f ms, timer lag p99 %.3f ms)\n",
			1e3*out.Generator.LagP99, 1e3*out.Generator.TimerLagP99)
	}
	for _, p := range []string{out.RecordsPath, out.SummaryPath, out.VLLMPath} {
		if p != "" {
			fmt.Fprintf(env.Stdout, "Wrote %s\n", p)
		}
	}
	return nil
}

// startSim starts the built-in simulator on a free loopback port and points
// cfg at it. The returned function stops it.
func startSim(ctx context.Context, env *Env, cfg *bench.Config, f *benchFlags) (func(), error) {
	opts := sim.Options{Seed: f.simSeed}
	var err error
	if f.simProfile != "" {
		if opts.Profile, err = sim.LoadProfile(f.simProfile, opts.Profile); err != nil {
			return nil, usageErr("--sim-profile: %v", err)
		}
	}
	if f.simGPU != "" {
		if opts.Profile.GPU, err = sim.LookupGPU(f.simGPU); err != nil {
			return nil, usageErr("--sim-gpu: %v", err)
		}
	}
	if f.simModel != "" {
		if opts.Profile.Model, err = sim.LookupModel(f.simModel); err != nil {
			return nil, usageErr("--sim-model: %v", err)
		}
	}
	if f.simTP > 0 {
		opts.Profile.TensorParallel = f.simTP
	}
	for _, spec := range f.simFaults {
		if err := opts.Faults.ParseFault(spec); err != nil {
			return nil, usageErr("--sim-fault: %v", err)
		}
	}
	srv, err := sim.New(opts)
	if err != nil {
		return nil, usageErr("simulator: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	simCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if err := srv.Start(simCtx); err != nil {
		cancel()
		ln.Close()
		return nil, fmt.Errorf("simulator: %w", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(simCtx, ln)
	}()
	cfg.BaseURL = "http://" + ln.Addr().String()
	info := srv.Info()
	p := info.Profile
	cfg.Target = fmt.Sprintf("built-in simulator: %s on %s", p.Model.Name, p.GPU.Name)
	if p.TensorParallel > 1 {
		cfg.Target += fmt.Sprintf(" ×%d", p.TensorParallel)
	}
	if f := info.Faults.String(); f != "none" {
		cfg.Target += ", faults: " + f
	}
	fmt.Fprintf(env.Stderr, "goodput: no --base-url: benchmarking the built-in simulator at %s\n%s\n", cfg.BaseURL, indent(info.String()))
	return func() {
		cancel()
		srv.Close()
		<-done
	}, nil
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
