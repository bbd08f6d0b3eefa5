package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

var update = flag.Bool("update", false, "rewrite golden files")

// run executes goodput with args and returns stdout, stderr and the exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin), Getenv: func(string) string { return "" }}
	root := NewRoot(env)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err != nil {
		errb.WriteString(Message(err) + "\n")
	}
	return out.String(), errb.String(), Code(err)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run with -update if intended):\n%s", path, got)
	}
}

const seeds = "../../runfile/testdata/seeds_example.json"

// The seeds' worked example must come out exactly: TTFT p50 0.50 s, p99
// 0.70 s, mean 0.467 s; TPOT p50 0.05 s, mean 0.0633 s; throughput
// 14 / 1.10 s = 12.73 tok/s; goodput 11 / 1.10 s = 10.00 tok/s.
func TestAnalyzeSeedsExampleGolden(t *testing.T) {
	for _, method := range []string{"linear", "nearest-rank"} {
		t.Run(method, func(t *testing.T) {
			out, errOut, code := run(t, "", "analyze", seeds, "--percentile-method", method,
				"--slo", "ttft<=0.5s,tpot<=0.05s", "--metric-percentiles", "50,99")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "seeds_"+method+".txt", out)
			for _, want := range []string{
				"Benchmark duration (s):                  1.10",
				"Total generated tokens:                  14",
				"Output token throughput (tok/s):         12.73",
				"Goodput (tok/s):                         10.00",
				"Good output tokens:                      11 of 14",
				"Mean TTFT (ms):                          466.67",
				"Median TTFT (ms):                        500.00",
				"Mean TPOT (ms):                          63.33",
				"Median TPOT (ms):                        50.00",
			} {
				if !strings.Contains(out, want+"\n") {
					t.Errorf("missing %q", want)
				}
			}
			// p99 TTFT: nearest-rank picks 0.70 s exactly; linear
			// interpolation gives 0.696 s, which the seeds print as 0.70.
			p99 := map[string]string{"linear": "696.00", "nearest-rank": "700.00"}[method]
			if !strings.Contains(out, "P99 TTFT (ms):                           "+p99+"\n") {
				t.Errorf("P99 TTFT is not %s ms", p99)
			}
		})
	}
}

func TestAnalyzeSeedsExampleJSON(t *testing.T) {
	out, errOut, code := run(t, "", "analyze", seeds, "--format", "json", "--percentile-method", "nearest-rank")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res metrics.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	ttft, tpot := res.Latency.TTFT, res.Latency.TPOT
	p99, _ := ttft.Percentile(99)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"ttft p50", ttft.Median, 0.5},
		{"ttft p99", p99, 0.7},
		{"ttft mean", ttft.Mean, 1.4 / 3},
		{"tpot p50", tpot.Median, 0.05},
		{"tpot mean", tpot.Mean, 0.19 / 3},
		{"window", res.Window.Seconds, 1.1},
		{"throughput", res.Throughput.OutputTokensPerSecond, 14 / 1.1},
		{"goodput", res.Goodput.OutputTokensPerSecond, 11 / 1.1},
	}
	for _, c := range checks {
		if d := c.got - c.want; d > 1e-12 || d < -1e-12 {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
	if res.Goodput.GoodOutputTokens != 11 || res.Tokens.Output != 14 {
		t.Errorf("good tokens %d of %d", res.Goodput.GoodOutputTokens, res.Tokens.Output)
	}
}

func TestAnalyzeVLLMResult(t *testing.T) {
	out, errOut, code := run(t, "", "analyze", "../../runfile/testdata/vllm_detailed.json", "--format", "json", "--slo", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res metrics.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	// TTFTs 125 and 175 ms; one failure; inter-chunk gaps 20, 30, 25, 50, 10 ms.
	if res.Counts.Completed != 2 || res.Counts.Failed != 1 || res.Goodput != nil {
		t.Fatalf("counts = %+v", res.Counts)
	}
	if d := res.Latency.TTFT; d.Min != 0.125 || d.Max != 0.175 {
		t.Errorf("TTFT = %+v", d)
	}
	if d := res.Latency.InterChunk; d.Count != 5 || d.Min != 0.01 || d.Max != 0.05 || d.Mean != 0.027 {
		t.Errorf("inter-chunk = %+v", d)
	}
}

func TestAnalyzeErrorsAndGates(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"kind":"goodput.run","schema":1}`+"\n"+`{"seq":0}`+"\n"+`{"seq":1,"ct":[1,}`+"\n"), 0o644)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", []string{"analyze"}, ExitUsage, "give at least one record file"},
		{"missing file", []string{"analyze", filepath.Join(dir, "nope.jsonl")}, ExitTool, "nope.jsonl: no such file"},
		{"corrupt line", []string{"analyze", bad}, ExitTool, "bad.jsonl:3: column 18"},
		{"bad slo", []string{"analyze", seeds, "--slo", "ttft<=5xx"}, ExitUsage, "--slo"},
		{"bad percentile", []string{"analyze", seeds, "--metric-percentiles", "50,101"}, ExitUsage, "--metric-percentiles"},
		{"bad method", []string{"analyze", seeds, "--percentile-method", "median"}, ExitUsage, "--percentile-method"},
		{"unknown flag", []string{"analyze", seeds, "--nope"}, ExitUsage, "unknown flag"},
		{"gate fails", []string{"analyze", seeds, "--gate", "p99(ttft)<=500ms"}, ExitGateFail, "1 of 1 gates failed"},
		{"both slo forms", []string{"analyze", seeds, "--slo", "ttft<=1s", "--goodput", "ttft:500"}, ExitUsage, "not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := run(t, "", tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
	// A passing gate, the vLLM --goodput form spread over arguments, and
	// standard input.
	data, _ := os.ReadFile(seeds)
	out, errOut, code := run(t, string(data), "analyze", "-", "--goodput", "ttft:500", "tpot:50", "--gate", "attainment>=0.6")
	if code != 0 || !strings.Contains(out, "Goodput (tok/s):                         10.00") || !strings.Contains(out, "Gate: ") {
		t.Errorf("exit %d %s\n%s", code, errOut, out)
	}
}

// A run whose writer was killed mid-record leaves a last line cut short:
// analyze reads every whole record and says which line it skipped.
func TestAnalyzeSkipsALastLineCutShort(t *testing.T) {
	var b bytes.Buffer
	h, err := record.NewHeader("goodput test", nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := record.NewWriter(&b, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		at := int64(i) * 1e8
		rec := &record.Record{Seq: int64(i), Scheduled: at, Sent: at, End: at + 5e7, OutputTokens: 2, InputTokens: 8,
			Chunks: []record.Chunk{{At: at + 2e7, Tokens: 1}, {At: at + 4e7, Tokens: 1}}}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	whole := b.Len()
	if err := w.Write(&record.Record{Seq: 3, Scheduled: 4e8, Sent: 4e8, End: 5e8, Chunks: []record.Chunk{{At: 45e7, Tokens: 1}}}); err != nil {
		t.Fatal(err)
	}
	cut := b.Bytes()[:whole+12] // the fourth record breaks off
	path := filepath.Join(t.TempDir(), "killed.jsonl")
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "", "analyze", path, "--slo", "none")
	if code != ExitOK || !strings.Contains(out, "Successful requests:                     3\n") ||
		!strings.Contains(out, path+":5: the last line is incomplete") {
		t.Errorf("exit %d, %q%s; want 3 requests and a note on line 5", code, out, errOut)
	}
}

// With --format json, standard output is the result alone, a document jq
// reads whole; the gates' verdicts go to standard error, and the exit
// code still says a gate failed.
func TestAnalyzeJSONWithGates(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 20, 5, 1)
	file := writeRunFiles(t, dir, "base", h, recs, "")
	out, errOut, code := run(t, "", "analyze", file, "--format", "json", "--gate", "p99(ttft)<=1ns", "--gate", "error_rate<=0.01")
	var res metrics.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Counts.Completed != 20 {
		t.Errorf("standard output is not one result: %v\n%s", err, out)
	}
	if code != ExitGateFail || !strings.Contains(errOut, "Gate: p99(ttft)<=1ns: measured") || !strings.Contains(errOut, "Gate: error_rate<=0.01") {
		t.Errorf("exit %d, standard error %q; want %d and both gates", code, errOut, ExitGateFail)
	}
}

// A saved run is judged again as bench judged it, by its own SLO and
// percentile method, unless a flag says otherwise.
func TestAnalyzeKeepsTheRunsSLOAndMethod(t *testing.T) {
	dir := t.TempDir()
	_, errOut, code := run(t, "", "bench", "--num-prompts", "20", "--goodput", "ttft:20", "tpot:4", "--percentile-method", "nearest-rank",
		"--save-result", "--result-dir", dir, "--run-name", "t", "--quiet")
	if code != 0 {
		t.Fatalf("bench: exit %d: %s", code, errOut)
	}
	for _, file := range []string{"t.summary.json", "t.jsonl", ""} {
		out, errOut, code := run(t, "", "analyze", filepath.Join(dir, file))
		if code != 0 {
			t.Fatalf("analyze %s: exit %d: %s", file, code, errOut)
		}
		for _, want := range []string{"SLO: the run's own, ttft<=20ms,tpot<=4ms, from t.summary.json", "Percentile method:                       nearest-rank"} {
			if !strings.Contains(out, want) {
				t.Errorf("analyze %q: no %q in\n%s", file, want, out)
			}
		}
	}
	out, _, _ := run(t, "", "analyze", filepath.Join(dir, "t.jsonl"), "--slo", "ttft<=1s", "--percentile-method", "linear")
	if !strings.Contains(out, "SLO:                                     ttft<=1s") || strings.Contains(out, "the run's own") ||
		!strings.Contains(out, "Percentile method:                       linear") {
		t.Errorf("--slo and --percentile-method do not win:\n%s", out)
	}
}
