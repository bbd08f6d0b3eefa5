package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/runfile"
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
	res := analyzeJSON(t, "../../runfile/testdata/aiperf_profile_export.jsonl", "--slo", "ttft<=200ms,tpot<=25ms")
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
	out, _, _ := run(t, "", "analyze", "../../runfile/testdata/aiperf_profile_export.jsonl")
	for _, want := range []string{
		"Records: ../../runfile/testdata/aiperf_profile_export.jsonl (import: AIPerf profile_export.jsonl, 5 requests)\n",
		"AIPerf canceled 1 request itself",
		"Mean TTFT (ms):                          176.00\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

// A GuideLLM report of a sweep is several runs: analyze names them and
// asks for one, as it does for a directory of several.
func TestAnalyzeGuideLLMAsksWhichBenchmark(t *testing.T) {
	_, errOut, code := run(t, "", "analyze", "../../runfile/testdata/guidellm_benchmarks.json")
	want := "several runs (a GuideLLM report of 2 benchmarks: #1 synchronous, #2 constant@4.0): name one, as ../../runfile/testdata/guidellm_benchmarks.json#1"
	if code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// GuideLLM's benchmark at 4 req/s (benchmark 2 of the fixture), from
// 10 s past the hour:
//
//	r1 due 10.000 s, sent 10.002 s, first token 10.302 s, last 10.602 s, 7 tokens in 4 iterations
//	r2 due and sent 10.250 s, first token 10.450 s, last 10.750 s, 7 tokens in 7 iterations
//	e1 HTTP 500 at 10.52 s;  i1 in flight when the benchmark ended at 11.0 s
//
// W = 11.0 − 10.0 = 1 s; throughput 14 tok/s, 2 req/s. TTFT 302 and 200 ms, mean 251 ms.
// TPOT (10.602 − 10.302) / 6 = (10.750 − 10.450) / 6 = 50 ms, exact. e2e 602 and 500 ms, mean 551 ms.
// GuideLLM times no iteration between the first and the last: they are spread evenly, so every
// ITL is 50 ms (12 of them) and the chunk gaps are r1's 100 ms ×3 and r2's 50 ms ×6 (mean 600 / 9 ms).
// SLO ttft ≤ 300 ms, tpot ≤ 50 ms: r1 misses by 2 ms, r2 meets it: goodput 7 tok/s, attainment 1 of 3.
func TestAnalyzeGuideLLMBenchmark(t *testing.T) {
	res := analyzeJSON(t, "../../runfile/testdata/guidellm_benchmarks.json#2", "--slo", "ttft<=300ms,tpot<=50ms")
	c := res.Counts
	if c.Total != 4 || c.Completed != 2 || c.Failed != 2 || c.Canceled != 1 || c.Errors["http"] != 1 {
		t.Errorf("counts = %+v", c)
	}
	l := res.Latency
	checkFigures(t, []figure{
		{"window", res.Window.Seconds, 1},
		{"output tok/s", res.Throughput.OutputTokensPerSecond, 14},
		{"req/s", res.Throughput.RequestsPerSecond, 2},
		{"ttft mean", l.TTFT.Mean, 0.251},
		{"ttft max", l.TTFT.Max, 0.302},
		{"tpot min", l.TPOT.Min, 0.050},
		{"tpot max", l.TPOT.Max, 0.050},
		{"e2e mean", l.E2E.Mean, 0.551},
		{"itl mean", l.ITL.Mean, 0.050},
		{"itl count", float64(l.ITL.Count), 12},
		{"inter-chunk mean", l.InterChunk.Mean, 0.6 / 9},
		{"goodput", res.Goodput.OutputTokensPerSecond, 7},
		{"attainment", res.Goodput.Attainment, 1.0 / 3},
		{"cache hit rate", res.PromptCache.HitRate, 30.0 / 50},
	})
	// The YAML report of one benchmark needs no #.
	res = analyzeJSON(t, "../../runfile/testdata/guidellm_benchmarks.yaml")
	checkFigures(t, []figure{
		// s1: due 0.000 s, tokens at 0.101 … 0.301 s; s2: due 0.302 s, tokens at 0.403 … 0.603 s.
		{"yaml ttft mean", res.Latency.TTFT.Mean, 0.101},
		{"yaml tpot mean", res.Latency.TPOT.Mean, 0.100},
		{"yaml window", res.Window.Seconds, 0.604},
	})
}

// A file analyze cannot read is an error that names it and the line.
func TestAnalyzeImportErrors(t *testing.T) {
	b, err := os.ReadFile("../../runfile/testdata/aiperf_profile_export.jsonl")
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
	_, errOut, code = run(t, "", "analyze", "../../runfile/testdata/guidellm_benchmarks.json#5")
	if code == 0 || !strings.Contains(errOut, "guidellm_benchmarks.json#5: the GuideLLM report holds 2 benchmarks, not 5") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

const genaiBenchFixture = "../../runfile/testdata/genai-bench/D100_100_text-to-text_num_concurrency_2_time_3s.json"

// genaiBenchAggregated is what the fixture's aggregated_metrics say, in
// seconds: genai-bench's own account of the run, which analyze must give
// again from the requests.
type genaiBenchAggregated struct {
	RunDuration      float64 `json:"run_duration"`
	OutputThroughput float64 `json:"mean_output_throughput_tokens_per_s"`
	InputThroughput  float64 `json:"mean_input_throughput_tokens_per_s"`
	TotalThroughput  float64 `json:"mean_total_tokens_throughput_tokens_per_s"`
	RequestsPerSec   float64 `json:"requests_per_second"`
	Stats            map[string]struct {
		Min, Max, Mean, P50, P90, P99 float64
	} `json:"stats"`
}

// genai-bench's result of one load (D(100,100) at concurrency 2, 3.25 s;
// see record's TestOpenGenAIBenchResult): goodput's TTFT, TPOT and e2e,
// their percentiles (linear, as NumPy's) and the throughputs over
// genai-bench's run duration are the file's own aggregated figures, to
// the nanosecond its latencies are read to.
//
// SLO ttft ≤ 250 ms, tpot ≤ 100 ms: r1 (212.5 ms, 100 ms) meets it, r2
// (337.5 ms) and r4 (tpot 150 ms) miss: goodput 11 / 3.25 tok/s, 1 of 6.
func TestAnalyzeGenAIBenchResult(t *testing.T) {
	b, err := os.ReadFile(genaiBenchFixture)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Agg genaiBenchAggregated `json:"aggregated_metrics"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	agg := file.Agg
	res := analyzeJSON(t, genaiBenchFixture, "--slo", "ttft<=250ms,tpot<=100ms")
	c := res.Counts
	if c.Total != 6 || c.Completed != 3 || c.Failed != 3 || c.Errors["rate_limited"] != 1 || c.Errors["connect"] != 1 || c.Errors["http"] != 1 {
		t.Errorf("counts = %+v", c)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %.12g, genai-bench says %.12g", name, got, want)
		}
	}
	near("window", res.Window.Seconds, agg.RunDuration)
	near("output tok/s", res.Throughput.OutputTokensPerSecond, agg.OutputThroughput)
	near("input tok/s", res.Throughput.InputTokensPerSecond, agg.InputThroughput)
	near("total tok/s", res.Throughput.TotalTokensPerSecond, agg.TotalThroughput)
	near("req/s", res.Throughput.RequestsPerSecond, agg.RequestsPerSec)
	l := res.Latency
	for _, m := range []struct {
		name string
		d    metrics.Distribution
	}{{"ttft", l.TTFT}, {"tpot", l.TPOT}, {"e2e_latency", l.E2E}} {
		s := agg.Stats[m.name]
		near(m.name+" mean", m.d.Mean, s.Mean)
		near(m.name+" min", m.d.Min, s.Min)
		near(m.name+" max", m.d.Max, s.Max)
		near(m.name+" median", m.d.Median, s.P50)
		for _, p := range []struct {
			p    float64
			want float64
		}{{90, s.P90}, {99, s.P99}} {
			got, ok := m.d.Percentile(p.p)
			if !ok {
				t.Fatalf("%s: no p%v", m.name, p.p)
			}
			near(fmt.Sprintf("%s p%v", m.name, p.p), got, p.want)
		}
	}
	checkFigures(t, []figure{
		{"goodput", res.Goodput.OutputTokensPerSecond, 11 / 3.25},
		{"attainment", res.Goodput.Attainment, 1.0 / 6},
		// The mean of requests in flight needs no send time: Σ e2e / W.
		{"L", res.LittlesLaw.InFlight, 3.25 / 3.25},
	})
	// Where the file put the requests is no measurement of the run over time.
	if len(res.Series.Points) != 0 {
		t.Errorf("series of %d points, want none", len(res.Series.Points))
	}
	// The text says, to the file's precision, what genai-bench's own
	// figures say, and names the import and what it could not measure.
	out, _, _ := run(t, "", "analyze", genaiBenchFixture)
	for _, want := range []string{
		"Records: " + genaiBenchFixture + " (import: genai-bench result (D(100,100), concurrency 2), 6 requests)\n",
		"every request is placed at the run's start",
		"Benchmark duration (s):                  3.25\n",
		"Output token throughput (tok/s):         8.00\n",
		"Mean TTFT (ms):                          266.67\n",
		"Mean TPOT (ms):                          100.00\n",
		"Mean E2EL (ms):                          1083.33\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}

// A genai-bench result cannot be merged with another file: its requests
// have no send time to put them among the other's.
func TestAnalyzeGenAIBenchAlone(t *testing.T) {
	_, errOut, code := run(t, "", "analyze", genaiBenchFixture, "../../runfile/testdata/vllm_detailed.json")
	want := genaiBenchFixture + " (import: genai-bench result (D(100,100), concurrency 2)) holds no request's send time, so its requests cannot be put among another file's: read it alone"
	if code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// goodput merge turns a genai-bench result into goodput's records and keeps
// its run's window, so the merged file reads as the result did (8 tok/s,
// not the records' own span); merged with another file, it is refused.
func TestMergeGenAIBenchKeepsItsWindow(t *testing.T) {
	out := filepath.Join(t.TempDir(), "g.jsonl")
	if _, errOut, code := run(t, "", "merge", genaiBenchFixture, "--output", out); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	f, err := runfile.Open(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := f.Header()
	f.Close()
	if h.Window != 3_250_000_000 {
		t.Errorf("merged header window %d ns, want genai-bench's run duration 3.25 s", h.Window)
	}
	text, _, _ := run(t, "", "analyze", out)
	for _, want := range []string{"Benchmark duration (s):                  3.25\n", "Output token throughput (tok/s):         8.00\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("the merged file's analysis lacks %q:\n%s", want, text)
		}
	}
	_, errOut, code := run(t, "", "merge", genaiBenchFixture, "../../runfile/testdata/vllm_detailed.json", "--output", out+"2")
	if code == 0 || !strings.Contains(errOut, "holds no request's send time") {
		t.Errorf("merge with another file: exit %d: %s", code, errOut)
	}
}

// A damaged genai-bench result is an error that names the file and what
// is wrong with it.
func TestAnalyzeGenAIBenchDamaged(t *testing.T) {
	b, err := os.ReadFile(genaiBenchFixture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "D100_100_text-to-text_num_concurrency_2_time_3s.json")
	os.WriteFile(path, b[:len(b)/3], 0o644)
	_, errOut, code := run(t, "", "analyze", path)
	if code == 0 || !strings.Contains(errOut, path+": genai-bench result: the file is cut short (unexpected end of JSON input)") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// A genai-bench experiment folder of one load reads as that load's file;
// one of several loads asks for one, as a GuideLLM sweep does.
func TestAnalyzeGenAIBenchFolder(t *testing.T) {
	res := analyzeJSON(t, "../../runfile/testdata/genai-bench")
	if res.Counts.Total != 6 || res.Window.Seconds != 3.25 {
		t.Errorf("folder of one load: %d requests over %v s", res.Counts.Total, res.Window.Seconds)
	}
	b, err := os.ReadFile(genaiBenchFixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"D100_100_text-to-text_num_concurrency_2_time_3s.json", "D100_100_text-to-text_num_concurrency_4_time_3s.json"} {
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "experiment_metadata.json"), []byte(`{"num_concurrency": [2, 4]}`), 0o644)
	_, errOut, code := run(t, "", "analyze", dir)
	want := dir + ": several runs (a genai-bench experiment of 2 loads: D100_100_text-to-text_num_concurrency_2_time_3s.json, D100_100_text-to-text_num_concurrency_4_time_3s.json): name one, as " +
		filepath.Join(dir, "D100_100_text-to-text_num_concurrency_2_time_3s.json")
	if code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d: %s\nwant %s", code, errOut, want)
	}
	os.Remove(filepath.Join(dir, "D100_100_text-to-text_num_concurrency_2_time_3s.json"))
	os.Remove(filepath.Join(dir, "D100_100_text-to-text_num_concurrency_4_time_3s.json"))
	_, errOut, code = run(t, "", "analyze", dir)
	if code == 0 || !strings.Contains(errOut, dir+": a genai-bench experiment folder without the result of any load") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// GenAI-Perf's profile_export.json, one experiment at concurrency 2 (times
// from its first send):
//
//	A sent at 0, tokens at 200, 220, 260 (2 in one response), 305 ms; usage: 5 out, 12 in; ended 311 ms
//	B sent at 50 ms, tokens at 250 and 300 ms (no usage: one per piece); ended 351 ms
//	C sent at 100 ms, an error in its stream (code 400) at 190 ms
//
// W = 0.351 s (GenAI-Perf's own duration: the first send to the last
// response); throughput 7 / 0.351 tok/s. TTFT 200 ms both (from the send:
// no due time is kept). TPOT A (305 − 200) / 4 = 26.25 ms, B 50 ms. e2e A
// 305 ms, B 250 ms. ITL per token: A 20, 20, 20, 45; B 50: mean 31 ms.
// SLO ttft ≤ 200 ms, tpot ≤ 30 ms: A meets it, B does not: goodput 5 / 0.351
// tok/s, attainment 1 of 3.
func TestAnalyzeGenAIPerfExport(t *testing.T) {
	const fixture = "../../runfile/testdata/genai-perf/profile_export.json"
	res := analyzeJSON(t, fixture, "--slo", "ttft<=200ms,tpot<=30ms")
	c := res.Counts
	if c.Total != 3 || c.Completed != 2 || c.Failed != 1 || c.Errors["http"] != 1 {
		t.Errorf("counts = %+v", c)
	}
	l := res.Latency
	checkFigures(t, []figure{
		{"window", res.Window.Seconds, 0.351},
		{"output tok/s", res.Throughput.OutputTokensPerSecond, 7 / 0.351},
		{"req/s", res.Throughput.RequestsPerSecond, 2 / 0.351},
		{"input tok/s", res.Throughput.InputTokensPerSecond, 12 / 0.351},
		{"ttft mean", l.TTFT.Mean, 0.200},
		{"tpot min", l.TPOT.Min, 0.02625},
		{"tpot max", l.TPOT.Max, 0.050},
		{"e2e mean", l.E2E.Mean, 0.2775},
		{"itl mean", l.ITL.Mean, 0.031},
		{"itl count", float64(l.ITL.Count), 5},
		{"inter-chunk mean", l.InterChunk.Mean, 0.03875},
		{"goodput", res.Goodput.OutputTokensPerSecond, 5 / 0.351},
		{"attainment", res.Goodput.Attainment, 1.0 / 3},
	})
	if res.TokenSources["usage"] != 1 || res.TokenSources["chunks"] != 1 {
		t.Errorf("token sources %v", res.TokenSources)
	}
	out, _, _ := run(t, "", "analyze", fixture)
	for _, want := range []string{
		"Records: " + fixture + " (import: GenAI-Perf profile_export.json (concurrency 2), 3 requests)\n",
		"not when it was due",
		"Mean TTFT (ms):                          200.00\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	// A summary holds no requests: the error says which file to give.
	_, errOut, code := run(t, "", "analyze", "../../runfile/testdata/genai-perf/profile_export_genai_perf.json")
	if code == 0 || !strings.Contains(errOut, "holds statistics, not requests: give the per-request export beside it, profile_export.json") {
		t.Errorf("summary: exit %d: %s", code, errOut)
	}
}
