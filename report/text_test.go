package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/vllmresult"
)

// The errors block gives each kind's count and its first message, whole,
// so that a run whose requests all failed says why.
func TestTextErrorsComeWithAReason(t *testing.T) {
	long := "http 404 Not Found: " + strings.Repeat("x", 200)
	res := &metrics.Result{Counts: metrics.Counts{
		Total: 3, Failed: 3,
		Errors:        map[string]int64{"http": 2, "timeout": 1},
		ErrorExamples: map[string]string{"http": long},
	}}
	var b strings.Builder
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := "2 (first: " + long + ")"
	if !strings.Contains(out, want) || strings.Contains(out, "…") {
		t.Errorf("errors block lacks %q:\n%s", want, out)
	}
	if !strings.Contains(out, "timeout:") || strings.Contains(out, "1 (first:") {
		t.Errorf("a kind without a message should show its count alone:\n%s", out)
	}
}

// The summary keeps vLLM's sections in vLLM's order, its configuration
// lines where vLLM prints them, and goodput's blocks after vLLM's.
func TestTextFollowsVLLMsOrder(t *testing.T) {
	conc, good := 8, 1.25
	res := &metrics.Result{
		Counts:  metrics.Counts{Total: 4, Completed: 4},
		Window:  metrics.Window{Seconds: 3.2},
		Goodput: &metrics.Goodput{SLO: "ttft<=500ms"},
		Latency: metrics.Latency{TTFT: metrics.Distribution{Count: 4, Mean: 0.1}},
	}
	var b strings.Builder
	err := Text(&b, res, TextOptions{
		Title: "Serving Benchmark Result (built-in simulator)", Notes: []string{"Load: open loop"},
		Metrics: []string{"ttft", "e2el"},
		VLLM:    &VLLMLines{MaxConcurrency: &conc, RequestRate: 4, RequestGoodput: &good, Peak: &Peak{OutputTokensPerSecond: 96, ConcurrentRequests: 3}},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	order := []string{
		"Load: open loop\n==== Serving Benchmark Result (built-in simulator) ====\n",
		"Successful requests:", "Failed requests:", "Maximum request concurrency:             8",
		"Request rate configured (RPS):           4.00", "Benchmark duration (s):", "Total input tokens:",
		"Total generated tokens:", "Request throughput (req/s):", "Request goodput (req/s):                 1.25",
		"Output token throughput (tok/s):", "Peak output token throughput (tok/s):    96.00",
		"Peak concurrent requests:                3.00", "Total token throughput (tok/s):",
		"Time to First Token", "End-to-end Latency", "Goodput",
		// Beside vLLM's line, goodput's says whose TTFT it judges.
		"Request goodput, due-time TTFT (req/s):", "Client", "==================================================",
	}
	at := 0
	for _, w := range order {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("%q missing or out of order in:\n%s", w, out)
		}
		at += i + len(w)
	}
	for _, absent := range []string{"Time per Output Token", "Inter-token Latency"} {
		if strings.Contains(out, absent) {
			t.Errorf("--percentile-metrics left out %q:\n%s", absent, out)
		}
	}
}

// The client's counts that are not latencies: empty answers, retries, the
// prompt cache and the server's own timings, each only when there is one.
func TestTextServerSideCounts(t *testing.T) {
	res := &metrics.Result{Percentiles: []float64{50, 99},
		Counts:      metrics.Counts{Total: 10, Completed: 10, NoToken: 2, Retried: 3},
		PromptCache: &metrics.PromptCache{Requests: 10, PromptTokens: 640, CachedTokens: 600, HitRate: 600.0 / 640},
		ServerTimings: &metrics.ServerTimings{Requests: 10,
			Prefill:        metrics.Distribution{Count: 10, Mean: 0.002, Median: 0.0015, Percentiles: []metrics.PercentileValue{{P: 50, Value: 0.0015}, {P: 99, Value: 0.004}}},
			DecodePerToken: metrics.Distribution{Count: 10, Mean: 0.0005, Median: 0.0005}},
	}
	var b strings.Builder
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"of which empty (no token):", "2 (no TTFT, never good)",
		"Retried on a new connection:", "3 (a kept-alive connection closed before any byte)",
		"Prompt cache hits (client):", "93.75% (600 of 640 prompt tokens, 10 requests)",
		"Server prefill (ms):", "mean 2.00, median 1.50, p99 4.00",
		"Server decode per token (ms):", "mean 0.50, median 0.50",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// vLLM's block keeps vLLM's lines: the retries are the client's.
	if r, c := strings.Index(out, "Retried on a new connection:"), strings.Index(out, "Client---"); r < c {
		t.Errorf("the retries are in vLLM's block, not the client's:\n%s", out)
	}
	var plain strings.Builder
	if err := Text(&plain, &metrics.Result{Counts: metrics.Counts{Total: 1, Completed: 1}}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"empty", "Retried", "Prompt cache", "Server prefill"} {
		if strings.Contains(plain.String(), absent) {
			t.Errorf("a run without %s mentions it:\n%s", absent, plain.String())
		}
	}
}

// Requests canceled at an interrupt are said to be canceled, and to be
// outside attainment, which is a fraction of the others.
func TestTextSaysCanceledRequestsAreOutsideAttainment(t *testing.T) {
	res := &metrics.Result{
		Counts:  metrics.Counts{Total: 10, Completed: 6, Failed: 4, Canceled: 2, Errors: map[string]int64{"canceled": 2, "timeout": 2}},
		Goodput: &metrics.Goodput{SLO: "ttft<=1s", GoodRequests: 6, Attainment: 0.75},
	}
	var b strings.Builder
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"4 (2 canceled by the client while in flight)",
		"75.00% (6 of 8 requests; the 2 canceled at the interrupt are outside it)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

// A run whose requests reasoned says how many did, splits their tokens,
// and adds TTFA and TPOT per kind beside the seeds' blocks; a run without
// reasoning prints none of it.
func TestTextShowsReasoningOnlyWhenThereWasSome(t *testing.T) {
	ttfa := metrics.Distribution{Count: 3, Mean: 1.2, Median: 1.0, Percentiles: []metrics.PercentileValue{{P: 50, Value: 1.0}, {P: 99, Value: 2.25}}}
	tr := metrics.Distribution{Count: 2, Mean: 0.02, Median: 0.02}
	ta := metrics.Distribution{Count: 3, Mean: 0.035, Median: 0.03}
	res := &metrics.Result{
		Counts: metrics.Counts{Total: 3, Completed: 3},
		Tokens: metrics.Tokens{Output: 90},
		Latency: metrics.Latency{TTFT: metrics.Distribution{Count: 3, Mean: 0.1, Median: 0.1},
			TTFA: &ttfa, TPOTReasoning: &tr, TPOTAnswer: &ta},
		Reasoning: &metrics.Reasoning{Requests: 2, Unanswered: 1, ReasoningTokens: 60, AnswerTokens: 30,
			ReasoningTokensPerSecond: 30, AnswerTokensPerSecond: 15, TokenSources: map[string]int64{"usage": 2}},
	}
	var b strings.Builder
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Requests that reasoned:", "2 of 3",
		"Reasoned without answering:", "1 (no answer token: cut off while thinking)",
		"Reasoning tokens:", "60", "Answer tokens:", "30",
		"Reasoning token throughput (tok/s):", "30.00", "Answer token throughput (tok/s):", "15.00",
		"Reasoning token counts from:", "usage 2",
		"Time to First Answer Token", "Mean TTFA (ms):", "1200.00", "Median TTFA (ms):", "1000.00", "P99 TTFA (ms):", "2250.00",
		"Time per Output Token, reasoning", "Mean TPOT-R (ms):", "20.00",
		"Time per Output Token, answer", "Mean TPOT-A (ms):", "35.00",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "Time to First Token"), strings.Index(out, "Time to First Answer Token"); i < 0 || j < i {
		t.Errorf("TTFA should follow TTFT:\n%s", out)
	}

	res.Reasoning, res.Latency.TTFA, res.Latency.TPOTReasoning, res.Latency.TPOTAnswer = nil, nil, nil, nil
	b.Reset()
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"Reasoning", "TTFA", "TPOT-R", "TPOT-A", "Answer"} {
		if strings.Contains(b.String(), absent) {
			t.Errorf("a run without reasoning mentions %q:\n%s", absent, b.String())
		}
	}
}

func TestTextPrefixGroups(t *testing.T) {
	res := &metrics.Result{Percentiles: []float64{50, 99}, PrefixGroups: []metrics.GroupResult{
		{Group: "system-1", Requests: 40, Completed: 40, TTFT: metrics.Distribution{Count: 40, Mean: 0.0452, Median: 0.041,
			Percentiles: []metrics.PercentileValue{{P: 50, Value: 0.041}, {P: 99, Value: 0.0803}}}},
		{Group: "system-2", Requests: 3, Completed: 0},
	}}
	var b strings.Builder
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TTFT by Prefix Group",
		"system-1 (ms):                           40 requests, mean 45.20, median 41.00, P99 80.30",
		"system-2 (ms):                           3 requests, no first token"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	// The groups past the first 12 are left to the JSON summary.
	for i := range 20 {
		res.PrefixGroups = append(res.PrefixGroups, metrics.GroupResult{Group: fmt.Sprintf("g%d", i), Requests: 1})
	}
	b.Reset()
	_ = Text(&b, res, TextOptions{})
	if !strings.Contains(b.String(), "10 more groups:") || strings.Contains(b.String(), "g10 (ms)") {
		t.Errorf("summary of 22 groups:\n%s", b.String())
	}
}

func TestMarkdownPrefixGroups(t *testing.T) {
	res := &metrics.Result{Percentiles: []float64{50, 99}, PrefixGroups: []metrics.GroupResult{
		{Group: "system-1", Requests: 40, Completed: 40, TTFT: metrics.Distribution{Count: 40, Mean: 0.0452, Median: 0.041, Max: 0.09,
			Percentiles: []metrics.PercentileValue{{P: 50, Value: 0.041}, {P: 99, Value: 0.0803}}}},
		{Group: "system-2", Requests: 3},
	}}
	var b strings.Builder
	if err := WriteRunMarkdown(&b, &Run{Name: "r", Result: res}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| prefix group | requests | TTFT (ms) count | mean | median | p99 | max |",
		"| system-1 | 40 | 40 | 45.20 | 41.00 | 80.30 | 90.00 |", "| system-2 | 3 | 0 | n/a | n/a | n/a | n/a |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}

// The Little's Law line says when failed requests are in L and not in
// λ·W̄, the gap's usual cause in a run with failures.
func TestTextLittlesLawGapNamesTheFailures(t *testing.T) {
	ll := metrics.LittlesLaw{InFlight: 5.44, RateTimesLatency: 5.08, RelativeGap: 0.066}
	for _, tt := range []struct {
		failed int64
		want   string
	}{
		{0, "5.08 (gap 6.6%)"},
		{2, "5.08 (gap 6.6%; L counts the 2 failed while in flight)"},
	} {
		var b strings.Builder
		res := &metrics.Result{Counts: metrics.Counts{Total: 30, Completed: 30 - tt.failed, Failed: tt.failed}, LittlesLaw: ll}
		if err := Text(&b, res, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("%d failed: summary lacks %q:\n%s", tt.failed, tt.want, b.String())
		}
	}
}

// L counts each request from when it was due: where requests waited in
// the client for a slot, its line says that the queued are in it.
func TestTextLittlesLawLineNamesTheClientQueue(t *testing.T) {
	for _, tt := range []struct {
		queue float64 // mean client queue, s
		want  string
	}{
		{0.0001, "Mean requests in flight (L):             12.00"},
		{0.05, "Mean requests in flight (L):             12.00"}, // under 1% of e2e: a start-up burst
		{5, "Mean requests queued or in flight (L):   12.00"},
	} {
		res := &metrics.Result{Counts: metrics.Counts{Total: 30, Completed: 30}, LittlesLaw: metrics.LittlesLaw{InFlight: 12, RateTimesLatency: 12}}
		res.Latency.ClientQueue = metrics.Distribution{Count: 30, Mean: tt.queue}
		res.Latency.E2E = metrics.Distribution{Count: 30, Mean: 10}
		var b strings.Builder
		if err := Text(&b, res, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("client queue %v s: summary lacks %q:\n%s", tt.queue, tt.want, b.String())
		}
	}
}

// A diffusion model's run gets vLLM's Diffusion Decoding block after the
// latency and queueing blocks, over the run's 10 s: 6400 tokens committed
// in 1200 steps over 38400 positions are 200 canvases of 32 and 1000
// denoising steps. vLLM prints no Speculative Decoding block beside it,
// but does without it, and when the counts give no figures.
func TestTextDiffusionDecodingBlock(t *testing.T) {
	res := &metrics.Result{
		Counts:  metrics.Counts{Total: 4, Completed: 4},
		Window:  metrics.Window{Seconds: 10},
		Latency: metrics.Latency{TTFT: metrics.Distribution{Count: 4, Mean: 0.1}, E2E: metrics.Distribution{Count: 4, Mean: 1}},
	}
	lines := &VLLMLines{
		Queue:      []Block{{Title: "Client-side Queueing", Short: "Client Queue Time", D: metrics.Distribution{Count: 4}}},
		SpecDecode: &vllmresult.SpecDecode{Drafts: 10, DraftTokens: 30, Accepted: 20},
		Diffusion:  &vllmresult.Diffusion{Steps: 1200, Positions: 38400, Committed: 6400},
	}
	text := func() string {
		var b strings.Builder
		if err := Text(&b, res, TextOptions{Metrics: []string{"ttft", "e2el"}, VLLM: lines}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	out := text()
	block := "----------------Diffusion Decoding----------------\n" +
		"Committed throughput (tok/s):            640.00\n" +
		"Denoising steps per canvas:              5.00\n" +
		"Committed per denoising step:            6.40\n" +
		"Committed tokens:                        6400\n" +
		"Denoising steps:                         1000\n" +
		"Canvas positions evaluated:              38400\n"
	i, j := strings.Index(out, "Client-side Queueing"), strings.Index(out, block)
	if j < 0 || i < 0 || j < i || !strings.Contains(out[:j], "End-to-end Latency") {
		t.Errorf("no Diffusion Decoding block after the latency and queueing blocks:\n%s", out)
	}
	if strings.Contains(out, "Speculative Decoding") {
		t.Errorf("the Speculative Decoding block is printed beside the Diffusion Decoding one:\n%s", out)
	}
	// Counts that leave no denoising step: no block, and the spec one.
	lines.Diffusion = &vllmresult.Diffusion{Steps: 200, Positions: 6400, Committed: 6400}
	if out := text(); strings.Contains(out, "Diffusion Decoding") || !strings.Contains(out, "Speculative Decoding") {
		t.Errorf("200 steps that are all commit steps:\n%s", out)
	}
	lines.Diffusion = nil
	if out := text(); strings.Contains(out, "Diffusion Decoding") || !strings.Contains(out, "Acceptance length:                       3.00\n") {
		t.Errorf("without diffusion:\n%s", out)
	}
}

// A window in which no time passed (or less than a microsecond) has no
// rates, and a run that measured no request no attainment: each says n/a, never a 0.00 that reads as a
// server that did nothing.
func TestTextSaysNAWhereThereIsNoRate(t *testing.T) {
	res := &metrics.Result{Counts: metrics.Counts{Total: 1, Completed: 1}, Tokens: metrics.Tokens{Input: 10, Output: 2},
		Goodput: &metrics.Goodput{SLO: "ttft<=500ms"}}
	var b strings.Builder
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Request throughput (req/s):              n/a (no time passed)\n",
		"Output token throughput (tok/s):         n/a (no time passed)\n",
		"Total token throughput (tok/s):          n/a (no time passed)\n",
		"Goodput (tok/s):                         n/a (no time passed)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	// A million tokens in a nanosecond: no rate a server could have.
	b.Reset()
	res.Window.Seconds, res.Tokens.Output = 1e-9, 1e6
	res.Throughput.OutputTokensPerSecond = 1e15
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "Output token throughput (tok/s):         n/a (a window under 1 µs: no server answers that fast)\n"; !strings.Contains(b.String(), want) || strings.Contains(b.String(), "1000000000000000") {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
	b.Reset()
	warm := &metrics.Result{Counts: metrics.Counts{WarmupExcluded: 3}, Goodput: &metrics.Goodput{SLO: "ttft<=500ms"}}
	if err := Text(&b, warm, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if want := "SLO attainment:                          n/a (no request measured)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}
