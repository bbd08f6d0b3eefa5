package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
)

// analyzeJSON runs analyze --format json on args and decodes the result.
func analyzeJSON(t *testing.T, args ...string) *metrics.Result {
	t.Helper()
	out, errOut, code := run(t, "", append([]string{"analyze", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res metrics.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

type figure struct {
	name      string
	got, want float64
}

func checkFigures(t *testing.T, figs []figure) {
	t.Helper()
	for _, f := range figs {
		if math.Abs(f.got-f.want) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", f.name, f.got, f.want)
		}
	}
}

// AIPerf's profile_export.jsonl, every metric recomputed with goodput's
// definitions. The fixture's measured requests:
//
//	A  due 1.000 s, sent 1.002 s, chunks at 1.202, 1.212, 1.242, 1.262 s (1 token each)
//	B  due and sent 1.100 s, chunks at 1.250, 1.300, 1.350 s (2 tokens each), ended 1.400 s
//	C  HTTP 500 at 1.200 s;  D  canceled by AIPerf, 1.300–1.350 s;  and a warm-up at 0 s.
//
// W = 1.400 − 1.000 = 0.4 s; throughput (4 + 6) / 0.4 = 25 tok/s, 2 / 0.4 = 5 req/s.
// TTFT (from due): A 202 ms, B 150 ms, mean 176 ms (AIPerf, from the send: 200 and 150).
// TPOT: A (1.262 − 1.202) / 3 = 20 ms, B (1.350 − 1.250) / 5 = 20 ms.
// e2e: A 262 ms, B 250 ms, mean 256 ms.
// ITL per token: A 10, 30, 20; B 25, 25, 25, 25: mean 160 / 7 ms. Chunk gaps 10, 30, 20, 50, 50: mean 32 ms.
// SLO ttft ≤ 200 ms, tpot ≤ 25 ms: A misses by its 2 ms in the client's queue, B meets it:
// goodput 6 / 0.4 = 15 tok/s; attainment 1 of 3 (D, canceled by the client, is outside it).
func TestAnalyzeAIPerfExport(t *testing.T) {
	res := analyzeJSON(t, "../../record/testdata/aiperf_profile_export.jsonl", "--slo", "ttft<=200ms,tpot<=25ms")
	c := res.Counts
	if c.Total != 4 || c.Completed != 2 || c.Failed != 2 || c.Canceled != 1 || c.WarmupExcluded != 1 || c.Errors["http"] != 1 {
		t.Errorf("counts = %+v", c)
	}
	l := res.Latency
	checkFigures(t, []figure{
		{"window", res.Window.Seconds, 0.4},
		{"output tok/s", res.Throughput.OutputTokensPerSecond, 25},
		{"req/s", res.Throughput.RequestsPerSecond, 5},
		{"input tok/s", res.Throughput.InputTokensPerSecond, 500},
		{"ttft mean", l.TTFT.Mean, 0.176},
		{"ttft min", l.TTFT.Min, 0.150},
		{"ttft max", l.TTFT.Max, 0.202},
		{"ttft from send mean", l.TTFTSent.Mean, 0.175},
		{"client queue max", l.ClientQueue.Max, 0.002},
		{"tpot min", l.TPOT.Min, 0.020},
		{"tpot max", l.TPOT.Max, 0.020},
		{"e2e mean", l.E2E.Mean, 0.256},
		{"itl mean", l.ITL.Mean, 0.160 / 7},
		{"itl count", float64(l.ITL.Count), 7},
		{"inter-chunk mean", l.InterChunk.Mean, 0.032},
		{"goodput", res.Goodput.OutputTokensPerSecond, 15},
		{"good requests", float64(res.Goodput.GoodRequests), 1},
		{"attainment", res.Goodput.Attainment, 1.0 / 3},
	})
	if res.TokenSources["tokenizer"] != 2 {
		t.Errorf("token sources %v", res.TokenSources)
	}
	// The text names what was imported and what of it is not measured.
	out, _, _ := run(t, "", "analyze", "../../record/testdata/aiperf_profile_export.jsonl")
	for _, want := range []string{
		"Records: ../../record/testdata/aiperf_profile_export.jsonl (import: AIPerf profile_export.jsonl, 5 requests)\n",
		"AIPerf canceled 1 request itself",
		"Mean TTFT (ms):                          176.00\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

// A file analyze cannot read is an error that names it and the line.
func TestAnalyzeImportErrors(t *testing.T) {
	b, err := os.ReadFile("../../record/testdata/aiperf_profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	path := filepath.Join(t.TempDir(), "profile_export.jsonl")
	os.WriteFile(path, []byte(lines[0]+lines[1][:len(lines[1])/2]), 0o644)
	_, errOut, code := run(t, "", "analyze", path)
	if code == 0 || !strings.Contains(errOut, path+":2: the line is cut short") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
