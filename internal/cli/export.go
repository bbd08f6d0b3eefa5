package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/export"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

func newExportCmd(env *Env) *cobra.Command {
	var (
		out, format, sloExpr string
		chunks               bool
	)
	cmd := &cobra.Command{
		Use:   "export RUN",
		Short: "Write a run's requests as a table: CSV, Parquet or JSON Lines, one row per request",
		Long: `export writes one row per request with named columns, for pandas, DuckDB,
Polars, spreadsheets and jq:

` + exportColumnHelp() + `
Times are seconds from the run's start and latencies milliseconds, exact to
the nanosecond; a value a request does not define (the TPOT of a one-token
reply, the TTFT of a failure) is empty (null). --chunks adds chunk_times_s and
chunk_tokens, every token-bearing chunk's arrival and tokens, from which the
ITLs can be recomputed, and chunk_reasoning when requests reasoned. Each
label becomes a column label_NAME.

RUN is a record file (any format analyze reads, "-" for standard input), a
run's summary file, or a result directory holding one run. The good column
uses --slo, by default the SLO the run was judged with (from its summary
file), else ` + DefaultSLO + `; --slo none leaves it empty.`,
		Example: `  goodput export runs/base.jsonl -o requests.csv
  goodput export runs/ --format parquet -o requests.parquet   # duckdb: SELECT * FROM 'requests.parquet'
  goodput export runs/base.jsonl --format jsonl | jq 'select(.ttft_ms > 500)'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("%s: give one run (a record file, a summary, a result directory, or - for standard input)", cmd.CommandPath())
			}
			format, err := exportFormat(format, out)
			if err != nil {
				return err
			}
			file, err := report.RunRecords(args[0])
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			o := export.Options{Chunks: chunks}
			if o.SLO, err = exportSLO(cmd, file, sloExpr); err != nil {
				return err
			}
			f, err := record.Open(file, env.Stdin)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			defer f.Close()
			tab := export.NewTable(o)
			var r record.Record
			for {
				err := f.Next(&r)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					return fmt.Errorf("export: %w", err)
				}
				tab.Add(&r)
				r = record.Record{} // a row keeps the labels map
			}
			if n := f.CutNote(); n != "" {
				fmt.Fprintf(env.Stderr, "goodput: %s\n", n)
			}
			if err := writeOutput(env, out, func(w io.Writer) error { return tab.Write(w, format) }); err != nil {
				return err
			}
			if out != "" && out != "-" {
				fmt.Fprintf(env.Stdout, "Wrote %s (%d requests, %s)\n", out, tab.Len(), format)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "output", "o", "-", `file to write, "-" for standard output`)
	fl.StringVar(&format, "format", "", "csv, parquet or jsonl (default: from the --output extension, else csv)")
	fl.StringVar(&sloExpr, "slo", "", `SLO of the good column, e.g. "ttft<=500ms,tpot<=50ms" or vLLM's "ttft:500 tpot:50"; "none" for none (default: the run's own)`)
	fl.BoolVar(&chunks, "chunks", false, "add every chunk's arrival time and tokens (chunk_times_s, chunk_tokens)")
	return cmd
}

// exportColumnHelp lists the columns for the command's help.
func exportColumnHelp() string {
	var b strings.Builder
	for _, c := range export.BaseColumns() {
		fmt.Fprintf(&b, "  %-16s %s\n", c.Name, c.Doc)
	}
	for _, c := range export.PlaceColumns() {
		fmt.Fprintf(&b, "  %-16s %s (when the run has them)\n", c.Name, c.Doc)
	}
	b.WriteString("and, when requests reasoned (a reasoning model's thinking before its answer):\n")
	for _, c := range export.ReasoningColumns() {
		fmt.Fprintf(&b, "  %-18s %s\n", c.Name, c.Doc)
	}
	return b.String()
}

// exportFormat resolves --format, defaulting from the output's extension.
func exportFormat(format, out string) (string, error) {
	f := strings.ToLower(format)
	if f == "" {
		switch strings.ToLower(filepath.Ext(out)) {
		case ".parquet", ".pq":
			return export.FormatParquet, nil
		case ".jsonl", ".ndjson", ".json":
			return export.FormatJSONL, nil
		}
		return export.FormatCSV, nil
	}
	if f == "ndjson" {
		f = export.FormatJSONL
	}
	for _, known := range export.Formats {
		if f == known {
			return f, nil
		}
	}
	return "", usageErr("--format %q: want %s", format, strings.Join(export.Formats, ", "))
}

// exportSLO returns the SLO of the good column: --slo, else the run's
// own from its summary file, else the default.
func exportSLO(cmd *cobra.Command, file, expr string) (slo.Conditions, error) {
	if cmd.Flags().Changed("slo") {
		if strings.EqualFold(expr, "none") {
			return nil, nil
		}
		cs, err := slo.ParseConditions(expr)
		if err != nil {
			return nil, usageErr("--slo: %v", err)
		}
		return cs, nil
	}
	if sum, err := report.SummaryBeside(file); err == nil && sum != nil {
		if cs, err := sum.SLO(); err == nil && cs != nil {
			return cs, nil
		}
	}
	return slo.ParseConditions(DefaultSLO)
}
