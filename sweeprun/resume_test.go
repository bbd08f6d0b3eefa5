package sweeprun

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/workload"
)

func concurrencies(ns ...int) []sweep.Load {
	out := make([]sweep.Load, len(ns))
	for i, n := range ns {
		out[i] = sweep.Concurrency(n)
	}
	return out
}

// runSweep runs a list sweep of cfg and returns the outcome, the log and
// the error.
func runSweep(t *testing.T, ctx context.Context, cfg Config, log *logBuf, repeats int, loads ...int) (*Outcome, error) {
	t.Helper()
	cfg.Log = log
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(ctx, sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(loads...), Repeats: repeats})
}

func TestResumeMeasuresOnlyMissing(t *testing.T) {
	dir := t.TempDir()
	var first logBuf
	if _, err := runSweep(t, t.Context(), virtualConfig(dir), &first, 1, 1, 2); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "c1.summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := virtualConfig(dir)
	cfg.Resume = true
	var log logBuf
	out, err := runSweep(t, t.Context(), cfg, &log, 1, 1, 2, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	if got := measuredPoints(log.String()); !slices.Equal(got, []string{"c4", "c8"}) {
		t.Errorf("resumed sweep measured %v, want only c4 and c8", got)
	}
	if out.Measured != 2 || out.Resumed != 2 || len(out.Summary.Points) != 4 {
		t.Errorf("measured %d, resumed %d, %d points", out.Measured, out.Resumed, len(out.Summary.Points))
	}
	after, _ := os.ReadFile(filepath.Join(dir, "c1.summary.json"))
	if !bytes.Equal(before, after) {
		t.Error("resuming rewrote a finished point's summary")
	}
	s, err := sweep.ReadFile(filepath.Join(dir, SweepJSON))
	if err != nil || len(s.Points) != 4 {
		t.Fatalf("sweep.json: %v, %d points", err, len(s.Points))
	}
	// The resumed points read the same as when they were measured.
	for _, p := range out.Summary.Points[:2] {
		var want sweep.Sample
		for _, q := range s.Points {
			if q.Load == p.Load {
				want = q.Mean
			}
		}
		if p.Mean.OutputThroughput != want.OutputThroughput || p.Mean.TTFT.P99 != want.TTFT.P99 {
			t.Errorf("%s: resumed %v tok/s, p99 TTFT %v; measured %v, %v", p.Load, p.Mean.OutputThroughput, p.Mean.TTFT.P99, want.OutputThroughput, want.TTFT.P99)
		}
	}
}

func TestResumeAfterInterruption(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	// Interrupt the sweep as soon as its second point is measured, as a
	// Ctrl-C between points would.
	log := &logBuf{marker: "sweep: c2: ", hook: cancel}
	out, err := runSweep(t, ctx, virtualConfig(dir), log, 1, 1, 2, 4, 8)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted sweep returned %v", err)
	}
	if got := measuredPoints(log.String()); !slices.Equal(got, []string{"c1", "c2"}) {
		t.Fatalf("before the interruption: %v", got)
	}
	if out == nil || len(out.Summary.Points) != 2 || out.JSONPath == "" {
		t.Fatalf("the interrupted sweep should report and save its 2 points: %+v", out)
	}
	s, err := sweep.ReadFile(filepath.Join(dir, SweepJSON))
	if err != nil || len(s.Points) != 2 {
		t.Fatalf("sweep.json after the interruption: %v, %d points", err, len(s.Points))
	}

	cfg := virtualConfig(dir)
	cfg.Resume = true
	var again logBuf
	out, err = runSweep(t, t.Context(), cfg, &again, 1, 1, 2, 4, 8)
	if err != nil {
		t.Fatal(err)
	}
	if got := measuredPoints(again.String()); !slices.Equal(got, []string{"c4", "c8"}) {
		t.Errorf("resume measured %v, want c4 and c8", got)
	}
	if len(out.Summary.Points) != 4 {
		t.Errorf("%d points after resuming", len(out.Summary.Points))
	}
}

func TestResumeRemeasuresUnfinished(t *testing.T) {
	dir := t.TempDir()
	if _, err := runSweep(t, t.Context(), virtualConfig(dir), &logBuf{}, 1, 1, 2, 4); err != nil {
		t.Fatal(err)
	}
	// c2 was cut short (bench marks its summary interrupted); c4's summary
	// was half written when the machine died.
	c2 := filepath.Join(dir, "c2.summary.json")
	b, _ := os.ReadFile(c2)
	b = bytes.Replace(b, []byte(`"kind": "goodput.summary",`), []byte(`"kind": "goodput.summary", "interrupted": true,`), 1)
	if err := os.WriteFile(c2, b, 0o644); err != nil {
		t.Fatal(err)
	}
	c4 := filepath.Join(dir, "c4.summary.json")
	if err := os.WriteFile(c4, []byte(`{"kind": "goodp`), 0o644); err != nil {
		t.Fatal(err)
	}
	// A benchmark saved beside the sweep is not one of its points.
	if err := os.WriteFile(filepath.Join(dir, "other.summary.json"), []byte(`{"kind": "goodput.summary", "run": {"labels": {"x": "y"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := virtualConfig(dir)
	cfg.Resume = true
	var log logBuf
	cfg.Log = &log
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes(), "\n")
	if !strings.Contains(notes, c2+" was interrupted") || !strings.Contains(notes, c4+" is unreadable") || len(r.Notes()) != 2 {
		t.Errorf("notes:\n%s", notes)
	}
	if _, err := r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(1, 2, 4)}); err != nil {
		t.Fatal(err)
	}
	if got := measuredPoints(log.String()); !slices.Equal(got, []string{"c2", "c4"}) {
		t.Errorf("measured %v, want c2 and c4 again", got)
	}
}

func TestResumeAddsRepeats(t *testing.T) {
	dir := t.TempDir()
	if _, err := runSweep(t, t.Context(), virtualConfig(dir), &logBuf{}, 1, 1, 2); err != nil {
		t.Fatal(err)
	}
	cfg := virtualConfig(dir)
	cfg.Resume = true
	var log logBuf
	out, err := runSweep(t, t.Context(), cfg, &log, 3, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := measuredPoints(log.String()); !slices.Equal(got, []string{"c1-r2", "c1-r3", "c2-r2", "c2-r3"}) {
		t.Errorf("measured %v, want the missing repeats only", got)
	}
	for _, p := range out.Summary.Points {
		if len(p.Repeats) != 3 {
			t.Errorf("%s: %d repeats", p.Load, len(p.Repeats))
		}
	}
}

func TestResumeRecomputesWithCurrentSLO(t *testing.T) {
	dir := t.TempDir()
	if _, err := runSweep(t, t.Context(), virtualConfig(dir), &logBuf{}, 1, 1, 2); err != nil {
		t.Fatal(err)
	}
	cfg := virtualConfig(dir)
	cfg.Resume = true
	// An SLO no request can meet: resumed points must be read with it too,
	// not with the numbers of their summaries.
	cfg.Bench.Metrics.Good = func(metrics.Request) bool { return false }
	cfg.Bench.Metrics.SLO = "never"
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pts := r.Resumed()
	if len(pts) != 2 {
		t.Fatalf("%d resumed points", len(pts))
	}
	for _, p := range pts {
		if p.Mean.Attainment != 0 || p.Mean.Goodput != 0 || p.Mean.OutputThroughput <= 0 {
			t.Errorf("%s: attainment %v, goodput %v, throughput %v", p.Load, p.Mean.Attainment, p.Mean.Goodput, p.Mean.OutputThroughput)
		}
	}
}

func TestResumeRefusals(t *testing.T) {
	base := func(t *testing.T) string {
		dir := t.TempDir()
		if _, err := runSweep(t, t.Context(), virtualConfig(dir), &logBuf{}, 1, 1, 2); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	t.Run("measurements without resume", func(t *testing.T) {
		dir := base(t)
		_, err := New(virtualConfig(dir))
		if err == nil || !strings.Contains(err.Error(), "already holds 2 measurements") || !strings.Contains(err.Error(), "--resume") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("different settings", func(t *testing.T) {
		dir := base(t)
		cfg := virtualConfig(dir)
		cfg.Resume = true
		cfg.Bench.Arrival.NumPrompts = 32
		cfg.Bench.Workload.Random.InputLen = 65
		r, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(1, 2, 4)})
		if err == nil || !strings.Contains(err.Error(), `num_prompts was "64", now "32"`) || !strings.Contains(err.Error(), `random_input_len was "64", now "65"`) {
			t.Fatalf("error %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "c4.summary.json")); err == nil {
			t.Error("a refused resume measured anyway")
		}
	})
	t.Run("different request settings", func(t *testing.T) {
		dir := base(t)
		cfg := virtualConfig(dir)
		cfg.Resume = true
		temp := 0.5
		cfg.Bench.Request.Sampling.Temperature = &temp
		cfg.Bench.Request.RequestIDPrefix = "idprefix-" // an id prefix is drawn anew: no setting
		r, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = r.Check(sweep.ModeConcurrency, false)
		if err == nil || !strings.Contains(err.Error(), `temperature was "", now "0.5"`) || strings.Contains(err.Error(), "idprefix") {
			t.Fatalf("error %v", err)
		}
		// The id prefix alone changes nothing measured.
		cfg.Bench.Request.Sampling.Temperature = nil
		if r, err = New(cfg); err != nil {
			t.Fatal(err)
		}
		if err := r.Check(sweep.ModeConcurrency, false); err != nil {
			t.Fatalf("a new id prefix refused: %v", err)
		}
	})
	t.Run("records missing", func(t *testing.T) {
		dir := base(t)
		os.Remove(filepath.Join(dir, "c2.jsonl"))
		cfg := virtualConfig(dir)
		cfg.Resume = true
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), "c2.summary.json") || !strings.Contains(err.Error(), "delete the summary") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("a point twice", func(t *testing.T) {
		dir := base(t)
		b, _ := os.ReadFile(filepath.Join(dir, "c1.summary.json"))
		os.WriteFile(filepath.Join(dir, "copy.summary.json"), b, 0o644)
		cfg := virtualConfig(dir)
		cfg.Resume = true
		_, err := New(cfg)
		if err == nil || !strings.Contains(err.Error(), "both hold repeat 1 of concurrency=1") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("unreadable manifest", func(t *testing.T) {
		dir := base(t)
		os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"schema": 9}`), 0o644)
		cfg := virtualConfig(dir)
		cfg.Resume = true
		r, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = r.Check(sweep.ModeConcurrency, false)
		if err == nil || !strings.Contains(err.Error(), "schema 9") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("empty directory", func(t *testing.T) {
		// Resuming a sweep that never measured anything measures it all.
		cfg := virtualConfig(filepath.Join(t.TempDir(), "new"))
		cfg.Resume = true
		var log logBuf
		if _, err := runSweep(t, t.Context(), cfg, &log, 1, 1, 2); err != nil {
			t.Fatal(err)
		}
		if got := measuredPoints(log.String()); !slices.Equal(got, []string{"c1", "c2"}) {
			t.Errorf("measured %v", got)
		}
	})
}

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name, in, want string // want: error fragment, empty for success
	}{
		{"valid", `{"schema": 1, "settings": {"mode": "concurrency"}}`, ""},
		{"no settings", `{"schema": 1}`, ""},
		{"empty", ``, "unexpected end"},
		{"truncated", `{"schema": 1, "sett`, "unexpected end"},
		{"syntax", `{"schema": 1,, }`, "byte 14"},
		{"zero schema", `{"settings": {}}`, "schema 0"},
		{"future schema", `{"schema": 2}`, "schema 2: this version reads 1 to 1"},
		{"wrong type", `{"schema": "1"}`, "cannot unmarshal"},
		{"settings not strings", `{"schema": 1, "settings": {"a": 1}}`, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseManifest([]byte(tt.in))
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"schema": 1, "settings": {"mode": "concurrency", "seed": "0"}}`))
	f.Add([]byte(`{"schema": 1}`))
	f.Add([]byte(`{"schema": -1}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifest(b)
		if err == nil && (m.Schema < 1 || m.Schema > manifestSchema) {
			t.Fatalf("accepted schema %d", m.Schema)
		}
	})
}

// The request flags are settings only when given: a sweep without them,
// or of the sonnet dataset at its default shape (every sweep measured
// before these keys existed), has none of their keys, so that it resumes.
func TestRequestSettingsOnlyWhenGiven(t *testing.T) {
	b := bench.DefaultConfig()
	b.Workload.Dataset = workload.DatasetSonnet
	if s := requestSettings(b); len(s) != 0 {
		t.Fatalf("defaults gave %v", s)
	}
	b.Workload.Sonnet.InputLen = 300
	k := 3
	b.Request.Sampling.TopK = &k
	b.NoStream = true
	b.Request.RequestIDPrefix = "x-"
	want := map[string]string{"sonnet_input_len": "300", "sonnet_output_len": "150", "sonnet_prefix_len": "200", "top_k": "3", "stream": "false"}
	if s := requestSettings(b); !maps.Equal(s, want) {
		t.Errorf("settings %v, want %v", s, want)
	}
}
