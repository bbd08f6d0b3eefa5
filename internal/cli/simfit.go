package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sim/fit"
)

func newSimFitCmd(env *Env) *cobra.Command {
	var (
		heldOut                     []string
		params                      []string
		gpu, model, profile, output string
		tp, maxEvals                int
		opts                        sim.Options
	)
	cmd := &cobra.Command{
		Use:   "fit RECORDS... --output FILE",
		Short: "Fit the simulator's cost model to runs of a real server and write it as a profile",
		Long: `fit replays the requests of record files from goodput bench runs against a
real server (each file one load: a closed loop of N, or an open loop at its
recorded times; several files of the same load are pooled) on the simulator
in virtual time, and searches the GPU efficiencies and engine overheads
(--params) that reproduce what the server measured: output throughput and
mean TTFT and TPOT. It prints the error per metric and per load, for the
fitted files and for those given with --hold-out, which the fit predicts
without seeing, and writes the fitted profile to --output for goodput sim
--profile and goodput sweep --virtual --sim-profile.

Describe the server's hardware and model with --gpu and --model (built-in
names) or --profile (a profile file), and its engine's limits with
--max-num-seqs and --max-num-batched-tokens as vLLM names them; a batch limit
the server's own metrics showed (the summary bench writes beside each record
file, with the server's running and waiting requests) is used when
--max-num-seqs is not given.`,
		Example: `  goodput sim fit --gpu H100 --model Qwen/Qwen3-8B runs/c1.jsonl runs/c4.jsonl runs/c16.jsonl \
      --hold-out runs/c8.jsonl --output fitted.yaml
  goodput sweep --virtual --sim-profile fitted.yaml --concurrency 1,8,32,64`,
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			if len(args) == 0 {
				return usageErr("give the record files to fit")
			}
			if output == "" {
				return usageErr("--output: give the file for the fitted profile")
			}
			var err error
			if profile != "" {
				if opts.Profile, err = sim.LoadProfile(profile, opts.Profile); err != nil {
					return usageErr("--profile: %w", err)
				}
			}
			if profile == "" || fl.Changed("gpu") {
				if opts.Profile.GPU, err = sim.LookupGPU(gpu); err != nil {
					return usageErr("--gpu: %w", err)
				}
			}
			if profile == "" || fl.Changed("model") {
				if opts.Profile.Model, err = sim.LookupModel(model); err != nil {
					return usageErr("--model: %w", err)
				}
			}
			if fl.Changed("tensor-parallel-size") {
				if tp < 1 {
					return usageErr("--tensor-parallel-size %d: must be at least 1", tp)
				}
				opts.Profile.TensorParallel = tp
			}
			for _, p := range params {
				if !contains(fit.Params, p) {
					return usageErr("--params %q: want some of %s", p, strings.Join(fit.Params, ", "))
				}
			}
			fitted, err := loadReplays(args)
			if err != nil {
				return err
			}
			held, err := loadReplays(heldOut)
			if err != nil {
				return err
			}
			if opts.MaxNumSeqs == 0 {
				for _, rp := range append(fitted, held...) {
					if rp.MaxRunning > opts.MaxNumSeqs {
						opts.MaxNumSeqs = rp.MaxRunning
					}
				}
				if opts.MaxNumSeqs > 0 {
					fmt.Fprintf(env.Stderr, "goodput: max num seqs %d, from the server's metrics: at most %d requests ran while others waited\n", opts.MaxNumSeqs, opts.MaxNumSeqs)
				}
			}
			if _, err := sim.Resolve(opts); err != nil {
				return usageErr("simulator: %v", err)
			}
			fitLoads, heldLoads := fit.Group(fitted), fit.Group(held)
			res, err := fit.Fit(cmd.Context(), fitLoads, heldLoads, fit.Options{Base: opts, Params: params, MaxEvals: maxEvals})
			if err != nil {
				return fmt.Errorf("fit: %w", err)
			}
			if err := res.Write(env.Stdout); err != nil {
				return err
			}
			data, err := sim.FormatProfile(res.Profile, res.Summary(fitLoads, heldLoads))
			if err != nil {
				return err
			}
			if err := os.WriteFile(output, data, 0o644); err != nil {
				return fmt.Errorf("--output: %w", err)
			}
			fmt.Fprintf(env.Stdout, "Wrote %s\n", output)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&heldOut, "hold-out", nil, "record file to predict without fitting to it (repeatable)")
	fl.StringVarP(&output, "output", "o", "", "file to write the fitted profile to (YAML)")
	fl.StringVar(&gpu, "gpu", sim.DefaultGPU, "the server's GPU (see goodput sim --list)")
	fl.StringVar(&model, "model", sim.DefaultModel, "the server's model: a built-in name or a Hugging Face name of one")
	fl.StringVar(&profile, "profile", "", "profile file describing the server's GPU or model; --gpu and --model given as flags override it")
	fl.IntVar(&tp, "tensor-parallel-size", 1, "GPUs the model is split over")
	fl.IntVar(&opts.MaxNumSeqs, "max-num-seqs", 0, "the server's limit on running sequences (default: the server's metrics', else vLLM's for the GPU)")
	fl.IntVar(&opts.MaxNumBatchedTokens, "max-num-batched-tokens", 0, "the server's limit on tokens per step (default: vLLM's for the GPU)")
	fl.IntVar(&opts.MaxModelLen, "max-model-len", 0, "the server's limit on prompt plus output tokens")
	fl.Float64Var(&opts.GPUMemoryUtilization, "gpu-memory-utilization", sim.DefaultGPUMemoryUtilization, "the server's vLLM --gpu-memory-utilization")
	fl.StringSliceVar(&params, "params", nil, "parameters to fit (default all): "+strings.Join(fit.Params, ", "))
	fl.IntVar(&maxEvals, "max-evals", 400, "most replays of the loads the search may run")
	return cmd
}

// loadReplays reads record files for a fit.
func loadReplays(paths []string) ([]*fit.Replay, error) {
	var out []*fit.Replay
	for _, p := range paths {
		rp, err := fit.LoadReplay(p)
		if err != nil {
			return nil, err
		}
		out = append(out, rp)
	}
	return out, nil
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
