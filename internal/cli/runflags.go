package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/trace"
	"github.com/goodput-dev/goodput/transport"
	"github.com/goodput-dev/goodput/vllmargs"
	"github.com/goodput-dev/goodput/workload"
)

// The flags below are shared by the commands that send load (bench and
// sweep), so that a sweep takes exactly the server, workload and simulator
// flags a single benchmark does.

// targetFlags are the server and request flags that need parsing before
// they fit bench.Config.
type targetFlags struct {
	headers   []string
	extraBody string
	usage     string
	maxField  string
	labels    []string
	spread    spreadFlags
	keepAlive bool
	transport string
	dialAhead bool
}

// registerTargetFlags registers the flags that say where load goes and how
// each request is shaped.
func registerTargetFlags(fl *pflag.FlagSet, cfg *bench.Config, f *targetFlags) {
	registerSpreadFlags(fl, cfg, &f.spread)
	fl.StringVar(&cfg.Endpoint, "endpoint", "", "API path (default: the backend's, e.g. /v1/completions)")
	fl.StringVar(&cfg.Backend, "backend", cfg.Backend, "protocol: "+strings.Join(backend.Names(), ", "))
	fl.StringVar(&cfg.Model, "model", "", "model name (default: the first of the server's /v1/models)")
	fl.StringArrayVar(&f.headers, "header", nil, "extra HTTP header as Name=value (repeatable)")
	fl.StringVar(&cfg.APIKey, "api-key", "", "API key sent as a Bearer token (default: $OPENAI_API_KEY)")
	fl.StringVar(&f.extraBody, "extra-body", "", "JSON object merged into every request body")
	fl.StringVar(&f.usage, "usage", "continuous", "usage reports to ask OpenAI-style servers for: continuous, final or none")
	fl.StringVar(&f.maxField, "max-tokens-field", "max_completion_tokens", "field of openai-chat requests that carries the output limit: max_completion_tokens (as vLLM's client), max_tokens (for servers that read only it: Ollama's /v1, older TGI) or both")
	fl.BoolVar(&cfg.Insecure, "insecure", false, "skip TLS certificate verification")
	fl.BoolVar(&f.keepAlive, "keepalive", true, "reuse connections across requests (false: a new connection per request, for servers that close kept-alive ones)")
	fl.StringVar(&f.transport, "transport", string(transport.Auto), "how requests are sent: eventloop (Linux, plain http://), net/http, or auto: the event loop where it can")
	fl.BoolVar(&f.dialAhead, "dial-ahead", true, "open connections before requests are due (false: cold connections, each dialled when its request is due)")
	fl.StringVar(&cfg.PromptFormat, "prompt-format", cfg.PromptFormat, "random prompts as ids (exact lengths; openai and llamacpp), text (fitted with /tokenize), or auto: ids when the server takes them")
	fl.DurationVar(&cfg.RequestTimeout, "request-timeout", cfg.RequestTimeout, "give up on a request after this long")
	fl.Var(secondsOrDuration{&cfg.ReadyTimeout}, "ready-check-timeout", "wait up to this long for the server to become ready (/health or /v1/models answering 2xx; 0 checks once; a bare number is seconds)")
	fl.StringArrayVar(&f.labels, "label", nil, "label every record, as key=value (repeatable)")
	fl.StringVar(&cfg.MetricsURL, "metrics-url", "", "the server's Prometheus metrics (default: /metrics on the --base-url host)")
	fl.BoolVar(&cfg.NoServerMetrics, "no-server-metrics", false, "do not scrape the server's /metrics during the run")
	fl.DurationVar(&cfg.ScrapeInterval, "scrape-interval", 0, "how often to scrape the server's metrics (default 1s)")
}

// apply parses the flags into cfg. The API key falls back to
// $OPENAI_API_KEY.
func (f *targetFlags) apply(env *Env, cfg *bench.Config) error {
	var err error
	if cfg.Headers, err = backend.ParseHeaders(f.headers); err != nil {
		return usageErr("%v", err) // the error names the flag
	}
	if f.extraBody != "" {
		if cfg.Extra, err = backend.ParseExtra(f.extraBody); err != nil {
			return usageErr("%v", err) // the error names the flag
		}
	}
	if cfg.Usage, err = backend.ParseUsageMode(f.usage); err != nil {
		return usageErr("--usage: %v", err)
	}
	if cfg.MaxTokensField, err = backend.ParseMaxTokensField(f.maxField); err != nil {
		return usageErr("--max-tokens-field %v", err)
	}
	if cfg.APIKey == "" {
		cfg.APIKey = env.getenv("OPENAI_API_KEY")
	}
	cfg.NoKeepAlive = !f.keepAlive
	if cfg.Transport, err = transport.ParseKind(f.transport); err != nil {
		return usageErr("%v", err)
	}
	cfg.ColdConnections = !f.dialAhead
	if cfg.Labels, err = parseLabels(f.labels); err != nil {
		return usageErr("--record-label: %v", err) // or --label, its other spelling
	}
	return f.spread.apply(cfg)
}

// registerWorkloadFlags registers the flags that choose the prompts and the
// output lengths asked for.
func registerWorkloadFlags(fl *pflag.FlagSet, cfg *bench.Config) {
	wl := &cfg.Workload
	fl.StringVar(&wl.Dataset, "dataset-name", wl.Dataset, "workload: random, sharegpt, custom, sonnet, burstgpt, prefix_repetition, spec_bench, speed_bench, hf, txt-slices (slices of one text), trace (a request trace), timed_trace (vLLM's trace replay), servegen, sessions (multi-turn JSON Lines) or agent (agent task graphs)")
	fl.StringVar(&wl.Path, "dataset-path", "", "the dataset's file (every dataset but random and prefix_repetition; servegen: a chunk-N-trace.csv or a directory of them; txt-slices: a text file or its http(s) URL)")
	fl.IntVar(&wl.Random.InputLen, "random-input-len", wl.Random.InputLen, "prompt tokens of the random and txt-slices datasets")
	fl.IntVar(&wl.Random.OutputLen, "random-output-len", wl.Random.OutputLen, "output tokens of the random and txt-slices datasets")
	fl.Var(rangeRatio{&wl.Random}, "random-range-ratio", `lengths drawn uniformly in [len·(1−r), len·(1+r)]; '{"input": r, "output": q}' sets each apart, as vLLM takes it`)
	fl.IntVar(&wl.Random.PrefixLen, "random-prefix-len", wl.Random.PrefixLen, "tokens of a prefix shared by every prompt")
	fl.Var(scenarioFlag{&wl.Scenario}, "traffic-scenario", "random prompts' and answers' lengths in genai-bench's notation: D(in,out), N(mean,sd)/(mean,sd), U(least,most)/(least,most), U(most_in,most_out) or P(prefix,suffix)/out")
	fl.IntVar(&wl.Custom.OutputLen, "custom-output-len", wl.Custom.OutputLen, "output tokens for custom lines without output_len (-1: each line's output_tokens, as vLLM)")
	fl.IntVar(&wl.ShareGPT.MinInputLen, "sharegpt-min-input-len", wl.ShareGPT.MinInputLen, "skip ShareGPT prompts of fewer tokens (vLLM's filter)")
	fl.IntVar(&wl.ShareGPT.MinOutputLen, "sharegpt-min-output-len", wl.ShareGPT.MinOutputLen, "skip ShareGPT replies of fewer tokens, unless --sharegpt-output-len is given (vLLM's filter)")
	fl.IntVar(&wl.ShareGPT.MaxInputLen, "sharegpt-max-input-len", wl.ShareGPT.MaxInputLen, "skip ShareGPT prompts of more tokens (vLLM's filter)")
	fl.IntVar(&wl.ShareGPT.MaxTotalLen, "sharegpt-max-total-len", wl.ShareGPT.MaxTotalLen, "skip ShareGPT conversations whose prompt and reply are longer (vLLM's filter)")
	fl.BoolVar(&wl.NoShuffle, "disable-shuffle", false, "keep a dataset file's order")
	fl.BoolVar(&wl.Request.IgnoreEOS, "ignore-eos", false, "ask the server to ignore end-of-sequence, so outputs have the requested length")
	fl.IntVar(&wl.Request.MinTokens, "min-tokens", 0, "ask for at least this many output tokens")
	fl.IntVar(&wl.Request.MaxTokens, "max-tokens", 0, "cap every request's output tokens")
	fl.BoolVar(&cfg.NoCalibrate, "no-calibrate", false, "do not fit made-up text to the server's /tokenize: --tokenizer fits it, else the built-in tokenizer counts")
	fl.IntVar(&cfg.Warmups, "num-warmups", 0, "warm-up requests sent before the run, left out of it (not taken from --num-prompts)")
	fl.DurationVar(&cfg.WarmupTime, "warmup-seconds", 0, "treat requests scheduled in this first span as warm-up")

	fl.StringVar((*string)(&wl.Trace.Format), "trace-format", "", "trace file format: "+trace.Formats+" (default: sniffed from its first line)")
	fl.DurationVar(&wl.Trace.Start, "trace-start", 0, "replay the trace from this long after its first row (servegen: after the start of its period)")
	fl.DurationVar(&wl.Trace.Duration, "trace-duration", 0, "replay only this long a window of the trace (default: to its end)")
	fl.IntVar(&wl.Trace.BlockSize, "trace-block-size", 0, "prompt tokens per hash id of the trace (default 512, Mooncake's)")
	fl.Float64Var(&wl.Trace.LengthScale, "trace-length-scale", 0, "scale the trace's prompt and output lengths, and its blocks, by this factor (default 1)")
	fl.IntVar(&wl.SystemPrompts.Count, "system-prompts", 0, "put one of this many shared system prompts before every prompt (0: none)")
	fl.IntVar(&wl.SystemPrompts.Len, "system-prompt-len", wl.SystemPrompts.Len, "tokens of each system prompt")
	fl.Float64Var(&wl.SystemPrompts.Zipf, "system-prompt-zipf", wl.SystemPrompts.Zipf, "Zipf exponent of the system prompts' popularity: the k-th most used is chosen ∝ 1/k^s (0: uniformly)")
	fl.Float64Var(&cfg.Arrival.Speedup, "trace-speedup", 0, "replay the trace this many times faster (default 1); --request-rate R instead rescales it to a mean of R req/s")
	registerTimedTraceFlags(fl, wl)
}

// registerTimedTraceFlags registers the flags of vLLM's timed_trace
// dataset, with vLLM's names and defaults, and --self-timed and
// --no-self-timed, which say whether a trace's rows are sent at their
// timestamps.
func registerTimedTraceFlags(fl *pflag.FlagSet, wl *workload.Config) {
	tt := &wl.TimedTrace
	for _, l := range []struct {
		dst        *string
		name, what string
	}{
		{&tt.Fields.Timestamp, "timestamp", "arrival time"},
		{&tt.Fields.InputLength, "input-length", "prompt tokens"},
		{&tt.Fields.OutputLength, "output-length", "output tokens"},
		{&tt.Fields.HashIDs, "hash-ids", "prefix block ids (a row may lack it)"},
	} {
		fl.Var(nonEmpty{l.dst, "give the name of a field"}, "timed-trace-label-"+l.name, "field of a timed_trace row's "+l.what)
	}
	fl.Var(positive{&tt.Fields.SecMultiplier}, "timed-trace-sec-multiplier", "seconds per unit of a timed_trace's timestamps: 0.001 for milliseconds, as Mooncake's files have")
	fl.IntVar(&tt.ChunkSize, "timed-trace-chunk-hash-size", tt.ChunkSize, "prompt tokens per hash id of a timed_trace (512 for Mooncake's files)")
	fl.Var(negated{&wl.Trace.NoSelfTimed}, "self-timed", "send a trace's rows (timed_trace or trace) at their timestamps")
	fl.Lookup("self-timed").NoOptDefVal = "true"
	fl.BoolVar(&wl.Trace.NoSelfTimed, "no-self-timed", false, "send a trace's rows, the first --num-prompts in file order, by --request-rate, --burstiness and --max-concurrency instead of at their timestamps")
}

// scenarioFlag is --traffic-scenario. genai-bench takes it several times
// and runs each scenario in turn; a goodput run measures one, so a second
// is refused rather than silently taking the place of the first.
type scenarioFlag struct{ dst *string }

func (v scenarioFlag) String() string { return *v.dst }
func (v scenarioFlag) Type() string   { return "scenario" }
func (v scenarioFlag) Set(s string) error {
	if *v.dst != "" {
		return fmt.Errorf("a second scenario (%s after %s): a run measures one; run one bench or sweep per scenario", s, *v.dst)
	}
	*v.dst = s
	return nil
}

// scenarioFlags are the flags a --traffic-scenario sets itself.
var scenarioFlags = []string{"dataset-name", "random-input-len", "random-output-len", "random-range-ratio", "random-prefix-len"}

// randomIgnoreEOS turns --ignore-eos on for the random dataset on the
// OpenAI-compatible backends, unless given, as vllm bench serve does
// whatever its command line, so that the same line asks the same of the
// server; it returns the note that says so, "" when it changed nothing. A
// traffic scenario sets it with its own note (applyScenario).
func randomIgnoreEOS(fl *pflag.FlagSet, cfg *bench.Config) string {
	if fl.Changed("ignore-eos") || cfg.Workload.Scenario != "" || !vllmargs.ForcesIgnoreEOS(cfg.Workload.Dataset, cfg.Backend) {
		return ""
	}
	cfg.Workload.Request.IgnoreEOS = true
	return "--ignore-eos is on for the random dataset, as vllm bench serve sets it, so that answers run to their length; --ignore-eos=false lets the server end them"
}

// applyScenario sets the random dataset's lengths from --traffic-scenario,
// refusing the flags it replaces, and turns --ignore-eos on, unless given,
// for a backend that can send it, as genai-bench does for vLLM and SGLang:
// a scenario's answer lengths are its point. It returns a note that says
// so, "" when it did not.
func applyScenario(cmd *cobra.Command, cfg *bench.Config) (note string, err error) {
	s := cfg.Workload.Scenario
	if s == "" {
		if cmd.Flags().Changed("traffic-scenario") {
			return "", usageErr("--traffic-scenario is empty: give a scenario such as D(1024,128)")
		}
		return "", nil
	}
	for _, f := range scenarioFlags {
		if cmd.Flags().Changed(f) && (f != "dataset-name" || cfg.Workload.Dataset != workload.DatasetRandom) {
			return "", usageErr("--traffic-scenario %s sets the random dataset's lengths: drop --%s", s, f)
		}
	}
	if err := cfg.Workload.ApplyScenario(s); err != nil {
		return "", usageErr("%v", err)
	}
	if a, err := backend.Lookup(cfg.Backend); err == nil && a.SendsIgnoreEOS() && !cmd.Flags().Changed("ignore-eos") && !cfg.Workload.Request.IgnoreEOS {
		cfg.Workload.Request.IgnoreEOS = true
		return fmt.Sprintf("--traffic-scenario %s: --ignore-eos is on, so that answers run to the scenario's lengths (genai-bench sets it for vLLM and SGLang); --ignore-eos=false turns it off", s), nil
	}
	return "", nil
}

// applyReplay gives the run the arrivals its dataset brings, a trace's
// timestamps: an open loop of their own. A trace is replayed whole unless
// --num-prompts or --duration cuts it; vLLM's timed_trace takes the first
// --num-prompts rows, as vLLM does. It also refuses the system prompts'
// shape without --system-prompts, and --self-timed or --no-self-timed
// with a dataset that has no timestamps, as vLLM does.
func applyReplay(cmd *cobra.Command, cfg *bench.Config) error {
	// Zero stands for "not given" in the configuration: given, it would
	// read as the default, so it is refused.
	for name, v := range map[string]float64{"trace-speedup": cfg.Arrival.Speedup, "trace-length-scale": cfg.Workload.Trace.LengthScale,
		"trace-block-size": float64(cfg.Workload.Trace.BlockSize)} {
		if cmd.Flags().Changed(name) && v == 0 {
			return usageErr("--%s 0: must be positive (leave it out for the default)", name)
		}
	}
	if cfg.Workload.SystemPrompts.Count == 0 {
		for _, f := range []string{"system-prompt-len", "system-prompt-zipf"} {
			if cmd.Flags().Changed(f) {
				return usageErr("--%s shapes the system prompts of --system-prompts N: give it too", f)
			}
		}
	}
	if d := cfg.Workload.Dataset; d != workload.DatasetTimedTrace && d != workload.DatasetTrace {
		for _, f := range []string{"self-timed", "no-self-timed"} {
			if cmd.Flags().Changed(f) {
				return usageErr("--%s says whether a trace's rows are sent at their timestamps: it applies to --dataset-name timed_trace (and trace), not %s", f, d)
			}
		}
	}
	cfg.Arrival.Replay = cfg.Workload.Arrivals()
	if replaysWhole(cmd, cfg) {
		cfg.Arrival.NumPrompts = 0
		// Without the timestamps, the run sends each row once: as
		// many requests as the trace has rows, counted when it is read.
		cfg.AllEntries = cfg.Arrival.Replay == nil
	}
	return nil
}

// replaysWhole reports whether the run replays a whole trace: no
// --num-prompts default applies to it.
func replaysWhole(cmd *cobra.Command, cfg *bench.Config) bool {
	return cfg.Workload.Dataset == workload.DatasetTrace && !cmd.Flags().Changed("num-prompts") && !cmd.Flags().Changed("duration")
}

// simFlags describe the built-in simulator.
type simFlags struct {
	simGPU, simModel, simProfile string
	simTP                        int
	simFaults                    []string
	simSeed                      uint64
	simReplicas                  int
	simReasoning                 string
	engine                       simEngineFlags
}

// registerSimFlags registers the simulator's flags; faults only where the
// simulator answers over HTTP.
func registerSimFlags(fl *pflag.FlagSet, f *simFlags, faults bool) {
	fl.StringVar(&f.simGPU, "sim-gpu", "", "simulator GPU when no --base-url (default H100-SXM)")
	fl.StringVar(&f.simModel, "sim-model", "", "simulator model when no --base-url (default Llama-3.1-8B)")
	fl.StringVar(&f.simProfile, "sim-profile", "", "simulator profile file (YAML or JSON)")
	fl.IntVar(&f.simTP, "sim-tensor-parallel-size", 0, "simulator tensor parallelism")
	if faults {
		fl.StringArrayVar(&f.simFaults, "sim-fault", nil, "simulator fault (repeatable): "+sim.FaultKeys)
	}
	fl.Uint64Var(&f.simSeed, "sim-seed", 0, "simulator seed")
	registerSimEngineFlags(fl, &f.engine)
	fl.IntVar(&f.simReplicas, "sim-replicas", 1, "start this many built-in simulators and spread the load over them (see --balance)")
	fl.StringVar(&f.simReasoning, "sim-reasoning", "", "simulate a reasoning model: the first tokens of each reply stream as reasoning, on the chat and Responses endpoints: "+sim.ReasoningSyntax)
}

// simFlagsWithServer returns a usage error naming the first simulator flag
// given when the run has a real server (--base-url), where the simulator
// does not run and the flag would silently do nothing; nil otherwise.
// Every simulator flag is named sim-….
func simFlagsWithServer(fl *pflag.FlagSet, baseURL string) error {
	if baseURL == "" {
		return nil
	}
	var err error
	fl.Visit(func(f *pflag.Flag) {
		if err == nil && strings.HasPrefix(f.Name, "sim-") {
			err = usageErr("--%s configures the built-in simulator, which does not run with --base-url: drop one of them", f.Name)
		}
	})
	return err
}

// options builds the simulator's options from the flags.
func (f *simFlags) options() (sim.Options, error) {
	opts := sim.Options{Seed: f.simSeed}
	var err error
	if f.simProfile != "" {
		if opts.Profile, err = sim.LoadProfile(f.simProfile, opts.Profile); err != nil {
			return opts, usageErr("--sim-profile: %v", err)
		}
	}
	if f.simGPU != "" {
		if opts.Profile.GPU, err = sim.LookupGPU(f.simGPU); err != nil {
			return opts, usageErr("--sim-gpu: %v", err)
		}
	}
	if f.simModel != "" {
		if opts.Profile.Model, err = sim.LookupModel(f.simModel); err != nil {
			return opts, usageErr("--sim-model: %v", err)
		}
	}
	if f.simTP > 0 {
		opts.Profile.TensorParallel = f.simTP
	}
	if f.simReasoning != "" {
		r, err := sim.ParseReasoning(f.simReasoning)
		if err != nil {
			return opts, usageErr("--sim-reasoning: %v", err)
		}
		if opts.Profile.Model == (sim.Model{}) {
			opts.Profile.Model, _ = sim.LookupModel(sim.DefaultModel)
		}
		opts.Profile.Model.Reasoning = r
	}
	for _, spec := range f.simFaults {
		if err := opts.Faults.ParseFault(spec); err != nil {
			return opts, usageErr("--sim-fault: %v", err)
		}
	}
	return opts, f.engine.apply(&opts)
}

// checkSimBackend refuses a backend the built-in simulator does not speak:
// it serves vLLM's OpenAI API, not TGI's, llama.cpp's or Ollama's own,
// whose every request would be a 404.
func checkSimBackend(cfg *bench.Config) error {
	switch cfg.Backend {
	case "tgi", "llamacpp", "ollama":
		return usageErr("--backend %s: the built-in simulator serves vLLM's OpenAI API (--backend openai, openai-chat or openai-responses); give the %s server's --base-url to benchmark its own API", cfg.Backend, map[string]string{"tgi": "TGI", "llamacpp": "llama.cpp", "ollama": "Ollama"}[cfg.Backend])
	}
	return nil
}

// checkSimReasoning refuses a reasoning simulator behind a protocol that
// cannot show the reasoning: vLLM, and so the simulator, streams it apart
// from the answer only on the chat and Responses endpoints.
func checkSimReasoning(opts sim.Options, cfg *bench.Config) error {
	if r := opts.Profile.Model.Reasoning; r.On() && cfg.Backend != "openai-chat" && cfg.Backend != "openai-responses" {
		return usageErr("--sim-reasoning %s: the simulator streams reasoning apart from the answer on /v1/chat/completions and /v1/responses only, as vLLM does; add --backend openai-chat or openai-responses", r)
	}
	return nil
}

// fromHubCache points an hf dataset named by its hub id at its copy in
// the local Hugging Face cache, adding a note that says so to notes (see
// workload.Config.FromHubCache).
func fromHubCache(cfg *bench.Config, notes *[]string) error {
	wl, note, err := cfg.Workload.FromHubCache()
	if err != nil {
		return usageErr("%v", err)
	}
	cfg.Workload = wl
	if note != "" {
		*notes = append(*notes, note)
	}
	return nil
}

// checkWorkload reports bad workload flags, a missing dataset file
// included, as a usage error: for use before starting a simulator or
// waiting for a server, so that the mistake is the first thing said.
func checkWorkload(cfg *bench.Config) error {
	if err := errors.Join(cfg.ValidateWorkload(), cfg.Workload.CheckPath()); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// startSim starts the built-in simulator on a free loopback port and points
// cfg at it. The returned function stops it.
func startSim(ctx context.Context, env *Env, cfg *bench.Config, f *simFlags) (func(), error) {
	opts, err := f.options()
	if err != nil {
		return nil, err
	}
	if err := checkSimBackend(cfg); err != nil {
		return nil, err
	}
	if err := checkSimReasoning(opts, cfg); err != nil {
		return nil, err
	}
	simulateModel(env, cfg, &opts, f)
	return startSims(ctx, env, cfg, opts, f.simReplicas)
}

// simulateModel has the simulator serve the model that --model (or
// --served-model-name) names, as a vLLM command line asks for a model by
// its Hugging Face name, and model its performance on that model where the
// simulator knows it and --sim-model and --sim-profile say nothing.
func simulateModel(env *Env, cfg *bench.Config, opts *sim.Options, f *simFlags) {
	wire := cfg.Model
	if cfg.Request.ServedModelName != "" {
		wire = cfg.Request.ServedModelName
	}
	if wire == "" || opts.ServedModelName != "" {
		return
	}
	opts.ServedModelName = wire
	if f.simModel != "" || f.simProfile != "" || cfg.Model == "" {
		return
	}
	if m, err := sim.LookupModel(cfg.Model); err == nil {
		reasoning := opts.Profile.Model.Reasoning
		opts.Profile.Model = m
		opts.Profile.Model.Reasoning = reasoning
		return
	}
	fmt.Fprintf(env.Stderr, "goodput: --model %s is not a model the simulator knows: it serves it under that name with %s's performance (--sim-model chooses another)\n", cfg.Model, sim.DefaultModel)
}

// startSimWith starts a simulator built from opts on a free loopback port and
// points cfg at it. The caller must call the returned function to stop it.
func startSimWith(ctx context.Context, env *Env, cfg *bench.Config, opts sim.Options) (func(), error) {
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
	cfg.Target = "built-in simulator: " + describeProfile(info.Profile)
	cfg.ServerInProcess = true
	if f := info.Faults.String(); f != "none" {
		cfg.Target += ", faults: " + f
	}
	fmt.Fprintf(env.Stderr, "goodput: no server given (--base-url): benchmarking the built-in simulator at %s, not a real server\n%s\n", cfg.BaseURL, indent(info.String()))
	return func() {
		cancel()
		srv.Close()
		<-done
	}, nil
}

// describeProfile names a simulator profile: "Llama-3.1-8B on H100-SXM ×2".
func describeProfile(p sim.Profile) string {
	s := fmt.Sprintf("%s on %s", p.Model.Name, p.GPU.Name)
	if p.TensorParallel > 1 {
		s += fmt.Sprintf(" ×%d", p.TensorParallel)
	}
	return s
}
