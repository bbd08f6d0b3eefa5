package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/atomicfile"
	"github.com/goodput-dev/goodput/export"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/runfile"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// Report formats.
const (
	formatHTML     = "html"
	formatMarkdown = "markdown"
	formatCSV      = "csv"
)

func newReportCmd(env *Env) *cobra.Command {
	var (
		mf     metricsFlags
		out    string
		format string
		title  string
	)
	cmd := &cobra.Command{
		Use:   "report RUN_OR_SWEEP",
		Short: "Write a self-contained HTML report of a run or a sweep (or Markdown, or CSV)",
		Long: `report renders a run or a sweep for people.

RUN_OR_SWEEP is a record file (any format analyze reads, "-" for standard
input), a run's summary file, a sweep file, or a result directory holding one
run or one sweep. Beside a run's records NAME.jsonl it also reads
NAME.summary.json and, when the server's metrics were saved, NAME.server.json.
Any of these files may be gzip-compressed (run.jsonl.gz, sweep.json.gz,
NAME.summary.json.gz): a compressed run or sweep reads as the plain one.

HTML (the default) is one file that loads nothing from the network: it opens
offline, today and in ten years, and prints; its charts need no script, and
its one inline script (pinned by the page's security policy) only recomputes
the SLO explorer's figures. A run's page
has the verdict against the SLO and gates, latency histograms with percentile
markers and the SLO, its sessions (TTFT by turn, session goodput), agent tasks
and endpoints when it had them, the run over time, the server's view, errors
and the configuration; a sweep's has the latency-throughput curves with the knee,
goodput peak and operating point marked, the server's own account of each load
(from its points' summaries, when the server was scraped) beside the client's,
and every load's numbers.

Markdown suits pull requests and issues: the verdict, headline numbers and
latency table, and the same tables of sessions, agent tasks and endpoints as
the page when the run had them. CSV is one row per request for a run
(the table goodput export writes) and one row per load for a sweep.

Without --slo or --goodput a run is judged against the SLO it was run with
(from its summary file), else the default; with --gate the command exits
with code 3 when a gate fails, after writing the report.`,
		Example: `  goodput report results/ -o report.html
  goodput report results/run.jsonl --slo 'ttft<=300ms,tpot<=30ms' --gate 'p99(ttft)<=500ms'
  goodput report sweep.json --format markdown >> $GITHUB_STEP_SUMMARY
  goodput report run.jsonl --format csv -o requests.csv`,
		RunE: func(cmd *cobra.Command, args []string) error {
			files := takeGoodputWords(&mf, args)
			if len(files) != 1 {
				return usageErr("%s: give one run or sweep (a record file, a summary, a sweep file or a result directory)", cmd.CommandPath())
			}
			format, err := reportFormat(format, out)
			if err != nil {
				return err
			}
			if out == "" && format == formatHTML {
				out = "report.html"
			}
			kind, file, err := report.Locate(files[0])
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			if err := outputNotInput("--output", out, append([]string{files[0]}, report.InputFiles(kind, file)...)...); err != nil {
				return err
			}
			if kind == report.KindSweep {
				for _, name := range []string{"slo", "goodput", "gate", "metric-percentiles", "percentile-method", "include-warmup"} {
					if cmd.Flags().Changed(name) {
						return usageErr("report: --%s applies to runs: a sweep's numbers were computed when it ran", name)
					}
				}
				return writeSweepReport(env, file, out, format, title)
			}
			var mo metrics.Options
			gates, err := mf.apply(&mo)
			if err != nil {
				return err
			}
			ro, err := runOptions(mo, gates)
			if err != nil {
				return err
			}
			ro.RunSLO = !cmd.Flags().Changed("slo") && !cmd.Flags().Changed("goodput")
			ro.RunMethod = !cmd.Flags().Changed("percentile-method")
			if format == formatCSV {
				if ro.RunSLO {
					sum, err := report.SummaryBeside(file)
					if err != nil {
						return fmt.Errorf("report: %w", err)
					}
					if sum != nil {
						if cs, err := sum.SLO(); err == nil && cs != nil {
							ro.SLO = cs
						}
					}
				}
				return writeRecordCSV(env, file, out, ro.SLO)
			}
			run, err := report.LoadRun(file, env.Stdin, ro)
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			err = writeOutput(env, out, func(w io.Writer) error {
				if format == formatMarkdown {
					return report.WriteRunMarkdown(w, run)
				}
				return report.WriteRunHTML(w, run, report.HTMLOptions{Title: title, Tool: "goodput " + Version})
			})
			if err != nil {
				return err
			}
			return runGates(env, run, out)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", `file to write, "-" for standard output (default report.html for HTML, standard output otherwise)`)
	f.StringVar(&format, "format", "", "html, markdown or csv (default: from the --output extension, else html)")
	f.StringVar(&title, "title", "", "heading of an HTML report")
	mf.register(cmd, true)
	return cmd
}

// takeGoodputWords returns the positional arguments that are not the
// continuation of a vLLM-style `--goodput ttft:500 tpot:50`, adding those
// that are to the flag's value.
func takeGoodputWords(mf *metricsFlags, args []string) []string {
	var files []string
	for _, a := range args {
		if len(mf.goodput) > 0 && goodputWord.MatchString(a) {
			mf.goodput = append(mf.goodput, a)
			continue
		}
		files = append(files, a)
	}
	return files
}

// reportFormat resolves --format, defaulting from the output's extension.
func reportFormat(format, out string) (string, error) {
	switch strings.ToLower(format) {
	case "html", "htm":
		return formatHTML, nil
	case "markdown", "md":
		return formatMarkdown, nil
	case "csv":
		return formatCSV, nil
	case "":
	default:
		return "", usageErr("--format %q: want html, markdown or csv", format)
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".md", ".markdown":
		return formatMarkdown, nil
	case ".csv":
		return formatCSV, nil
	}
	return formatHTML, nil
}

// runOptions turns the summary options the shared flags built into a
// report's: the SLO as conditions (to draw its bounds) and the gates.
func runOptions(mo metrics.Options, gates slo.Gates) (report.RunOptions, error) {
	ro := report.RunOptions{Metrics: mo, Gates: gates}
	if mo.SLO != "" {
		cs, err := slo.ParseConditions(mo.SLO)
		if err != nil {
			return ro, usageErr("--slo: %v", err)
		}
		ro.SLO = cs
	}
	ro.Metrics.Good, ro.Metrics.SLO = nil, ""
	return ro, nil
}

// outputNotInput refuses an output (flag names it) that names one of the files a
// command reads, which writing would replace before anyone saw the
// result: `export run.jsonl -o run.jsonl` would leave a table where the
// run's records were. The caller gives every file of what it reads
// (report.InputFiles), not only the one named: a report written over
// the summary beside the records loses the run's SLO. The files are
// compared as files (os.SameFile), so that another spelling of a path,
// or a symbolic link to it, is refused too.
func outputNotInput(flag, out string, inputs ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	o, oerr := os.Stat(out)
	absOut, _ := filepath.Abs(out)
	for _, in := range inputs {
		fi, err := os.Stat(in)
		same := err == nil && oerr == nil && !fi.IsDir() && os.SameFile(fi, o)
		if oerr != nil {
			// Neither written yet (a run's summary, written after its
			// report): the same path is the same file to be.
			absIn, _ := filepath.Abs(in)
			same = absIn == absOut
		}
		if same {
			return usageErr("%s %s is %s, which this command reads: writing there would replace it; choose another file", flag, out, in)
		}
	}
	return nil
}

// writeOutput writes to the file out ("-" or empty: standard output)
// through write, replacing the file only once everything was written; a
// device or pipe (/dev/stdout) is written through, a symbolic link keeps
// pointing where it did.
func writeOutput(env *Env, out string, write func(io.Writer) error) error {
	if out == "" || out == "-" {
		bw := bufio.NewWriter(env.Stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := atomicfile.Write(out, write); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	return nil
}

// runGates prints the run's gate results (to standard error when the
// report itself went to standard output) and fails with ExitGateFail when
// one failed.
func runGates(env *Env, run *report.Run, out string) error {
	w := env.Stdout
	if out == "" || out == "-" {
		w = env.Stderr
	} else {
		fmt.Fprintf(w, "Wrote %s\n", out)
	}
	failed := 0
	for _, g := range run.Gates {
		fmt.Fprintf(w, "Gate: %s\n", g)
		if !g.Pass {
			failed++
		}
	}
	if failed > 0 {
		return &ExitError{Code: ExitGateFail, Err: fmt.Errorf("%d of %d gates failed", failed, len(run.Gates))}
	}
	return nil
}

func writeSweepReport(env *Env, file, out, format, title string) error {
	s, err := report.LoadSweep(file)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	err = writeOutput(env, out, func(w io.Writer) error {
		switch format {
		case formatMarkdown:
			return report.WriteSweepMarkdown(w, s)
		case formatCSV:
			return sweep.WriteCSV(w, s.Summary.Points)
		}
		return report.WriteSweepHTML(w, s, report.HTMLOptions{Title: title, Tool: "goodput " + Version})
	})
	if err == nil && out != "" && out != "-" {
		fmt.Fprintf(env.Stdout, "Wrote %s\n", out)
	}
	return err
}

// writeRecordCSV writes a run's requests as the CSV goodput export
// writes: one table format for both commands.
func writeRecordCSV(env *Env, file, out string, cs slo.Conditions) error {
	f, err := runfile.Open(file, env.Stdin)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	tab := export.NewTable(export.Options{SLO: cs})
	var r record.Record
	for {
		err := f.Next(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		tab.Add(&r)
		r = record.Record{} // a row keeps the labels map
	}
	err = writeOutput(env, out, tab.WriteCSV)
	if err == nil && out != "" && out != "-" {
		fmt.Fprintf(env.Stdout, "Wrote %s\n", out)
	}
	return err
}

// writeHTMLReport renders the run or sweep at input (as report reads it)
// as a self-contained HTML page at out, and says so on stdout: what a
// `--report FILE` flag on bench or sweep does once the run is saved. A run
// is read with mo's percentiles, method and SLO, so that the page agrees
// with the summary just printed.
func writeHTMLReport(env *Env, input, out string, mo metrics.Options) error {
	return writeHTMLReportWith(env, input, out, mo, report.HTMLOptions{})
}

// writeHTMLReportWith is writeHTMLReport with options for the run's page
// (Tool is set here).
func writeHTMLReportWith(env *Env, input, out string, mo metrics.Options, ho report.HTMLOptions) error {
	kind, file, err := report.Locate(input)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	if err := outputNotInput("--report", out, report.InputFiles(kind, file)...); err != nil {
		return err
	}
	if kind == report.KindSweep {
		return writeSweepReport(env, file, out, formatHTML, "")
	}
	ro, err := runOptions(mo, nil)
	if err != nil {
		return err
	}
	run, err := report.LoadRun(file, nil, ro)
	if err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	err = atomicfile.Write(out, func(w io.Writer) error {
		ho.Tool = "goodput " + Version
		return report.WriteRunHTML(w, run, ho)
	})
	if err != nil {
		err = fmt.Errorf("--report: %w", err)
	} else {
		fmt.Fprintf(env.Stdout, "Wrote %s\n", out)
	}
	return err
}
