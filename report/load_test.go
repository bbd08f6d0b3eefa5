package report

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/sweep"
)

// summaryFor returns the summary file bench would write for a run of recs
// judged by slo.
func summaryFor(t testing.TB, h record.Header, recs []record.Record, sloExpr string, warnings ...string) SummaryFile {
	t.Helper()
	o := metrics.Options{}
	mustSLO(t, sloExpr).Apply(&o)
	s := metrics.NewSummary(o)
	for i := range recs {
		s.Add(&recs[i])
	}
	return SummaryFile{Kind: SummaryKind, Header: h, Result: s.Close(), Warnings: warnings}
}

// serverSeries returns a vLLM-like series scraped every second from one
// second before start for n seconds: each second one more request is
// observed with 10 ms queue, 20 ms prefill, 100 ms decode, 140 ms e2e.
func serverSeries(start time.Time, n int) *promscrape.Series {
	s := &promscrape.Series{URL: "http://127.0.0.1:8000/metrics", Interval: time.Second, Start: start.Add(-time.Second)}
	hist := func(k int, mean float64) map[string]promscrape.Histogram {
		c := float64(k)
		return map[string]promscrape.Histogram{"": {Bounds: []float64{0.05, 1}, Counts: []float64{c, c}, Count: c, Sum: c * mean}}
	}
	for k := range n {
		at := start.Add(time.Duration(k-1) * time.Second)
		snap := &promscrape.Snapshot{
			At: at, Engine: promscrape.VLLM,
			Gauges:   map[promscrape.Gauge]float64{promscrape.Running: 4, promscrape.Waiting: float64(k % 3), promscrape.KVCacheUsage: 0.25},
			Counters: map[promscrape.Counter]map[string]float64{promscrape.GenerationTokens: {"": float64(100 * k)}},
			Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{
				promscrape.Queue: hist(k, 0.01), promscrape.Prefill: hist(k, 0.02), promscrape.Decode: hist(k, 0.1), promscrape.E2E: hist(k, 0.14),
			},
		}
		s.Samples = append(s.Samples, promscrape.Sample{At: at, Snapshot: snap})
	}
	s.End = s.Samples[len(s.Samples)-1].At
	return s
}

// runDir writes a run directory: records, and optionally a summary and a
// server series, and returns the directory and the records path.
func runDir(t *testing.T, withSummary, withServer bool) (string, string) {
	t.Helper()
	dir := t.TempDir()
	recs := fixedRecords(20, 100*time.Millisecond, 0, 5, 10*time.Millisecond, func(i int) time.Duration { return time.Duration(20+i) * time.Millisecond })
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Start: time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC), Tool: "goodput test"}
	path := writeRecords(t, dir, "run1.jsonl", h, recs)
	if withSummary {
		writeJSON(t, dir, "run1.summary.json", summaryFor(t, h, recs, "ttft<=30ms", "the generator lagged"))
	}
	if withServer {
		writeJSON(t, dir, "run1.server.json", serverSeries(h.Start, 6))
	}
	return dir, path
}

func TestLocate(t *testing.T) {
	runOnly, recs := runDir(t, true, false)
	sweepDir := t.TempDir()
	sw := simpleSweep(t)
	f, err := os.Create(filepath.Join(sweepDir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sweep.WriteJSON(f, sw); err != nil {
		t.Fatal(err)
	}
	f.Close()
	twoRuns := t.TempDir()
	for _, n := range []string{"a.jsonl", "b.jsonl"} {
		writeRecords(t, twoRuns, n, record.Header{Kind: record.KindHeader, Schema: 1}, nil)
	}
	moved := t.TempDir()
	// A summary whose recorded path no longer exists: its records are
	// found beside it by name.
	sum := summaryFor(t, record.Header{}, nil, "ttft<=1s")
	sum.Records = "/gone/elsewhere/m.jsonl"
	writeJSON(t, moved, "m.summary.json", sum)
	writeRecords(t, moved, "m.jsonl", record.Header{Kind: record.KindHeader, Schema: 1}, nil)
	// A copy of a run whose summary names its records relative to where
	// the run began: from there, "res/c.jsonl" is the original's, and
	// the copy's own records beside it are the copy's run.
	here := t.TempDir()
	for _, d := range []string{"res", "copy"} {
		if err := os.Mkdir(filepath.Join(here, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeRecords(t, filepath.Join(here, "res"), "c.jsonl", record.Header{Kind: record.KindHeader, Schema: 1}, nil)
	copied := filepath.Join(here, "copy")
	rel := summaryFor(t, record.Header{}, nil, "ttft<=1s")
	rel.Records = "res/c.jsonl"
	writeJSON(t, copied, "c.summary.json", rel)
	writeRecords(t, copied, "c.jsonl", record.Header{Kind: record.KindHeader, Schema: 1}, nil)
	t.Chdir(here)
	// A result directory whose records were compressed afterwards.
	gzDir := t.TempDir()
	plain := writeRecords(t, gzDir, "z.jsonl", record.Header{Kind: record.KindHeader, Schema: 1}, nil)
	gzipFile(t, plain)
	orphan := t.TempDir()
	writeJSON(t, orphan, "o.summary.json", summaryFor(t, record.Header{}, nil, "ttft<=1s"))
	// genai-bench experiment folders: a result file per load beside
	// experiment_metadata.json.
	const load2, load4 = "D100_100_text-to-text_num_concurrency_2_time_3s.json", "D100_100_text-to-text_num_concurrency_4_time_3s.json"
	genaiOne, genaiTwo := t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(genaiOne, "experiment_metadata.json"), filepath.Join(genaiOne, load2),
		filepath.Join(genaiTwo, load2), filepath.Join(genaiTwo, load4)} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		name, path string
		kind, file string
		err        string
	}{
		{"run directory", runOnly, KindRun, recs, ""},
		{"records file", recs, KindRun, recs, ""},
		{"summary names its records", filepath.Join(runOnly, "run1.summary.json"), KindRun, recs, ""},
		{"moved run directory", filepath.Join(moved, "m.summary.json"), KindRun, filepath.Join(moved, "m.jsonl"), ""},
		{"compressed run directory", gzDir, KindRun, filepath.Join(gzDir, "z.jsonl.gz"), ""},
		{"copied run directory", filepath.Join("copy", "c.summary.json"), KindRun, filepath.Join("copy", "c.jsonl"), ""},
		{"sweep directory", sweepDir, KindSweep, filepath.Join(sweepDir, "sweep.json"), ""},
		{"sweep file", filepath.Join(sweepDir, "sweep.json"), KindSweep, filepath.Join(sweepDir, "sweep.json"), ""},
		{"stdin", "-", KindRun, "-", ""},
		{"several runs", twoRuns, "", "", "several runs (a.jsonl, b.jsonl): name one"},
		{"empty directory", t.TempDir(), "", "", "no records (*.jsonl) or sweep file found"},
		{"genai-bench experiment of one load", genaiOne, KindRun, filepath.Join(genaiOne, load2), ""},
		{"genai-bench experiment of two loads", genaiTwo, "", "", "several runs (a genai-bench experiment of 2 loads: " + load2 + ", " + load4 + "): name one, as " + filepath.Join(genaiTwo, load2)},
		{"missing", filepath.Join(runOnly, "nope"), "", "", "no such file"},
		{"summary without records", filepath.Join(orphan, "o.summary.json"), "", "", "records (" + filepath.Join(orphan, "o.jsonl") + ") were not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kind, file, err := Locate(tt.path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || kind != tt.kind || file != tt.file {
				t.Errorf("Locate = %q %q %v, want %q %q", kind, file, err, tt.kind, tt.file)
			}
		})
	}
}

func TestLoadRunReadsWhatLiesBeside(t *testing.T) {
	dir, recs := runDir(t, true, true)
	in, err := Load(dir, nil, RunOptions{RunSLO: true, SLO: mustSLO(t, "ttft<=5s")})
	if err != nil {
		t.Fatal(err)
	}
	run := in.Run
	if in.Sweep != nil || run == nil {
		t.Fatalf("Load = %+v, want a run", in)
	}
	if run.Name != "run1" || run.Path != recs || run.Format != "goodput" {
		t.Errorf("name %q path %q format %q", run.Name, run.Path, run.Format)
	}
	// The summary's SLO replaces the option's: TTFTs are 20..39 ms, so 10
	// of 20 met ttft<=30ms (20..30 inclusive is 11: 20,...,30).
	if run.SLO.String() != "ttft<=30ms" || run.Result.Goodput == nil || run.Result.Goodput.GoodRequests != 11 {
		t.Errorf("SLO %q goodput %+v, want the summary's ttft<=30ms with 11 good requests", run.SLO, run.Result.Goodput)
	}
	if run.Summary == nil || len(run.Summary.Warnings) != 1 {
		t.Errorf("summary %+v, want its warning", run.Summary)
	}
	// The server series covers the window: its phases are the means the
	// series was built with.
	if run.Server == nil || run.ServerWindow == nil {
		t.Fatalf("server %v window %v, notes %v", run.Server, run.ServerWindow, run.Notes)
	}
	phases := run.ServerWindow.Phases()
	want := map[promscrape.Hist]float64{promscrape.Queue: 0.01, promscrape.Prefill: 0.02, promscrape.Decode: 0.1}
	if len(phases) != 3 {
		t.Fatalf("phases %+v", phases)
	}
	for _, p := range phases {
		if math.Abs(p.Mean-want[p.Name]) > 1e-9 {
			t.Errorf("phase %s mean %v, want %v", p.Name, p.Mean, want[p.Name])
		}
	}
	if len(run.Notes) != 0 {
		t.Errorf("notes %v, want none", run.Notes)
	}
	// Without RunSLO the option's SLO stands.
	in, err = Load(dir, nil, RunOptions{SLO: mustSLO(t, "ttft<=5s")})
	if err != nil || in.Run.Result.Goodput.GoodRequests != 20 {
		t.Errorf("with the option's SLO: %v, %+v", err, in.Run.Result.Goodput)
	}
	// The percentile method the header names is used with RunMethod.
	h := record.Header{Kind: record.KindHeader, Schema: 1, Config: json.RawMessage(`{"percentile_method":"nearest-rank"}`)}
	p := writeRecords(t, t.TempDir(), "m.jsonl", h, fixedRecords(3, time.Second, 0, 2, time.Millisecond, func(int) time.Duration { return time.Millisecond }))
	run, err = LoadRun(p, nil, RunOptions{RunMethod: true})
	if err != nil || run.Result.Method != metrics.NearestRank {
		t.Errorf("method %v (%v), want nearest-rank from the header", run.Result.Method, err)
	}
}

func TestLoadRunNotes(t *testing.T) {
	t.Run("broken summary", func(t *testing.T) {
		dir, recs := runDir(t, false, false)
		if err := os.WriteFile(filepath.Join(dir, "run1.summary.json"), []byte(`{"kind":"goodput.summary"`), 0o644); err != nil {
			t.Fatal(err)
		}
		run, err := LoadRun(recs, nil, RunOptions{RunSLO: true})
		if err != nil {
			t.Fatal(err)
		}
		if run.Summary != nil || len(run.Notes) != 1 || !strings.Contains(run.Notes[0], "run1.summary.json") {
			t.Errorf("summary %v notes %v, want a note naming the file", run.Summary, run.Notes)
		}
	})
	t.Run("broken server series", func(t *testing.T) {
		dir, recs := runDir(t, false, false)
		if err := os.WriteFile(filepath.Join(dir, "run1.server.json"), []byte(`[1,2]`), 0o644); err != nil {
			t.Fatal(err)
		}
		run, err := LoadRun(recs, nil, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if run.Server != nil || len(run.Notes) != 1 || !strings.Contains(run.Notes[0], "run1.server.json: server series") {
			t.Errorf("server %v notes %v", run.Server, run.Notes)
		}
	})
	t.Run("last line cut short", func(t *testing.T) {
		_, recs := runDir(t, false, false)
		f, err := os.OpenFile(recs, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(`{"seq":99,"ct":[1,`); err != nil {
			t.Fatal(err)
		}
		f.Close()
		run, err := LoadRun(recs, nil, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Notes) != 1 || !strings.Contains(run.Notes[0], "the last line is incomplete") || !strings.HasPrefix(run.Notes[0], recs+":") {
			t.Errorf("notes %v, want one naming the cut line of %s", run.Notes, recs)
		}
	})
	t.Run("server series of an import", func(t *testing.T) {
		run := build(record.Header{}, fixedRecords(3, time.Second, 0, 2, time.Millisecond, func(int) time.Duration { return time.Millisecond }), RunOptions{})
		run.AttachServer(serverSeries(time.Unix(1000, 0), 3))
		if run.ServerWindow != nil || len(run.Notes) != 1 || !strings.Contains(run.Notes[0], "no start time") {
			t.Errorf("window %v notes %v", run.ServerWindow, run.Notes)
		}
	})
	t.Run("server series of another time", func(t *testing.T) {
		h := record.Header{Start: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
		run := build(h, fixedRecords(3, time.Second, 0, 2, time.Millisecond, func(int) time.Duration { return time.Millisecond }), RunOptions{})
		run.AttachServer(serverSeries(h.Start.Add(24*time.Hour), 3))
		if run.ServerWindow != nil || len(run.Notes) != 1 || !strings.Contains(run.Notes[0], "no successful scrape") {
			t.Errorf("window %v notes %v", run.ServerWindow, run.Notes)
		}
	})
}

func TestReadSummaryFile(t *testing.T) {
	good, _ := json.Marshal(summaryFor(t, record.Header{}, nil, "ttft<=1s"))
	tests := []struct {
		name, in, err string
	}{
		{"valid", string(good), ""},
		{"not JSON", "nope", "s.json: summary file: invalid character"},
		{"wrong kind", `{"kind":"goodput.run","result":{}}`, `not a run summary: kind "goodput.run"`},
		{"no result", `{"kind":"goodput.summary"}`, "summary file has no result"},
		{"empty", "", "summary file: EOF"},
		// a key twice: the last would have won without a word
		{"duplicate key", `{"kind":"goodput.summary","result":{},"result":{}}`, `s.json: summary file: key "result" appears twice`},
		{"nested duplicate key", strings.Replace(string(good), `"result":{`, `"result":{"requests":1,"requests":2,`, 1),
			`s.json: summary file: key "requests" in result appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReadSummaryFile(strings.NewReader(tt.in), "s.json")
			if tt.err == "" {
				if err != nil || s.Result == nil {
					t.Fatalf("%v, %v", s, err)
				}
				if cs, err := s.SLO(); err != nil || cs.String() != "ttft<=1s" {
					t.Errorf("SLO %v %v", cs, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
		})
	}
}

func TestReadServerSeries(t *testing.T) {
	s := serverSeries(time.Unix(100, 0), 3)
	good, _ := json.Marshal(s)
	s.Samples[0], s.Samples[2] = s.Samples[2], s.Samples[0]
	disordered, _ := json.Marshal(s)
	if _, err := ReadServerSeries(bytes.NewReader(good), "x"); err != nil {
		t.Errorf("valid series: %v", err)
	}
	if _, err := ReadServerSeries(bytes.NewReader(disordered), "x"); err == nil || !strings.Contains(err.Error(), "x: server series: sample 2 is earlier than sample 1") {
		t.Errorf("disordered series: %v", err)
	}
	if _, err := ReadServerSeries(strings.NewReader("{"), "x"); err == nil || !strings.HasPrefix(err.Error(), "x: server series:") {
		t.Errorf("truncated series: %v", err)
	}
}

func TestSniffJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"schema": 1, "points": []}`:              "sweep",
		`{"schema": 1, "settings": {"points": 3}}`: "records", // a sweep's configuration, not its curve
		`{"points": [], "schema": 1}`:              "sweep",   // in any order
		`{"schema": 1, "options": {}, "verdict": "x", "points": [{"load": "concurrency=1"}]}`: "sweep",
		`{"kind": "goodput.summary", "result": {}}`:                                           "summary",
		`{"kind": "goodput.run", "schema": 1}`:                                                "records",
		`{"ttfts": []}`:                                                                       "records",
		`[{"arrival": 0}]`:                                                                    "records",
		``:                                                                                    "records",
		`{"kind": 7}`:                                                                         "records",
		"\n  {\"schema\":1,\"points\":null}":                                                  "sweep",
		`{"seq":0,"sched":0}` + "\n" + `{"seq":1}`:                                            "records",
		`{"kind":"goodput.summary"` + "\n" + `"run":`:                                         "summary",
	} {
		if got := sniffJSON(strings.NewReader(in)); got != want {
			t.Errorf("sniffJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"dir/run.jsonl":        "run",
		"run.summary.json":     "run",
		"/a/b/sweep.json":      "sweep",
		"x.server.json":        "x",
		"plain":                "plain",
		".jsonl":               ".jsonl",
		"results/c16-r2.jsonl": "c16-r2",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzReadSummaryFile(f *testing.F) {
	f.Add(`{"kind":"goodput.summary","result":{"percentile_method":"linear","counts":{"total":1}}}`)
	f.Add(`{"kind":"goodput.summary","result":{"percentile_method":"bogus"}}`)
	f.Add(`{"kind":"goodput.summary","result":{"goodput":{"slo":"ttft<=1s"}}}`)
	f.Add(`{"kind":"goodput.summary","result":{"goodput":{"slo":"ttft<<"}}}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadSummaryFile(strings.NewReader(in), "f")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if s.Result == nil || s.Kind != SummaryKind {
			t.Fatalf("accepted %+v", s)
		}
		_, _ = s.SLO()
	})
}

func FuzzReadServerSeries(f *testing.F) {
	good, _ := json.Marshal(serverSeries(time.Unix(100, 0), 2))
	f.Add(string(good))
	f.Add(`{"samples":[{"at":"2025-01-01T00:00:00Z"},{"at":"2024-01-01T00:00:00Z"}]}`)
	f.Add(`{"samples":[{"snapshot":{"histograms":{"ttft":{"":{"bounds":[1],"counts":[2],"count":1}}}}}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadServerSeries(strings.NewReader(in), "f")
		if err != nil {
			return
		}
		// Whatever was accepted can be attached to a run without panicking.
		run := build(record.Header{Start: time.Unix(100, 0)}, fixedRecords(2, time.Second, 0, 2, time.Millisecond, func(int) time.Duration { return time.Millisecond }), RunOptions{})
		run.AttachServer(s)
		var b bytes.Buffer
		if err := WriteRunHTML(&b, run, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzSniffJSON(f *testing.F) {
	for _, s := range []string{`{"schema":1}`, `{"kind":"goodput.summary"}`, `[`, `{"kind":`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		switch k := sniffJSON(strings.NewReader(in)); k {
		case "sweep", "summary", "records":
		default:
			t.Fatalf("sniffJSON(%q) = %q", in, k)
		}
	})
}

// A run over several endpoints saved a server series for each
// (NAME.server-1.json, …) and none for the run: the page has a server
// section for each endpoint, named by its URL.
func TestEndpointsServerSeries(t *testing.T) {
	dir, path := runDir(t, false, false)
	h := record.Header{Start: time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)}
	for i, url := range []string{"http://127.0.0.1:8001/metrics", "http://127.0.0.1:8002/metrics"} {
		s := serverSeries(h.Start, 6)
		s.URL = url
		writeJSON(t, dir, fmt.Sprintf("run1.server-%d.json", i+1), s)
	}
	run, err := LoadRun(path, nil, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Server != nil || len(run.Endpoints) != 2 || run.Endpoints[0].Window == nil || run.Endpoints[1].Series.URL != "http://127.0.0.1:8002/metrics" {
		t.Fatalf("server %v, endpoints %+v; want two endpoints' series and windows", run.Server, run.Endpoints)
	}
	var b bytes.Buffer
	if err := WriteRunHTML(&b, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, b.Bytes())
	if doc.byID("server") != nil {
		t.Error("a section for one server in a run over two")
	}
	for i, port := range []string{"8001", "8002"} {
		sec := doc.byID(fmt.Sprintf("server-%d", i+1))
		if sec == nil || !strings.Contains(sec.allText(), fmt.Sprintf("Server %d of 2: http://127.0.0.1:%s/metrics", i+1, port)) {
			t.Errorf("endpoint %d: no section naming it", i+1)
		}
	}
}

// LoadSweep finds each measurement's server account in its summary file
// by the load and repeat labels of its run header; an interrupted run, or
// a benchmark saved beside the sweep without a load, is not a measurement.
func TestLoadSweepReadsServerAccounts(t *testing.T) {
	dir := t.TempDir()
	var points []sweep.Point
	for _, c := range []int{1, 4} {
		p, err := sweep.NewPoint(sweep.Concurrency(c), sweep.Sample{Requests: 10, OutputThroughput: 100 * float64(c), Goodput: 100 * float64(c), Attainment: 1})
		if err != nil {
			t.Fatal(err)
		}
		points = append(points, p)
	}
	sum, err := sweep.Analyze(points, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sweep.WriteJSON(f, sum); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h, recs := richRecords(t)
	write := func(name, load, repeat string, interrupted bool, srv *serverview.Comparison) {
		hd := h
		hd.Labels = map[string]string{}
		if load != "" {
			hd.Labels["load"], hd.Labels["repeat"] = load, repeat
		}
		sf := summaryFor(t, hd, recs, "ttft<=1s")
		sf.Interrupted, sf.Server = interrupted, srv
		writeJSON(t, dir, name, sf)
	}
	c4 := sweep.Concurrency(4).String()
	write("c1.summary.json", sweep.Concurrency(1).String(), "1", false, nil)
	write("c4-r2.summary.json", c4, "2", false, comparison(2))
	write("c4.summary.json", c4, "1", false, comparison(1))
	write("c4-r3.summary.json", c4, "3", true, comparison(9))
	write("bench.summary.json", "", "", false, comparison(5))
	// A load spread over two endpoints: their account together.
	hd := h
	hd.Labels = map[string]string{"load": sweep.Concurrency(16).String(), "repeat": "1"}
	sf := summaryFor(t, hd, recs, "ttft<=1s")
	sf.Servers = []EndpointAccount{{"http://a", withTTFT(t, comparison(1), fastTTFT)}, {"http://b", withTTFT(t, comparison(2), slowTTFT)}}
	writeJSON(t, dir, "c16.summary.json", sf)
	s, err := LoadSweep(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Servers[sweep.Concurrency(1).String()]; len(got) != 1 || got[0].Server != nil || got[0].Summary != "c1.summary.json" {
		t.Errorf("concurrency 1: %+v, want its one summary, without a server account", got)
	}
	got := s.Servers[c4]
	if len(got) != 2 || got[0].Repeat != 1 || got[1].Repeat != 2 || got[0].Summary != "c4.summary.json" {
		t.Fatalf("concurrency 4: %+v, want repeats 1 and 2 in order", got)
	}
	if got[0].Server == nil || got[1].Server == nil || *got[0].Server.TTFT.ServerMean != 0.1 || got[1].Server.Running.Mean != 8 {
		t.Errorf("concurrency 4: the accounts read back wrong: %+v, %+v", got[0].Server, got[1].Server)
	}
	if f := s.Servers[sweep.Concurrency(16).String()]; len(f) != 1 || f[0].Server == nil || f[0].Server.URL != "2 endpoints" ||
		f[0].Server.Running.Mean != 12 || f[0].Server.KVCacheUsage.Peak != 0.4 || f[0].Server.Preemptions.Count != 9 {
		t.Errorf("concurrency 16 over two endpoints: %+v, want their account together (running 4 + 8, the fuller KV cache, 3 + 6 preemptions)", f)
	} else if p99 := f[0].Server.TTFT.P99; p99 == nil || p99.Server == nil || math.Abs(p99.Server.Value-0.75) > 1e-12 || p99.Server.Lower != 0.5 || p99.Server.Upper != 1 {
		// The endpoints' histograms came through their summary: the
		// fleet's p99 is read from their sum (helpers_test.go).
		t.Errorf("concurrency 16 over two endpoints: TTFT p99 %+v, want 750 ms in (500 ms, 1 s]", p99)
	}
	if len(s.Servers) != 3 {
		t.Errorf("servers of %d loads, want 3: %v", len(s.Servers), s.Servers)
	}
}

// A genai-bench result places every request at the run's start and
// carries the run's duration: the page's and compare's rates divide by
// that window (3.25 s, 26 output tokens: 8 tok/s, as genai-bench says),
// not by the longest request.
func TestLoadRunTakesTheHeadersWindow(t *testing.T) {
	run, err := LoadRun(filepath.Join("..", "runfile", "testdata", "genai-bench", "D100_100_text-to-text_num_concurrency_2_time_3s.json"), nil, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Result.Throughput.OutputTokensPerSecond; math.Abs(got-8) > 1e-9 {
		t.Errorf("output throughput %v tok/s, want genai-bench's 8", got)
	}
}

// gzipFile replaces the file at path with path.gz, compressed.
func gzipFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".gz", z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}
