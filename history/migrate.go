package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// migration is one step of the schema. Steps are applied in order, each in
// its own transaction with its row in schema_migrations, so a store is
// always at one version. A step's statements may use {{id}} for an
// auto-numbered primary key, which the dialects spell differently; run,
// when set, then moves data the statements alone cannot.
type migration struct {
	version int
	about   string
	stmts   []string
	run     func(ctx context.Context, tx *sql.Tx, s *Store) error
}

// migrations is the schema's history. Never edit a step that has shipped:
// stores in use have applied it; add a step instead.
var migrations = []migration{
	{
		version: 1,
		about:   "runs with their labels",
		stmts: []string{
			`CREATE TABLE runs (
				id {{id}},
				kind TEXT NOT NULL,
				parent_id BIGINT REFERENCES runs(id) ON DELETE CASCADE,
				name TEXT NOT NULL,
				started_ns BIGINT NOT NULL,
				recorded_ns BIGINT NOT NULL,
				tool TEXT NOT NULL,
				target_url TEXT NOT NULL,
				model TEXT NOT NULL,
				server_version TEXT NOT NULL,
				target TEXT NOT NULL,
				records_path TEXT NOT NULL,
				interrupted INTEGER NOT NULL,
				comparable_key TEXT NOT NULL,
				comparability TEXT NOT NULL,
				config TEXT NOT NULL,
				summary TEXT NOT NULL
			)`,
			`CREATE INDEX runs_by_key ON runs (comparable_key, started_ns)`,
			`CREATE INDEX runs_by_start ON runs (started_ns)`,
			`CREATE TABLE run_labels (
				run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
				key TEXT NOT NULL,
				value TEXT NOT NULL,
				PRIMARY KEY (run_id, key)
			)`,
		},
	},
	{
		// Version 1 kept each run's numbers only inside its summary JSON;
		// a trend over hundreds of runs then decoded every summary. From
		// version 2 each number is a row, filled for old runs here.
		version: 2,
		about:   "run metrics as rows, for trends",
		stmts: []string{
			`CREATE TABLE run_metrics (
				run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
				key TEXT NOT NULL,
				value DOUBLE PRECISION NOT NULL,
				PRIMARY KEY (run_id, key)
			)`,
			`CREATE INDEX run_metrics_by_key ON run_metrics (key, run_id)`,
			`CREATE INDEX run_labels_by_value ON run_labels (key, value)`,
		},
		run: backfillMetrics,
	},
}

// SchemaVersion is the schema version this goodput writes.
func SchemaVersion() int { return len(migrations) }

// lockID is the PostgreSQL advisory lock that serialises migrations of one
// database between goodput processes.
const lockID = 0x676f6f64707574 // "goodput"

// migrate brings the schema to version to (at most len(migrations)).
func (s *Store) migrate(ctx context.Context, to int) error {
	if err := s.createMigrations(ctx); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if v, err := version(ctx, s.db); err != nil {
		return err
	} else if err := newerSchema(v); err != nil {
		return err
	}
	for _, m := range migrations[:to] {
		if err := s.apply(ctx, m); err != nil {
			return fmt.Errorf("schema version %d (%s): %w", m.version, m.about, err)
		}
	}
	return nil
}

// newerSchema is the error for a store at schema version v when it is
// newer than this goodput knows, else nil.
func newerSchema(v int) error {
	if v > len(migrations) {
		return fmt.Errorf("the store's schema is version %d, newer than this goodput knows (%d): use a newer goodput", v, len(migrations))
	}
	return nil
}

// lockedTx begins a transaction that holds the migrations' lock on
// PostgreSQL until it ends (SQLite serialises writers itself).
func (s *Store) lockedTx(ctx context.Context) (*sql.Tx, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if s.dialect == Postgres {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(lockID)); err != nil {
			tx.Rollback()
			return nil, err
		}
	}
	return tx, nil
}

// createMigrations creates the table of applied steps unless it exists.
// On PostgreSQL it does so under the migrations' lock: two processes
// creating it at once in a new database would otherwise collide on its
// row type (IF NOT EXISTS does not serialise them), and one would fail.
func (s *Store) createMigrations(ctx context.Context) error {
	tx, err := s.lockedTx(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		applied_ns BIGINT NOT NULL,
		about TEXT NOT NULL
	)`); err != nil {
		return err
	}
	return tx.Commit()
}

// Version returns the schema version of the store.
func (s *Store) Version(ctx context.Context) (int, error) {
	return version(ctx, s.db)
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func version(ctx context.Context, q querier) (int, error) {
	var v sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return int(v.Int64), nil
}

// apply runs m unless the store has it. The version is read again inside
// the transaction, under the lock, so two processes opening one store do
// not both apply a step.
func (s *Store) apply(ctx context.Context, m migration) error {
	if v, err := version(ctx, s.db); err != nil {
		return err
	} else if v >= m.version {
		return nil
	}
	tx, err := s.lockedTx(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	if v, err := version(ctx, tx); err != nil {
		return err
	} else if v >= m.version {
		return nil // another process applied it meanwhile
	}
	for _, st := range m.stmts {
		if _, err := tx.ExecContext(ctx, s.ddl(st)); err != nil {
			return err
		}
	}
	if m.run != nil {
		if err := m.run(ctx, tx, s); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO schema_migrations (version, applied_ns, about) VALUES (?, ?, ?)`),
		m.version, time.Now().UnixNano(), m.about); err != nil {
		return err
	}
	return tx.Commit()
}

// ddl spells a statement's {{id}} for the dialect.
func (s *Store) ddl(stmt string) string {
	id := "INTEGER PRIMARY KEY" // SQLite: an alias of the rowid, numbered on insert
	if s.dialect == Postgres {
		id = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
	}
	return strings.ReplaceAll(stmt, "{{id}}", id)
}

// backfillMetrics fills run_metrics from the summaries of the runs stored
// before it existed.
func backfillMetrics(ctx context.Context, tx *sql.Tx, s *Store) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, kind, summary FROM runs`)
	if err != nil {
		return err
	}
	type run struct {
		id      int64
		kind    Kind
		summary string
	}
	var runs []run
	for rows.Next() {
		var r run
		if err := rows.Scan(&r.id, &r.kind, &r.summary); err != nil {
			rows.Close()
			return err
		}
		runs = append(runs, r)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, r := range runs {
		m, err := summaryMetrics(r.kind, []byte(r.summary))
		if err != nil {
			return fmt.Errorf("run %d: %w", r.id, err)
		}
		if err := s.insertMetrics(ctx, tx, r.id, m); err != nil {
			return fmt.Errorf("run %d: %w", r.id, err)
		}
	}
	return nil
}

// summaryMetrics reads the numbers of a stored summary of kind k.
func summaryMetrics(k Kind, summary []byte) (map[string]float64, error) {
	if len(summary) == 0 {
		return nil, nil
	}
	if k == KindSweep {
		return sweepMetricsJSON(summary)
	}
	r := &Run{Kind: k, Summary: json.RawMessage(summary)}
	res := r.Result()
	if res == nil {
		return nil, fmt.Errorf("summary is not a run result")
	}
	return ResultMetrics(res), nil
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// insertMetrics stores m as rows of run id.
func (s *Store) insertMetrics(ctx context.Context, ex execer, id int64, m map[string]float64) error {
	q := s.rebind(`INSERT INTO run_metrics (run_id, key, value) VALUES (?, ?, ?)`)
	for _, k := range MetricKeys(m) {
		if _, err := ex.ExecContext(ctx, q, id, k, m[k]); err != nil {
			return err
		}
	}
	return nil
}
