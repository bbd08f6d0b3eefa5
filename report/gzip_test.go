package report

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sweep"
)

// copyDir copies the files of src into a new directory and returns it.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// gzipBytes returns b compressed.
func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// bomb returns a gzip stream of prefix and then n spaces: valid JSON as far
// as it goes, far larger decompressed than compressed.
func bomb(t *testing.T, prefix string, n int64) []byte {
	t.Helper()
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
	io.WriteString(w, prefix)
	spaces := bytes.Repeat([]byte(" "), 1<<20)
	for ; n > 0; n -= int64(len(spaces)) {
		w.Write(spaces[:min(n, int64(len(spaces)))])
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// A result directory whose files were compressed afterwards (gzip
// run1.jsonl, and the summary and server series or not) reads as the run
// it was: the same numbers, the summary's SLO and warnings, the server's
// phases, whether it is named by its directory, its records or its
// summary.
func TestCompressedRunReadsAsItsPlainFiles(t *testing.T) {
	plainDir, _ := runDir(t, true, true)
	o := RunOptions{RunSLO: true, SLO: mustSLO(t, "ttft<=5s")}
	want, err := Load(plainDir, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		compressed []string // the files gzip replaced
		named      []string // how the run is named, in the directory
	}{
		// the records alone
		{"records", []string{"run1.jsonl"}, []string{"", "run1.jsonl.gz", "run1.summary.json"}},
		// the records and the summary
		{"records and summary", []string{"run1.jsonl", "run1.summary.json"}, []string{"", "run1.jsonl.gz", "run1.summary.json.gz"}},
		// every file
		{"every file", []string{"run1.jsonl", "run1.summary.json", "run1.server.json"}, []string{"", "run1.jsonl.gz", "run1.summary.json.gz"}},
		// the summary alone, the records as they were
		{"summary", []string{"run1.summary.json"}, []string{"", "run1.jsonl", "run1.summary.json.gz"}},
	}
	for _, tt := range tests {
		dir := copyDir(t, plainDir)
		for _, name := range tt.compressed {
			gzipFile(t, filepath.Join(dir, name))
		}
		for _, name := range tt.named {
			in, err := Load(filepath.Join(dir, name), nil, o)
			if err != nil {
				t.Errorf("%s, named %q: %v", tt.name, name, err)
				continue
			}
			got := in.Run
			if !reflect.DeepEqual(got.Result, want.Run.Result) || got.SLO.String() != "ttft<=30ms" || got.Name != "run1" ||
				got.Summary == nil || !reflect.DeepEqual(got.Summary.Warnings, want.Run.Summary.Warnings) ||
				got.ServerWindow == nil || !reflect.DeepEqual(got.ServerWindow.Phases(), want.Run.ServerWindow.Phases()) || len(got.Notes) != 0 {
				t.Errorf("%s, named %q: name %q SLO %q, counts %+v, goodput %+v, notes %v; want the plain run's", tt.name, name, got.Name, got.SLO,
					got.Result.Counts, got.Result.Goodput, got.Notes)
			}
		}
		// Its files are the compressed ones, which no output may replace.
		rec := filepath.Join(dir, "run1.jsonl")
		if slicesContain(tt.compressed, "run1.jsonl") {
			rec += GzipSuffix
		}
		files, err := RunFiles(dir)
		if err != nil || !reflect.DeepEqual(files, []string{rec}) {
			t.Errorf("%s: RunFiles = %v, %v; want [%s]", tt.name, files, err, rec)
		}
		inputs := InputFiles(KindRun, rec)
		for _, name := range tt.compressed {
			if !slicesContain(inputs, filepath.Join(dir, name+GzipSuffix)) {
				t.Errorf("%s: InputFiles = %v, without %s.gz", tt.name, inputs, name)
			}
		}
	}
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// The compressed shards of one run in a result directory are that run's
// record files, as the plain ones are.
func TestRunFilesOfCompressedShards(t *testing.T) {
	dir := t.TempDir()
	recs := fixedRecords(4, 100e6, 0, 2, 10e6, func(int) time.Duration { return 20 * time.Millisecond })
	var want []string
	for k, name := range []string{"run-shard0-of-2.jsonl", "run-shard1-of-2.jsonl"} {
		h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Tool: "goodput test", Shard: &record.Shard{Index: k, Count: 2}}
		p := writeRecords(t, dir, name, h, recs[k*2:k*2+2])
		gzipFile(t, p)
		want = append(want, p+GzipSuffix)
	}
	files, err := RunFiles(dir)
	if err != nil || !reflect.DeepEqual(files, want) {
		t.Errorf("RunFiles = %v, %v; want %v", files, err, want)
	}
}

// A compressed sweep file reads as the plain one, named or found in its
// directory, with its points' compressed records and summaries.
func TestCompressedSweepReadsAsThePlainOne(t *testing.T) {
	dir := t.TempDir()
	path := writeJSON(t, dir, "sweep.json", nil)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := sweep.WriteJSON(f, simpleSweep(t)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h := record.Header{Kind: record.KindHeader, Schema: record.SchemaVersion, Tool: "goodput test", Labels: map[string]string{"load": "concurrency=1"}}
	recs := fixedRecords(3, 100e6, 0, 2, 10e6, func(int) time.Duration { return 20 * time.Millisecond })
	writeRecords(t, dir, "c1.jsonl", h, recs)
	writeJSON(t, dir, "c1.summary.json", summaryFor(t, h, recs, "ttft<=1s"))
	want, err := LoadSweep(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sweep.json", "c1.jsonl", "c1.summary.json"} {
		gzipFile(t, filepath.Join(dir, name))
	}
	kind, file, err := Locate(dir)
	if err != nil || kind != KindSweep || file != path+GzipSuffix {
		t.Fatalf("Locate = %q %q %v, want the sweep %s.gz", kind, file, err, path)
	}
	got, err := LoadSweep(file)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Summary, want.Summary) || got.Name != want.Name {
		t.Errorf("compressed sweep %q: %+v\nwant %q: %+v", got.Name, got.Summary, want.Name, want.Summary)
	}
	if r := got.Records["concurrency=1"]; !reflect.DeepEqual(r, []string{"c1.jsonl.gz"}) {
		t.Errorf("point records %v, want c1.jsonl.gz", got.Records)
	}
	if s := got.Servers["concurrency=1"]; len(s) != 1 || s[0].Summary != "c1.summary.json.gz" {
		t.Errorf("point summaries %+v, want c1.summary.json.gz", got.Servers)
	}
}

// A compressed summary or sweep file that is damaged, or that
// decompresses to more than MaxSummaryBytes, is an error naming the file
// that says which; a file named .gz that holds plain text is read as
// the text.
func TestDamagedCompressedFilesAreNamed(t *testing.T) {
	dir, recs := runDir(t, true, false)
	sumPath := filepath.Join(dir, "run1.summary.json")
	plainSum, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(sumPath); err != nil {
		t.Fatal(err)
	}
	gz := sumPath + GzipSuffix
	z := gzipBytes(t, plainSum)
	tests := []struct {
		name string
		data []byte
		err  string // "" when it reads
	}{
		// cut off before the end of its stream
		{"cut", z[:len(z)-10], gz + ": summary file: corrupt gzip stream: unexpected EOF"},
		// its checksum wrong
		{"checksum", append(bytes.Clone(z[:len(z)-8]), 0, 0, 0, 0, z[len(z)-4], z[len(z)-3], z[len(z)-2], z[len(z)-1]), gz + ": summary file: corrupt gzip stream: gzip: invalid checksum"},
		// a gzip bomb stops at the bound
		{"bomb", bomb(t, `{"kind":"goodput.summary",`, MaxSummaryBytes+1), gz + ": summary file: gzip-compressed, it decompresses to more than 67108864 bytes, more than this file is read whole"},
		// named .gz, but plain
		{"plain text", plainSum, ""},
	}
	for _, tt := range tests {
		if err := os.WriteFile(gz, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Named, the summary must be read to find the records.
		_, _, err := Locate(gz)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || err.Error() != tt.err) {
			t.Errorf("%s: Locate: %v, want %q", tt.name, err, tt.err)
		}
		// Beside the records, it is a note naming it.
		run, err := LoadRun(recs, nil, RunOptions{RunSLO: true})
		switch {
		case err != nil:
			t.Errorf("%s: LoadRun: %v", tt.name, err)
		case tt.err == "" && (run.Summary == nil || len(run.Notes) != 0):
			t.Errorf("%s: summary %v, notes %v; want the summary read", tt.name, run.Summary, run.Notes)
		case tt.err != "" && (run.Summary != nil || !reflect.DeepEqual(run.Notes, []string{tt.err})):
			t.Errorf("%s: notes %q, want [%q]", tt.name, run.Notes, tt.err)
		}
	}

	var sw bytes.Buffer
	if err := sweep.WriteJSON(&sw, simpleSweep(t)); err != nil {
		t.Fatal(err)
	}
	zs := gzipBytes(t, sw.Bytes())
	sweepPath := filepath.Join(t.TempDir(), "sweep.json.gz")
	for _, tt := range []struct {
		name string
		data []byte
		err  string
	}{
		{"cut", zs[:len(zs)/2], sweepPath + ": sweep file: corrupt gzip stream: unexpected EOF"},
		{"bomb", bomb(t, `{"schema":1,"points":[],`, sweep.MaxFileBytes+1), sweepPath + ": sweep file: gzip-compressed, it decompresses to more than 67108864 bytes, more than this file is read whole"},
	} {
		if err := os.WriteFile(sweepPath, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(sweepPath, nil, RunOptions{}); err == nil || err.Error() != tt.err {
			t.Errorf("sweep %s: %v, want %q", tt.name, err, tt.err)
		}
	}
}

// sweep plot reads a sweep's summary.json compressed, as the plain one;
// one kept beside its plain copy (gzip -k) is not read twice; a damaged
// one is an error naming it.
func TestSweepPlotReadsCompressedSummaries(t *testing.T) {
	files := map[string]string{
		"SERVE--max_num_seqs=8-BENCH--max_concurrency=4":  `[{"max_num_seqs": 8, "max_concurrency": 4, "p99_ttft_ms": 10}, {"max_num_seqs": 8, "max_concurrency": 4, "p99_ttft_ms": 14}]`,
		"SERVE--max_num_seqs=8-BENCH--max_concurrency=16": `[{"max_num_seqs": 8, "max_concurrency": 16, "p99_ttft_ms": 90}]`,
	}
	o := PlotOptions{VarX: "max_concurrency", VarY: "p99_ttft_ms"}
	plain := writeSummaries(t, files)
	want, err := SweepPlot(plain, o)
	if err != nil {
		t.Fatal(err)
	}
	dir := writeSummaries(t, files)
	for name := range files {
		gzipFile(t, filepath.Join(dir, name, "summary.json"))
	}
	kept := filepath.Join(dir, "SERVE--max_num_seqs=8-BENCH--max_concurrency=16", "summary.json")
	if err := os.WriteFile(kept, []byte(files["SERVE--max_num_seqs=8-BENCH--max_concurrency=16"]), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := SweepPlot(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(want) != 1 || got[0].Runs != 3 || !reflect.DeepEqual(got[0].Cells[0][0].curves, want[0].Cells[0][0].curves) {
		t.Errorf("compressed: %d figures, %+v; want the plain sweep's 3 runs, %+v", len(got), got[0].Cells[0][0].curves, want[0].Cells[0][0].curves)
	}
	cut := filepath.Join(dir, "SERVE--max_num_seqs=8-BENCH--max_concurrency=4", "summary.json.gz")
	b, _ := os.ReadFile(cut)
	if err := os.WriteFile(cut, b[:len(b)-5], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := SweepPlot(dir, o); err == nil || err.Error() != cut+": corrupt gzip stream: unexpected EOF" {
		t.Errorf("cut summary: %v", err)
	}
}

// gzip -k leaves run.jsonl.gz beside run.jsonl: the same run, read once
// from the plain file. A compressed file of another run beside it is
// another run.
func TestCompressedCopyBesideItsRun(t *testing.T) {
	dir, plain := runDir(t, true, false)
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain+".gz", gzipBytes(t, b), 0o644); err != nil {
		t.Fatal(err)
	}
	kind, file, err := Locate(dir)
	if err != nil || kind != KindRun || file != plain {
		t.Fatalf("Locate = %q, %q, %v; want the plain records %s", kind, file, err, plain)
	}
	if files, err := RunFiles(dir); err != nil || len(files) != 1 || files[0] != plain {
		t.Errorf("RunFiles = %v, %v; want [%s]", files, err, plain)
	}
	// Another run's header: two runs.
	other := strings.Replace(string(b), "2025-02-03T04:05:06Z", "2025-02-03T05:05:06Z", 1)
	if other == string(b) {
		t.Fatal("the test's header has no start to change")
	}
	if err := os.WriteFile(plain+".gz", gzipBytes(t, []byte(other)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Locate(dir); err == nil || !strings.Contains(err.Error(), "several runs (run1.jsonl, run1.jsonl.gz)") {
		t.Errorf("another run's compressed file: %v, want several runs", err)
	}
}
