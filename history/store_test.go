package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRecordListTrendCheck is the store's story on every backend: two
// runs of one load are recorded, listed, trended and checked (no
// regression between runs that differ only by seed); a third whose TTFT
// rose by half is caught.
func TestRecordListTrendCheck(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := openStore(t, b.dsn(t))
			dir := t.TempDir()
			t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
			base := fakeRun{ttft: 200 * time.Millisecond, tpot: 20 * time.Millisecond, labels: map[string]string{"branch": "main"}}
			r1, r2 := base, base
			r1.name, r1.seed, r1.start = "one", 1, t0
			r2.name, r2.seed, r2.start = "two", 2, t0.Add(time.Hour)
			ctx := t.Context()
			id1, err := s.Add(ctx, r1.write(t, dir))
			if err != nil {
				t.Fatal(err)
			}
			id2, err := s.Add(ctx, r2.write(t, dir))
			if err != nil {
				t.Fatal(err)
			}

			runs, err := s.List(ctx, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 2 || runs[0].ID != id2 || runs[1].ID != id1 {
				t.Fatalf("list: got %d runs %v, want [%d %d] newest first", len(runs), ids(runs), id2, id1)
			}
			got := runs[1]
			if got.Name != "one" || got.Target.URL != "http://127.0.0.1:8000" || got.Target.Model != "Llama-3.1-8B" ||
				got.Labels["branch"] != "main" || got.Kind != KindBench || !got.Start.Equal(t0) {
				t.Errorf("run one read back as %+v", got)
			}
			if got.Metrics["requests"] != 200 || got.Metrics["attainment"] != 1 {
				t.Errorf("run one: requests %v, attainment %v; want 200 and 1", got.Metrics["requests"], got.Metrics["attainment"])
			}
			if res := got.Result(); res == nil || res.Counts.Total != 200 {
				t.Errorf("run one's summary does not decode to its result: %+v", res)
			}
			for _, tc := range []struct {
				name string
				f    Filter
				want int
			}{
				{"a label both have", Filter{Labels: map[string]string{"branch": "main"}}, 2},
				{"a label value neither has", Filter{Labels: map[string]string{"branch": "dev"}}, 0},
				{"the model", Filter{Target: "Llama-3.1-8B"}, 2},
				{"part of the URL", Filter{Target: "127.0.0.1:8000"}, 2},
				{"another server", Filter{Target: "gpu-7"}, 0},
				{"a limit", Filter{Limit: 1}, 1},
				{"runs before the second", Filter{Before: id2}, 1},
				{"sweeps only", Filter{Kinds: []Kind{KindSweep}}, 0},
			} {
				runs, err := s.List(ctx, tc.f)
				if err != nil {
					t.Fatal(err)
				}
				if len(runs) != tc.want {
					t.Errorf("list %s: %d runs, want %d", tc.name, len(runs), tc.want)
				}
			}

			second, err := s.Get(ctx, id2)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := s.Trend(ctx, second, "ttft_p99", 0, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Runs) != 2 || tr.Runs[0].ID != id1 || tr.Runs[1].ID != id2 || !tr.Has[0] || !tr.Has[1] {
				t.Fatalf("trend: runs %v has %v, want [%d %d] oldest first", ids(tr.Runs), tr.Has, id1, id2)
			}
			// TTFT is 200 ms ± 20 %: its p99 lies near the top, 236–240 ms.
			for i, v := range tr.Values {
				if v < 0.230 || v > 0.240 {
					t.Errorf("trend value %d: p99 TTFT %v s, want 0.230–0.240", i, v)
				}
			}
			if _, err := s.Trend(ctx, second, "no_such_metric", 0, Filter{}); err == nil {
				t.Error("a trend of an unknown metric did not fail")
			}

			c, err := s.Check(ctx, second, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Regressed || len(c.Baselines) != 1 || len(c.Findings) != len(DefaultCheckMetrics) {
				t.Fatalf("second against first: regressed %v, %d baselines, %d findings; want no regression, 1, %d\n%s",
					c.Regressed, len(c.Baselines), len(c.Findings), len(DefaultCheckMetrics), checkText(t, c))
			}

			r3 := base
			r3.name, r3.seed, r3.start = "three", 3, t0.Add(2*time.Hour)
			r3.ttft = 300 * time.Millisecond // the regression
			id3, err := s.Add(ctx, r3.write(t, dir))
			if err != nil {
				t.Fatal(err)
			}
			third, err := s.Get(ctx, id3)
			if err != nil {
				t.Fatal(err)
			}
			c, err = s.Check(ctx, third, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Regressed || len(c.Baselines) != 2 {
				t.Fatalf("third: regressed %v against %d baselines; want a regression against 2\n%s", c.Regressed, len(c.Baselines), checkText(t, c))
			}
			regressed := map[string]bool{}
			for _, f := range c.Findings {
				regressed[f.Metric] = f.Regressed
			}
			for _, k := range []string{"ttft_p50", "ttft_p99", "e2e_p99"} {
				if !regressed[k] {
					t.Errorf("third: %s not called a regression\n%s", k, checkText(t, c))
				}
			}
			for _, k := range []string{"tpot_p50", "tpot_p99", "output_throughput"} {
				if regressed[k] {
					t.Errorf("third: %s called a regression, but only TTFT changed\n%s", k, checkText(t, c))
				}
			}
			// The TTFT findings were judged on bootstrap intervals: each
			// interval of the p50 rise holds about 100 ms and excludes 0.
			for _, f := range c.Findings {
				if f.Metric != "ttft_p50" {
					continue
				}
				for i, ch := range f.Changes {
					if !ch.HasCI || ch.Lo <= 0.08 || ch.Hi >= 0.12 {
						t.Errorf("ttft_p50 against baseline %d: interval [%v, %v] (has %v), want inside (0.08, 0.12)", i, ch.Lo, ch.Hi, ch.HasCI)
					}
				}
			}
			// With its records gone the run is judged on its stored
			// numbers: the rise is still caught, and a note says why
			// there are no intervals.
			if err := os.Remove(third.RecordsPath); err != nil {
				t.Fatal(err)
			}
			c, err = s.Check(ctx, third, CheckOptions{Metrics: []string{"ttft_p99"}})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Regressed || len(c.Notes) == 0 || !strings.Contains(c.Notes[0], "it is gone") {
				t.Errorf("records gone: regressed %v, notes %q; want a regression and a note", c.Regressed, c.Notes)
			}
		})
	}
}

func checkText(t *testing.T, c *CheckResult) string {
	var b strings.Builder
	if err := WriteCheck(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func ids(runs []Run) []int64 {
	var out []int64
	for _, r := range runs {
		out = append(out, r.ID)
	}
	return out
}

// TestComparableRuns: only runs of the same workload, load and SLO are
// baselines of one another.
func TestComparableRuns(t *testing.T) {
	s := openStore(t, backends()[0].dsn(t))
	dir := t.TempDir()
	ctx := t.Context()
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	base := fakeRun{ttft: 200 * time.Millisecond, tpot: 20 * time.Millisecond, n: 50}
	for i, tc := range []struct {
		name   string
		change func(*fakeRun)
	}{
		{"same", func(*fakeRun) {}},
		{"longer-prompts", func(f *fakeRun) { f.inputLen = 2048 }}, // another workload
		{"faster-arrivals", func(f *fakeRun) { f.rate = 16 }},      // another load
		{"other-seed", func(f *fakeRun) { f.seed = 9 }},            // the same load and workload
	} {
		f := base
		f.name, f.start = tc.name, t0.Add(time.Duration(i)*time.Minute)
		tc.change(&f)
		if _, err := s.Add(ctx, f.write(t, dir)); err != nil {
			t.Fatal(err)
		}
	}
	last, err := s.Latest(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if last.Name != "other-seed" {
		t.Fatalf("latest is %q, want other-seed", last.Name)
	}
	prev, err := s.Comparable(ctx, last, 10, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(prev) != 1 || prev[0].Name != "same" {
		var names []string
		for _, r := range prev {
			names = append(names, r.Name)
		}
		t.Errorf("comparable with other-seed: %v, want [same]", names)
	}
	if _, err := s.Get(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("get of a missing run: %v, want ErrNotFound", err)
	}
}

// TestMigrateOldSchema: a store left at schema version 1 by an older
// goodput, holding a run, is brought to the latest version on open; the
// run's metrics are filled from its summary so that it trends and checks
// like a new one.
func TestMigrateOldSchema(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.dsn(t)
			ctx := t.Context()
			old, err := open(ctx, dsn, 1)
			if err != nil {
				t.Fatal(err)
			}
			if v, err := old.Version(ctx); err != nil || v != 1 {
				t.Fatalf("old store at version %d (%v), want 1", v, err)
			}
			dir := t.TempDir()
			t0 := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
			f := fakeRun{name: "old", seed: 1, start: t0, ttft: 200 * time.Millisecond, tpot: 20 * time.Millisecond, labels: map[string]string{"env": "ci"}}
			r := f.write(t, dir)
			// As version 1 wrote a run: the run and its labels, its
			// numbers only inside the summary.
			var id int64
			err = old.db.QueryRowContext(ctx, old.rebind(`INSERT INTO runs (kind, parent_id, name, started_ns, recorded_ns, tool,
				target_url, model, server_version, target, records_path, interrupted, comparable_key, comparability, config, summary)
				VALUES (?, NULL, ?, ?, ?, ?, ?, ?, '', ?, ?, 0, ?, ?, ?, ?) RETURNING id`),
				"bench", r.Name, r.Start.UnixNano(), r.Start.UnixNano(), r.Tool, r.Target.URL, r.Target.Model, r.Target.Description,
				r.RecordsPath, r.Key, mustJSON(t, r.Comparability), string(r.Config), string(r.Summary)).Scan(&id)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := old.db.ExecContext(ctx, old.rebind(`INSERT INTO run_labels (run_id, key, value) VALUES (?, 'env', 'ci')`), id); err != nil {
				t.Fatal(err)
			}
			old.Close()

			s := openStore(t, dsn)
			if v, err := s.Version(ctx); err != nil || v != SchemaVersion() {
				t.Fatalf("migrated store at version %d (%v), want %d", v, err, SchemaVersion())
			}
			got, err := s.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			want := r.Metrics
			if len(got.Metrics) != len(want) || got.Metrics["ttft_p99"] != want["ttft_p99"] || got.Labels["env"] != "ci" {
				t.Fatalf("old run after migration: %d metrics (ttft_p99 %v), labels %v; want %d (ttft_p99 %v), env=ci",
					len(got.Metrics), got.Metrics["ttft_p99"], got.Labels, len(want), want["ttft_p99"])
			}
			// A new run stored after the migration trends and checks
			// against the old one.
			f2 := f
			f2.name, f2.seed, f2.start = "new", 2, t0.Add(time.Hour)
			id2, err := s.Add(ctx, f2.write(t, dir))
			if err != nil {
				t.Fatal(err)
			}
			newRun, err := s.Get(ctx, id2)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := s.Trend(ctx, newRun, "ttft_p99", 0, Filter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Runs) != 2 || tr.Runs[0].ID != id || !tr.Has[0] {
				t.Errorf("trend after migration: runs %v, has %v; want the old run first", ids(tr.Runs), tr.Has)
			}
			c, err := s.Check(ctx, newRun, CheckOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Regressed || len(c.Baselines) != 1 {
				t.Errorf("check after migration: regressed %v against %d baselines, want none against 1\n%s", c.Regressed, len(c.Baselines), checkText(t, c))
			}
			// Opening again applies nothing.
			s2 := openStore(t, dsn)
			if v, _ := s2.Version(ctx); v != SchemaVersion() {
				t.Errorf("reopened at version %d", v)
			}
		})
	}
}

// Processes that open one new store at once (parallel jobs of a CI run
// sharing a database or a file) all succeed, and the schema is made once.
func TestOpenAtOnce(t *testing.T) {
	const n = 6
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.dsn(t)
			errs := make(chan error, n)
			for range n {
				go func() {
					s, err := Open(t.Context(), dsn)
					if err == nil {
						err = s.Close()
					}
					errs <- err
				}()
			}
			for range n {
				if err := <-errs; err != nil {
					t.Errorf("one of %d opening a new store at once: %v", n, err)
				}
			}
			s := openStore(t, dsn)
			var steps int
			if err := s.db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&steps); err != nil || steps != SchemaVersion() {
				t.Errorf("schema_migrations holds %d steps (%v), want %d", steps, err, SchemaVersion())
			}
		})
	}
}

// TestNewerSchemaRefused: a store from a newer goodput is not touched.
func TestNewerSchemaRefused(t *testing.T) {
	dsn := backends()[0].dsn(t)
	s := openStore(t, dsn)
	if _, err := s.db.ExecContext(t.Context(), `INSERT INTO schema_migrations (version, applied_ns, about) VALUES (99, 0, 'future')`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for name, open := range map[string]func(context.Context, string) (*Store, error){"Open": Open, "OpenExisting": OpenExisting} {
		_, err := open(t.Context(), dsn)
		if want := fmt.Sprintf("history %s: the store's schema is version 99, newer than this goodput knows (%d): use a newer goodput", dsn, SchemaVersion()); err == nil || err.Error() != want {
			t.Errorf("%s of a newer store:\n got %v\nwant %s", name, err, want)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	for _, tc := range []struct {
		name, dsn, want string
	}{
		{"empty", "  ", "no store given"},
		// The password must not be printed.
		{"unreachable server", "postgres://u:secret@127.0.0.1:1/db?connect_timeout=2", "postgres://u:xxxxx@127.0.0.1:1/db"},
		{"a directory as the file", t.TempDir(), "is a directory: give the SQLite file in it"},
		{"a device as the file", os.DevNull, "history " + os.DevNull + " is not a goodput history database: it is not a regular file"},
	} {
		_, err := Open(t.Context(), tc.dsn)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v, want an error with %q and no password", tc.name, err, tc.want)
		}
	}
}

// TestOpenAFileThatIsNoHistory: what OpenExisting, for the commands that
// read, and Open, for those that record, make of a file that holds no
// goodput history. Both refuse it without changing a byte of it, except
// that Open makes an empty file the store, as a user who touched it
// expects. Another program's SQLite database is refused too: goodput's
// tables (and the WAL journal it sets) do not belong in it, while a
// PostgreSQL store may share a database on purpose.
func TestOpenAFileThatIsNoHistory(t *testing.T) {
	otherProgram := func(t *testing.T, path string) {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE TABLE notes (body TEXT)`); err != nil {
			t.Fatal(err)
		}
	}
	write := func(b string) func(*testing.T, string) {
		return func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	const notHistory = " is not a goodput history database: "
	for _, tc := range []struct {
		name   string
		make   func(*testing.T, string)
		read   string // OpenExisting's error after the path
		record string // Open's, or "" when it opens the file as the store
	}{
		{"an empty file, as touch leaves it", write(""),
			" is empty: no run is recorded in it (bench --history and sweep --history record runs there)", ""},
		{"a text file", write("hello\nworld\n"),
			notHistory + "it is not a SQLite file", notHistory + "it is not a SQLite file"},
		{"a record file given by mistake", write(`{"type":"header","tool":"goodput"}` + "\n" + `{"type":"request","seq":0}` + "\n"),
			notHistory + "it is not a SQLite file", notHistory + "it is not a SQLite file"},
		{"a file shorter than SQLite's header", write("SQLite"),
			notHistory + "it is not a SQLite file", notHistory + "it is not a SQLite file"},
		{"SQLite's header and then no database", write(sqliteHeader + strings.Repeat("x", 200)),
			notHistory + "it begins like a SQLite file but is not one: file is not a database (26)",
			notHistory + "it begins like a SQLite file but is not one: file is not a database (26)"},
		{"another program's SQLite database", otherProgram,
			notHistory + "a SQLite database without goodput's tables", notHistory + "another program's SQLite database (tables notes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, side := range []struct {
				name string
				open func(context.Context, string) (*Store, error)
				want string
			}{
				{"read", OpenExisting, tc.read},
				{"record", Open, tc.record},
			} {
				dir := t.TempDir()
				path := filepath.Join(dir, "runs.db")
				tc.make(t, path)
				before := backdate(t, path)
				s, err := side.open(t.Context(), path)
				if side.want == "" {
					if err != nil {
						t.Fatalf("%s: %v, want the file opened as the store", side.name, err)
					}
					if v, err := s.Version(t.Context()); err != nil || v != SchemaVersion() {
						t.Errorf("%s: the store is at version %d (%v), want %d", side.name, v, err, SchemaVersion())
					}
					s.Close()
					continue
				}
				if err == nil {
					s.Close()
					t.Fatalf("%s: opened, want %q", side.name, side.want)
				}
				if want := "history " + path + side.want; err.Error() != want {
					t.Errorf("%s:\n got %s\nwant %s", side.name, err, want)
				}
				if after := snapshot(t, path); after != before {
					t.Errorf("%s changed the file: before %+v, after %+v", side.name, before, after)
				}
				if names := dirNames(t, dir); !slices.Equal(names, []string{"runs.db"}) {
					t.Errorf("%s left %v beside the file", side.name, names)
				}
			}
		})
	}
}

// TestOpenExistingPaths: a path that names no file is not created by
// reading it, nor is its directory; a directory is not taken for the file.
func TestOpenExistingPaths(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, path, want string
	}{
		{"a file that does not exist", filepath.Join(dir, "typo.db"),
			"history " + filepath.Join(dir, "typo.db") + ": no such file (bench --history and sweep --history record runs there)"},
		{"a file in a directory that does not exist", filepath.Join(dir, "nope", "h.db"),
			"history " + filepath.Join(dir, "nope", "h.db") + ": no such file (bench --history and sweep --history record runs there)"},
		{"a directory", dir, "history " + dir + " is a directory: give the SQLite file in it"},
		{"a device", os.DevNull, "history " + os.DevNull + " is not a goodput history database: it is not a regular file"},
	} {
		s, err := OpenExisting(t.Context(), tc.path)
		if err == nil {
			s.Close()
			t.Errorf("%s: opened, want %q", tc.name, tc.want)
		} else if err.Error() != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, err, tc.want)
		}
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("reading created %v", names)
	}
}

// TestOpenExistingIsReadOnly: a store opened to read is read and cannot
// be written, and its file is left byte for byte as it was.
func TestOpenExistingIsReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	s := openStore(t, path)
	f := fakeRun{name: "one", seed: 1, n: 10, ttft: 100 * time.Millisecond, tpot: 10 * time.Millisecond}
	if _, err := s.Add(t.Context(), f.write(t, t.TempDir())); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before := backdate(t, path)

	r, err := OpenExisting(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := r.List(t.Context(), Filter{})
	if err != nil || len(runs) != 1 || runs[0].Name != "one" {
		t.Errorf("list: %d runs (%v), want run one", len(runs), err)
	}
	f.name, f.seed = "two", 2
	if _, err := r.Add(t.Context(), f.write(t, t.TempDir())); err == nil || !strings.Contains(err.Error(), "attempt to write a readonly database") {
		t.Errorf("add to a store opened to read: %v, want SQLite's refusal", err)
	}
	r.Close()
	if after := snapshot(t, path); after != before {
		t.Errorf("reading changed the file: before %+v, after %+v", before, after)
	}
}

// TestOpenExistingMigrates: reading a history an older goodput wrote
// brings its schema up to date, as the help of history promises; it is
// the one write a reading command makes, and only to a goodput history.
func TestOpenExistingMigrates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := open(t.Context(), path, 1)
	if err != nil {
		t.Fatal(err)
	}
	old.Close()
	s, err := OpenExisting(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, err := s.Version(t.Context()); err != nil || v != SchemaVersion() {
		t.Errorf("read at version %d (%v), want %d", v, err, SchemaVersion())
	}
	if _, err := s.List(t.Context(), Filter{}); err != nil {
		t.Errorf("list after the migration: %v", err)
	}
}

// fileState is what a test compares of a file before and after: its
// bytes and modification time.
type fileState struct {
	bytes string
	mtime time.Time
}

// snapshot returns the state of the file at path.
func snapshot(t *testing.T, path string) fileState {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileState{bytes: string(b), mtime: fi.ModTime()}
}

// backdate sets the modification time of the file at path in the past,
// so that a write that follows in the same instant shows in it, and
// returns the file's state then.
func backdate(t *testing.T, path string) fileState {
	t.Helper()
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	return snapshot(t, path)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// A PostgreSQL URL without connect_timeout gets ConnectTimeout: a server
// that takes the connection and never answers fails the open, naming the
// store, instead of holding the run.
func TestOpenGivesUpOnASilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan []net.Conn)
	go func() {
		var held []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				accepted <- held
				return
			}
			held = append(held, c) // read nothing, answer nothing
		}
	}()
	defer func() {
		ln.Close()
		for _, c := range <-accepted {
			c.Close()
		}
	}()
	defer func(d time.Duration) { ConnectTimeout = d }(ConnectTimeout)
	ConnectTimeout = 300 * time.Millisecond
	dsn := "postgres://u:secret@" + ln.Addr().String() + "/db"
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := Open(t.Context(), dsn)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "history postgres://u:xxxxx@"+ln.Addr().String()) || strings.Contains(err.Error(), "secret") {
			t.Errorf("open of a silent server: %v", err)
		}
		t.Logf("gave up after %v: %v", time.Since(start).Round(time.Millisecond), err)
	case <-time.After(20 * time.Second):
		t.Fatal("the open of a silent server did not give up")
	}
}

func TestWorsening(t *testing.T) {
	for _, tc := range []struct {
		name    string
		v, base float64
		dir     int
		want    float64
	}{
		{"latency up 10 %", 1.1, 1, -1, 0.1},
		{"latency down", 0.9, 1, -1, -0.1},
		{"throughput down 10 %", 90, 100, 1, 0.1},
		{"throughput up", 110, 100, 1, -0.1},
		{"unchanged zero", 0, 0, -1, 0},
		{"rise from zero", 0.1, 0, -1, math.Inf(1)},
		{"undefined baseline", 1, math.NaN(), -1, math.NaN()},
	} {
		got := worsening(tc.v, tc.base, tc.dir)
		if !(math.Abs(got-tc.want) < 1e-12 || (math.IsNaN(got) && math.IsNaN(tc.want)) || got == tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSQLiteSpellings: a path, sqlite:PATH and file:PATH name one file,
// created with its directory, whatever characters the path holds.
func TestSQLiteSpellings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "h.db")
	s := openStore(t, path)
	f := fakeRun{name: "one", seed: 1, n: 10, ttft: 100 * time.Millisecond, tpot: 10 * time.Millisecond}
	if _, err := s.Add(t.Context(), f.write(t, t.TempDir())); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, dsn := range []string{"sqlite:" + path, "file:" + path} {
		s := openStore(t, dsn)
		runs, err := s.List(t.Context(), Filter{})
		if err != nil || len(runs) != 1 || s.Dialect() != SQLite {
			t.Errorf("%s: %d runs, %v, dialect %s; want the one run in SQLite", dsn, len(runs), err, s.Dialect())
		}
	}
	// SQLite reads a file: URI's %, ? and #; a path keeps them as they are.
	odd := t.TempDir()
	for _, name := range []string{"a%41b.db", "what?.db", "no#1.db"} {
		path := filepath.Join(odd, name)
		openStore(t, path).Close()
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		s, err := OpenExisting(t.Context(), path)
		if err != nil {
			t.Errorf("%s read back: %v", name, err)
			continue
		}
		s.Close()
	}
	if _, err := os.Stat(filepath.Join(odd, "aAb.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a%%41b.db was made as aAb.db: %v", err)
	}
	if DialectOf("POSTGRESQL://x/y") != Postgres || DialectOf("pg.db") != SQLite {
		t.Error("DialectOf misreads a scheme")
	}
}

// TestCheckInterruptedRuns: an interrupted run is no baseline, and one
// that is checked is judged with a note and a verdict that say so.
func TestCheckInterruptedRuns(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := openStore(t, b.dsn(t))
			dir := t.TempDir()
			ctx := t.Context()
			t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
			base := fakeRun{ttft: 200 * time.Millisecond, tpot: 20 * time.Millisecond}
			add := func(name string, seed uint64, ttft time.Duration, interrupted bool) Run {
				t.Helper()
				f := base
				f.name, f.seed, f.start, f.ttft, f.interrupted = name, seed, t0.Add(time.Duration(seed)*time.Hour), ttft, interrupted
				id, err := s.Add(ctx, f.write(t, dir))
				if err != nil {
					t.Fatal(err)
				}
				r, err := s.Get(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			one := add("one", 1, 200*time.Millisecond, false)
			// Interrupted and fast: as a baseline it would make the next
			// run look slower than every one.
			add("cut", 2, 100*time.Millisecond, true)
			three := add("three", 3, 200*time.Millisecond, false)
			c, err := s.Check(ctx, three, CheckOptions{Baselines: 5})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Baselines) != 1 || c.Baselines[0].ID != one.ID || c.Regressed || len(c.Notes) != 0 {
				t.Errorf("three: baselines %v, regressed %v, notes %q; want [%d] alone, no regression, no note\n%s",
					ids(c.Baselines), c.Regressed, c.Notes, one.ID, checkText(t, c))
			}
			// An interrupted run whose TTFT rose by half is still caught,
			// and said to be interrupted.
			slow := add("slow-cut", 4, 300*time.Millisecond, true)
			c, err = s.Check(ctx, slow, CheckOptions{Baselines: 5})
			if err != nil {
				t.Fatal(err)
			}
			text := checkText(t, c)
			if !slices.Equal(ids(c.Baselines), []int64{three.ID, one.ID}) || !c.Regressed {
				t.Errorf("slow-cut: baselines %v, regressed %v; want [%d %d] and a regression\n%s", ids(c.Baselines), c.Regressed, three.ID, one.ID, text)
			}
			note := fmt.Sprintf("Note: run %d was interrupted: its numbers cover only what it measured before it stopped", slow.ID)
			if !strings.Contains(text, note) || !strings.HasSuffix(text, "Verdict: regression, of an interrupted run\n") {
				t.Errorf("slow-cut: the text does not say the run was interrupted:\n%s", text)
			}
		})
	}
}

// A PostgreSQL database without goodput's tables is no history to read:
// the reading open says so and creates nothing, where the writing open
// makes it a store, which the reading one then reads.
func TestOpenExistingPostgresNeedsAHistory(t *testing.T) {
	dsn := postgresDSN(t)
	_, err := OpenExisting(t.Context(), dsn)
	if err == nil || !strings.Contains(err.Error(), "holds no goodput history: no run is recorded in it") {
		t.Fatalf("an empty database: %v, want it to hold no goodput history", err)
	}
	if _, err := OpenExisting(t.Context(), dsn); err == nil {
		t.Fatal("the reading open created the tables it looked for")
	}
	w, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := OpenExisting(t.Context(), dsn)
	if err != nil {
		t.Fatalf("a store Open made: %v", err)
	}
	defer r.Close()
	if v, err := r.Version(t.Context()); err != nil || v != SchemaVersion() {
		t.Errorf("version %d (%v), want %d", v, err, SchemaVersion())
	}
}

// A run is known by its start, tool and settings whatever the path of its
// records: a copy elsewhere is found as the run stored, and another run
// (begun at another instant, or with other settings) is not.
func TestRecordedRunFindsACopyUnderAnotherPath(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := openStore(t, b.dsn(t))
			t0 := time.Date(2026, 11, 1, 9, 0, 0, 123456789, time.UTC)
			stored := fakeRun{name: "nightly", seed: 1, n: 20, ttft: 100 * time.Millisecond, tpot: 10 * time.Millisecond, start: t0}.write(t, t.TempDir())
			id, err := s.Add(t.Context(), stored)
			if err != nil {
				t.Fatal(err)
			}
			cp := stored
			cp.RecordsPath = "/elsewhere/copy.jsonl"
			if got, from, ok, err := s.RecordedRun(t.Context(), cp); err != nil || !ok || got != id || from != stored.RecordsPath {
				t.Errorf("a copy: run %d from %q, %v, %v; want run %d from %q", got, from, ok, err, id, stored.RecordsPath)
			}
			later := cp
			later.Start = t0.Add(time.Nanosecond)
			other := cp
			other.Config = []byte(`{"model":"other"}`)
			for name, r := range map[string]Run{"begun later": later, "other settings": other, "no start": {Tool: cp.Tool, Config: cp.Config}} {
				if got, _, ok, err := s.RecordedRun(t.Context(), r); err != nil || ok {
					t.Errorf("%s: found run %d (%v, %v), want none", name, got, ok, err)
				}
			}
		})
	}
}

// A file:/sqlite: DSN with SQLite's URI parameters is refused, not taken
// as a file whose name ends in them; file:///abs is the path /abs.
func TestSQLiteURIForms(t *testing.T) {
	dir := t.TempDir()
	for _, dsn := range []string{"file:" + dir + "/h.db?mode=ro", "sqlite:" + dir + "/h.db#x", "file://host/h.db", "file:"} {
		if s, err := Open(t.Context(), dsn); err == nil {
			s.Close()
			t.Errorf("%s opened", dsn)
		} else if !strings.Contains(err.Error(), dsn) {
			t.Errorf("%s: error does not name it: %v", dsn, err)
		}
		if _, err := OpenExisting(t.Context(), dsn); err == nil {
			t.Errorf("%s opened for reading", dsn)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("refused DSNs left files: %v", entries)
	}
	openStore(t, "file://"+dir+"/abs.db").Close()
	if _, err := os.Stat(filepath.Join(dir, "abs.db")); err != nil {
		t.Errorf("file:///abs did not name /abs: %v", err)
	}
}

// A SQLite file of another program gets no goodput tables: opening it to
// record runs is an error naming its first tables, and the file is
// unchanged.
func TestSQLiteOfAnotherProgram(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE users (id INTEGER)`, `CREATE TABLE orders (id INTEGER)`, `CREATE TABLE items (id INTEGER)`, `CREATE TABLE carts (id INTEGER)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	before, _ := os.ReadFile(path)
	s, err := Open(t.Context(), path)
	if err == nil {
		s.Close()
		t.Fatal("another program's database opened as a history")
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "(tables carts, items, orders, …)") || !strings.Contains(msg, "not a goodput history database") {
		t.Errorf("error = %v", err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("the refused database was changed")
	}
	db, _ = sql.Open("sqlite", path)
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE name = 'schema_migrations' OR name = 'runs'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("goodput's tables were made in it: %d, %v", n, err)
	}
}
