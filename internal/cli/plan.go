package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/capacity"
	"github.com/goodput-dev/goodput/sweep"
)

func newPlanCmd(env *Env) *cobra.Command {
	var (
		in       capacity.Input
		headroom string
		from     string
		format   string
	)
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Size a fleet with Little's Law: per-replica QPS, replicas for a peak, cost per million tokens",
		Long: `plan turns one replica's measured capacity into a fleet size with Little's Law
(L = λ × W): a replica that holds --max-num-seqs requests in flight at a mean
latency of --latency completes max-num-seqs ÷ latency requests per second.
Give that pair, or --per-replica-qps directly, or --from a sweep file to use
its operating point (the highest load that met the SLO target), or the lower
load that finished more requests per second within the SLO when the server did
less work past its knee.

From a sweep it takes the operating point's request throughput, its tokens per
request (output throughput ÷ request throughput) and, at a concurrency point,
its concurrency and mean latency as a Little's Law check. A flag replaces the
figure it names: --per-replica-qps the request rate (tokens per request stay
the measured ones: they belong to the workload), --max-num-seqs with --latency
the check, --output-tokens or --output-throughput the tokens. Each figure is
labelled measured or given.

With --peak-qps it sizes the fleet: replicas = ⌈peak × (1 + headroom) ÷
per-replica QPS⌉. Headroom is extra demand on top of the peak: 20% sizes the
fleet for 120% of it. With --output-tokens (or a sweep's measured
throughput) and --gpu-hour-cost it prices a million output tokens, for one
replica at its operating point and for the fleet at the peak.

Every step of the arithmetic is printed with its numbers.`,
		Example: `  goodput plan --max-num-seqs 64 --latency 4s --peak-qps 100 --headroom 20%
  goodput plan --per-replica-qps 15 --peak-qps 100 --output-tokens 250 --gpu-hour-cost 2.50
  goodput plan --from sweep.json --peak-qps 100 --gpu-hour-cost 2.50 --gpus-per-replica 2`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("plan: unexpected argument %q (a sweep file goes after --from)", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			flags := cmd.Flags()
			if format != "text" && format != "json" {
				return usageErr("plan: --format %q: want text or json", format)
			}
			for _, name := range []string{"max-num-seqs", "latency", "per-replica-qps", "peak-qps",
				"output-tokens", "output-throughput", "gpus-per-replica"} {
				if flags.Changed(name) {
					if v := flags.Lookup(name).Value.String(); isZero(v) {
						return usageErr("plan: --%s %s: must be positive", name, v)
					}
				}
			}
			if flags.Changed("headroom") {
				h, err := capacity.ParseHeadroom(headroom)
				if err != nil {
					return usageErr("plan: --headroom: %w", err)
				}
				in.Headroom = h
			}
			if from != "" {
				if err := fillFromSweep(&in, from, flags.Changed); err != nil {
					return err
				}
			}
			plan, err := capacity.Compute(in)
			if err != nil {
				return usageErr("plan: %w", err)
			}
			if format == "json" {
				enc := json.NewEncoder(env.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(plan)
			}
			_, err = fmt.Fprintf(env.Stdout, "%s\n\n%s", plan.Summary(), plan.Explain())
			return err
		},
	}
	f := cmd.Flags()
	f.IntVar(&in.MaxNumSeqs, "max-num-seqs", 0, "requests one replica holds in flight (vLLM --max-num-seqs); needs --latency")
	f.DurationVar(&in.Latency, "latency", 0, "mean end-to-end latency at --max-num-seqs, e.g. 4.2s")
	f.Float64Var(&in.PerReplicaQPS, "per-replica-qps", 0, "requests per second one replica sustains at its operating point")
	f.StringVar(&from, "from", "", "sweep file (JSON) whose operating point gives the per-replica figures; other flags override them")
	f.Float64Var(&in.PeakQPS, "peak-qps", 0, "busiest demand the fleet must serve, requests per second")
	f.StringVar(&headroom, "headroom", "0", "extra demand on top of the peak, as a fraction (0.2) or a percentage (20%)")
	f.Float64Var(&in.OutputTokensPerRequest, "output-tokens", 0, "mean output tokens per request")
	f.Float64Var(&in.ReplicaTokensPerSecond, "output-throughput", 0, "output tokens per second of one replica at its operating point (instead of --output-tokens: not both)")
	f.Float64Var(&in.GPUHourCost, "gpu-hour-cost", 0, "price of one GPU for one hour")
	f.IntVar(&in.GPUsPerReplica, "gpus-per-replica", 1, "GPUs one replica occupies (tensor parallel size)")
	f.StringVar(&in.Currency, "currency", "$", "symbol written before money amounts")
	f.StringVar(&format, "format", "text", "output: text (the plan and its arithmetic) or json")
	return cmd
}

// isZero reports whether a flag's printed value is a zero number or
// duration ("0", "0s"), which the planner would take as "not given".
func isZero(v string) bool {
	return v == "0" || v == "0s"
}

// fillFromSweep sets the per-replica figures of in from the operating point
// of the sweep file at path, keeping those given by flags (changed reports
// whether a flag was set).
func fillFromSweep(in *capacity.Input, path string, changed func(string) bool) error {
	s, err := sweep.ReadFile(path)
	if err != nil {
		return fmt.Errorf("plan: --from: %w", err)
	}
	got, err := capacity.FromSummary(s)
	if err != nil {
		return fmt.Errorf("plan: --from %s: %w", path, err)
	}
	// A flag that sets either half of Little's Law overrides both, so a
	// measured latency is never paired with a concurrency it was not
	// measured at.
	used := false
	if !changed("max-num-seqs") && !changed("latency") {
		in.MaxNumSeqs, in.Latency = got.MaxNumSeqs, got.Latency
		in.Measured.Concurrency = got.Measured.Concurrency
		used = used || got.Measured.Concurrency
	}
	if !changed("per-replica-qps") {
		in.PerReplicaQPS = got.PerReplicaQPS
		in.Measured.QPS = got.Measured.QPS
		used = used || got.Measured.QPS
	}
	// Tokens per request are the workload's: a --per-replica-qps of its
	// own changes how many requests a replica serves, not how long each
	// answer is.
	if !changed("output-tokens") && !changed("output-throughput") {
		in.OutputTokensPerRequest = got.OutputTokensPerRequest
		in.Measured.OutputTokensPerSecond = got.Measured.OutputTokensPerSecond
		in.Measured.RequestsPerSecond = got.Measured.RequestsPerSecond
		used = used || got.OutputTokensPerRequest > 0
	}
	if used {
		in.Source = strings.Replace(got.Source, "the sweep's", path+"'s", 1)
	}
	return nil
}
