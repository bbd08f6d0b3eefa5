package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/history"
	"github.com/goodput-dev/goodput/sweep"
)

// historyFlags record a bench run or a sweep in a run history.
type historyFlags struct {
	dsn string
}

func (f *historyFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.dsn, "history", "", "record the run in this history: a SQLite file or a postgres:// URL (default $"+history.EnvStore+"; none when unset)")
}

// recorder is the history a command records into; nil records nothing.
type recorder struct {
	store *history.Store
}

// recordTimeout bounds the recording after a run, which may follow an
// interruption.
const recordTimeout = 30 * time.Second

// open opens the store the flag or the environment names, before the run,
// so that a store that cannot be reached fails the command before it
// spends any time measuring.
func (f *historyFlags) open(ctx context.Context, env *Env) (*recorder, error) {
	dsn := f.dsn
	if dsn == "" {
		dsn = env.getenv(history.EnvStore)
	}
	if dsn == "" {
		return nil, nil
	}
	s, err := history.Open(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("--history: %w", err)
	}
	return &recorder{store: s}, nil
}

func (r *recorder) close() {
	if r != nil {
		r.store.Close()
	}
}

// bench records a bench run and says so on w.
func (r *recorder) bench(ctx context.Context, w io.Writer, cfg *bench.Config, out *bench.Outcome) error {
	if r == nil || out == nil || out.Result == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	run, err := history.FromBench(out.Header, out.Result, out.RecordsPath, out.Run.Interrupted)
	if err != nil {
		return err
	}
	run.Target.ServerVersion = history.ServerVersion(ctx, nil, cfg.BaseURL)
	id, err := r.store.Add(ctx, run)
	if err != nil {
		return fmt.Errorf("--history: %w%s", err, laterHint(out, r.store))
	}
	fmt.Fprintf(w, "Recorded run %d in %s\n", id, r.store)
	return nil
}

// laterHint says how to record a run whose recording failed once the
// store can take it: from its summary, which is written for it here when
// --save-result did not, so that the stored numbers are the run's own.
func laterHint(out *bench.Outcome, store *history.Store) string {
	if out.RecordsPath == "" {
		return " (the run wrote no records: it cannot be recorded later)"
	}
	path, err := out.SaveSummary()
	if err != nil {
		path = out.RecordsPath
	}
	return fmt.Sprintf("; the run is not lost: record it later with goodput history add --history %s %s", store, path)
}

// sweep records a sweep with its points and says so.
func (r *recorder) sweep(ctx context.Context, env *Env, cfg *bench.Config, dir, jsonPath string, sum sweep.Summary) error {
	if r == nil || len(sum.Points) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	version := history.ServerVersion(ctx, nil, cfg.BaseURL)
	rec, err := history.RecordSweep(ctx, r.store, dir, jsonPath, sum, version, cfg.Labels)
	if err != nil {
		return fmt.Errorf("--history: %w", err)
	}
	msg := fmt.Sprintf("Recorded sweep %d with %d points in %s", rec.SweepID, rec.Points, r.store)
	if rec.Skipped > 0 {
		msg += fmt.Sprintf(" (%d points were recorded before)", rec.Skipped)
	}
	fmt.Fprintln(env.Stdout, msg)
	return nil
}
