package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/atomicfile"
	"github.com/goodput-dev/goodput/report"
)

// newSweepPlotCmd is vllm bench sweep plot, under the same flags.
func newSweepPlotCmd(env *Env) *cobra.Command {
	var (
		figDir, figBy, rowBy, colBy, curveBy string
		filterBy, binBy, scaleX, scaleY      string
		dryRun                               bool
	)
	o := report.PlotOptions{}
	cmd := &cobra.Command{
		Use:   "plot OUTPUT_DIR",
		Short: "Draw the curves of a sweep over server settings (vllm bench sweep plot)",
		Long: `sweep plot reads every summary.json under OUTPUT_DIR (a goodput sweep serve or
serve_sla --output-dir, or one experiment in it) and draws --var-y against
--var-x, as vllm bench sweep plot does: a figure per combination of --fig-by,
a grid of panels by --row-by and --col-by, a curve per combination of
--curve-by. Keys are those of the runs' results (vLLM's figures such as
request_throughput, p99_ttft_ms, median_tpot_ms, and the sweep's parameters
such as max_concurrency). Runs that share an x value on a curve are drawn as
their mean, their range on hover. --filter-by keeps runs ('max_concurrency<1000,
max_num_batched_tokens<=4096'); --bin-by rounds a key down to a multiple
('request_throughput%0.5').

Each figure is a self-contained HTML page, FIG_DIR/<fig-name>[-key=value…].html,
where vLLM writes a PNG.`,
		Example: `  goodput sweep plot results/20261203_101500 --var-x max_concurrency --var-y p99_ttft_ms --curve-by max_num_seqs
  goodput sweep plot results --var-x request_throughput --var-y median_tpot_ms --col-by random_input_len --filter-by 'max_concurrency<=256'`,
		Args: oneOutputDir,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			var err error
			if o.Filters, err = report.ParsePlotFilters(filterBy); err != nil {
				return usageErr("--filter-by %v", err)
			}
			if o.Bins, err = report.ParsePlotBins(binBy); err != nil {
				return usageErr("--bin-by %v", err)
			}
			for _, s := range []struct {
				flag, v string
				dst     *bool
			}{{"--scale-x", scaleX, &o.LogX}, {"--scale-y", scaleY, &o.LogY}} {
				switch s.v {
				case "", "linear":
				case "log":
					*s.dst = true
				default:
					return usageErr("%s %q: want linear or log", s.flag, s.v)
				}
			}
			o.FigBy, o.RowBy, o.ColBy, o.CurveBy = report.SplitKeys(figBy), report.SplitKeys(rowBy), report.SplitKeys(colBy), report.SplitKeys(curveBy)
			figs, err := report.SweepPlot(dir, o)
			if err != nil {
				return fmt.Errorf("sweep plot: %w", err)
			}
			out := filepath.Join(dir, figDir)
			for _, f := range figs {
				path := filepath.Join(out, f.Name+".html")
				if dryRun {
					fmt.Fprintf(env.Stdout, "Figure %s: %d × %d panels, %d runs → %s\n", f.Name, len(f.Rows), len(f.Cols), f.Runs, path)
					continue
				}
				if err := os.MkdirAll(out, 0o755); err != nil {
					return err
				}
				err := atomicfile.Write(path, func(w io.Writer) error {
					return report.WritePlotHTML(w, f, report.HTMLOptions{Tool: "goodput " + Version})
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(env.Stdout, "Wrote %s (%d runs, %d × %d panels)\n", path, f.Runs, len(f.Rows), len(f.Cols))
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&figDir, "fig-dir", "", "where the figures go, under OUTPUT_DIR (default: OUTPUT_DIR itself)")
	fl.StringVar(&figBy, "fig-by", "", "a figure per combination of these keys (comma-separated)")
	fl.StringVar(&rowBy, "row-by", "", "a row of panels per combination of these keys")
	fl.StringVar(&colBy, "col-by", "", "a column of panels per combination of these keys")
	fl.StringVar(&curveBy, "curve-by", "", "a curve per combination of these keys")
	fl.StringVar(&o.VarX, "var-x", "request_throughput", "the key on the x axis")
	fl.StringVar(&o.VarY, "var-y", "p99_e2el_ms", "the key on the y axis")
	fl.StringVar(&filterBy, "filter-by", "", "keep the runs that pass these comparisons, as 'max_concurrency<1000,max_num_seqs==64'")
	fl.StringVar(&binBy, "bin-by", "", "round keys down to a multiple, as 'request_throughput%0.5'")
	fl.StringVar(&scaleX, "scale-x", "", "linear or log")
	fl.StringVar(&scaleY, "scale-y", "", "linear or log")
	fl.BoolVar(&dryRun, "dry-run", false, "print the figures that would be drawn, and draw none")
	fl.StringVar(&o.FigName, "fig-name", "FIGURE", "the figures' file name, before their --fig-by values")
	return cmd
}

// oneOutputDir takes the one argument of the plot commands: the sweep's
// output directory.
func oneOutputDir(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageErr("%s: give the sweep's output directory (one)", cmd.CommandPath())
	}
	return nil
}

// newSweepParetoCmd is vllm bench sweep plot_pareto, under the same flags.
func newSweepParetoCmd(env *Env) *cobra.Command {
	var (
		o       report.ParetoOptions
		labelBy string
		dryRun  bool
	)
	cmd := &cobra.Command{
		Use:     "plot_pareto OUTPUT_DIR",
		Aliases: []string{"plot-pareto"},
		Short:   "Draw the frontier of tokens/s per user against per GPU of a sweep over server settings (vllm bench sweep plot_pareto)",
		Long: `sweep plot_pareto reads every summary.json under OUTPUT_DIR and places each run
by its output throughput per user (÷ --user-count-var, default max_concurrency,
else the most requests it had active in one second, max_concurrent_requests) and per GPU
(÷ --gpu-count-var, else tensor × pipeline × data parallel size where the runs
have them, else 1), as vllm bench sweep plot_pareto does, and joins the runs
no other run beats on both: the settings worth choosing between. It writes
OUTPUT_DIR/pareto/PARETO.html, a self-contained page, where vLLM writes a PNG.`,
		Example: `  goodput sweep plot_pareto results/20261203_101500 --label-by max_concurrency,max_num_seqs`,
		Args:    oneOutputDir,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			o.LabelBy = report.SplitKeys(labelBy)
			p, err := report.SweepPareto(dir, o)
			if err != nil {
				return fmt.Errorf("sweep plot_pareto: %w", err)
			}
			path := filepath.Join(dir, "pareto", "PARETO.html")
			front := 0
			for _, pt := range p.Points {
				if pt.Frontier {
					front++
				}
			}
			if p.Skipped > 0 {
				fmt.Fprintf(env.Stdout, "Left out %d runs without a user count (%s or max_concurrent_requests).\n", p.Skipped, o.UserCountVar)
			}
			if dryRun {
				fmt.Fprintf(env.Stdout, "Figure PARETO: %d runs, %d on the frontier → %s\n", len(p.Points), front, path)
				return nil
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			err = atomicfile.Write(path, func(w io.Writer) error {
				return report.WriteParetoHTML(w, p, report.HTMLOptions{Tool: "goodput " + Version})
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "Wrote %s (%d runs, %d on the frontier)\n", path, len(p.Points), front)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.UserCountVar, "user-count-var", "max_concurrency", "the key of each run's concurrent users (else max_concurrent_requests)")
	fl.StringVar(&o.GPUCountVar, "gpu-count-var", "", "the key of each run's GPUs (default: tensor × pipeline × data parallel size, else 1)")
	fl.StringVar(&labelBy, "label-by", "max_concurrency,gpu_count", "the keys each point names on hover")
	fl.BoolVar(&dryRun, "dry-run", false, "print the figure that would be drawn, and draw none")
	return cmd
}
