package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/report"
)

// ErrNotFound is returned (wrapped) for a run id the store does not hold.
var ErrNotFound = errors.New("no such run")

// ErrNoMetric is Trend's error for a metric no comparable run recorded.
var ErrNoMetric = errors.New("no run of this kind has the metric")

// Add stores r and its metrics, and returns its id. r.Metrics, when nil, is
// read from r.Summary; r.Key, when empty, from r.Comparability.
func (s *Store) Add(ctx context.Context, r Run) (int64, error) {
	if r.Kind == "" {
		return 0, errors.New("history: add: a run needs a kind")
	}
	if r.Recorded.IsZero() {
		r.Recorded = time.Now()
	}
	if r.Key == "" {
		r.Key = KeyOf(r.Kind, r.Comparability)
	}
	if r.Metrics == nil {
		m, err := summaryMetrics(r.Kind, r.Summary)
		if err != nil {
			return 0, fmt.Errorf("history: add %s: %w", r.Name, err)
		}
		r.Metrics = m
	}
	comp, err := json.Marshal(r.Comparability)
	if err != nil {
		return 0, err
	}
	var parent any
	if r.ParentID != 0 {
		parent = r.ParentID
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("history %s: %w", s.where, err)
	}
	defer tx.Rollback() // a no-op after Commit
	var id int64
	err = tx.QueryRowContext(ctx, s.rebind(`INSERT INTO runs (kind, parent_id, name, started_ns, recorded_ns, tool,
		target_url, model, server_version, target, records_path, interrupted, comparable_key, comparability, config, summary)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`),
		string(r.Kind), parent, r.Name, r.Start.UnixNano(), r.Recorded.UnixNano(), r.Tool,
		r.Target.URL, r.Target.Model, r.Target.ServerVersion, r.Target.Description, r.RecordsPath, boolInt(r.Interrupted),
		r.Key, string(comp), jsonText(r.Config), jsonText(r.Summary)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("history %s: add %s: %w", s.where, r.Name, err)
	}
	for _, k := range sortedKeys(r.Labels) {
		if _, err := tx.ExecContext(ctx, s.rebind(`INSERT INTO run_labels (run_id, key, value) VALUES (?, ?, ?)`), id, k, r.Labels[k]); err != nil {
			return 0, fmt.Errorf("history %s: add %s: label %s: %w", s.where, r.Name, k, err)
		}
	}
	if err := s.insertMetrics(ctx, tx, id, r.Metrics); err != nil {
		return 0, fmt.Errorf("history %s: add %s: %w", s.where, r.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("history %s: add %s: %w", s.where, r.Name, err)
	}
	return id, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func jsonText(b json.RawMessage) string {
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// Filter selects runs. The zero value selects every run.
type Filter struct {
	// Kinds are the kinds to list; empty means every kind.
	Kinds []Kind
	// Labels must all be on a run, with these values.
	Labels map[string]string
	// Target matches a run's model exactly, or a part of its URL or of
	// its description.
	Target string
	// Key selects the runs comparable with one (Run.Key).
	Key string
	// Parent selects the points of one sweep.
	Parent int64
	// Before selects runs stored before the run with this id (in start
	// order: started earlier, or at the same instant with a lower id).
	Before int64
	// Limit is the most runs returned, newest first; zero means no limit.
	Limit int
	// Complete leaves out the runs that were interrupted.
	Complete bool
}

// List returns the runs f selects, newest first, with their labels and
// metrics.
func (s *Store) List(ctx context.Context, f Filter) ([]Run, error) {
	var where []string
	var args []any
	if len(f.Kinds) > 0 {
		ph := make([]string, len(f.Kinds))
		for i, k := range f.Kinds {
			ph[i] = "?"
			args = append(args, string(k))
		}
		where = append(where, "kind IN ("+strings.Join(ph, ", ")+")")
	}
	for _, k := range sortedKeys(f.Labels) {
		where = append(where, "EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = runs.id AND l.key = ? AND l.value = ?)")
		args = append(args, k, f.Labels[k])
	}
	if f.Target != "" {
		where = append(where, "(model = ? OR target_url LIKE ? OR target LIKE ?)")
		like := "%" + f.Target + "%"
		args = append(args, f.Target, like, like)
	}
	if f.Key != "" {
		where = append(where, "comparable_key = ?")
		args = append(args, f.Key)
	}
	if f.Parent != 0 {
		where = append(where, "parent_id = ?")
		args = append(args, f.Parent)
	}
	if f.Complete {
		where = append(where, "interrupted = 0")
	}
	if f.Before != 0 {
		where = append(where, "(started_ns < (SELECT started_ns FROM runs b WHERE b.id = ?) OR (started_ns = (SELECT started_ns FROM runs b WHERE b.id = ?) AND id < ?))")
		args = append(args, f.Before, f.Before, f.Before)
	}
	q := `SELECT id, kind, parent_id, name, started_ns, recorded_ns, tool, target_url, model, server_version, target,
		records_path, interrupted, comparable_key, comparability, config, summary FROM runs`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY started_ns DESC, id DESC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: list: %w", s.where, err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("history %s: list: %w", s.where, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: list: %w", s.where, err)
	}
	rows.Close()
	if err := s.fill(ctx, out); err != nil {
		return nil, fmt.Errorf("history %s: list: %w", s.where, err)
	}
	return out, nil
}

// Get returns the run with id, or an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (Run, error) {
	rows, err := s.db.QueryContext(ctx, s.rebind(`SELECT id, kind, parent_id, name, started_ns, recorded_ns, tool, target_url, model,
		server_version, target, records_path, interrupted, comparable_key, comparability, config, summary FROM runs WHERE id = ?`), id)
	if err != nil {
		return Run{}, fmt.Errorf("history %s: run %d: %w", s.where, id, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return Run{}, fmt.Errorf("history %s: run %d: %w", s.where, id, err)
		}
		return Run{}, fmt.Errorf("history %s: run %d: %w", s.where, id, ErrNotFound)
	}
	r, err := scanRun(rows)
	if err != nil {
		return Run{}, fmt.Errorf("history %s: run %d: %w", s.where, id, err)
	}
	rows.Close()
	runs := []Run{r}
	if err := s.fill(ctx, runs); err != nil {
		return Run{}, fmt.Errorf("history %s: run %d: %w", s.where, id, err)
	}
	return runs[0], nil
}

func scanRun(rows *sql.Rows) (Run, error) {
	var (
		r                     Run
		kind                  string
		parent                sql.NullInt64
		started, recorded     int64
		interrupted           int64
		comp, config, summary string
	)
	err := rows.Scan(&r.ID, &kind, &parent, &r.Name, &started, &recorded, &r.Tool, &r.Target.URL, &r.Target.Model,
		&r.Target.ServerVersion, &r.Target.Description, &r.RecordsPath, &interrupted, &r.Key, &comp, &config, &summary)
	if err != nil {
		return Run{}, err
	}
	r.Kind, r.ParentID = Kind(kind), parent.Int64
	r.Start, r.Recorded = time.Unix(0, started), time.Unix(0, recorded)
	r.Interrupted = interrupted != 0
	if err := json.Unmarshal([]byte(comp), &r.Comparability); err != nil {
		return Run{}, fmt.Errorf("run %d: comparability: %w", r.ID, err)
	}
	if config != "" {
		r.Config = json.RawMessage(config)
	}
	if summary != "" {
		r.Summary = json.RawMessage(summary)
	}
	return r, nil
}

// fill reads the labels and metrics of runs.
func (s *Store) fill(ctx context.Context, runs []Run) error {
	if len(runs) == 0 {
		return nil
	}
	at := make(map[int64]*Run, len(runs))
	ids := make([]any, 0, len(runs))
	for i := range runs {
		at[runs[i].ID] = &runs[i]
		ids = append(ids, runs[i].ID)
		runs[i].Labels = map[string]string{}
		runs[i].Metrics = map[string]float64{}
	}
	// A few hundred ids at a time stay within every driver's limit on
	// parameters.
	for len(ids) > 0 {
		n := min(len(ids), 500)
		batch := ids[:n]
		ids = ids[n:]
		in := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(batch)), ", ") + ")"
		if err := s.each(ctx, `SELECT run_id, key, value FROM run_labels WHERE run_id IN `+in, batch, func(rows *sql.Rows) error {
			var id int64
			var k, v string
			if err := rows.Scan(&id, &k, &v); err != nil {
				return err
			}
			at[id].Labels[k] = v
			return nil
		}); err != nil {
			return err
		}
		if err := s.each(ctx, `SELECT run_id, key, value FROM run_metrics WHERE run_id IN `+in, batch, func(rows *sql.Rows) error {
			var id int64
			var k string
			var v float64
			if err := rows.Scan(&id, &k, &v); err != nil {
				return err
			}
			at[id].Metrics[k] = v
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) each(ctx context.Context, q string, args []any, f func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, s.rebind(q), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Comparable returns up to n runs comparable with r that started before
// it, newest first, among those f also selects (f.Key and f.Before are
// set from r).
func (s *Store) Comparable(ctx context.Context, r Run, n int, f Filter) ([]Run, error) {
	f.Key, f.Before, f.Limit = r.Key, r.ID, n
	if len(f.Kinds) == 0 {
		f.Kinds = familyKinds(r.Kind)
	}
	return s.List(ctx, f)
}

// familyKinds are the kinds comparable with a run of kind k.
func familyKinds(k Kind) []Kind {
	if k == KindSweep {
		return []Kind{KindSweep}
	}
	return []Kind{KindBench, KindPoint}
}

// Describe says in words what runs comparable with c share.
func Describe(c report.Comparability) string {
	var parts []string
	add := func(name, v string) {
		if v != "" {
			parts = append(parts, name+" "+v)
		}
	}
	add("model", c.Model)
	add("workload", c.Workload)
	add("load", c.Load)
	add("SLO", c.SLO)
	add("stop", c.Stop)
	if c.Warmup {
		parts = append(parts, "warm-up excluded")
	}
	add("percentiles", c.Method)
	return strings.Join(parts, "; ")
}
