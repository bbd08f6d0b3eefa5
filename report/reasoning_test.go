package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// thinkFirst marks the first think chunks of every request but each
// fourth (which does not reason) as reasoning, counted over the chunks.
// The first request does not reason, so the run starts like one of a
// model that does not.
func thinkFirst(think int) func(i int, r *record.Record) {
	return func(i int, r *record.Record) {
		if i%4 == 0 {
			return
		}
		for k := range think {
			r.Chunks[k].Reasoning = true
		}
		r.ReasoningTokens, r.ReasoningSource = think, record.SourceChunks
	}
}

// A run whose replies reasoned draws TTFA, and its histograms count every
// request, those before the first that reasoned included.
func TestRunBuilderReasoning(t *testing.T) {
	// 40 requests of 20 tokens 10 ms apart; TTFT 20–49 ms; 30 of them
	// think for 8 tokens, so their first answer token is 80 ms after their
	// first token.
	h, recs := shaped(t, "", 40, 100*time.Millisecond, 20, thinkFirst(8))
	run := build(h, recs, RunOptions{})
	res := run.Result
	if res.Reasoning == nil || res.Reasoning.Requests != 30 || res.Reasoning.ReasoningTokens != 240 || res.Reasoning.AnswerTokens != 800-240 {
		t.Fatalf("reasoning %+v", res.Reasoning)
	}
	for _, m := range []metrics.Metric{metrics.MetricTTFA, metrics.MetricTPOTAnswer} {
		if h := run.Latency[m]; h == nil || h.Count() != 40 {
			t.Errorf("%s histogram counts %v, want every request (40)", m, h)
		}
	}
	if h := run.Latency[metrics.MetricTPOTReasoning]; h == nil || h.Count() != 30 {
		t.Errorf("tpot_reasoning histogram %v, want the 30 that reasoned", h)
	}
	// TTFA of a reasoning request: TTFT + 8 × 10 ms. The largest is
	// request 29's: TTFT 20 + 29 % 30 = 49 ms, plus 80 ms.
	if got, want := run.Latency[metrics.MetricTTFA].Max(), 0.129; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("largest TTFA %v s, want %v", got, want)
	}
	if s := run.samples[metrics.MetricTTFA]; s == nil || s.seen != 40 {
		t.Errorf("TTFA values kept for resampling: %+v", s)
	}

	plain := build2(shaped(t, "", 40, 100*time.Millisecond, 20, nil))
	if plain.Latency[metrics.MetricTTFA] != nil || plain.samples[metrics.MetricTTFA] != nil {
		t.Error("a run without reasoning keeps reasoning histograms")
	}
}

// build2 adapts shaped's two results to build.
func build2(h record.Header, recs []record.Record) *Run { return build(h, recs, RunOptions{}) }

func TestRunPagesShowReasoningOnlyWhenThereWasSome(t *testing.T) {
	run := build2(shaped(t, "", 40, 100*time.Millisecond, 20, thinkFirst(8)))
	plain := build2(shaped(t, "", 40, 100*time.Millisecond, 20, nil))

	var page bytes.Buffer
	if err := WriteRunHTML(&page, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Time to first answer token (after the reasoning)", "TTFA (ms)", ">ttfa<", ">tpot_reasoning<", ">tpot_answer<",
		"30 of 40 completed requests reasoned before answering: 240 reasoning and 560 answer tokens",
	} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the run page lacks %q", want)
		}
	}
	var md bytes.Buffer
	if err := WriteRunMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| requests that reasoned | 30 of 40 (0 never answered) |", "| ttfa |", "| tpot_reasoning |", "| tpot_answer |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}

	page.Reset()
	md.Reset()
	if err := WriteRunHTML(&page, plain, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteRunMarkdown(&md, plain); err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"TTFA", "ttfa", "tpot_reasoning", "reasoned"} {
		if strings.Contains(page.String(), absent) || strings.Contains(md.String(), absent) {
			t.Errorf("a run without reasoning mentions %q", absent)
		}
	}
}

// Comparing runs of a reasoning model adds TTFA with its interval, TPOT
// per kind and the tokens per kind; a reasoning run against one that did
// not reason is flagged.
func TestCompareReasoning(t *testing.T) {
	a := build2(shaped(t, "", 60, 100*time.Millisecond, 20, thinkFirst(8)))
	b := build2(shaped(t, "", 60, 100*time.Millisecond, 20, thinkFirst(12)))
	c, err := Compare([]*Run{a, b}, CompareOptions{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	ttfa := c.Row("ttfa_p50")
	if ttfa == nil || len(ttfa.Diffs) != 2 || !ttfa.Diffs[1].HasCI || ttfa.Diffs[1].Verdict != Worse {
		t.Fatalf("ttfa_p50 row %+v: want an interval and 'worse' (4 more tokens of thought)", ttfa)
	}
	// Each reasoning request answers 40 ms later; p50 moves by that.
	if d := ttfa.Diffs[1].Abs; d < 0.039 || d > 0.041 {
		t.Errorf("ttfa_p50 moved %v s, want 0.04", d)
	}
	if r := c.Row("reasoning_tokens_mean"); r == nil || r.Values[0] != 6 || r.Values[1] != 9 {
		t.Errorf("reasoning_tokens_mean %+v, want 6 and 9 (three in four of 8 and 12)", r)
	}
	for _, key := range []string{"ttfa_p99", "tpot_reasoning_p50", "tpot_answer_p50", "answer_tokens_mean"} {
		if c.Row(key) == nil {
			t.Errorf("no %s row", key)
		}
	}
	for _, w := range c.Warnings {
		if w.Kind == WarnReasoning {
			t.Errorf("two reasoning runs flagged: %s", w.Text)
		}
	}

	plain := build2(shaped(t, "", 60, 100*time.Millisecond, 20, nil))
	c, err = Compare([]*Run{plain, a}, CompareOptions{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range c.Warnings {
		found = found || w.Kind == WarnReasoning && strings.Contains(w.Text, "compare TTFA")
	}
	if !found {
		t.Errorf("no reasoning warning in %+v", c.Warnings)
	}
	// The run without reasoning answers TTFA with its TTFT, interval included.
	if r := c.Row("ttfa_p50"); r == nil || !r.Diffs[1].HasCI || r.Values[0] != c.Row("ttft_p50").Values[0] {
		t.Errorf("ttfa_p50 %+v, want the baseline's TTFT and an interval", r)
	}

	c, err = Compare([]*Run{plain, plain}, CompareOptions{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if c.Row("ttfa_p50") != nil || c.Row("reasoning_tokens_mean") != nil {
		t.Error("a comparison without reasoning has reasoning rows")
	}
}
