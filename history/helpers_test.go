package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/slo"
)

// envPostgres names a PostgreSQL server for the tests, as a postgres://
// URL of a role that may create schemas. .ci/run starts one on loopback.
const envPostgres = "GOODPUT_TEST_POSTGRES"

// backend is a store location for a test: a fresh SQLite file, or a fresh
// schema on the PostgreSQL server of envPostgres.
type backend struct {
	name string
	dsn  func(t *testing.T) string
}

// backends returns SQLite, and PostgreSQL when envPostgres is set; without
// it the PostgreSQL cases skip, and fail under CI.
func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "history.db") }},
		{"postgres", postgresDSN},
	}
}

// postgresDSN creates a schema of its own for the test on the server of
// envPostgres and returns a URL whose search_path is that schema; the
// schema is dropped when the test ends.
func postgresDSN(t *testing.T) string {
	t.Helper()
	base := os.Getenv(envPostgres)
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("$%s is not set: .ci/run starts a PostgreSQL server and sets it", envPostgres)
		}
		t.Skipf("no PostgreSQL server: set $%s to a postgres:// URL to run this case", envPostgres)
	}
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	schema := fmt.Sprintf("goodput_test_%d_%d", time.Now().UnixNano(), rand.Uint32())
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("postgres %s: %v", Redact(base), err)
	}
	t.Cleanup(func() {
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	sep := "?"
	for _, c := range base {
		if c == '?' {
			sep = "&"
		}
	}
	return base + sep + "search_path=" + schema
}

func openStore(t *testing.T, dsn string) *Store {
	t.Helper()
	s, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fakeRun describes a synthetic run: n requests of 32 output tokens whose
// TTFT is ttft and whose token gaps are tpot, each scattered by ±20 %
// uniformly with the seed.
type fakeRun struct {
	name       string
	seed       uint64
	n          int
	ttft, tpot time.Duration
	inputLen   int // prompt tokens, which sets the workload
	rate       float64
	labels     map[string]string
	start      time.Time
	// interrupted records the run as stopped before its schedule ended.
	interrupted bool
}

// slo is the SLO of the synthetic runs.
const testSLO = "ttft<=300ms,tpot<=30ms"

// write writes the run's records in dir and returns the history form of
// it, with its result computed from the records as bench does.
func (f fakeRun) write(t *testing.T, dir string) Run {
	t.Helper()
	if f.n == 0 {
		f.n = 200
	}
	if f.inputLen == 0 {
		f.inputLen = 512
	}
	if f.rate == 0 {
		f.rate = 8
	}
	cfg := map[string]any{
		"base_url": "http://127.0.0.1:8000", "backend": "openai", "endpoint": "", "model": "Llama-3.1-8B",
		"target": "test server", "arrival": fmt.Sprintf("poisson %g req/s, seed %d\nstops after %d requests", f.rate, f.seed, f.n),
		"workload":     fmt.Sprintf("random: input %d tokens, output 32 tokens, seed %d", f.inputLen, f.seed),
		"request_rate": f.rate, "burstiness": 1.0, "max_concurrency": 0, "num_prompts": f.n, "ignore_eos": true,
		"min_tokens": 0, "num_warmups": 0, "warmup_seconds": 0.0, "percentile_method": "linear", "dataset": "random",
	}
	h, err := record.NewHeader("goodput test", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !f.start.IsZero() {
		h.Start = f.start
	}
	h.Labels = f.labels
	path := filepath.Join(dir, f.name+".jsonl")
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	w, err := record.NewWriter(file, h)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := slo.ParseConditions(testSLO)
	if err != nil {
		t.Fatal(err)
	}
	var mo metrics.Options
	cs.Apply(&mo)
	sum := metrics.NewSummary(mo)
	rng := rand.New(rand.NewPCG(f.seed, 7))
	jitter := func(d time.Duration) int64 { return int64(float64(d) * (0.8 + 0.4*rng.Float64())) }
	gap := int64(float64(time.Second) / f.rate)
	for i := range f.n {
		s := int64(i) * gap
		r := &record.Record{Seq: int64(i), Scheduled: s, Sent: s, InputTokens: f.inputLen, OutputTokens: 32,
			TokenSource: record.SourceUsage, Status: 200, Finish: "length"}
		at := s + jitter(f.ttft)
		for range 32 {
			r.Chunks = append(r.Chunks, record.Chunk{At: at, Tokens: 1})
			at += jitter(f.tpot)
		}
		r.End = r.Chunks[31].At
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		sum.Add(r)
	}
	if err := w.Close(record.Trailer{End: int64(f.n) * gap}); err != nil {
		t.Fatal(err)
	}
	run, err := FromBench(h, sum.Close(), path, f.interrupted)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
