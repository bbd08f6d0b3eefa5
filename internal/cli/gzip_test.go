package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gzipInPlace replaces each file with its .gz, as gzip FILE does.
func gzipInPlace(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(b)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p+".gz", z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}

// archivedRuns writes the result directories of two runs, a and b, each
// its records and summary, as plain files and again compressed (gzip
// run.jsonl run.summary.json), and returns the directories.
func archivedRuns(t *testing.T) (plain, compressed [2]string) {
	t.Helper()
	for i, seed := range []uint64{1, 2} {
		h, recs := simRun(t, "H100-SXM", 30, 4, seed)
		plain[i], compressed[i] = filepath.Join(t.TempDir(), "run"), filepath.Join(t.TempDir(), "run")
		for _, dir := range []string{plain[i], compressed[i]} {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			writeRunFiles(t, dir, "run", h, recs, "ttft<=60ms")
		}
		gzipInPlace(t, filepath.Join(compressed[i], "run.jsonl"), filepath.Join(compressed[i], "run.summary.json"))
	}
	return plain, compressed
}

// A compressed result directory reads as the plain one in every command
// that reads a run: the same numbers, judged by the SLO of its summary.
func TestCompressedRunDirectoryReadsAsThePlainOne(t *testing.T) {
	plain, gz := archivedRuns(t)
	for _, args := range [][]string{
		{"analyze", "DIR0", "--format", "json"},
		{"export", "DIR0", "--format", "csv"},
		{"report", "DIR0", "--format", "markdown"},
		{"report", "DIR0", "--format", "csv"},
		{"compare", "DIR0", "DIR1", "--format", "markdown", "--resamples", "200"},
	} {
		with := func(dirs [2]string) []string {
			out := make([]string, len(args))
			for i, a := range args {
				out[i] = strings.NewReplacer("DIR0", dirs[0], "DIR1", dirs[1]).Replace(a)
			}
			return out
		}
		want, stderr, code := run(t, "", with(plain)...)
		if code != ExitOK || len(want) < 100 {
			t.Fatalf("%v of the plain runs: exit %d: %s\n%s", args, code, stderr, want)
		}
		got, stderr, code := run(t, "", with(gz)...)
		// Paths in the output name the files as they are.
		got = strings.NewReplacer(gz[0], plain[0], gz[1], plain[1], ".jsonl.gz", ".jsonl").Replace(got)
		if code != ExitOK || got != want {
			t.Errorf("%v of the compressed runs: exit %d: %s\n%s\nwant the plain runs':\n%s", args, code, stderr, got, want)
		}
	}
	// analyze judges by the summary's SLO, and says which file holds it.
	_, stderr, _ := run(t, "", "analyze", gz[0])
	out, _, _ := run(t, "", "analyze", gz[0])
	if !strings.Contains(out, "SLO: the run's own, ttft<=60ms, from run.summary.json.gz") {
		t.Errorf("analyze of the compressed run: %s%s\nwant the SLO of run.summary.json.gz", out, stderr)
	}
}

// history add stores a compressed run as it stores the plain one: its
// name without .jsonl.gz, the numbers of its summary, and its records'
// path as it is.
func TestHistoryAddOfACompressedRun(t *testing.T) {
	plain, gz := archivedRuns(t)
	show := func(run0 string) jsonRun {
		t.Helper()
		db := filepath.Join(t.TempDir(), "h.db")
		if _, stderr, code := run(t, "", "history", "add", "--history", db, run0); code != ExitOK {
			t.Fatalf("history add %s: exit %d: %s", run0, code, stderr)
		}
		stdout, stderr, code := run(t, "", "history", "show", "--history", db, "--format", "json")
		var shown jsonRun
		if code != ExitOK || json.Unmarshal([]byte(stdout), &shown) != nil {
			t.Fatalf("show: exit %d: %s\n%s", code, stderr, stdout)
		}
		return shown
	}
	want := show(plain[0])
	for _, named := range []string{gz[0], filepath.Join(gz[0], "run.jsonl.gz"), filepath.Join(gz[0], "run.summary.json.gz")} {
		got := show(named)
		if got.Name != "run" || got.Name != want.Name || got.Records != filepath.Join(gz[0], "run.jsonl.gz") || got.Metrics["requests"] != 30 ||
			got.Metrics["attainment"] != want.Metrics["attainment"] || got.Metrics["ttft_p99"] != want.Metrics["ttft_p99"] {
			t.Errorf("history add %s: name %q records %q metrics %v; want %q, the .gz, and %v", named, got.Name, got.Records, got.Metrics, want.Name, want.Metrics)
		}
	}
}

// A damaged compressed run is an error that names the file and says its
// gzip stream is corrupt, in every command that reads it; never a run
// read short.
func TestDamagedCompressedRunIsNamed(t *testing.T) {
	_, gz := archivedRuns(t)
	recs := filepath.Join(gz[0], "run.jsonl.gz")
	b, err := os.ReadFile(recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(recs, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"analyze", gz[0]},
		{"export", gz[0]},
		{"report", gz[0], "--format", "markdown"},
		{"compare", gz[0], gz[1]},
		{"history", "add", "--history", filepath.Join(t.TempDir(), "h.db"), gz[0]},
		{"merge", gz[0], "--output", filepath.Join(t.TempDir(), "merged.jsonl")},
	} {
		_, stderr, code := run(t, "", args...)
		if code == ExitOK || !strings.Contains(stderr, recs) || !strings.Contains(stderr, "corrupt gzip stream: unexpected EOF") {
			t.Errorf("%v: exit %d: %s; want an error naming %s and its corrupt gzip stream", args, code, stderr, recs)
		}
	}
}
