package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestExportCommand exports one run by its file, its directory and
// standard input, in each format.
func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 120, 5, 1)
	file := writeRunFiles(t, dir, "base", h, recs, "ttft<=300ms,tpot<=20ms")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("csv from the directory, with the run's SLO", func(t *testing.T) {
		stdout, stderr, code := run(t, "", "export", dir)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		if err != nil || len(rows) != 121 {
			t.Fatalf("%d rows, %v", len(rows), err)
		}
		good := -1
		for i, c := range rows[0] {
			if c == "good" {
				good = i
			}
		}
		n := 0
		for _, r := range rows[1:] {
			if r[good] == "true" {
				n++
			}
		}
		// analyze with the same SLO says how many requests were good.
		out, _, _ := run(t, "", "analyze", file, "--slo", "ttft<=300ms,tpot<=20ms")
		if want := "(" + strconv.Itoa(n) + " of 120 requests)"; !strings.Contains(out, want) {
			t.Errorf("%d good rows, but analyze says:\n%s", n, out)
		}
	})
	t.Run("parquet to a file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "requests.parquet")
		stdout, stderr, code := run(t, "", "export", file, "-o", out)
		if code != ExitOK || !strings.Contains(stdout, "Wrote "+out+" (120 requests, parquet)") {
			t.Fatalf("exit %d: %s %s", code, stdout, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil || !bytes.HasPrefix(b, []byte("PAR1")) || !bytes.HasSuffix(b, []byte("PAR1")) {
			t.Errorf("not a Parquet file: %v, %d bytes", err, len(b))
		}
	})
	t.Run("jsonl from standard input", func(t *testing.T) {
		stdout, stderr, code := run(t, string(data), "export", "-", "--format", "jsonl", "--slo", "none", "--chunks")
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if len(lines) != 120 || !strings.Contains(lines[0], `"good":null`) || !strings.Contains(lines[0], `"chunk_times_s":[`) {
			t.Errorf("%d lines; first %s", len(lines), lines[0])
		}
	})
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no run", []string{"export"}, ExitUsage, "give one run"},
		{"two runs", []string{"export", file, file}, ExitUsage, "give one run"},
		{"unknown format", []string{"export", file, "--format", "xlsx"}, ExitUsage, `--format "xlsx": want csv, parquet, jsonl`},
		{"bad slo", []string{"export", file, "--slo", "ttft<"}, ExitUsage, "--slo"},
		{"missing", []string{"export", filepath.Join(dir, "nope.jsonl")}, ExitTool, "no such file"},
		{"empty directory", []string{"export", t.TempDir()}, ExitTool, "no records"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := run(t, "", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestRunInputsAlike reads one run as a file, as its directory and from
// standard input, with analyze, report and compare: the same numbers each
// way.
func TestRunInputsAlike(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 100, 5, 1)
	file := writeRunFiles(t, dir, "base", h, recs, "")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The line naming the records differs; the numbers must not.
	numbers := func(out string) string {
		var keep []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.HasPrefix(l, "Records: ") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	var outs []string
	for _, in := range []struct{ stdin, arg string }{{"", file}, {"", dir}, {string(data), "-"}} {
		out, stderr, code := run(t, in.stdin, "analyze", in.arg)
		if code != ExitOK {
			t.Fatalf("analyze %s: exit %d: %s", in.arg, code, stderr)
		}
		outs = append(outs, numbers(out))
	}
	if outs[0] != outs[1] || outs[0] != outs[2] || !strings.Contains(outs[0], "Successful requests:                     100") {
		t.Errorf("analyze differs by input:\n%s\n---\n%s\n---\n%s", outs[0], outs[1], outs[2])
	}
	md, stderr, code := run(t, string(data), "report", "-", "--format", "markdown")
	mdDir, _, _ := run(t, "", "report", dir, "--format", "markdown")
	if code != ExitOK || md == "" || strings.Count(md, "\n") != strings.Count(mdDir, "\n") {
		t.Errorf("report from standard input: exit %d %s", code, stderr)
	}
	cmp, stderr, code := run(t, string(data), "compare", dir, "-", "--resamples", "100")
	if code != ExitOK || strings.Count(cmp, " noise\n") != 8 {
		t.Errorf("compare a directory with standard input: exit %d %s\n%s", code, stderr, cmp)
	}
	if _, stderr, code := run(t, string(data), "compare", "-", "-"); code != ExitUsage || !strings.Contains(stderr, "standard input can be read once") {
		t.Errorf("compare - -: exit %d %s", code, stderr)
	}
}

// export's rows are a table for people and other tools, not records: fed
// back to analyze they are refused, never read as requests that took no
// time and all succeeded.
func TestExportRowsAreNoRecords(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 20, 5, 1)
	file := writeRunFiles(t, dir, "base", h, recs, "")
	rows, stderr, code := run(t, "", "export", file, "--format", "jsonl")
	if code != ExitOK || strings.Count(rows, "\n") != 20 {
		t.Fatalf("export: exit %d, %d rows: %s", code, strings.Count(rows, "\n"), stderr)
	}
	out, stderr, code := run(t, rows, "analyze", "-", "--gate", "error_rate<=0.01")
	if code != ExitTool || !strings.Contains(stderr, "-:1: a row of goodput export's table, not a record") || strings.Contains(out, "Successful requests") {
		t.Errorf("analyze of export rows: exit %d\n%s%s", code, out, stderr)
	}
}

// The labels a run's header gives every record are every row's, beside
// the record's own, which win.
func TestExportKeepsTheRunsSharedLabels(t *testing.T) {
	dir := writeFiles(t, map[string]string{"l.jsonl": `{"kind":"goodput.run","schema":1,"start":"2026-11-29T08:00:00Z","tool":"t","labels":{"名前":"値 🚀","team":"infra"}}` + "\n" +
		`{"seq":0,"s":0,"t0":1000,"te":400000000,"ct":[100000000,100000000,100000000],"in":10,"out":3,"src":"chunks","status":200}` + "\n" +
		`{"seq":1,"s":0,"t0":1000,"te":400000000,"ct":[100000000,100000000,100000000],"in":10,"out":3,"src":"chunks","status":200,"labels":{"team":"own"}}` + "\n" +
		`{"kind":"goodput.end","records":2,"end":900000000}` + "\n"})
	out, errOut, code := run(t, "", "export", filepath.Join(dir, "l.jsonl"), "--format", "jsonl")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"label_名前":"値 🚀"`) || !strings.Contains(lines[0], `"label_team":"infra"`) ||
		!strings.Contains(lines[1], `"label_名前":"値 🚀"`) || !strings.Contains(lines[1], `"label_team":"own"`) {
		t.Errorf("rows:\n%s\nwant the shared labels on both, the record's own team on the second", out)
	}
}

// An output named .gz is written gzip-compressed (export), or refused
// where the writer has no compressed form (Parquet): plain bytes under a
// .gz name read as a damaged stream.
func TestOutputsNamedGz(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 20, 5, 1)
	file := writeRunFiles(t, dir, "base", h, recs, "ttft<=300ms,tpot<=20ms")
	plain, gz := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "rows.csv.gz")
	for _, out := range []string{plain, gz} {
		if _, stderr, code := run(t, "", "export", file, "-o", out); code != ExitOK {
			t.Fatalf("export -o %s: exit %d: %s", out, code, stderr)
		}
	}
	sameOnceDecompressed(t, gz, plain)
	pq := filepath.Join(dir, "rows.parquet.gz")
	if _, stderr, code := run(t, "", "export", file, "-o", pq); code != ExitUsage || !strings.Contains(stderr, ".gz") {
		t.Errorf("export -o %s: exit %d, %q; want a usage error naming the .gz", pq, code, stderr)
	}
	if _, err := os.Stat(pq); err == nil {
		t.Error("the refused export wrote its output")
	}
}

// sameOnceDecompressed fails t unless the gzip file gz holds the bytes of
// the file plain, which holds some.
func sameOnceDecompressed(t *testing.T, gz, plain string) {
	t.Helper()
	want, _ := os.ReadFile(plain)
	f, err := os.Open(gz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s is not gzip: %v", gz, err)
	}
	got, err := io.ReadAll(zr)
	if err != nil || len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("%s holds %d bytes (%v), want the %d of %s", gz, len(got), err, len(want), plain)
	}
}
