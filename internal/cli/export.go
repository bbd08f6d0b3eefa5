package cli

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/export"
	"github.com/goodput-dev/goodput/merge"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/runfile"
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
reply, any latency of a failure, even one that failed after some tokens) is
empty (null): a failure keeps its outcome and raw times (first_token_s, …),
so the rows summarise as the records do. --chunks adds chunk_times_s and
chunk_tokens, every token-bearing chunk's arrival and tokens, from which the
ITLs can be recomputed, and chunk_reasoning when requests reasoned. Each
label becomes a column label_NAME.

RUN is a record file (any format analyze reads, "-" for standard input), a
run's summary file, or a result directory holding one run (or the shards of
one run, read on their merged clock). The good column
uses --slo, by default the SLO the run was judged with (from its summary
file), else ` + DefaultSLO + `; --slo none leaves it empty.`,
		Example: `  goodput export runs/base.jsonl -o requests.csv
  goodput export runs/ --format parquet -o requests.parquet   # duckdb: SELECT * FROM 'requests.parquet'
  goodput export runs/base.jsonl --format jsonl | jq 'select(.ttft_ms > 500)'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("%s: give one run (a record file, a summary, a result directory, or - for standard input)", cmd.CommandPath())
			}
			// A name ending in .gz writes the table gzip-compressed
			// (DuckDB and pandas read requests.csv.gz as it is).
			plainName, gz := strings.CutSuffix(out, ".gz")
			format, err := exportFormat(format, plainName)
			if err != nil {
				return err
			}
			if gz && format == export.FormatParquet {
				return usageErr("--output %s: Parquet compresses its own columns; give a name without .gz", out)
			}
			files, err := report.RunFiles(args[0])
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			inputs := []string{args[0]}
			for _, f := range files {
				inputs = append(inputs, report.InputFiles(report.KindRun, f)...)
			}
			if err := outputNotInput("--output", out, inputs...); err != nil {
				return err
			}
			o := export.Options{Chunks: chunks}
			if o.SLO, err = exportSLO(cmd, files[0], sloExpr); err != nil {
				return err
			}
			tab := export.NewTable(o)
			if len(files) > 1 {
				// The shards of one run, on their merged clock.
				if err := exportShards(env, tab, files); err != nil {
					return fmt.Errorf("export: %w", err)
				}
			} else if err := exportFile(env, tab, files[0]); err != nil {
				return fmt.Errorf("export: %w", err)
			}
			if err := writeOutput(env, out, func(w io.Writer) error {
				if !gz {
					return tab.Write(w, format)
				}
				zw := gzip.NewWriter(w)
				return errors.Join(tab.Write(zw, format), zw.Close())
			}); err != nil {
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

// exportFile adds every record of one file to tab.
func exportFile(env *Env, tab *export.Table, file string) error {
	f, err := runfile.Open(file, env.Stdin)
	if err != nil {
		return err
	}
	defer f.Close()
	shared := f.Header().Labels
	var r record.Record
	for {
		err := f.Next(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		r.Labels = withShared(r.Labels, shared)
		tab.Add(&r)
		r = record.Record{} // a row keeps the labels map
	}
	if n := f.CutNote(); n != "" {
		fmt.Fprintf(env.Stderr, "goodput: %s\n", n)
	}
	return nil
}

// exportShards adds the records of a sharded run's files to tab, on the
// run's one clock, and says what the merge found missing or partial.
func exportShards(env *Env, tab *export.Table, files []string) error {
	set, err := merge.Open(files, env.Stdin, merge.Options{})
	if err != nil {
		return err
	}
	defer set.Close()
	parts := set.Parts()
	err = set.Each(func(part int, recs []record.Record) error {
		shared := parts[part].Header.Labels
		for i := range recs {
			r := recs[i]
			// A row keeps the map; the batch is reused.
			r.Labels = withShared(maps.Clone(r.Labels), shared)
			tab.Add(&r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	rep, err := set.Report(merge.Options{})
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(env.Stderr, "goodput: WARNING: %s\n", w)
	}
	return nil
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

// withShared adds to a record's labels those its run's header gives every
// record (record.Header.Labels), the record's own winning; it may return
// labels itself, changed.
func withShared(labels, shared map[string]string) map[string]string {
	for k, v := range shared {
		if _, ok := labels[k]; !ok {
			if labels == nil {
				labels = make(map[string]string, len(shared))
			}
			labels[k] = v
		}
	}
	return labels
}
