package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/history"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/slo"
)

func historyAdd(env *Env, q *historyQuery) *cobra.Command {
	return &cobra.Command{
		Use:   "add RUN...",
		Short: "Record runs measured earlier (their record files, summaries or directories) in the history",
		Long: `add records bench runs measured earlier, as bench --history would have: for a
run whose recording failed (a store that was locked or down), or one measured
without --history. RUN is a record file (NAME.jsonl), its summary
(NAME.summary.json) or a directory holding one run. The stored numbers are
the summary's when one is beside the records (bench writes it when its
recording fails, and with --save-result), else computed from the records
with the run's percentile method and bench's default SLO (` + DefaultSLO + `),
as analyze computes them; the labels are the run's
(--record-label). A run already recorded (the same records and start, or
a copy of them elsewhere: the same start, tool and settings) is not
recorded again. Standard input is not read: the history keeps the record
file's path. The server's version, which bench asks the server for,
is left empty.

A sweep is recorded by the sweep itself: run it again with --resume and
--history, which measures nothing more and records every point.`,
		Example: `  goodput history add --history runs.db runs/nightly.jsonl`,
		Args:    usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(q.labels) > 0 || q.target != "" || q.kind != "" {
				return usageErr("%s: --label, --target and --kind select runs to read; add records each run with its own labels", cmd.CommandPath())
			}
			dsn := q.dsn
			if dsn == "" {
				dsn = env.getenv(history.EnvStore)
			}
			if dsn == "" {
				return usageErr("%s: no history: give --history (a SQLite file or a postgres:// URL) or set $%s", cmd.CommandPath(), history.EnvStore)
			}
			s, err := history.Open(cmd.Context(), dsn) // a new file is a new history, as for bench
			if err != nil {
				return err
			}
			defer s.Close()
			for _, arg := range args {
				if err := addRun(cmd.Context(), env, s, arg); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// addRun records the bench run at path in s and says so.
func addRun(ctx context.Context, env *Env, s *history.Store, path string) error {
	// The history keeps the record file's path, to read the records again
	// when a later run is checked against this one, and the summary beside
	// it holds the run's own numbers: standard input, or a pipe, has
	// neither.
	if path == "-" || !regularOrDir(path) {
		return usageErr("%s: history add reads a run's files, which the history refers to later: give the record file's path (save standard input to a file first)", path)
	}
	kind, file, err := report.Locate(path)
	if err != nil {
		return err
	}
	if kind == report.KindSweep {
		return usageErr("%s: a sweep: record it with goodput sweep --resume --result-dir DIR --history, which records every point it finds measured", path)
	}
	// Without its summary the run's SLO is not known: bench's default's
	// is taken, as analyze takes it.
	def, err := slo.ParseConditions(DefaultSLO)
	if err != nil {
		return err
	}
	run, err := report.LoadRun(file, nil, report.RunOptions{SLO: def, RunSLO: true, RunMethod: true})
	if err != nil {
		return err
	}
	res, interrupted := run.Result, run.EndedEarly
	if run.Summary != nil {
		res, interrupted = run.Summary.Result, run.Summary.Interrupted
	}
	r, err := history.FromBench(run.Header, res, file, interrupted)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if id, ok, err := s.Recorded(ctx, r.RecordsPath, r.Start); err != nil {
		return err
	} else if ok {
		fmt.Fprintf(env.Stdout, "%s: recorded before, as run %d in %s\n", path, id, s)
		return nil
	}
	if id, from, ok, err := s.RecordedRun(ctx, r); err != nil {
		return err
	} else if ok {
		fmt.Fprintf(env.Stdout, "%s: not recorded: it holds the run that %s began at %s, recorded already as run %d in %s from %s (a copy of its records counts the run twice in every baseline)\n",
			path, r.Tool, r.Start.UTC().Format(time.RFC3339Nano), id, s, from)
		return nil
	}
	id, err := s.Add(ctx, r)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Recorded run %d in %s (%s)\n", id, s, path)
	return nil
}

// regularOrDir reports whether path is a regular file or a directory, or
// does not exist (Locate says so then): not a pipe or a device.
func regularOrDir(path string) bool {
	if abs, err := filepath.Abs(path); err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")) {
		// /dev/stdin is a regular file when the shell redirects one to
		// it, but the path names none later.
		return false
	}
	fi, err := os.Stat(path)
	return err != nil || fi.Mode().IsRegular() || fi.IsDir()
}
