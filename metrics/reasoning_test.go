package metrics

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// thinking builds a reply scheduled and sent at 0 whose reasoning chunks
// arrive at think (ms) and whose answer chunks at answer (ms), one token
// each, counted over the chunks.
func thinking(think []float64, answer []float64) *record.Record {
	r := &record.Record{TokenSource: record.SourceChunks}
	for _, at := range think {
		r.Chunks = append(r.Chunks, record.Chunk{At: ms(at), Tokens: 1, Reasoning: true})
	}
	r.Chunks = append(r.Chunks, oneTokenChunks(answer...)...)
	r.OutputTokens = len(r.Chunks)
	r.End = r.Chunks[len(r.Chunks)-1].At + ms(10)
	if len(think) > 0 {
		r.ReasoningTokens, r.ReasoningSource = len(think), record.SourceChunks
	}
	return r
}

// reasoningRequests is a hand-checked example in the seeds' style: four
// requests, all scheduled and sent at 0, times in ms.
//
//	A  thinks at 100 120 140 160, answers at 300 320 340
//	   N 7, reasoning 4, answer 3
//	   TTFT 100, TTFA 300, TPOT (340−100)/6 = 40,
//	   over reasoning (160−100)/3 = 20, over the answer (340−300)/2 = 20
//	B  no reasoning: 50 80 110; TTFT = TTFA = 50, TPOT = over the answer = 30
//	C  thinks at 200 250 and is cut off (max_tokens): no answer, no TTFA;
//	   TPOT = over reasoning = 50
//	D  reasoning the server counted but did not stream (10 of 12 tokens):
//	   answer chunks at 400 and 410; TTFT = TTFA = 400,
//	   TPOT 10/11 ≈ 0.909, over the answer 10/1 = 10
func reasoningRequests() []*record.Record {
	a := thinking([]float64{100, 120, 140, 160}, []float64{300, 320, 340})
	b := thinking(nil, []float64{50, 80, 110})
	c := thinking([]float64{200, 250}, nil)
	c.Finish = "length"
	d := thinking(nil, []float64{400, 410})
	d.OutputTokens, d.TokenSource, d.ReasoningTokens, d.ReasoningSource = 12, record.SourceUsage, 10, record.SourceUsage
	return []*record.Record{a, b, c, d}
}

func TestComputeReasoning(t *testing.T) {
	msd := func(v float64) time.Duration { return time.Duration(ms(v)) }
	rs := reasoningRequests()
	tests := []struct {
		name           string
		r              *record.Record
		rt, at         int
		ttft, ttfa     time.Duration
		hasTTFA        bool
		tpot, tr, ta   time.Duration
		hasTR, hasTA   bool
		reasoned, tpok bool
	}{
		// thinks, then answers
		{"A", rs[0], 4, 3, msd(100), msd(300), true, msd(40), msd(20), msd(20), true, true, true, true},
		// does not reason: the answer metrics are the seeds' ones
		{"B", rs[1], 0, 3, msd(50), msd(50), true, msd(30), 0, msd(30), false, true, false, true},
		// cut off while thinking: no answer, so no TTFA and no TPOT over it
		{"C", rs[2], 2, 0, msd(200), 0, false, msd(50), msd(50), 0, true, false, true, true},
		// hidden reasoning: the first token is the answer's
		{"D", rs[3], 10, 2, msd(400), msd(400), true, time.Duration(909091), 0, msd(10), false, true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Compute(tt.r)
			if q.Reasoned != tt.reasoned || q.ReasoningTokens != tt.rt || q.AnswerTokens != tt.at {
				t.Errorf("reasoned %v, tokens %d + %d; want %v, %d + %d", q.Reasoned, q.ReasoningTokens, q.AnswerTokens, tt.reasoned, tt.rt, tt.at)
			}
			if q.TTFT != tt.ttft || q.HasTTFA != tt.hasTTFA || q.TTFA != tt.ttfa {
				t.Errorf("TTFT %v, TTFA %v (%v); want %v, %v (%v)", q.TTFT, q.TTFA, q.HasTTFA, tt.ttft, tt.ttfa, tt.hasTTFA)
			}
			if q.HasTPOT != tt.tpok || q.TPOT != tt.tpot {
				t.Errorf("TPOT %v (%v), want %v", q.TPOT, q.HasTPOT, tt.tpot)
			}
			if q.HasTPOTReasoning != tt.hasTR || q.TPOTReasoning != tt.tr || q.HasTPOTAnswer != tt.hasTA || q.TPOTAnswer != tt.ta {
				t.Errorf("TPOT over reasoning %v (%v), over the answer %v (%v); want %v (%v), %v (%v)",
					q.TPOTReasoning, q.HasTPOTReasoning, q.TPOTAnswer, q.HasTPOTAnswer, tt.tr, tt.hasTR, tt.ta, tt.hasTA)
			}
		})
	}
}

// Sad paths of the per-request reasoning metrics.
func TestComputeReasoningEdges(t *testing.T) {
	tests := []struct {
		name    string
		r       *record.Record
		rt, at  int
		hasTTFA bool
		hasTR   bool
		hasTA   bool
	}{
		// one reasoning token: no TPOT over reasoning; one answer token: none over the answer
		{"one of each", thinking([]float64{10}, []float64{20}), 1, 1, true, false, false},
		// a count above the output (no record passes Check with one) is
		// capped at the output: nothing is left for the answer
		{"count above output", func() *record.Record {
			r := thinking([]float64{10, 20}, []float64{30})
			r.ReasoningTokens = 99
			return r
		}(), 3, 0, true, true, false},
		// chunks marked reasoning but no count: read as a reply without
		// reasoning, every chunk answer (such a record fails record.Check)
		{"marked but uncounted", func() *record.Record {
			r := thinking([]float64{10, 20}, []float64{30})
			r.ReasoningTokens = 0
			return r
		}(), 0, 3, true, false, true},
		// no token at all, yet a count: reasoned, nothing arrived
		{"count without chunks", &record.Record{ReasoningTokens: 5, OutputTokens: 5, End: 10}, 5, 0, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := Compute(tt.r)
			if q.ReasoningTokens != tt.rt || q.AnswerTokens != tt.at || q.HasTTFA != tt.hasTTFA || q.HasTPOTReasoning != tt.hasTR || q.HasTPOTAnswer != tt.hasTA {
				t.Errorf("got %+v", q)
			}
		})
	}
}

func TestSummaryReasoning(t *testing.T) {
	s := NewSummary(Options{Percentiles: []float64{50, 100}})
	for _, r := range reasoningRequests() {
		s.Add(r)
	}
	// A failed reply that reasoned counts nowhere.
	failed := thinking([]float64{5}, []float64{6})
	failed.Error, failed.Msg = record.ErrReset, "cut"
	s.Add(failed)
	res := s.Close()

	approx := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %.12g, want %.12g", what, got, want)
		}
	}
	// TTFT counts every completed request, reasoning or not.
	approx("TTFT mean", res.Latency.TTFT.Mean, (0.100+0.050+0.200+0.400)/4)
	if res.Latency.TTFT.Count != 4 || res.Latency.TPOT.Count != 4 {
		t.Errorf("TTFT %d, TPOT %d values, want 4 each", res.Latency.TTFT.Count, res.Latency.TPOT.Count)
	}
	ttfa := res.Latency.TTFA
	if ttfa == nil || ttfa.Count != 3 {
		t.Fatalf("TTFA = %+v, want 3 values (C never answered)", ttfa)
	}
	approx("TTFA mean", ttfa.Mean, (0.300+0.050+0.400)/3)
	approx("TTFA median", ttfa.Median, 0.300)
	approx("TTFA max", ttfa.Max, 0.400)
	tr, ta := res.Latency.TPOTReasoning, res.Latency.TPOTAnswer
	if tr.Count != 2 || ta.Count != 3 {
		t.Fatalf("TPOT over reasoning %d, over the answer %d values; want 2 and 3", tr.Count, ta.Count)
	}
	approx("TPOT over reasoning mean", tr.Mean, (0.020+0.050)/2)
	approx("TPOT over the answer mean", ta.Mean, (0.020+0.030+0.010)/3)
	approx("TPOT over the answer median", ta.Median, 0.020)

	rs := res.Reasoning
	if rs == nil {
		t.Fatal("no Reasoning in the result")
	}
	if rs.Requests != 3 || rs.Unanswered != 1 || rs.ReasoningTokens != 16 || rs.AnswerTokens != 8 {
		t.Errorf("reasoning %+v; want 3 requests, 1 unanswered, 16 reasoning and 8 answer tokens", rs)
	}
	if rs.ReasoningTokens+rs.AnswerTokens != res.Tokens.Output {
		t.Errorf("%d reasoning + %d answer tokens ≠ %d output", rs.ReasoningTokens, rs.AnswerTokens, res.Tokens.Output)
	}
	// W runs from 0 to D's end at 420 ms.
	approx("reasoning tok/s", rs.ReasoningTokensPerSecond, 16/0.420)
	approx("answer tok/s", rs.AnswerTokensPerSecond, 8/0.420)
	if rs.TokenSources["chunks"] != 2 || rs.TokenSources["usage"] != 1 || len(rs.TokenSources) != 2 {
		t.Errorf("reasoning token sources %v, want chunks 2, usage 1", rs.TokenSources)
	}
	for _, m := range ReasoningMetrics() {
		if d := res.Distribution(m); d == nil || d.Count == 0 {
			t.Errorf("Distribution(%s) = %+v", m, d)
		}
	}
}

// A run in which nothing reasoned reports nothing of reasoning, and its
// JSON has no reasoning keys; asked for, TTFA reads as TTFT.
func TestSummaryWithoutReasoning(t *testing.T) {
	s := NewSummary(Options{})
	for _, r := range seedRequests() {
		s.Add(r)
	}
	res := s.Close()
	if res.Reasoning != nil || res.Latency.TTFA != nil || res.Latency.TPOTReasoning != nil || res.Latency.TPOTAnswer != nil {
		t.Errorf("reasoning reported for a run without any: %+v %+v", res.Reasoning, res.Latency)
	}
	if res.Distribution(MetricTTFA) != &res.Latency.TTFT || res.Distribution(MetricTPOTAnswer) != &res.Latency.TPOT {
		t.Error("TTFA and TPOT over the answer must read as TTFT and TPOT")
	}
	if d := res.Distribution(MetricTPOTReasoning); d == nil || d.Count != 0 {
		t.Errorf("TPOT over reasoning = %+v, want an empty distribution", d)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"reasoning"`, `"ttfa"`, `"tpot_reasoning"`, `"tpot_answer"`} {
		if strings.Contains(string(b), key) {
			t.Errorf("JSON of a run without reasoning has %s", key)
		}
	}

	s = NewSummary(Options{})
	for _, r := range reasoningRequests() {
		s.Add(r)
	}
	b, _ = json.Marshal(s.Close())
	for _, key := range []string{`"reasoning":{"requests":3`, `"ttfa":{"count":3`, `"tpot_reasoning":{"count":2`, `"tpot_answer":{"count":3`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON of a run with reasoning lacks %s:\n%s", key, b)
		}
	}
}
