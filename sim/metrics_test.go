package sim

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/goodput-dev/goodput/tokenizer"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// parseMetrics scrapes url's /metrics and parses it as Prometheus text.
func parseMetrics(t testing.TB, url string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(scrape(t, url)))
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// metricValue returns the value of the family's metric whose labels include
// the given name=value pairs: a counter's or gauge's value, a histogram's
// sample count. It fails the test when there is none.
func metricValue(t testing.TB, fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	f, ok := fams[name]
	if !ok {
		t.Fatalf("no metric %s", name)
	}
next:
	for _, m := range f.GetMetric() {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == labels[i] && lp.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			return m.GetCounter().GetValue()
		case dto.MetricType_GAUGE:
			return m.GetGauge().GetValue()
		case dto.MetricType_HISTOGRAM:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	t.Fatalf("no %s with labels %v", name, labels)
	return 0
}

// describeMetrics renders what must not change about the exposition: each
// family's name and type, each metric's labels, and histogram buckets.
func describeMetrics(fams map[string]*dto.MetricFamily) string {
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		f := fams[n]
		for _, m := range f.GetMetric() {
			var labels []string
			for _, lp := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", lp.GetName(), lp.GetValue()))
			}
			fmt.Fprintf(&b, "%s %s {%s}", n, strings.ToLower(f.GetType().String()), strings.Join(labels, ","))
			if h := m.GetHistogram(); h != nil {
				var bounds []string
				for _, bk := range h.GetBucket() {
					bounds = append(bounds, fmt.Sprint(bk.GetUpperBound()))
				}
				fmt.Fprintf(&b, " buckets=%s", strings.Join(bounds, ","))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func TestMetricsGolden(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t), ServedModelName: "sim", MaxModelLen: 2048})
	prompt := "Tell me about the weather"
	for range 3 {
		if code := postJSON(t, ts.URL+"/v1/completions", `{"prompt":"`+prompt+`","max_tokens":5,"ignore_eos":true}`, nil); code != 200 {
			t.Fatalf("status %d", code)
		}
	}
	fams := parseMetrics(t, ts.URL)
	got := describeMetrics(fams)
	golden := filepath.Join("testdata", "metrics.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestMetricsGolden -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("/metrics changed shape; if intended, rerun with -update.\ngot:\n%s\nwant:\n%s", got, want)
	}

	// The values add up for three 5-token answers.
	n := float64(tokenizer.Count(prompt))
	for _, tt := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"vllm:generation_tokens_total", nil, 15},
		{"vllm:prompt_tokens_total", nil, 3 * n},
		{"vllm:request_success_total", []string{"finished_reason", "length"}, 3},
		{"vllm:request_success_total", []string{"finished_reason", "stop"}, 0},
		{"vllm:time_to_first_token_seconds", nil, 3},
		{"vllm:inter_token_latency_seconds", nil, 12},
		{"vllm:request_time_per_output_token_seconds", nil, 3},
		{"vllm:e2e_request_latency_seconds", nil, 3},
		{"vllm:request_queue_time_seconds", nil, 3},
		{"vllm:request_prefill_time_seconds", nil, 3},
		{"vllm:request_decode_time_seconds", nil, 3},
		{"vllm:request_inference_time_seconds", nil, 3},
		{"vllm:request_generation_tokens", nil, 3},
		{"vllm:prefix_cache_queries_total", nil, 3 * n},
		{"vllm:num_requests_running", nil, 0},
		{"vllm:num_requests_waiting", nil, 0},
		{"vllm:kv_cache_usage_perc", nil, 0},
		{"vllm:num_preemptions_total", nil, 0},
	} {
		if got := metricValue(t, fams, tt.name, tt.labels...); got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
		}
	}
	if sum := fams["vllm:request_generation_tokens"].GetMetric()[0].GetHistogram().GetSampleSum(); sum != 15 {
		t.Errorf("request_generation_tokens sum = %v, want 15", sum)
	}
}

func TestTokenBuckets(t *testing.T) {
	tests := []struct {
		limit int
		want  []float64
	}{
		{0, nil},                // nothing fits
		{1, []float64{1}},       // only 1
		{7, []float64{1, 2, 5}}, // stops below the limit
		{10, []float64{1, 2, 5, 10}},
		{2048, []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000}},
	}
	for _, tt := range tests {
		if got := tokenBuckets(tt.limit); !slices.Equal(got, tt.want) {
			t.Errorf("tokenBuckets(%d) = %v, want %v", tt.limit, got, tt.want)
		}
	}
}

func TestKVExhaustionPreempts(t *testing.T) {
	// A 1.064 GiB GPU at 0.95 leaves 98 blocks (1,568 tokens) after the
	// 0.5B model's weights and the reserve (5 % of its memory, and the
	// activations and logits of 512 batched tokens and 12 sequences);
	// twelve requests growing to 350 tokens need 4,200.
	p := fastProfile(t)
	p.GPU = GPU{Name: "tiny", MemoryGiB: 1.064, BandwidthTBps: 4.8, TFLOPS: 989}
	_, ts := startServer(t, Options{Profile: p, GPUMemoryUtilization: 0.95, MaxNumBatchedTokens: 512, MaxNumSeqs: 12})
	var wg sync.WaitGroup
	results := make([]streamResult, 12)
	for i := range results {
		wg.Go(func() {
			results[i], _ = postStream(context.Background(), ts.Client(), ts.URL+"/v1/completions",
				`{"prompt":`+jsonOf(t, promptOf(50, i*1000))+`,"max_tokens":300,"ignore_eos":true,"stream":true}`)
		})
	}
	wg.Wait()
	for i, r := range results {
		if !r.done() || len(r.events) != 301 {
			t.Fatalf("request %d: %d events, [DONE] %v; want 300 tokens despite preemption", i, len(r.events), r.done())
		}
	}
	fams := parseMetrics(t, ts.URL)
	if n := metricValue(t, fams, "vllm:num_preemptions_total"); n < 1 {
		t.Errorf("vllm:num_preemptions_total = %v, want ≥ 1", n)
	}
	if n := metricValue(t, fams, "vllm:request_success_total", "finished_reason", "length"); n != 12 {
		t.Errorf("%v requests succeeded, want 12", n)
	}
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// promptOf returns n distinct token ids starting at from.
func promptOf(n, from int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 3000 + (from+i)%20000
	}
	return out
}

func TestPrefixCachingLowersTTFT(t *testing.T) {
	// Llama-3.1-8B on an H100: a 2,000-token prompt prefills in about
	// 65 ms. It fills 125 blocks exactly, so a second prompt that extends it
	// finds all 2,000 tokens cached and prefills only its own 20.
	shared := promptOf(2000, 0)
	first := jsonOf(t, shared)
	second := jsonOf(t, append(slices.Clone(shared), promptOf(20, 5000)...))
	ttft := func(url string, prompt string) time.Duration {
		t.Helper()
		res, err := postStream(context.Background(), http.DefaultClient, url+"/v1/completions",
			`{"prompt":`+prompt+`,"max_tokens":2,"stream":true,"ignore_eos":true}`)
		if err != nil || !res.done() {
			t.Fatalf("request failed: %v %d", err, res.status)
		}
		return res.events[0].at.Sub(res.start)
	}
	for _, tt := range []struct {
		name     string
		disable  bool
		wantHits float64
	}{
		{"caching on", false, 2000},
		{"caching off", true, 0},
	} {
		_, ts := startServer(t, Options{DisablePrefixCaching: tt.disable})
		cold := ttft(ts.URL, first)
		warm := ttft(ts.URL, second)
		fams := parseMetrics(t, ts.URL)
		hits := metricValue(t, fams, "vllm:prefix_cache_hits_total")
		queries := metricValue(t, fams, "vllm:prefix_cache_queries_total")
		if hits != tt.wantHits || queries != 2000+2020 {
			t.Errorf("%s: %v hits of %v queried tokens, want %v of 4020", tt.name, hits, queries, tt.wantHits)
		}
		// Generous bounds: the modelled gap is about 65 ms against 13 ms.
		if !tt.disable && warm > cold/2 {
			t.Errorf("%s: TTFT %v for the shared prefix vs %v cold, want under half", tt.name, warm, cold)
		}
		if tt.disable && warm < cold/2 {
			t.Errorf("%s: TTFT %v vs %v cold, want no big gain without the cache", tt.name, warm, cold)
		}
		t.Logf("%s: cold TTFT %v, shared-prefix TTFT %v", tt.name, cold, warm)
	}
}

// The phase histograms (queue, prefill, decode) are observed when a request
// finishes, as vLLM's are, never while it runs: over any window they cover
// the same requests as e2e, and their sums add up to its sum.
func TestPhasesObservedAtFinish(t *testing.T) {
	p := profileOf(t, "H100", "Llama-3.1-8B", 1)
	m := newMetrics("m", 4096)
	// One sequence at a time: the second waits in the queue for the first.
	e := newEngine(engineConfig{profile: p, blocks: 1000, blockSize: BlockSize, chunked: true, offline: true,
		maxSeqs: 1, maxBatched: 8192, outMean: 256, seed: 1}, m)
	e.enqueue(fixed(1, 100, 8))
	e.enqueue(fixed(2, 100, 8))
	hist := func(name string) (count uint64, sum float64) {
		fams, err := m.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fams {
			if f.GetName() == name {
				h := f.GetMetric()[0].GetHistogram()
				return h.GetSampleCount(), h.GetSampleSum()
			}
		}
		t.Fatalf("no %s", name)
		return 0, 0
	}
	stepOnce(t, e, 0) // the first is scheduled and prefilled, not finished
	if n, _ := hist("vllm:request_queue_time_seconds"); n != 0 {
		t.Errorf("queue time observed for %d requests before any finished", n)
	}
	drainEngine(t, e, 0)
	var phases float64
	for _, name := range []string{"vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds", "vllm:request_decode_time_seconds"} {
		n, sum := hist(name)
		if n != 2 {
			t.Errorf("%s observed %d times, want 2", name, n)
		}
		phases += sum
	}
	if _, queued := hist("vllm:request_queue_time_seconds"); queued <= 0 {
		t.Errorf("queue time sum %v: the second request waited for the first", queued)
	}
	if n, e2e := hist("vllm:e2e_request_latency_seconds"); n != 2 || math.Abs(phases-e2e) > 1e-9 {
		t.Errorf("e2e: %d requests, sum %v; the phases add up to %v", n, e2e, phases)
	}
}

// POST /reset_prefix_cache, which sweeps call between runs, makes the next
// request find nothing cached: a prompt sent three times hits its 2,000
// cached tokens the second time and none the third, after the reset.
func TestResetPrefixCacheForgetsCachedPrompts(t *testing.T) {
	_, ts := startServer(t, Options{})
	prompt := jsonOf(t, append(promptOf(2000, 0), promptOf(20, 5000)...))
	send := func() {
		t.Helper()
		res, err := postStream(context.Background(), http.DefaultClient, ts.URL+"/v1/completions",
			`{"prompt":`+prompt+`,"max_tokens":2,"stream":true,"ignore_eos":true}`)
		if err != nil || !res.done() {
			t.Fatalf("request failed: %v %d", err, res.status)
		}
	}
	hits := func() float64 {
		return metricValue(t, parseMetrics(t, ts.URL), "vllm:prefix_cache_hits_total")
	}
	send()
	send()
	if h := hits(); h != 2016 {
		t.Fatalf("%v tokens hit before the reset, want 2016 (126 full blocks)", h)
	}
	for _, p := range []string{"/reset_prefix_cache", "/reset_mm_cache", "/reset_encoder_cache"} {
		resp, err := http.Post(ts.URL+p, "", nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("POST %s: %v %v", p, resp, err)
		}
		resp.Body.Close()
	}
	send()
	if h := hits(); h != 2016 {
		t.Errorf("%v tokens hit after the reset, want still 2016: the third request must find nothing cached", h)
	}
	if resp, err := http.Get(ts.URL + "/reset_prefix_cache"); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /reset_prefix_cache: %v %v, want 405", resp, err)
	}
}
