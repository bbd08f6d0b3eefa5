package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const ipReport = "../../runfile/testdata/inferenceperf/per_request_lifecycle_metrics.json"

// ipOwnLatency reads the means inference-perf itself reported for a
// stage (stage_N_lifecycle_metrics.json beside the fixture), in seconds.
func ipOwnLatency(t *testing.T, stage string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(ipReport), "stage_"+stage+"_lifecycle_metrics.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Successes struct {
			Latency map[string]struct {
				Mean float64 `json:"mean"`
			} `json:"latency"`
		} `json:"successes"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	means := map[string]float64{}
	for k, v := range rep.Successes.Latency {
		means[k] = v.Mean
	}
	return means
}

// near says whether goodput's figure agrees with inference-perf's to the
// precision of the file: its float seconds against goodput's exact
// nanoseconds differ by float rounding, far below one nanosecond.
func near(got, want float64) bool { return math.Abs(got-want) < 1e-9 }

// Stage 0 of the fixture, at 2 req/s: A sent at 0, tokens at 100 ms, two
// at 120 ms, one at 160 ms (inference-perf's times per token); B sent at
// 500 ms, one token at each of 580, 610, 640, 670 ms; C failed with 503.
//
// TTFT counts from the send (the file keeps no due time): A 100, B 80 ms,
// mean 90 ms, as inference-perf's summary says. ITL per token: A 10, 10,
// 40 (the 20 ms gap over its two tokens), B 30, 30, 30: mean 25 ms;
// inference-perf pools its per-token gaps 20, 0, 40, 30, 30, 30, mean
// 25 ms too. TPOT A (160 − 100) / 3 = 20, B 30: mean 25 ms. W = 1 s,
// throughput 8 tok/s, 2 req/s.
func TestAnalyzeInferencePerfStage(t *testing.T) {
	res := analyzeJSON(t, ipReport+"#1", "--slo", "ttft<=90ms,tpot<=25ms")
	own := ipOwnLatency(t, "0")
	l := res.Latency
	if !near(l.TTFT.Mean, own["time_to_first_token"]) || !near(l.ITL.Mean, own["inter_token_latency"]) || !near(l.TPOT.Mean, own["time_per_output_token"]) {
		t.Errorf("TTFT %v, ITL %v, TPOT %v; inference-perf says %v, %v, %v", l.TTFT.Mean, l.ITL.Mean, l.TPOT.Mean,
			own["time_to_first_token"], own["inter_token_latency"], own["time_per_output_token"])
	}
	c := res.Counts
	if c.Total != 3 || c.Completed != 2 || c.Failed != 1 || c.Errors["unavailable"] != 1 {
		t.Errorf("counts = %+v", c)
	}
	checkFigures(t, []figure{
		{"ttft mean", l.TTFT.Mean, 0.090},
		{"ttft max", l.TTFT.Max, 0.100},
		{"itl mean", l.ITL.Mean, 0.025},
		{"itl count", float64(l.ITL.Count), 6},
		{"inter-chunk mean", l.InterChunk.Mean, 0.030}, // 20, 40, 30, 30, 30
		{"tpot mean", l.TPOT.Mean, 0.025},
		{"e2e mean", l.E2E.Mean, 0.165}, // to the last token: 160 and 170 ms
		{"client queue max", l.ClientQueue.Max, 0},
		{"window", res.Window.Seconds, 1},
		{"output tok/s", res.Throughput.OutputTokensPerSecond, 8},
		{"req/s", res.Throughput.RequestsPerSecond, 2},
		{"cache hit rate", res.PromptCache.HitRate, 16.0 / 20},
		// A misses TTFT ≤ 90 ms, B (80 ms, TPOT 30 ms) misses TPOT ≤ 25 ms.
		{"good requests", float64(res.Goodput.GoodRequests), 0},
		{"attainment", res.Goodput.Attainment, 0},
	})
	if res.TokenSources["usage"] != 2 {
		t.Errorf("token sources %v", res.TokenSources)
	}

	out, _, code := run(t, "", "analyze", ipReport+"#1")
	for _, want := range []string{
		"Records: " + ipReport + "#1 (import: inference-perf per-request report (stage 0, #1 of 2, 2 req/s), 3 requests)\n",
		"inference-perf keeps no time a request was due",
		"Mean TTFT (ms):                          90.00\n",
		"Mean ITL (ms):                           25.00\n",
		"unavailable:                             1 (first: HTTP Error 503: The server is overloaded)\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, missing %q in\n%s", code, want, out)
		}
	}
	// Nothing impossible: no negative or NaN figure anywhere.
	for _, bad := range []string{"NaN", "-0.", "Inf"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q in\n%s", bad, out)
		}
	}
}

// Stage 1, at 4 req/s: D sent at 0, chunks at 50, 75, 100 ms; inference-
// perf's tokenizer counted 5 tokens (1, 2, 2), the server 6: goodput takes
// the server's 6, spread 2 per chunk. TTFT 50 ms and ITL 12.5 ms agree with
// inference-perf's summary (its gaps 25, 0, 25, 0); TPOT does not, by
// design: 50 ms / (6 − 1) = 10 ms against its 50 / (5 − 1) = 12.5 ms.
// E timed out, F could not connect, G was rate limited.
func TestAnalyzeInferencePerfSecondStage(t *testing.T) {
	res := analyzeJSON(t, ipReport+"#2")
	own := ipOwnLatency(t, "1")
	l := res.Latency
	if !near(l.TTFT.Mean, own["time_to_first_token"]) || !near(l.ITL.Mean, own["inter_token_latency"]) {
		t.Errorf("TTFT %v, ITL %v; inference-perf says %v, %v", l.TTFT.Mean, l.ITL.Mean, own["time_to_first_token"], own["inter_token_latency"])
	}
	if !near(own["time_per_output_token"], 0.0125) {
		t.Errorf("the fixture's own TPOT is %v, not 12.5 ms", own["time_per_output_token"])
	}
	checkFigures(t, []figure{
		{"ttft mean", l.TTFT.Mean, 0.050},
		{"itl mean", l.ITL.Mean, 0.0125},
		{"inter-chunk mean", l.InterChunk.Mean, 0.025},
		{"tpot mean", l.TPOT.Mean, 0.010},
		{"window", res.Window.Seconds, 1},
		{"output tok/s", res.Throughput.OutputTokensPerSecond, 6},
	})
	c := res.Counts
	if c.Total != 4 || c.Completed != 1 || c.Errors["timeout"] != 1 || c.Errors["connect"] != 1 || c.Errors["rate_limited"] != 1 {
		t.Errorf("counts = %+v", c)
	}
}

// A report of several stages is several runs: analyze names them and
// asks for one.
func TestAnalyzeInferencePerfAsksWhichStage(t *testing.T) {
	_, errOut, code := run(t, "", "analyze", ipReport)
	want := "several runs (an inference-perf run of 2 stages: #1 stage 0 (2 req/s), #2 stage 1 (4 req/s)): name one, as " + ipReport + "#1"
	if code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// A damaged report, or a summary given for it, is an error that names the
// file and what is wrong.
func TestAnalyzeInferencePerfErrors(t *testing.T) {
	b, err := os.ReadFile(ipReport)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "per_request_lifecycle_metrics.json")
	os.WriteFile(path, b[:3000], 0o644)
	_, errOut, code := run(t, "", "analyze", path)
	if code == 0 || !strings.Contains(errOut, path+":93: request 3: the file is cut short") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	summary := filepath.Join(filepath.Dir(ipReport), "summary_lifecycle_metrics.json")
	_, errOut, code = run(t, "", "analyze", summary)
	if code == 0 || !strings.Contains(errOut, summary+": an inference-perf summary report") || !strings.Contains(errOut, "read per_request_lifecycle_metrics.json") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
