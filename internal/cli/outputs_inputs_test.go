package cli

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputIsNoFileOfTheInput checks that report, export and compare
// refuse to write over any file of the run or sweep they read, not only
// the one named, and leave its bytes as they were: the summary a report
// takes its SLO from, the server's series, a sweep point's records and
// summary, the sweep's settings.
func TestOutputIsNoFileOfTheInput(t *testing.T) {
	dir := writeSweepDir(t)
	h, recs := simRun(t, "H100-SXM", 20, 4, 1)
	c1 := writeRunFiles(t, dir, "c1", h, recs, "ttft<=300ms")
	c4 := writeRunFiles(t, dir, "c4", h, recs, "ttft<=300ms")
	sum1 := filepath.Join(dir, "c1.summary.json")
	srv4 := writeText(t, dir, "c4.server.json", `{"url":"http://server/metrics","samples":[]}`+"\n")
	endpoint := writeText(t, dir, "c4.server-1.json", `{"url":"http://a/metrics","samples":[]}`+"\n")
	config := writeText(t, dir, "sweep-config.json", `{"settings":{}}`+"\n")
	sweepFile := filepath.Join(dir, "sweep.json")
	link := filepath.Join(t.TempDir(), "link.json")
	if err := os.Symlink(sum1, link); err != nil {
		t.Fatal(err)
	}
	refusal := func(out, in string) string {
		return "goodput: --output " + out + " is " + in + ", which this command reads: writing there would replace it; choose another file"
	}
	tests := []struct {
		name   string
		args   []string
		victim string // the file that must keep its bytes
		err    string
	}{
		// The summary beside the records holds the SLO the report reads.
		{"report over the run's summary", []string{"report", c1, "--format", "markdown", "-o", sum1}, sum1, refusal(sum1, sum1)},
		{"export over the server series", []string{"export", c4, "--format", "jsonl", "-o", srv4}, srv4, refusal(srv4, srv4)},
		{"export over an endpoint's series", []string{"export", c4, "-o", endpoint}, endpoint, refusal(endpoint, endpoint)},
		// A summary named as the input reads the records beside it.
		{"export of a summary over its records", []string{"export", sum1, "-o", c1}, c1, refusal(c1, c1)},
		{"sweep report over a point's records", []string{"report", sweepFile, "--format", "csv", "-o", c1}, c1, refusal(c1, c1)},
		{"sweep directory over a point's summary", []string{"report", dir, "--format", "markdown", "-o", sum1}, sum1, refusal(sum1, sum1)},
		{"sweep report over a point's server series", []string{"report", dir, "-o", srv4}, srv4, refusal(srv4, srv4)},
		{"sweep report over its settings", []string{"report", sweepFile, "-o", config}, config, refusal(config, config)},
		// Compared as files: a link, or another spelling, is the same one.
		{"a symbolic link to the summary", []string{"report", c1, "--format", "markdown", "-o", link}, sum1, refusal(link, sum1)},
		{"another spelling of the summary", []string{"report", c1, "--format", "markdown", "-o", dir + "/./c1.summary.json"}, sum1, refusal(dir+"/./c1.summary.json", sum1)},
		{"compare over a run's summary", []string{"compare", c1, c4, "-o", sum1}, sum1, refusal(sum1, sum1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, err := os.ReadFile(tt.victim)
			if err != nil {
				t.Fatal(err)
			}
			_, stderr, code := run(t, "", tt.args...)
			if code != ExitUsage || strings.TrimSpace(stderr) != tt.err {
				t.Errorf("exit %d stderr %q, want %d and %q", code, stderr, ExitUsage, tt.err)
			}
			if after, _ := os.ReadFile(tt.victim); string(after) != string(before) {
				t.Errorf("%s was written over: %.80q", tt.victim, after)
			}
		})
	}

	// A new file beside the run is no file of it.
	for _, args := range [][]string{
		{"report", c1, "--format", "markdown", "-o", filepath.Join(dir, "c1.report.md")},
		{"report", dir, "-o", filepath.Join(dir, "report.html")},
		{"export", c1, "-o", filepath.Join(dir, "c1.csv")},
	} {
		if _, stderr, code := run(t, "", args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if fi, err := os.Stat(args[len(args)-1]); err != nil || fi.Size() == 0 {
			t.Errorf("%v wrote nothing: %v", args, err)
		}
	}
}

// A gzip-compressed run is reported as the run it holds, with the
// summary beside it; a compressed sweep file as the sweep it holds.
func TestReportReadsGzipCompressedRecords(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 20, 4, 1)
	plain := writeRunFiles(t, dir, "run", h, recs, "ttft<=300ms")
	b, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	gz := writeText(t, dir, "run.jsonl.gz", z.String())
	want, _, code := run(t, "", "report", plain, "--format", "markdown")
	if code != 0 {
		t.Fatalf("plain run: exit %d", code)
	}
	got, stderr, code := run(t, "", "report", gz, "--format", "markdown")
	if code != 0 || got != want {
		t.Errorf("gzip run: exit %d %s\n%s\nwant the plain run's report:\n%s", code, stderr, got, want)
	}
	sweepDir := writeSweepDir(t)
	sb, _ := os.ReadFile(filepath.Join(sweepDir, "sweep.json"))
	z.Reset()
	zw = gzip.NewWriter(&z)
	zw.Write(sb)
	zw.Close()
	sgz := writeText(t, sweepDir, "sweep.json.gz", z.String())
	want, _, code = run(t, "", "report", filepath.Join(sweepDir, "sweep.json"), "--format", "markdown")
	if code != 0 {
		t.Fatalf("plain sweep: exit %d", code)
	}
	got, stderr, code = run(t, "", "report", sgz, "--format", "markdown")
	if code != 0 || got != want {
		t.Errorf("gzip sweep: exit %d %s\n%s\nwant the plain sweep's report:\n%s", code, stderr, got, want)
	}
}
