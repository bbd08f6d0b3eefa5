package cli

import (
	"encoding/csv"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// simRun simulates n Poisson arrivals at rate on gpuName in virtual time,
// from one seeded schedule (jitterSeed moves each arrival by up to 2 ms,
// as reruns differ), and returns its header and records.
func simRun(t *testing.T, gpuName string, n int, rate float64, jitterSeed uint64) (record.Header, []record.Record) {
	t.Helper()
	g, err := sim.LookupGPU(gpuName)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	jit := rand.New(rand.NewPCG(jitterSeed, 1))
	reqs := make([]sim.VirtualRequest, n)
	at := time.Duration(0)
	for i := range reqs {
		at += time.Duration(rng.ExpFloat64() / rate * 1e9)
		reqs[i] = sim.VirtualRequest{At: at + time.Duration(jit.Int64N(int64(2*time.Millisecond))), PromptTokens: 200 + rng.IntN(200), MaxTokens: 128, IgnoreEOS: true}
	}
	recs, err := sim.RunVirtual(sim.Options{Seed: 1, Profile: sim.Profile{GPU: g}}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	h, err := record.NewHeader("goodput test", map[string]any{"request_rate": rate, "ignore_eos": true, "percentile_method": "linear"})
	if err != nil {
		t.Fatal(err)
	}
	return h, recs
}

// writeRunFiles writes dir/name.jsonl and, when sloExpr is set, the
// summary bench would write beside it, judged by that SLO.
func writeRunFiles(t *testing.T, dir, name string, h record.Header, recs []record.Record, sloExpr string) string {
	t.Helper()
	path := filepath.Join(dir, name+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := record.NewWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(record.Trailer{Records: int64(len(recs))}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if sloExpr == "" {
		return path
	}
	cs, err := slo.ParseConditions(sloExpr)
	if err != nil {
		t.Fatal(err)
	}
	var o metrics.Options
	cs.Apply(&o)
	s := metrics.NewSummary(o)
	for i := range recs {
		s.Add(&recs[i])
	}
	b, err := json.Marshal(report.SummaryFile{Kind: report.SummaryKind, Header: h, Records: path, Result: s.Close()})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeSweepDir writes a sweep file of three concurrency points.
func writeSweepDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var pts []sweep.Point
	for i, c := range []int{1, 4, 16} {
		s := sweep.Sample{Requests: 50, OutputThroughput: 100 * float64(i+1), Goodput: 90, RequestThroughput: float64(i + 1), Attainment: 0.95 - 0.1*float64(i),
			TTFT: sweep.Dist{P50: 0.05 * float64(i+1), P99: 0.1 * float64(i+1)}, TPOT: sweep.Dist{P50: 0.01, P99: 0.02}}
		p, err := sweep.NewPoint(sweep.Concurrency(c), s)
		if err != nil {
			t.Fatal(err)
		}
		pts = append(pts, p)
	}
	sum, err := sweep.Analyze(pts, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := sweep.WriteJSON(f, sum); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 200, 4, 1)
	writeRunFiles(t, dir, "run", h, recs, "ttft<=40ms,tpot<=15ms")
	out := filepath.Join(dir, "out.html")
	stdout, stderr, code := run(t, "", "report", dir, "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "Wrote "+out+"\n" {
		t.Errorf("stdout %q", stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<!DOCTYPE html>", "Content-Security-Policy", "goodput run: run", "ttft&lt;=40ms,tpot&lt;=15ms"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// No temporary file is left beside the report.
	if left, _ := filepath.Glob(filepath.Join(dir, ".out.html.*")); len(left) != 0 {
		t.Errorf("left %v", left)
	}
}

func TestReportDefaultOutput(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 50, 4, 1)
	path := writeRunFiles(t, dir, "run", h, recs, "")
	t.Chdir(dir)
	if _, stderr, code := run(t, "", "report", path); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("no report.html: %v", err)
	}
}

func TestReportFormats(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 60, 4, 1)
	path := writeRunFiles(t, dir, "run", h, recs, "ttft<=25ms")
	t.Run("markdown to stdout", func(t *testing.T) {
		stdout, stderr, code := run(t, "", "report", path, "--format", "markdown")
		if code != ExitOK || !strings.HasPrefix(stdout, "## goodput run: run\n") {
			t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
		}
		// Without --slo the run's own SLO (from its summary) judges it.
		if !strings.Contains(stdout, "met ttft<=25ms)") {
			t.Errorf("the run's SLO is not used:\n%s", stdout)
		}
	})
	t.Run("an explicit SLO wins", func(t *testing.T) {
		stdout, _, code := run(t, "", "report", path, "--format", "md", "--slo", "ttft<=1s")
		if code != ExitOK || !strings.Contains(stdout, "(60 of 60 requests met ttft<=1s)") {
			t.Errorf("exit %d:\n%s", code, stdout)
		}
	})
	t.Run("vLLM's --goodput form", func(t *testing.T) {
		stdout, _, code := run(t, "", "report", path, "--format", "md", "--goodput", "ttft:1000", "tpot:100")
		if code != ExitOK || !strings.Contains(stdout, "met ttft<=1s,tpot<=100ms)") {
			t.Errorf("exit %d:\n%s", code, stdout)
		}
	})
	t.Run("csv from the extension", func(t *testing.T) {
		out := filepath.Join(dir, "requests.csv")
		if _, stderr, code := run(t, "", "report", path, "-o", out); code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil || len(rows) != 61 || rows[0][0] != "seq" {
			t.Fatalf("%d rows, %v", len(rows), err)
		}
		// The good column follows the run's SLO from its summary.
		col := slices.Index(rows[0], "good")
		good := 0
		for _, r := range rows[1:] {
			if r[col] == "true" {
				good++
			}
		}
		if good == 0 || good == 60 {
			t.Errorf("%d of 60 good under ttft<=25ms: the column should discriminate", good)
		}
	})
	t.Run("records on stdin", func(t *testing.T) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := run(t, string(b), "report", "-", "--format", "markdown", "--slo", "none")
		if code != ExitOK || !strings.Contains(stdout, "## goodput run: stdin") {
			t.Errorf("exit %d: %s\n%s", code, stderr, stdout)
		}
	})
}

func TestReportGates(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 60, 4, 1)
	path := writeRunFiles(t, dir, "run", h, recs, "")
	out := filepath.Join(dir, "r.html")
	// The report is written, then the failing gate sets exit code 3.
	stdout, stderr, code := run(t, "", "report", path, "-o", out, "--gate", "p99(ttft)<=1ms", "--gate", "attainment>=0")
	if code != ExitGateFail {
		t.Fatalf("exit %d, want %d: %s", code, ExitGateFail, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("report not written: %v", err)
	}
	if !strings.Contains(stdout, "Gate: p99(ttft)<=1ms: measured") || !strings.Contains(stdout, ": fail") || !strings.Contains(stderr, "1 of 2 gates failed") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	// Markdown on stdout: the verdicts go to stderr, not into the document.
	stdout, stderr, code = run(t, "", "report", path, "--format", "markdown", "--gate", "p99(ttft)<=10s")
	if code != ExitOK || strings.Contains(stdout, "Gate:") || !strings.Contains(stderr, "Gate: p99(ttft)<=10s") {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

func TestReportSweep(t *testing.T) {
	dir := writeSweepDir(t)
	out := filepath.Join(dir, "sweep.html")
	if _, stderr, code := run(t, "", "report", dir, "-o", out); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "Latency against throughput") {
		t.Error("not a sweep report")
	}
	stdout, _, code := run(t, "", "report", filepath.Join(dir, "sweep.json"), "--format", "csv")
	if code != ExitOK || !strings.HasPrefix(stdout, "load,") || strings.Count(stdout, "\n") != 4 {
		t.Errorf("exit %d, sweep CSV:\n%s", code, stdout)
	}
	stdout, _, code = run(t, "", "report", dir, "--format", "markdown")
	// Every sweep file is sweep.json: the page is named for its directory.
	if code != ExitOK || !strings.Contains(stdout, "## goodput sweep: "+filepath.Base(dir)+"\n") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

func TestReportUsage(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 20, 4, 1)
	path := writeRunFiles(t, dir, "run", h, recs, "")
	sweepDir := writeSweepDir(t)
	tests := []struct {
		name string
		args []string
		code int
		err  string
	}{
		{"no input", []string{"report"}, ExitUsage, "give one run or sweep"},
		{"two inputs", []string{"report", path, path}, ExitUsage, "give one run or sweep"},
		{"unknown format", []string{"report", path, "--format", "pdf"}, ExitUsage, `--format "pdf": want html, markdown or csv`},
		{"bad SLO", []string{"report", path, "--slo", "ttft<=fast"}, ExitUsage, "--slo"},
		{"bad gate", []string{"report", path, "--gate", "p99(ttft)"}, ExitUsage, "--gate"},
		{"SLO on a sweep", []string{"report", sweepDir, "--slo", "ttft<=1s"}, ExitUsage, "--slo applies to runs"},
		{"missing input", []string{"report", filepath.Join(dir, "nope.jsonl")}, ExitTool, "no such file"},
		{"not records", []string{"report", writeText(t, dir, "bad.jsonl", "hello\n"), "-o", "-"}, ExitTool, "bad.jsonl"},
		{"unwritable output", []string{"report", path, "-o", filepath.Join(dir, "missing", "r.html")}, ExitTool, "--output"},
		// The run's own files are never written over.
		{"output is the records", []string{"report", path, "-o", path}, ExitUsage, "--output " + path + " is " + path + ", which this command reads"},
		{"export over the records", []string{"export", path, "-o", path}, ExitUsage, "which this command reads: writing there would replace it"},
		{"compare over a run", []string{"compare", path, path, "-o", path}, ExitUsage, "which this command reads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := run(t, "", tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.err) {
				t.Errorf("exit %d stderr %q, want %d and %q", code, stderr, tt.code, tt.err)
			}
		})
	}
	if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), `{"kind":"goodput.run"`) {
		t.Errorf("the records were written over: %.80s", b)
	}
}

func writeText(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReportFormatFromExtension(t *testing.T) {
	tests := []struct {
		format, out, want string
		err               bool
	}{
		{"", "r.html", formatHTML, false},
		{"", "r.md", formatMarkdown, false},
		{"", "R.MARKDOWN", formatMarkdown, false},
		{"", "r.csv", formatCSV, false},
		{"", "-", formatHTML, false},
		{"", "", formatHTML, false},
		{"MD", "r.html", formatMarkdown, false}, // --format wins over the extension
		{"htm", "", formatHTML, false},
		{"docx", "", "", true},
	}
	for _, tt := range tests {
		got, err := reportFormat(tt.format, tt.out)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("reportFormat(%q, %q) = %q, %v", tt.format, tt.out, got, err)
		}
	}
}

func TestWriteHTMLReport(t *testing.T) {
	// What bench and sweep call for --report: a run read with the options
	// of the summary they printed, or a sweep.
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 40, 4, 1)
	path := writeRunFiles(t, dir, "run", h, recs, "")
	var mo metrics.Options
	cs, err := slo.ParseConditions("ttft<=30ms")
	if err != nil {
		t.Fatal(err)
	}
	cs.Apply(&mo)
	var stdout strings.Builder
	env := &Env{Stdout: &stdout, Stderr: &stdout}
	out := filepath.Join(dir, "run.html")
	if err := writeHTMLReport(env, path, out, mo); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "ttft&lt;=30ms") {
		t.Errorf("run report without its SLO (%v)", err)
	}
	sweepDir := writeSweepDir(t)
	if err := writeHTMLReport(env, sweepDir, filepath.Join(dir, "sweep.html"), metrics.Options{}); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "Wrote "+out+"\nWrote "+filepath.Join(dir, "sweep.html")+"\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	if err := writeHTMLReport(env, filepath.Join(dir, "missing"), out, mo); err == nil || !strings.Contains(err.Error(), "--report") {
		t.Errorf("missing input: %v", err)
	}
}
