package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sim/calibration"
)

func newSimCalibrateCmd(env *Env) *cobra.Command {
	var points, reasons, profile string
	var maxMedian, maxErr float64
	cmd := &cobra.Command{
		Use:   "calibrate --points FILE",
		Short: "Compare the simulator with published vLLM measurements, point by point",
		Long: `calibrate runs every point of a table of published vLLM benchmark results
in virtual time on the simulator, with the point's GPU, model, workload and
load, and prints the published and simulated output throughput, TTFT and
TPOT, the error of each, and the median and worst error per metric.

The table is tab-separated, one point per line, with the columns id, source,
gpu, model, precision, in_len, out_len, concurrency_or_rate, pub_out_tok_s,
pub_ttft_ms, pub_ttft_stat, pub_tpot_ms, pub_tpot_stat and notes (the
format of the repository's sim-calibration data). It exits 3 when a metric's
median absolute error is above --max-median-error, or a figure is off by more
than --max-error without a reason (--reasons; the repository's points come
with theirs).`,
		Example: `  goodput sim calibrate --points ../shared/sim-calibration/published-points.tsv
  goodput sim calibrate --points mine.tsv --profile fitted.yaml --reasons why.tsv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if points == "" {
				return usageErr("--points: give the table of published points")
			}
			opts := sim.Options{}
			var err error
			if profile != "" {
				if opts.Profile, err = sim.LoadProfile(profile, opts.Profile); err != nil {
					return usageErr("--profile: %w", err)
				}
			}
			pts, err := calibration.LoadPoints(points)
			if err != nil {
				return fmt.Errorf("--points: %w", err)
			}
			why := calibration.Reasons()
			if reasons != "" {
				data, err := os.ReadFile(reasons)
				if err != nil {
					return fmt.Errorf("--reasons: %w", err)
				}
				if why, err = calibration.ParseReasons(string(data), reasons); err != nil {
					return fmt.Errorf("--reasons: %w", err)
				}
			}
			rep, err := calibration.Check(pts, opts, why)
			if err != nil {
				return fmt.Errorf("%s: %w", points, err)
			}
			if err := rep.Write(env.Stdout); err != nil {
				return err
			}
			if short := rep.Shortfalls(maxMedian, maxErr); len(short) > 0 {
				fmt.Fprintln(env.Stdout)
				for _, s := range short {
					fmt.Fprintln(env.Stdout, "short of the goal: "+s)
				}
				return &ExitError{Code: ExitGateFail, Err: fmt.Errorf("calibrate: %d shortfalls", len(short))}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&points, "points", "", "tab-separated table of published points")
	fl.StringVar(&reasons, "reasons", "", "why some figures are expected to be far off: lines of id, metric and reason (default: the reasons for the repository's points)")
	fl.StringVar(&profile, "profile", "", "profile file applied to every point (a calibration, say from goodput sim fit)")
	fl.Float64Var(&maxMedian, "max-median-error", 0.10, "goal: largest median absolute error per metric")
	fl.Float64Var(&maxErr, "max-error", 0.50, "goal: largest error of a figure without a reason")
	return cmd
}
