package slo

import (
	"errors"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

func TestParseConditions(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		in   string
		want Conditions
	}{
		{"one", "ttft<=500ms", Conditions{{metrics.MetricTTFT, LE, 500 * ms}}},
		{"all four metrics", "ttft<=500ms,tpot<=50ms,e2e<=10s,itl<=200ms", Conditions{
			{metrics.MetricTTFT, LE, 500 * ms}, {metrics.MetricTPOT, LE, 50 * ms},
			{metrics.MetricE2E, LE, 10 * time.Second}, {metrics.MetricITL, LE, 200 * ms}}},
		{"every operator", "ttft<1s,tpot>=1ms,e2e>2us,client_queue<=0ns", Conditions{
			{metrics.MetricTTFT, LT, time.Second}, {metrics.MetricTPOT, GE, ms},
			{metrics.MetricE2E, GT, 2 * time.Microsecond}, {metrics.MetricClientQueue, LE, 0}}},
		{"every unit", "ttft<=1ns,tpot<=1us,itl<=1µs,e2e<=1μs,ttft_sent<=1ms,inter_chunk<=1s,e2e<=2m", Conditions{
			{metrics.MetricTTFT, LE, 1}, {metrics.MetricTPOT, LE, time.Microsecond},
			{metrics.MetricITL, LE, time.Microsecond}, {metrics.MetricE2E, LE, time.Microsecond},
			{metrics.MetricTTFTSent, LE, ms}, {metrics.MetricInterChunk, LE, time.Second},
			{metrics.MetricE2E, LE, 2 * time.Minute}}},
		{"spaces and case", "  TTFT <= 0.5s ,  tpot< 50ms  ", Conditions{
			{metrics.MetricTTFT, LE, 500 * ms}, {metrics.MetricTPOT, LT, 50 * ms}}},
		{"spaces separate too", "ttft<=500ms tpot<=50ms", Conditions{
			{metrics.MetricTTFT, LE, 500 * ms}, {metrics.MetricTPOT, LE, 50 * ms}}},
		{"vllm form", "ttft:500 tpot:50 e2el:2000", Conditions{
			{metrics.MetricTTFT, LE, 500 * ms}, {metrics.MetricTPOT, LE, 50 * ms}, {metrics.MetricE2E, LE, 2 * time.Second}}},
		{"vllm form, fractional ms and commas", "ttft:0.5,tpot:12.25", Conditions{
			{metrics.MetricTTFT, LE, 500 * time.Microsecond}, {metrics.MetricTPOT, LE, 12250 * time.Microsecond}}},
		{"a range on one metric", "ttft>=10ms,ttft<=1s", Conditions{
			{metrics.MetricTTFT, GE, 10 * ms}, {metrics.MetricTTFT, LE, time.Second}}},
		{"reasoning metrics", "ttfa<=2s,tpot_reasoning<=20ms,tpot_answer<50ms", Conditions{
			{metrics.MetricTTFA, LE, 2 * time.Second}, {metrics.MetricTPOTReasoning, LE, 20 * ms},
			{metrics.MetricTPOTAnswer, LT, 50 * ms}}},
		// AIPerf's and GenAI-Perf's --goodput: their inter_token_latency
		// is a request's (e2e − TTFT)/(N − 1), which is TPOT.
		{"aiperf's names", "time_to_first_token:100 inter_token_latency:3.40 request_latency:2500", Conditions{
			{metrics.MetricTTFT, LE, 100 * ms}, {metrics.MetricTPOT, LE, 3400 * time.Microsecond}, {metrics.MetricE2E, LE, 2500 * ms}}},
		{"reasoning metrics, vllm form", "ttfa:2000 tpot_answer:50", Conditions{
			{metrics.MetricTTFA, LE, 2 * time.Second}, {metrics.MetricTPOTAnswer, LE, 50 * ms}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConditions(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !equalConditions(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			back, err := ParseConditions(got.String())
			if err != nil || !equalConditions(back, got) {
				t.Fatalf("String %q reads back as %v, %v", got.String(), back, err)
			}
		})
	}
}

func equalConditions(a, b Conditions) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseConditionsErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string // the whole message
	}{
		{"ttft<=5xx", `slo "ttft<=5xx": at column 8: unknown unit "xx" (want ns, us, ms, s, m)`},
		{"", `slo "": at column 1: empty (want conditions like ttft<=500ms,tpot<=50ms)`},
		{"   ", `slo "   ": at column 4: empty (want conditions like ttft<=500ms,tpot<=50ms)`},
		{"ttft<=500", `slo "ttft<=500": at column 10: missing unit after 500 (want ns, us, ms, s, m)`},
		{"ttft<=500 ms", `slo "ttft<=500 ms": at column 10: missing unit after 500 (want ns, us, ms, s, m)`},
		{"latency<=1s", `slo "latency<=1s": at column 1: unknown metric "latency" (want ttft, tpot, itl, inter_chunk, e2e, client_queue, ttft_sent, or for reasoning models ttfa, tpot_reasoning, tpot_answer)`},
		{"output_token_throughput_per_user:650", `slo "output_token_throughput_per_user:650": at column 1: unknown metric "output_token_throughput_per_user" (a bound on tokens per second per request is one on TPOT, its inverse: give tpot:MS with MS = 1000 / (tokens per second))`},
		{"ttft=1s", `slo "ttft=1s": at column 5: want <=, <, >= or >, not '='`},
		{"ttft 1s", `slo "ttft 1s": at column 6: want <=, <, >= or > here, found '1'`},
		{"ttft<=-1s", `slo "ttft<=-1s": at column 7: want a number without a sign, found '-'`},
		{"ttft<=s", `slo "ttft<=s": at column 7: want a number, found 's'`},
		{"ttft<=1.s", `slo "ttft<=1.s": at column 9: want digits after the decimal point, found 's'`},
		{"ttft<=0.5ns", `slo "ttft<=0.5ns": at column 7: 0.5ns: finer than a nanosecond`},
		{"ttft<=9999999999999s", `slo "ttft<=9999999999999s": at column 7: 9999999999999s: out of range`},
		{"ttft<=1s,", `slo "ttft<=1s,": at column 9: a condition must follow ','`},
		{"ttft<=1s,,tpot<=1s", `slo "ttft<=1s,,tpot<=1s": at column 10: want a metric name, found ','`},
		{"ttft<=1s)", `slo "ttft<=1s)": at column 9: want ',' between conditions, found ')'`},
		{"ttft:500,tpot<=50ms", `slo "ttft:500,tpot<=50ms": at column 5: want <=, <, >= or > here, found ':'`},
		{"ttft:abc", `slo "ttft:abc": at column 6: want a number, found 'a'`},
		{"ttft:-5", `slo "ttft:-5": at column 6: want a number without a sign, found '-'`},
		{"ttft:5ms", `slo "ttft:5ms": at column 7: want a number of milliseconds, found 'm' after it`},
		{"ttft 500:", `slo "ttft 500:": at column 5: want ':' after ttft, found ' '`},
		{"ttft:0.0000001", `slo "ttft:0.0000001": at column 6: 0.0000001 ms: finer than a nanosecond`},
		{"µs<=1s", `slo "µs<=1s": at column 1: want a metric name, found 'µ'`},
		{"tpot<=1µx", `slo "tpot<=1µx": at column 8: unknown unit "µx" (want ns, us, ms, s, m)`},
	}
	for _, tt := range tests {
		_, err := ParseConditions(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseConditions(%q)\n error %v\n want  %s", tt.in, err, tt.want)
		}
	}
	_, err := ParseConditions("foo<=1s")
	if !errors.Is(err, ErrUnknownMetric) {
		t.Errorf("unknown metric error %v does not wrap ErrUnknownMetric", err)
	}
}

// TestConditionsGood pins each metric's reading, vacuous truth and the
// rule that failures are never good.
func TestConditionsGood(t *testing.T) {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	// A request with every value defined: TTFT 200, queue 20, ttft_sent
	// 180, TPOT 40, e2e 400, per-token ITL 10–80, chunk gaps 30–80.
	full := metrics.Request{OK: true, HasSent: true, HasFirstToken: true, HasTPOT: true, HasE2E: true, HasGaps: true,
		TTFT: ms(200), ClientQueue: ms(20), TTFTSent: ms(180), TPOT: ms(40), E2E: ms(400),
		ITLMin: ms(10), ITLMax: ms(80), ChunkGapMin: ms(30), ChunkGapMax: ms(80)}
	oneToken := metrics.Request{OK: true, HasSent: true, HasFirstToken: true, HasE2E: true, TTFT: ms(100), E2E: ms(100)}
	failed := full
	failed.OK, failed.Error = false, record.ErrTimeout
	// A success that carried no token: e2e only.
	empty := metrics.Request{OK: true, HasSent: true, HasE2E: true, E2E: ms(30)}

	tests := []struct {
		name string
		slo  string
		q    metrics.Request
		want bool
	}{
		{"ttft within", "ttft<=200ms", full, true},    // equal passes <=
		{"ttft strict", "ttft<200ms", full, false},    // equal fails <
		{"ttft_sent", "ttft_sent<=180ms", full, true}, // from the send time
		{"client queue", "client_queue<20ms", full, false},
		{"tpot", "tpot<=40ms,ttft<=500ms", full, true}, // ANDed, both hold
		{"one fails all fail", "tpot<=39ms,ttft<=500ms", full, false},
		{"e2e", "e2e>=400ms", full, true},
		{"itl upper bound reads the largest", "itl<=79ms", full, false},
		{"itl upper bound holds", "itl<=80ms", full, true},
		{"itl lower bound reads the smallest", "itl>=11ms", full, false},
		{"itl lower bound holds", "itl>10ms,itl>=10ms", full, false}, // > is strict
		{"inter-chunk bounds", "inter_chunk>=30ms,inter_chunk<=80ms", full, true},
		{"N = 1: a TPOT condition holds vacuously", "ttft<=500ms,tpot<=50ms", oneToken, true},
		{"N = 1: an ITL condition holds vacuously", "itl<=1ns", oneToken, true},
		{"failed is never good", "ttft<=10s", failed, false},
		{"an empty answer is never good", "ttft<=10s", empty, false},
		{"an empty answer is never good, even on e2e alone", "e2e<=1s", empty, false},
		{"vllm form", "ttft:200 tpot:40 e2el:400", full, true},
		{"vllm form, one over", "ttft:199.999999", full, false},
	}
	for _, tt := range tests {
		cs, err := ParseConditions(tt.slo)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := cs.Good(tt.q); got != tt.want {
			t.Errorf("%s: %q Good = %v, want %v", tt.name, tt.slo, got, tt.want)
		}
	}
	if (Condition{Metric: "bogus", Op: LE, Bound: time.Hour}).Holds(full) {
		t.Error("a condition on an unknown metric held")
	}
}

// The reasoning conditions read their own values; ttfa does not hold for
// a reply that never answered.
func TestConditionsGoodReasoning(t *testing.T) {
	ms := func(v int) time.Duration { return time.Duration(v) * time.Millisecond }
	// Thought from 100 ms, answered at 1.5 s: TPOT over reasoning 20 ms,
	// over the answer 40 ms.
	thought := metrics.Request{OK: true, HasSent: true, HasFirstToken: true, HasTPOT: true, HasE2E: true,
		TTFT: ms(100), TPOT: ms(30), E2E: ms(2000), Reasoned: true, ReasoningTokens: 70, AnswerTokens: 13,
		HasTTFA: true, TTFA: ms(1500), HasTPOTReasoning: true, TPOTReasoning: ms(20), HasTPOTAnswer: true, TPOTAnswer: ms(40)}
	// Cut off while thinking: no answer token.
	cut := thought
	cut.HasTTFA, cut.TTFA, cut.HasTPOTAnswer, cut.TPOTAnswer, cut.AnswerTokens = false, 0, false, 0, 0
	// No reasoning: TTFA is TTFT, no TPOT over reasoning.
	plain := metrics.Request{OK: true, HasSent: true, HasFirstToken: true, HasTPOT: true, HasE2E: true,
		TTFT: ms(300), TPOT: ms(25), E2E: ms(900), HasTTFA: true, TTFA: ms(300), HasTPOTAnswer: true, TPOTAnswer: ms(25)}
	failed := thought
	failed.OK, failed.Error = false, record.ErrReset

	tests := []struct {
		name string
		slo  string
		q    metrics.Request
		want bool
	}{
		{"ttfa within", "ttfa<=1500ms", thought, true},                  // equal passes <=
		{"ttfa over", "ttfa<=1499ms", thought, false},                   // one ms late
		{"ttft is still the first token", "ttft<=100ms", thought, true}, // thinking counts
		{"ttfa, not ttft, sees the thinking", "ttft<=2s,ttfa<=1s", thought, false},
		{"tpot over reasoning", "tpot_reasoning<=20ms", thought, true},
		{"tpot over reasoning, strict", "tpot_reasoning<20ms", thought, false},
		{"tpot over the answer", "tpot_answer<=40ms,tpot<=30ms", thought, true},
		{"tpot over the answer, one over", "tpot_answer<=39ms", thought, false},
		{"never answered: no ttfa in time", "ttfa<=10s", cut, false},
		{"never answered: even a lower bound fails", "ttfa>=0s", cut, false},
		{"never answered: tpot_answer vacuous", "tpot_answer<=1ns", cut, true},
		{"no reasoning: ttfa is ttft", "ttfa<=300ms", plain, true},
		{"no reasoning: ttfa is ttft, over", "ttfa<300ms", plain, false},
		{"no reasoning: tpot_reasoning vacuous", "tpot_reasoning<=1ns", plain, true},
		{"no reasoning: tpot_answer is tpot", "tpot_answer<=25ms", plain, true},
		{"failed is never good", "ttfa<=10s", failed, false},
	}
	for _, tt := range tests {
		cs, err := ParseConditions(tt.slo)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := cs.Good(tt.q); got != tt.want {
			t.Errorf("%s: %q Good = %v, want %v", tt.name, tt.slo, got, tt.want)
		}
	}
}

// TestConditionsApply: the seed example end to end through a Summary.
func TestConditionsApply(t *testing.T) {
	cs, err := ParseConditions("ttft:500 tpot:50")
	if err != nil {
		t.Fatal(err)
	}
	var o metrics.Options
	cs.Apply(&o)
	if o.SLO != "ttft<=500ms,tpot<=50ms" {
		t.Errorf("SLO = %q", o.SLO)
	}
	s := metrics.NewSummary(o)
	for _, r := range seedRecords() {
		s.Add(r)
	}
	g := s.Close().Goodput
	if g == nil || g.GoodOutputTokens != 11 || g.SLO != o.SLO {
		t.Fatalf("goodput = %+v, want 11 good tokens", g)
	}
	if got := g.OutputTokensPerSecond; got < 10-1e-9 || got > 10+1e-9 {
		t.Errorf("goodput = %v tok/s, want 10.00", got)
	}
}

// seedRecords are the seed documents' three requests (ms): one token per
// chunk, scheduled = sent = arrival, end = last token.
func seedRecords() []*record.Record {
	mk := func(s int64, at ...int64) *record.Record {
		r := &record.Record{Scheduled: s * 1e6, Sent: s * 1e6, OutputTokens: len(at)}
		for _, a := range at {
			r.Chunks = append(r.Chunks, record.Chunk{At: a * 1e6, Tokens: 1})
		}
		r.End = r.Chunks[len(r.Chunks)-1].At
		return r
	}
	return []*record.Record{
		mk(0, 200, 250, 300, 350, 400),
		mk(100, 600, 640, 680, 720, 760, 800),
		mk(200, 900, 1000, 1100),
	}
}
