package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/sim"
)

// simServeFlags are the flag values of `goodput sim` that need work before
// they become sim.Options.
type simServeFlags struct {
	host, gpu, model, profile string
	port                      int
	tensorParallel            int
	prefixCaching             bool
	noPrefixCaching           bool
	chunkedPrefill            bool
	noChunkedPrefill          bool
	kvCacheDType              string
	faults                    []string
	list                      bool
	reasoning                 string
}

func newSimCmd(env *Env) *cobra.Command {
	var opts sim.Options
	var f simServeFlags
	cmd := &cobra.Command{
		Use:   "sim",
		Short: "Serve a simulated vLLM server with a physical performance model",
		Long: `sim serves vLLM's OpenAI-compatible API (/v1/completions,
/v1/chat/completions, /v1/responses, /v1/models, /tokenize, /detokenize,
/health) and vLLM's /metrics from a simulated engine: continuous batching
scheduled like vLLM v1,
a paged KV cache with prefix caching and preemption, and step times from a
roofline of the GPU and model (memory-bound decode, compute-bound prefill).

It listens on 127.0.0.1 unless --host says otherwise, prints its profile and
URL, and stops cleanly on Ctrl-C. --fault makes it misbehave on purpose, to
test clients: ` + sim.FaultKeys + `.`,
		Example: `  goodput sim
  goodput sim --gpu A100 --model Qwen/Qwen2.5-7B-Instruct --port 8001
  goodput sim --gpu H100 --model Llama-3.1-70B --tensor-parallel-size 4
  goodput sim --profile b200.yaml --fault error-rate=0.01 --fault stall=2s@0.01
  goodput sim --reasoning 200-600      # think for 200 to 600 tokens before answering
  goodput sim --list`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("%s takes no arguments, got %q", cmd.CommandPath(), args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.list {
				return listProfiles(env.Stdout)
			}
			if err := f.apply(cmd, &opts); err != nil {
				return err
			}
			return runSimServer(cmd.Context(), env, opts, net.JoinHostPort(f.host, strconv.Itoa(f.port)))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.host, "host", "127.0.0.1", "address to listen on (loopback unless told otherwise)")
	fl.IntVar(&f.port, "port", 8000, "port to listen on (0: any free port)")
	fl.StringVar(&f.model, "model", sim.DefaultModel, "model to simulate: a built-in name or a Hugging Face name of one (e.g. meta-llama/Llama-3.1-8B-Instruct)")
	fl.StringVar(&opts.ServedModelName, "served-model-name", "", "model name in the API (default: --model as given)")
	fl.StringVar(&f.gpu, "gpu", sim.DefaultGPU, "GPU to simulate (see --list)")
	fl.StringVar(&f.profile, "profile", "", "profile file (YAML or JSON) describing another GPU, model or calibration; --gpu, --model and --tensor-parallel-size given as flags override it")
	fl.IntVar(&f.tensorParallel, "tensor-parallel-size", 1, "GPUs the model is split over")
	fl.IntVar(&opts.MaxNumSeqs, "max-num-seqs", 0, "most sequences running at once (default: vLLM's for the GPU: 1024 on GPUs of 70 GiB or more but the A100, else 256)")
	fl.IntVar(&opts.MaxNumBatchedTokens, "max-num-batched-tokens", 0, "most tokens computed in one engine step (default: vLLM's for the GPU: 8192 on GPUs of 70 GiB or more but the A100, else 2048)")
	fl.Float64Var(&opts.GPUMemoryUtilization, "gpu-memory-utilization", sim.DefaultGPUMemoryUtilization, "fraction of GPU memory for weights, activations and KV cache, in (0, 1]")
	fl.IntVar(&opts.BlockSize, "block-size", sim.BlockSize, "tokens per KV cache block")
	fl.BoolVar(&f.chunkedPrefill, "enable-chunked-prefill", true, "prefill long prompts in chunks within max-num-batched-tokens")
	fl.BoolVar(&f.noChunkedPrefill, "no-enable-chunked-prefill", false, "prefill every prompt in one step (vLLM's spelling)")
	fl.StringVar(&f.kvCacheDType, "kv-cache-dtype", "auto", "KV cache format: "+sim.KVCacheDTypes)
	fl.IntVar(&opts.MaxModelLen, "max-model-len", 0, "most prompt plus output tokens per request (default: the model's limit, or what the KV cache holds)")
	fl.BoolVar(&f.prefixCaching, "enable-prefix-caching", true, "reuse the KV cache of shared prompt prefixes")
	fl.BoolVar(&f.noPrefixCaching, "no-enable-prefix-caching", false, "turn prefix caching off (vLLM's spelling)")
	fl.Float64Var(&opts.OutputLenMean, "output-len-mean", sim.DefaultOutputLenMean, "mean output length of requests without ignore_eos (geometric)")
	fl.Uint64Var(&opts.Seed, "seed", 0, "seed for output lengths, generated text and faults")
	fl.StringVar(&opts.APIKey, "api-key", "", "require this key as a Bearer token on /v1")
	fl.StringArrayVar(&f.faults, "fault", nil, "inject a fault (repeatable): "+sim.FaultKeys)
	fl.StringVar(&f.reasoning, "reasoning", "", "simulate a reasoning model: the first tokens of each reply stream as reasoning on /v1/chat/completions and /v1/responses, as vLLM's reasoning parsers split them: "+sim.ReasoningSyntax)
	fl.BoolVar(&f.list, "list", false, "list the built-in GPUs and models and exit")
	cmd.AddCommand(newSimCalibrateCmd(env), newSimFitCmd(env))
	return cmd
}

// apply turns the flags into opts. A profile file comes first; --gpu,
// --model and --tensor-parallel-size, when given, override what it says.
func (f *simServeFlags) apply(cmd *cobra.Command, opts *sim.Options) error {
	fl := cmd.Flags()
	if f.port < 0 || f.port > 65535 {
		return usageErr("--port %d: must be between 0 and 65535", f.port)
	}
	var err error
	if f.profile != "" {
		if opts.Profile, err = sim.LoadProfile(f.profile, opts.Profile); err != nil {
			return usageErr("--profile: %w", err)
		}
	}
	if f.profile == "" || fl.Changed("gpu") {
		if opts.Profile.GPU, err = sim.LookupGPU(f.gpu); err != nil {
			return usageErr("--gpu: %w", err)
		}
	}
	if f.profile == "" || fl.Changed("model") {
		if opts.Profile.Model, err = sim.LookupModel(f.model); err != nil {
			return usageErr("--model: %w", err)
		}
		if opts.ServedModelName == "" {
			opts.ServedModelName = f.model // clients ask for the name they were told
		}
	}
	if f.profile == "" || fl.Changed("tensor-parallel-size") {
		if f.tensorParallel < 1 {
			return usageErr("--tensor-parallel-size %d: must be at least 1", f.tensorParallel)
		}
		opts.Profile.TensorParallel = f.tensorParallel
	}
	if fl.Changed("enable-prefix-caching") && fl.Changed("no-enable-prefix-caching") && f.prefixCaching == f.noPrefixCaching {
		return usageErr("--enable-prefix-caching=%v contradicts --no-enable-prefix-caching", f.prefixCaching)
	}
	opts.DisablePrefixCaching = !f.prefixCaching || f.noPrefixCaching
	if fl.Changed("enable-chunked-prefill") && fl.Changed("no-enable-chunked-prefill") && f.chunkedPrefill == f.noChunkedPrefill {
		return usageErr("--enable-chunked-prefill=%v contradicts --no-enable-chunked-prefill", f.chunkedPrefill)
	}
	opts.DisableChunkedPrefill = !f.chunkedPrefill || f.noChunkedPrefill
	if !sim.ValidKVCacheDType(f.kvCacheDType) {
		return usageErr("--kv-cache-dtype %q: want one of %s", f.kvCacheDType, sim.KVCacheDTypes)
	}
	if f.profile == "" || fl.Changed("kv-cache-dtype") {
		opts.Profile.KVCacheDType = f.kvCacheDType
	}
	if f.profile != "" {
		// Left at their defaults, these leave room for the profile's own
		// engine settings.
		if !fl.Changed("gpu-memory-utilization") {
			opts.GPUMemoryUtilization = 0
		}
		if !fl.Changed("block-size") {
			opts.BlockSize = 0
		}
	}
	switch {
	case fl.Changed("gpu-memory-utilization") && !(opts.GPUMemoryUtilization > 0 && opts.GPUMemoryUtilization <= 1):
		// Checked here because the options read 0 as "the default": a 0
		// typed on the command line is a fraction out of range, as the
		// message says, not a request for 0.9.
		return usageErr("--gpu-memory-utilization %v: must be in (0, 1]", opts.GPUMemoryUtilization)
	case opts.MaxNumSeqs < 0:
		return usageErr("--max-num-seqs %d: must be positive", opts.MaxNumSeqs)
	case opts.MaxNumBatchedTokens < 0:
		return usageErr("--max-num-batched-tokens %d: must be positive", opts.MaxNumBatchedTokens)
	case opts.BlockSize < 0 || fl.Changed("block-size") && opts.BlockSize < 1:
		return usageErr("--block-size %d: must be positive", opts.BlockSize)
	}
	if fl.Changed("reasoning") {
		r, err := sim.ParseReasoning(f.reasoning)
		if err != nil {
			return usageErr("--reasoning: %w", err)
		}
		opts.Profile.Model.Reasoning = r
	}
	for _, spec := range f.faults {
		if err := opts.Faults.ParseFault(spec); err != nil {
			return usageErr("--fault: %w", err)
		}
	}
	return nil
}

// runSimServer runs a simulator on addr until ctx is done.
func runSimServer(ctx context.Context, env *Env, opts sim.Options, addr string) error {
	srv, err := sim.New(opts)
	if err != nil {
		return usageErr("%w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if err := srv.Start(ctx); err != nil {
		ln.Close()
		return fmt.Errorf("sim: %w", err)
	}
	defer srv.Close()

	url := "http://" + ln.Addr().String()
	info := srv.Info()
	// The banner is one write: whoever reads the URL from it has the
	// whole banner (the profile and faults lines a script or test checks).
	fmt.Fprintf(env.Stdout, "goodput sim: serving %s at %s\n  OpenAI-compatible API under %s/v1, Prometheus metrics at %s/metrics\n%s\n",
		info.Model, url, url, url, indent(info.String()))
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && opts.APIKey == "" {
		fmt.Fprintf(env.Stderr, "goodput sim: warning: listening beyond loopback without --api-key\n")
	}
	if err := srv.Serve(ctx, ln); err != nil {
		return err
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		fmt.Fprintln(env.Stdout, "goodput sim: stopped")
	}
	return nil
}

// listProfiles prints the built-in GPUs and models.
func listProfiles(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tMEMORY\tBANDWIDTH\tBF16 PEAK\tLINK")
	for _, g := range sim.GPUs() {
		fmt.Fprintf(tw, "%s\t%.0f GiB\t%.3g TB/s\t%.0f TFLOP/s\t%.0f GB/s\n", g.Name, g.MemoryGiB, g.BandwidthTBps, g.TFLOPS, g.LinkGBps)
	}
	fmt.Fprintln(tw, "\nMODEL\tPARAMS\tLAYERS\tHEADS (KV)\tKV/TOKEN\tMAX LEN")
	for _, m := range sim.Models() {
		fmt.Fprintf(tw, "%s\t%.3gB\t%d\t%d (%d)\t%d KiB\t%d\n", m.Name, m.ParamsB, m.Layers, m.Heads, m.KVHeads, m.KVBytesPerToken()>>10, m.MaxModelLen)
	}
	return tw.Flush()
}
