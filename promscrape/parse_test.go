package promscrape

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

// summary is what a test expects of a snapshot: counters summed over label
// sets, histograms as (count, sum). Every map is compared whole, so a
// quantity missing from want must be absent from the snapshot.
type summary struct {
	engine   Engine
	models   []string
	gauges   map[Gauge]float64
	counters map[Counter]float64
	hists    map[Hist][2]float64
}

func summarise(s *Snapshot) summary {
	got := summary{engine: s.Engine, models: s.Models, gauges: s.Gauges}
	for _, c := range AllCounters {
		if v, ok := s.Counter(c); ok {
			if got.counters == nil {
				got.counters = map[Counter]float64{}
			}
			got.counters[c] = v
		}
	}
	for _, h := range AllHists {
		if hg, ok := s.Histogram(h); ok {
			if got.hists == nil {
				got.hists = map[Hist][2]float64{}
			}
			got.hists[h] = [2]float64{hg.Count, hg.Sum}
		}
	}
	return got
}

func compareSummary(t *testing.T, got, want summary) {
	t.Helper()
	if got.engine != want.engine {
		t.Errorf("engine = %q, want %q", got.engine, want.engine)
	}
	if !slices.Equal(got.models, want.models) {
		t.Errorf("models = %q, want %q", got.models, want.models)
	}
	if !maps.EqualFunc(got.gauges, want.gauges, near) {
		t.Errorf("gauges = %v, want %v", got.gauges, want.gauges)
	}
	if !maps.EqualFunc(got.counters, want.counters, near) {
		t.Errorf("counters = %v, want %v", got.counters, want.counters)
	}
	if !maps.EqualFunc(got.hists, want.hists, func(a, b [2]float64) bool { return near(a[0], b[0]) && near(a[1], b[1]) }) {
		t.Errorf("histograms (count, sum) = %v, want %v", got.hists, want.hists)
	}
}

func TestParseFixtures(t *testing.T) {
	both := []string{qwen, llama} // sorted: upper case first
	tests := []struct {
		name string
		file string
		opts Options
		want summary
	}{
		// vLLM, three series: two engines of the Llama model and one of
		// Qwen. Counts are summed, KV usage is averaged: (0.25+0.75+0.2)/3.
		{"vllm all models", "vllm.prom", Options{}, summary{
			engine: VLLM, models: both,
			gauges: map[Gauge]float64{Running: 9, Waiting: 6, KVCacheUsage: 0.4},
			counters: map[Counter]float64{PromptTokens: 4500, GenerationTokens: 6700, Preemptions: 3,
				PrefixCacheQueries: 2400, PrefixCacheHits: 900, RequestsSucceeded: 35},
			hists: map[Hist][2]float64{TTFT: {35, 2.9}, ITL: {6665, 78.085}, TPOT: {35, 0.415},
				E2E: {35, 75.5}, Queue: {35, 3}, Prefill: {35, 1.7}, Decode: {35, 70}},
		}},
		// The Llama model alone: its two engines summed, Qwen left out;
		// Models still lists both so a report can say what was there.
		{"vllm one model over two engines", "vllm.prom", Options{Model: llama}, summary{
			engine: VLLM, models: both,
			gauges: map[Gauge]float64{Running: 8, Waiting: 2, KVCacheUsage: 0.5},
			counters: map[Counter]float64{PromptTokens: 4000, GenerationTokens: 6000, Preemptions: 2,
				PrefixCacheQueries: 2000, PrefixCacheHits: 800, RequestsSucceeded: 30},
			hists: map[Hist][2]float64{TTFT: {30, 2.0}, ITL: {5970, 67.66}, TPOT: {30, 0.34},
				E2E: {30, 64.5}, Queue: {30, 2.5}, Prefill: {30, 1.4}, Decode: {30, 60}},
		}},
		// The Qwen model alone: one series.
		{"vllm other model", "vllm.prom", Options{Model: qwen}, summary{
			engine: VLLM, models: both,
			gauges: map[Gauge]float64{Running: 1, Waiting: 4, KVCacheUsage: 0.2},
			counters: map[Counter]float64{PromptTokens: 500, GenerationTokens: 700, Preemptions: 1,
				PrefixCacheQueries: 400, PrefixCacheHits: 100, RequestsSucceeded: 5},
			hists: map[Hist][2]float64{TTFT: {5, 0.9}, ITL: {695, 10.425}, TPOT: {5, 0.075},
				E2E: {5, 11}, Queue: {5, 0.5}, Prefill: {5, 0.3}, Decode: {5, 10}},
		}},
		// A model the server does not serve: every quantity absent, not zero.
		{"vllm model not served", "vllm.prom", Options{Model: "mistralai/Mistral-7B"}, summary{
			engine: VLLM, models: both,
		}},
		// The later scrape: the Qwen series has restarted, so its values
		// are lower, but the sums are still plain sums.
		{"vllm later", "vllm_later.prom", Options{}, summary{
			engine: VLLM, models: both,
			gauges: map[Gauge]float64{Running: 15, Waiting: 4, KVCacheUsage: 0.5},
			counters: map[Counter]float64{PromptTokens: 5650, GenerationTokens: 9100, Preemptions: 3,
				PrefixCacheQueries: 2540, PrefixCacheHits: 1060, RequestsSucceeded: 63},
			hists: map[Hist][2]float64{TTFT: {63, 4.68}, ITL: {9037, 102.775}, TPOT: {63, 0.795},
				E2E: {63, 143.2}, Queue: {63, 7.1}, Prefill: {63, 2.86}, Decode: {63, 131}},
		}},
		// SGLang, two models: its hit-rate gauge is averaged like KV usage;
		// retractions are its preemptions; it has no TPOT, prefill or decode
		// histogram and no prefix-cache counters.
		{"sglang all models", "sglang.prom", Options{}, summary{
			engine: SGLang, models: both,
			gauges:   map[Gauge]float64{Running: 16, Waiting: 3, KVCacheUsage: 0.2, CacheHitRate: 0.375},
			counters: map[Counter]float64{PromptTokens: 8129902, GenerationTokens: 7559572, Preemptions: 6},
			hists:    map[Hist][2]float64{TTFT: {30, 2.15}, ITL: {600, 9}, E2E: {30, 40}, Queue: {30, 0.5}},
		}},
		{"sglang one model", "sglang.prom", Options{Model: qwen}, summary{
			engine: SGLang, models: both,
			gauges:   map[Gauge]float64{Running: 4, Waiting: 0, KVCacheUsage: 0.12, CacheHitRate: 0.25},
			counters: map[Counter]float64{PromptTokens: 1000, GenerationTokens: 2000, Preemptions: 1},
			hists:    map[Hist][2]float64{TTFT: {10, 0.95}, ITL: {200, 3}, E2E: {10, 10}, Queue: {10, 0.1}},
		}},
		// TGI: batch size is running, queue size is waiting; the per-request
		// mean time per token is TPOT. Its metrics carry no model label, so
		// a model filter keeps them.
		{"tgi", "tgi.prom", Options{Model: "any/model"}, summary{
			engine:   TGI,
			gauges:   map[Gauge]float64{Running: 32, Waiting: 7},
			counters: map[Counter]float64{RequestsSucceeded: 120},
			hists:    map[Hist][2]float64{TPOT: {120, 2.4}, E2E: {120, 300}, Queue: {120, 24}},
		}},
		// llama.cpp, the real server with one slot under 32 concurrent
		// requests: busy slots and deferred requests, token and time
		// counters, no histogram and no KV cache gauge.
		{"llama.cpp", "llamacpp.prom", Options{}, summary{
			engine: LlamaCpp,
			gauges: map[Gauge]float64{Running: 1, Waiting: 31},
			counters: map[Counter]float64{PromptTokens: 1858, GenerationTokens: 1793,
				PrefillSeconds: 0.077, DecodeSeconds: 2.714, DecodeSteps: 1849},
		}},
		// Forcing the wrong engine maps nothing: the caller asked for it.
		{"forced engine", "vllm.prom", Options{Engine: SGLang}, summary{engine: SGLang}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parseFile(t, tt.file, tt.opts)
			compareSummary(t, summarise(&s), tt.want)
			if len(s.Skipped) != 0 {
				t.Errorf("skipped %q, want none", s.Skipped)
			}
			if !s.At.IsZero() {
				t.Errorf("At = %v, want zero from Parse", s.At)
			}
		})
	}
}

// TestParseHistogramLabelSets checks that label sets stay apart in the
// snapshot and that their sum is bucket by bucket.
func TestParseHistogramLabelSets(t *testing.T) {
	s := parseFile(t, "vllm.prom", Options{})
	wantKeys := []string{
		`engine="0",model_name="Qwen/Qwen2.5-7B-Instruct"`,
		`engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"`,
		`engine="1",model_name="meta-llama/Llama-3.1-8B-Instruct"`,
	}
	if got := slices.Sorted(maps.Keys(s.Histograms[TTFT])); !slices.Equal(got, wantKeys) {
		t.Fatalf("TTFT label sets = %q, want %q", got, wantKeys)
	}
	// Success counts carry a finished_reason label too: 3 series × 3 reasons.
	if n := len(s.Counters[RequestsSucceeded]); n != 9 {
		t.Errorf("requests_succeeded has %d label sets, want 9", n)
	}
	h, _ := s.Histogram(TTFT)
	wantBounds := []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1,
		2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	// Engine 0 Llama: 1 ≤ 20 ms, 3 ≤ 40, 6 ≤ 60, 8 ≤ 80, 9 ≤ 100, 10 ≤ 250;
	// engine 1 Llama: 4, 10, 15, 18, 20 from 40 ms up; Qwen: 2 ≤ 100, 4 ≤ 250, 5 ≤ 500.
	wantCounts := []float64{0, 0, 0, 1, 7, 16, 23, 29, 34, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35, 35}
	if !slices.Equal(h.Bounds, wantBounds) {
		t.Errorf("bounds = %v, want %v", h.Bounds, wantBounds)
	}
	if !slices.Equal(h.Counts, wantCounts) {
		t.Errorf("counts = %v, want %v", h.Counts, wantCounts)
	}
}

func TestParseInline(t *testing.T) {
	tests := []struct {
		name        string
		text        string
		opts        Options
		want        summary
		wantSkipped []string
	}{
		// Older vLLM names stand in when the current ones are absent.
		{"older vllm names", `# TYPE vllm:gpu_cache_usage_perc gauge
vllm:gpu_cache_usage_perc 0.3
# TYPE vllm:time_per_output_token_seconds histogram
vllm:time_per_output_token_seconds_bucket{le="0.01"} 2
vllm:time_per_output_token_seconds_bucket{le="+Inf"} 3
vllm:time_per_output_token_seconds_sum 0.05
vllm:time_per_output_token_seconds_count 3
# TYPE vllm:gpu_prefix_cache_queries_total counter
vllm:gpu_prefix_cache_queries_total 10
`, Options{}, summary{
			engine:   VLLM,
			gauges:   map[Gauge]float64{KVCacheUsage: 0.3},
			counters: map[Counter]float64{PrefixCacheQueries: 10},
			hists:    map[Hist][2]float64{ITL: {3, 0.05}},
		}, nil},
		// When both names are there, the current one wins.
		{"current name wins", `vllm:kv_cache_usage_perc 0.7
vllm:gpu_cache_usage_perc 0.3
`, Options{}, summary{engine: VLLM, gauges: map[Gauge]float64{KVCacheUsage: 0.7}}, nil},
		// No TYPE line: the samples arrive untyped and still count.
		{"untyped", "vllm:prompt_tokens_total{engine=\"0\"} 5\nvllm:prompt_tokens_total{engine=\"1\"} 7\n",
			Options{}, summary{engine: VLLM, counters: map[Counter]float64{PromptTokens: 12}}, nil},
		// A NaN gauge and an infinite counter are left out and named; the
		// other series of the same metric still count.
		{"non-finite values", `vllm:num_requests_running{engine="0"} NaN
vllm:num_requests_running{engine="1"} 4
vllm:prompt_tokens_total +Inf
`, Options{}, summary{engine: VLLM, gauges: map[Gauge]float64{Running: 4}}, []string{
			`vllm:num_requests_running{engine="0"}: no usable value`,
			`vllm:prompt_tokens_total{}: no usable value`,
		}},
		// Two label sets of one histogram with different buckets cannot be
		// summed: the one out of line (in key order) is left out and named.
		{"bucket layouts differ", `# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_bucket{engine="0",le="1"} 1
vllm:e2e_request_latency_seconds_bucket{engine="0",le="+Inf"} 2
vllm:e2e_request_latency_seconds_sum{engine="0"} 3
vllm:e2e_request_latency_seconds_count{engine="0"} 2
vllm:e2e_request_latency_seconds_bucket{engine="1",le="5"} 1
vllm:e2e_request_latency_seconds_bucket{engine="1",le="+Inf"} 1
vllm:e2e_request_latency_seconds_sum{engine="1"} 4
vllm:e2e_request_latency_seconds_count{engine="1"} 1
`, Options{}, summary{engine: VLLM, hists: map[Hist][2]float64{E2E: {2, 3}}}, []string{
			`vllm:e2e_request_latency_seconds{engine="1"}: bucket layout differs from the other series`,
		}},
		// A histogram declared but given only _sum and _count has no bucket.
		{"histogram without buckets", `# TYPE vllm:e2e_request_latency_seconds histogram
vllm:e2e_request_latency_seconds_sum 3
vllm:e2e_request_latency_seconds_count 2
`, Options{}, summary{engine: VLLM}, []string{
			`vllm:e2e_request_latency_seconds{}: no buckets`,
		}},
		// A histogram family declared as a gauge is not read as a histogram.
		{"wrong type", "# TYPE vllm:e2e_request_latency_seconds gauge\nvllm:e2e_request_latency_seconds 3\n",
			Options{}, summary{engine: VLLM}, nil},
		// Only runtime metrics: no engine, nothing mapped, no error.
		{"no engine", "# TYPE go_goroutines gauge\ngo_goroutines 12\n", Options{}, summary{}, nil},
		// An empty body is a valid, empty exposition.
		{"empty", "", Options{}, summary{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tt.text), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			compareSummary(t, summarise(&s), tt.want)
			if !slices.Equal(s.Skipped, tt.wantSkipped) {
				t.Errorf("skipped = %q, want %q", s.Skipped, tt.wantSkipped)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		opts Options
		want string // the error must contain this
	}{
		// Free text: the error names the line.
		{"garbage", "this is not an exposition\n", Options{}, "line 1"},
		// A bad value on the third line.
		{"bad value", "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running 1\nvllm:num_requests_waiting abc\n", Options{}, "line 3"},
		// An unterminated label set.
		{"broken labels", `vllm:num_requests_running{engine="0" 1`, Options{}, "line 1"},
		// HTML from a wrong URL.
		{"html", "<html><body>Not Found</body></html>\n", Options{}, "line 1"},
		// An engine this package does not know.
		{"unknown engine", "vllm:num_requests_running 1\n", Options{Engine: "ollama"}, `unknown engine "ollama"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.text), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestParseReaderError checks that a failing reader surfaces its error.
func TestParseReaderError(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := Parse(errReader{boom}, Options{})
	if !errors.Is(err, boom) {
		t.Fatalf("Parse error = %v, want it to wrap %v", err, boom)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
