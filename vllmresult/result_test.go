package vllmresult

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/vllmcheck"
	"github.com/goodput-dev/goodput/record"
)

func TestPyFloat(t *testing.T) {
	for _, tt := range []struct {
		v    float64
		want string
	}{
		{1, "1.0"}, // Python keeps the fractional part
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{0.1, "0.1"},
		{0.0001, "0.0001"}, // the last fixed exponent
		{0.00001, "1e-05"}, // two-digit exponents
		{1.5e-7, "1.5e-07"},
		{123456789012345.0, "123456789012345.0"},
		{1e16, "1e+16"},
		{2.5e100, "2.5e+100"},
		{-44.16175780061167, "-44.16175780061167"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
		{math.NaN(), "NaN"},
	} {
		if got := pyFloat(tt.v); got != tt.want {
			t.Errorf("pyFloat(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestEncodeAsPythonDoes(t *testing.T) {
	o := Object{{"a", 1}, {"b", []float64{0.5, 2}}, {"c", nil}, {"d", "It’s é\t\"q\"\x7f 😀"}, {"e", Object{{"x", true}}},
		{"f", [][]float64{{}, {0.25}}}, {"g", []string{}}}
	want := `{"a": 1, "b": [0.5, 2.0], "c": null, "d": "It\u2019s \u00e9\t\"q\"\u007f \ud83d\ude00", "e": {"x": true}, "f": [[], [0.25]], "g": []}`
	if got := string(Encode(o)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := string(Encode(Object{{"bad", "\xff"}})); got != `{"bad": "\ufffd"}` {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

func ip(v int) *int { return &v }

func TestFileName(t *testing.T) {
	date := time.Date(2026, 11, 29, 8, 5, 9, 0, time.Local)
	for _, tt := range []struct {
		run  Run
		want string
	}{
		{Run{Backend: "vllm", ModelID: "meta-llama/Llama-3.1-8B-Instruct", RequestRate: math.Inf(1), Date: date},
			"vllm-infqps-Llama-3.1-8B-Instruct-20261129-080509.json"},
		{Run{Backend: "openai", Label: "base", ModelID: "m", RequestRate: 8, MaxConcurrency: ip(16), Date: date},
			"base-8.0qps-concurrency16-m-20261129-080509.json"},
		{Run{Backend: "openai", ModelID: "org/m", RequestRate: 0.5, Date: date}, "openai-0.5qps-m-20261129-080509.json"},
		{Run{Backend: "vllm", ModelID: "m", Ramp: &Ramp{"linear", 1, 20}, MaxConcurrency: ip(0), Date: date},
			"vllm-ramp-up-linear-1qps-20qps-concurrency0-m-20261129-080509.json"},
		// A server that names no model still gets a file, not a directory.
		{Run{Backend: "llamacpp", RequestRate: math.Inf(1), MaxConcurrency: ip(2), Date: date},
			"llamacpp-infqps-concurrency2-unknown-model-20261129-080509.json"},
	} {
		if got := FileName(tt.run); got != tt.want {
			t.Errorf("FileName = %q, want %q", got, tt.want)
		}
	}
}

// requests is a run of four: two plain successes, one that waited for a
// slot, one failure.
func requests() []Request {
	recs := []record.Record{
		{Seq: 0, Scheduled: 0, Sent: 1e6, End: 400e6, InputTokens: 10, OutputTokens: 3, TokenSource: record.SourceUsage,
			Chunks: []record.Chunk{{At: 101e6, Tokens: 1}, {At: 201e6, Tokens: 1}, {At: 301e6, Tokens: 1}}, Text: "a b c", RequestID: "p-0"},
		{Seq: 1, Scheduled: 50e6, Sent: 51e6, End: 600e6, InputTokens: 20, OutputTokens: 4, TokenSource: record.SourceUsage,
			Chunks: []record.Chunk{{At: 151e6, Tokens: 2}, {At: 551e6, Tokens: 2}}, RequestID: "p-1"},
		{Seq: 2, Scheduled: 100e6, Sent: 900e6, End: 2500e6, InputTokens: 5, OutputTokens: 1, TokenSource: record.SourceUsage,
			Chunks: []record.Chunk{{At: 1900e6, Tokens: 1}}, RequestID: "p-2"},
		{Seq: 3, Scheduled: 150e6, Sent: 151e6, End: 152e6, InputTokens: 7, Status: 503, Error: record.ErrUnavailable, Msg: "busy", RequestID: "p-3"},
	}
	out := make([]Request, len(recs))
	for i := range recs {
		out[i] = FromRecord(&recs[i], false)
	}
	return out
}

func decode(t *testing.T, o Object) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(Encode(o), &m); err != nil {
		t.Fatalf("%v: %s", err, Encode(o))
	}
	return m
}

func TestBuildAgreesWithVLLMsDefinitions(t *testing.T) {
	run := Run{Date: time.Now(), Backend: "vllm", ModelID: "m", TokenizerID: "m", NumPrompts: 4, RequestRate: 8, Burstiness: 1,
		MaxConcurrency: ip(2), Duration: 2.5, Metrics: AllMetrics, Percentiles: []float64{50, 99.9},
		SLO: map[string]float64{"ttft": 150}, Detailed: true, Metadata: Object{{"tp", "1"}}}
	m := decode(t, Build(run, requests()))
	res := vllmcheck.Check(m)
	if len(res.Bad) > 0 {
		t.Errorf("disagreements:\n%s", strings.Join(res.Bad, "\n"))
	}
	for _, u := range res.Unchecked {
		if !strings.HasPrefix(u, "tp:") {
			t.Errorf("unchecked: %s", u)
		}
	}
	for key, want := range map[string]any{
		"completed": 3.0, "failed": 1.0, "total_input_tokens": 35.0, "total_output_tokens": 8.0,
		"mean_ttft_ms": 400.0, // first tokens 100 ms, 100 ms and 1 s after their sends
		// Only the first two meet ttft ≤ 150 ms: 2 / 2.5 s.
		"request_goodput": 0.8,
		// goodput's own TTFT adds the wait before the send: 101, 101 and 1800 ms.
		"median_ttft_from_scheduled_ms": 101.0,
		"p50_client_queue_time_ms":      1.0,
		// All three successes are active in the first second from the
		// first send (the third sent at 900 ms), though at most two are
		// in flight at once: vLLM counts per second.
		"max_concurrent_requests": 3.0,
		"errors":                  []any{"", "", "", "unavailable: busy"},
		"request_ids":             []any{"p-0", "p-1", "p-2", "p-3"},
		"tp":                      "1",
		"rtfx":                    0.0,
	} {
		if got := m[key]; !equalJSON(got, want) {
			t.Errorf("%s = %v, want %v", key, got, want)
		}
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	if string(x) == string(y) {
		return true
	}
	fa, ok1 := a.(float64)
	fb, ok2 := b.(float64)
	return ok1 && ok2 && math.Abs(fa-fb) < 1e-9
}

func TestBuildKeyOrderIsVLLMs(t *testing.T) {
	run := Run{Date: time.Now(), Backend: "openai", ModelID: "m", TokenizerID: "m", NumPrompts: 4, RequestRate: math.Inf(1),
		Burstiness: 1, MaxConcurrency: ip(2), Duration: 2.5, Metrics: []string{"ttft", "tpot", "itl", "e2el"}, Percentiles: []float64{99}}
	o := Build(run, requests())
	var keys []string
	for _, mem := range o {
		keys = append(keys, mem.Key)
	}
	// The order of vLLM v0.25.1's own file, then goodput's additions.
	b, err := os.ReadFile("testdata/vllm_v0.25.1_sweep_run.json")
	if err != nil {
		t.Fatal(err)
	}
	var vllmKeys []string
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		vllmKeys = append(vllmKeys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	vllmKeys = vllmKeys[:len(vllmKeys)-2] // run_number and max_num_seqs are the sweep's
	// latencies and queue_times arrived after that release; vLLM keeps
	// them without --save-detailed.
	var filtered []string
	for _, k := range keys {
		if k != "latencies" && k != "queue_times" {
			filtered = append(filtered, k)
		}
	}
	if got := strings.Join(filtered[:len(vllmKeys)], " "); got != strings.Join(vllmKeys, " ") {
		t.Errorf("key order\n got %s\nwant %s", got, strings.Join(vllmKeys, " "))
	}
	if extra := strings.Join(filtered[len(vllmKeys):], " "); extra != "mean_ttft_from_scheduled_ms median_ttft_from_scheduled_ms std_ttft_from_scheduled_ms p99_ttft_from_scheduled_ms percentile_method" {
		t.Errorf("goodput's additions: %s", extra)
	}
}

func TestBuildWithoutDetailOrSLO(t *testing.T) {
	run := Run{Date: time.Now(), Backend: "vllm", ModelID: "m", RequestRate: math.Inf(1), Burstiness: 1, Duration: 2.5,
		Metrics: []string{"ttft", "client_queue_time"}, Percentiles: []float64{99}}
	m := decode(t, Build(run, requests()))
	for _, k := range []string{"ttfts", "itls", "input_lens", "output_lens", "start_times", "generated_texts", "errors", "request_ids", "scheduled_times",
		"mean_tpot_ms",              // not selected
		"mean_client_queue_time_ms", // vLLM writes it only with --max-concurrency
	} {
		if _, ok := m[k]; ok {
			t.Errorf("%s present", k)
		}
	}
	for _, k := range []string{"latencies", "queue_times", "mean_ttft_ms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("%s absent", k)
		}
	}
	if m["request_goodput"] != nil || m["label"] != nil || m["tokenizer_id"] != nil || m["max_concurrency"] != nil {
		t.Errorf("want nulls: %v %v %v %v", m["request_goodput"], m["label"], m["tokenizer_id"], m["max_concurrency"])
	}
}

func TestEmptyRun(t *testing.T) {
	m := decode(t, Build(Run{Date: time.Now(), Backend: "vllm", RequestRate: 1, Metrics: AllMetrics, Percentiles: []float64{99}, Detailed: true}, nil))
	if m["completed"] != 0.0 || m["mean_ttft_ms"] != 0.0 || m["request_throughput"] != 0.0 || m["max_output_tokens_per_s"] != 0.0 {
		t.Errorf("empty run: %v", m)
	}
}

func TestWriteFileAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	for i := range 3 {
		if err := WriteFile(path, Object{{"n", i}}, true); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(path)
	if string(b) != "{\"n\": 0}\n{\"n\": 1}\n{\"n\": 2}" {
		t.Errorf("appended: %q", b)
	}
	if err := WriteFile(path, Object{{"n", 9}}, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"n": 9}` {
		t.Errorf("replaced: %q", b)
	}
	if err := WriteFile(filepath.Join(t.TempDir(), "no", "such", "dir.json"), Object{}, false); err == nil {
		t.Error("no error writing into a missing directory")
	}
}

func TestParseMetrics(t *testing.T) {
	if got, err := ParseMetrics("ttft, e2el,client_queue_time"); err != nil || strings.Join(got, ",") != "ttft,e2el,client_queue_time" {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "ttft,latency", "TTFT"} {
		if _, err := ParseMetrics(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Probe figures follow vLLM's: numpy's linear median and p99 and the
// largest latency, in ms, of the probes that succeeded; none without one.
func TestProbeStats(t *testing.T) {
	p := Probes{Latencies: []float64{0.040, 0.010, 0.030, 0.020}, Failed: 2}
	got, ok := p.Stats()
	// Sorted 10, 20, 30, 40 ms: the median halfway between 20 and 30; the
	// p99 at rank 0.99×3 = 2.97, 97 % of the way from 30 to 40.
	want := ProbeStats{Completed: 4, Failed: 2, Median: 25, P99: 39.7, Max: 40}
	if !ok || got.Completed != want.Completed || got.Failed != want.Failed ||
		math.Abs(got.Median-want.Median) > 1e-9 || math.Abs(got.P99-want.P99) > 1e-9 || got.Max != want.Max {
		t.Errorf("Stats = %+v, %v; want %+v", got, ok, want)
	}
	if got, ok := (Probes{Failed: 3}).Stats(); ok || got.Failed != 3 {
		t.Errorf("without a success: %+v, %v; want only the failures and ok false", got, ok)
	}
	// The file carries the keys only where vLLM's does.
	run := Run{RequestRate: math.Inf(1), Probes: &p}
	o := Build(run, nil)
	if v, ok := o.Get("probe_p99_e2el_ms"); !ok || math.Abs(v.(float64)-39.7) > 1e-9 {
		t.Errorf("probe_p99_e2el_ms = %v, %v", v, ok)
	}
	run.Probes = &Probes{Failed: 3}
	if _, ok := Build(run, nil).Get("probe_failed"); ok {
		t.Error("probe keys written although no probe succeeded")
	}
}
