package report

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
)

// The errors block gives each kind's count and its first message, cut to
// 100 characters, so that a run whose requests all failed says why.
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
	want := "2 (first: " + shorten(long, 100) + ")"
	if !strings.Contains(out, want) || !strings.Contains(out, "…)") {
		t.Errorf("errors block lacks %q:\n%s", want, out)
	}
	if !strings.Contains(out, "timeout:") || strings.Contains(out, "1 (first:") {
		t.Errorf("a kind without a message should show its count alone:\n%s", out)
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
		"4 (2 canceled: in flight at the interrupt)",
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
