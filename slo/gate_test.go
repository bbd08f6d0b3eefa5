package slo

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/workedexample"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

func TestParseGate(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		in   string
		want Gate
		str  string // canonical String
	}{
		{"p99(ttft)<=500ms", Gate{Stat: StatPercentile, P: 99, Metric: metrics.MetricTTFT, Op: LE, Bound: 500 * ms}, "p99(ttft)<=500ms"},
		{"p50(tpot)<30ms", Gate{Stat: StatPercentile, P: 50, Metric: metrics.MetricTPOT, Op: LT, Bound: 30 * ms}, "p50(tpot)<30ms"},
		{"p99.9(itl) < 0.1s", Gate{Stat: StatPercentile, P: 99.9, Metric: metrics.MetricITL, Op: LT, Bound: 100 * ms}, "p99.9(itl)<100ms"},
		{"P0( e2el )>=1ns", Gate{Stat: StatPercentile, P: 0, Metric: metrics.MetricE2E, Op: GE, Bound: 1}, "p0(e2e)>=1ns"},
		{"p100(client_queue)<=1s", Gate{Stat: StatPercentile, P: 100, Metric: metrics.MetricClientQueue, Op: LE, Bound: time.Second}, "p100(client_queue)<=1s"},
		{"mean(tpot)<40ms", Gate{Stat: StatMean, Metric: metrics.MetricTPOT, Op: LT, Bound: 40 * ms}, "mean(tpot)<40ms"},
		{"median(ttft_sent)<=1s", Gate{Stat: StatMedian, Metric: metrics.MetricTTFTSent, Op: LE, Bound: time.Second}, "median(ttft_sent)<=1s"},
		{"max(e2e)<=10s", Gate{Stat: StatMax, Metric: metrics.MetricE2E, Op: LE, Bound: 10 * time.Second}, "max(e2e)<=10s"},
		{"min(inter_chunk)>0ns", Gate{Stat: StatMin, Metric: metrics.MetricInterChunk, Op: GT, Bound: 0}, "min(inter_chunk)>0s"},
		{"std(itl)<5ms", Gate{Stat: StatStd, Metric: metrics.MetricITL, Op: LT, Bound: 5 * ms}, "std(itl)<5ms"},
		{"p99(ttfa)<=2s", Gate{Stat: StatPercentile, P: 99, Metric: metrics.MetricTTFA, Op: LE, Bound: 2 * time.Second}, "p99(ttfa)<=2s"},
		{"mean(tpot_reasoning)<20ms", Gate{Stat: StatMean, Metric: metrics.MetricTPOTReasoning, Op: LT, Bound: 20 * ms}, "mean(tpot_reasoning)<20ms"},
		{"max(tpot_answer)<=0.1s", Gate{Stat: StatMax, Metric: metrics.MetricTPOTAnswer, Op: LE, Bound: 100 * ms}, "max(tpot_answer)<=100ms"},
		{"attainment>=0.9", Gate{Stat: StatScalar, Scalar: Attainment, Op: GE, Value: 0.9}, "attainment>=0.9"},
		{"attainment >= 90%", Gate{Stat: StatScalar, Scalar: Attainment, Op: GE, Value: 0.9}, "attainment>=0.9"},
		{"goodput>=1000", Gate{Stat: StatScalar, Scalar: Goodput, Op: GE, Value: 1000}, "goodput>=1000"},
		{"request_goodput>2.5", Gate{Stat: StatScalar, Scalar: RequestGoodput, Op: GT, Value: 2.5}, "request_goodput>2.5"},
		{"throughput>=12.73", Gate{Stat: StatScalar, Scalar: Throughput, Op: GE, Value: 12.73}, "throughput>=12.73"},
		{"request_throughput>=1", Gate{Stat: StatScalar, Scalar: RequestThroughput, Op: GE, Value: 1}, "request_throughput>=1"},
		{"input_throughput>=0", Gate{Stat: StatScalar, Scalar: InputThroughput, Op: GE}, "input_throughput>=0"},
		{"total_throughput>=1", Gate{Stat: StatScalar, Scalar: TotalThroughput, Op: GE, Value: 1}, "total_throughput>=1"},
		{"error_rate<=0.01", Gate{Stat: StatScalar, Scalar: ErrorRate, Op: LE, Value: 0.01}, "error_rate<=0.01"},
		{"error_rate<=1%", Gate{Stat: StatScalar, Scalar: ErrorRate, Op: LE, Value: 0.01}, "error_rate<=0.01"},
		// The sessions' and agent tasks' figures.
		{"session_goodput>=100", Gate{Stat: StatScalar, Scalar: SessionGoodput, Op: GE, Value: 100}, "session_goodput>=100"},
		{"session_attainment >= 80%", Gate{Stat: StatScalar, Scalar: SessionAttainment, Op: GE, Value: 0.8}, "session_attainment>=0.8"},
		{"p99(session_duration)<=30s", Gate{Stat: StatPercentile, P: 99, Metric: metrics.MetricSessionDuration, Op: LE, Bound: 30 * time.Second}, "p99(session_duration)<=30s"},
		{"median(session_duration)<2.5s", Gate{Stat: StatMedian, Metric: metrics.MetricSessionDuration, Op: LT, Bound: 2500 * ms}, "median(session_duration)<2.5s"},
		{"task_goodput>50.5", Gate{Stat: StatScalar, Scalar: TaskGoodput, Op: GT, Value: 50.5}, "task_goodput>50.5"},
		{"task_attainment>=0.75", Gate{Stat: StatScalar, Scalar: TaskAttainment, Op: GE, Value: 0.75}, "task_attainment>=0.75"},
		{"p50(task_completion)<=1m", Gate{Stat: StatPercentile, P: 50, Metric: metrics.MetricTaskCompletion, Op: LE, Bound: time.Minute}, "p50(task_completion)<=1m"},
	}
	for _, tt := range tests {
		got, err := ParseGate(tt.in)
		if err != nil {
			t.Errorf("ParseGate(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseGate(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if got.String() != tt.str {
			t.Errorf("ParseGate(%q).String() = %q, want %q", tt.in, got.String(), tt.str)
		}
		if back, err := ParseGate(got.String()); err != nil || back != got {
			t.Errorf("%q reads back as %+v, %v", got.String(), back, err)
		}
	}
}

func TestParseGateErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"p99(ttft)<=5xx", `gate "p99(ttft)<=5xx": at column 13: unknown unit "xx" (want ns, us, ms, s, m)`},
		{"", `gate "": at column 1: want pNN(metric), mean(…), median(…), min(…), max(…), std(…) or attainment, goodput, request_goodput, throughput, request_throughput, input_throughput, total_throughput, error_rate, session_goodput, session_attainment, task_goodput, task_attainment, found end of input`},
		{"p101(ttft)<=1s", `gate "p101(ttft)<=1s": at column 2: percentile 101: out of range (want 0 to 100)`},
		{"p(ttft)<=1s", `gate "p(ttft)<=1s": at column 2: want a number, found '('`},
		{"p99.(ttft)<=1s", `gate "p99.(ttft)<=1s": at column 5: want digits after the decimal point, found '('`},
		{"p99x(ttft)<=1s", `gate "p99x(ttft)<=1s": at column 1: unknown metric "p99x" (want pNN(metric), mean(…), median(…), min(…), max(…), std(…) or attainment, goodput, request_goodput, throughput, request_throughput, input_throughput, total_throughput, error_rate, session_goodput, session_attainment, task_goodput, task_attainment)`},
		{"p99 ttft<=1s", `gate "p99 ttft<=1s": at column 5: want '(' and a metric after p99, found 't'`},
		{"p99()<=1s", `gate "p99()<=1s": at column 5: want a metric name, found ')'`},
		{"p99(latency)<=1s", `gate "p99(latency)<=1s": at column 5: unknown metric "latency" (want ttft, tpot, itl, inter_chunk, e2e, client_queue, ttft_sent, for reasoning models ttfa, tpot_reasoning, tpot_answer, or for sessions and agent tasks session_duration, task_completion)`},
		// A session's figures are not a latency, nor a latency a session's.
		{"p99(session_goodput)<=1s", `gate "p99(session_goodput)<=1s": at column 5: unknown metric "session_goodput" (want ttft, tpot, itl, inter_chunk, e2e, client_queue, ttft_sent, for reasoning models ttfa, tpot_reasoning, tpot_answer, or for sessions and agent tasks session_duration, task_completion)`},
		{"session_duration<=1s", `gate "session_duration<=1s": at column 1: unknown metric "session_duration" (want pNN(metric), mean(…), median(…), min(…), max(…), std(…) or attainment, goodput, request_goodput, throughput, request_throughput, input_throughput, total_throughput, error_rate, session_goodput, session_attainment, task_goodput, task_attainment)`},
		{"session_attainment>=150%", `gate "session_attainment>=150%": at column 21: session_attainment 150%: out of range (want 0 to 1, or 0% to 100%)`},
		{"task_goodput>=50%", `gate "task_goodput>=50%": at column 17: task_goodput takes no percentage`},
		{"p99(ttft<=1s", `gate "p99(ttft<=1s": at column 9: want ')', found '<'`},
		{"p99(ttft)<=500", `gate "p99(ttft)<=500": at column 15: missing unit after 500 (want ns, us, ms, s, m)`},
		{"p99(ttft)==1s", `gate "p99(ttft)==1s": at column 10: want <=, <, >= or >, not '='`},
		{"attainment>=1.5", `gate "attainment>=1.5": at column 13: attainment 1.5: out of range (want 0 to 1, or 0% to 100%)`},
		{"attainment>=150%", `gate "attainment>=150%": at column 13: attainment 150%: out of range (want 0 to 1, or 0% to 100%)`},
		{"goodput>=50%", `gate "goodput>=50%": at column 12: goodput takes no percentage`},
		{"goodput>=1k", `gate "goodput>=1k": at column 11: unexpected 'k' after the gate`},
		{"goodput>=-1", `gate "goodput>=-1": at column 10: want a number without a sign, found '-'`},
		{"goodput>=1e3", `gate "goodput>=1e3": at column 11: unexpected 'e' after the gate`},
		{"goodput>=1" + strings.Repeat("0", 400), `out of range`},
		{"ttft<=1s", `gate "ttft<=1s": at column 1: unknown metric "ttft" (want pNN(metric), mean(…), median(…), min(…), max(…), std(…) or attainment, goodput, request_goodput, throughput, request_throughput, input_throughput, total_throughput, error_rate, session_goodput, session_attainment, task_goodput, task_attainment)`},
		{"mean(ttft)", `gate "mean(ttft)": at column 11: want <=, <, >= or > here, found end of input`},
	}
	for _, tt := range tests {
		_, err := ParseGate(tt.in)
		if err == nil || !strings.HasSuffix(err.Error(), tt.want) && err.Error() != tt.want {
			t.Errorf("ParseGate(%.40q)\n error %v\n want  %s", tt.in, err, tt.want)
		}
	}
	_, err := ParseGate("p200(ttft)<1s")
	if !errors.Is(err, ErrRange) {
		t.Errorf("percentile range error %v does not wrap ErrRange", err)
	}
}

func TestParseGates(t *testing.T) {
	gs, err := ParseGates(" p99(ttft)<=500ms , attainment>=0.9,p95(tpot)<50ms,p99(itl)<200ms")
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 4 || gs.String() != "p99(ttft)<=500ms,attainment>=0.9,p95(tpot)<50ms,p99(itl)<200ms" {
		t.Fatalf("gates = %v", gs)
	}
	if got := gs.Percentiles(); !slices.Equal(got, []float64{95, 99}) {
		t.Errorf("Percentiles = %v, want [95 99]", got)
	}
	for _, tt := range []struct{ in, want string }{
		{"", `gate "": at column 1: empty (want gates like p99(ttft)<=500ms)`},
		{"p99(ttft)<=1s,", `gate "p99(ttft)<=1s,": at column 14: a gate must follow ','`},
		{"p99(ttft)<=1s attainment>=0.9", `gate "p99(ttft)<=1s attainment>=0.9": at column 15: want ',' between gates, found 'a'`},
		{"p99(ttft)<=1s,p99(tpot)<=1x", `gate "p99(ttft)<=1s,p99(tpot)<=1x": at column 27: unknown unit "x" (want ns, us, ms, s, m)`},
	} {
		_, err := ParseGates(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseGates(%q)\n error %v\n want  %s", tt.in, err, tt.want)
		}
	}
}

func TestGatesRequire(t *testing.T) {
	gs, _ := ParseGates("p95(ttft)<1s,p99.9(itl)<1s,mean(e2e)<1s")
	tests := []struct {
		name string
		in   []float64
		want []float64
	}{
		{"defaults kept", nil, []float64{50, 90, 95, 99, 99.9}},
		{"user list kept", []float64{75}, []float64{75, 95, 99.9}},
		{"no duplicates", []float64{95, 99.9}, []float64{95, 99.9}},
	}
	for _, tt := range tests {
		o := metrics.Options{Percentiles: tt.in}
		gs.Require(&o)
		if !slices.Equal(o.Percentiles, tt.want) {
			t.Errorf("%s: Require → %v, want %v", tt.name, o.Percentiles, tt.want)
		}
	}
	o := metrics.Options{}
	Gates{}.Require(&o)
	if o.Percentiles != nil {
		t.Errorf("gates without percentiles changed the options: %v", o.Percentiles)
	}
}

// TestGateEval checks gates against the seed run (TTFT {.2,.5,.7}, TPOT
// {.04,.05,.10}, 14 tokens over 1.10 s, goodput 10 tok/s, attainment 2/3).
func TestGateEval(t *testing.T) {
	cs, _ := ParseConditions("ttft<=500ms,tpot<=50ms")
	gates, _ := ParseGates("p99(ttft)<=500ms,p95(tpot)<1s")
	o := metrics.Options{}
	cs.Apply(&o)
	gates.Require(&o)
	s := metrics.NewSummary(o)
	for _, r := range seedRecords() {
		s.Add(r)
	}
	res := s.Close()

	noSLO := metrics.NewSummary(metrics.Options{})
	for _, r := range seedRecords() {
		noSLO.Add(r)
	}
	plain := noSLO.Close()
	empty := metrics.NewSummary(metrics.Options{Good: cs.Good}).Close()

	tests := []gateCase{
		{"p99(ttft)<=500ms", res, false, 0.696, ""}, // linear p99 is 0.696 s
		{"p99(ttft)<=700ms", res, true, 0.696, ""},
		{"p50(ttft)<=500ms", res, true, 0.5, ""}, // equal passes <=
		{"p50(ttft)<500ms", res, false, 0.5, ""}, // but not <
		{"p95(tpot)<1s", res, true, 0.095, ""},   // computed because Require added it
		{"p75(tpot)<1s", res, false, 0, "p75 of tpot was not computed (add 75 to the percentiles)"},
		{"mean(tpot)<64ms", res, true, 0.19 / 3, ""},
		{"mean(tpot)<63ms", res, false, 0.19 / 3, ""},
		{"median(tpot)<=50ms", res, true, 0.05, ""},
		{"max(e2e)<=900ms", res, true, 0.9, ""},
		{"min(ttft)>200ms", res, false, 0.2, ""},
		{"std(ttft)>0s", res, true, 0.20548046676563256, ""},
		{"attainment>=0.6", res, true, 2.0 / 3, ""},
		{"attainment>=70%", res, false, 2.0 / 3, ""},
		{"goodput>=10", res, true, 10, ""},
		{"request_goodput>1.8", res, true, 2 / 1.1, ""},
		{"throughput>=12.72", res, true, 14 / 1.1, ""}, // 12.727…, printed 12.73
		{"throughput>=12.73", res, false, 14 / 1.1, ""},
		{"request_throughput>=2.7", res, true, 3 / 1.1, ""},
		{"input_throughput<=0", res, true, 0, ""},
		{"total_throughput>=12", res, true, 14 / 1.1, ""},
		{"error_rate<=0", res, true, 0, ""},
		{"goodput>=1", plain, false, 0, "goodput needs a per-request SLO"},
		{"attainment>=0.5", plain, false, 0, "attainment needs a per-request SLO"},
		{"p99(ttft)<=1s", empty, false, 0, "no ttft values were measured"},
		{"error_rate<=0.5", empty, false, 0, "no requests were measured"},
		{"p99(ttft)<=1s", nil, false, 0, "no result"},
	}
	checkGateCases(t, tests)

	results, ok := gates.Eval(res)
	if ok || len(results) != 2 || results[0].Pass || !results[1].Pass {
		t.Errorf("Gates.Eval = %+v, %v; want the first to fail", results, ok)
	}
	if _, ok := (Gates{}).Eval(res); !ok {
		t.Error("no gates did not pass")
	}
}

// reasoningRecords are three replies, all scheduled and sent at 0 (ms):
// one thinks at 100 and 150 and answers at 1000 and 1100, one thinks at
// 200, 300 and 400 and answers at 2000 and 2100, one does not reason and
// answers at 50 and 90. TTFA: 1.0, 2.0 and 0.05 s; TTFT 0.1, 0.2, 0.05 s;
// TPOT over reasoning 50 and 100 ms; over the answer 100, 100 and 40 ms.
func reasoningRecords() []*record.Record {
	mk := func(think []int64, answer ...int64) *record.Record {
		r := &record.Record{}
		for _, a := range think {
			r.Chunks = append(r.Chunks, record.Chunk{At: a * 1e6, Tokens: 1, Reasoning: true})
		}
		for _, a := range answer {
			r.Chunks = append(r.Chunks, record.Chunk{At: a * 1e6, Tokens: 1})
		}
		r.OutputTokens, r.ReasoningTokens = len(r.Chunks), len(think)
		if len(think) > 0 {
			r.ReasoningSource = record.SourceChunks
		}
		r.End = r.Chunks[len(r.Chunks)-1].At
		return r
	}
	return []*record.Record{mk([]int64{100, 150}, 1000, 1100), mk([]int64{200, 300, 400}, 2000, 2100), mk(nil, 50, 90)}
}

// Gates on the reasoning metrics pass and fail on the run's own numbers;
// a run without reasoning answers ttfa with ttft's.
func TestGateEvalReasoning(t *testing.T) {
	o := metrics.Options{Percentiles: []float64{50, 90}}
	s := metrics.NewSummary(o)
	for _, r := range reasoningRecords() {
		s.Add(r)
	}
	res := s.Close()
	plain := metrics.NewSummary(o)
	for _, r := range seedRecords() {
		plain.Add(r)
	}
	noReasoning := plain.Close()

	tests := []gateCase{
		{"p50(ttfa)<=1s", res, true, 1.0, ""}, // the median of 0.05, 1.0, 2.0; equal passes
		{"p50(ttfa)<1s", res, false, 1.0, ""}, // but not <
		{"p90(ttfa)<=2s", res, true, 1.8, ""}, // linear: 1.0 + 0.8 × (2.0 − 1.0)
		{"p90(ttfa)<=1.5s", res, false, 1.8, ""},
		{"p90(ttft)<=1.5s", res, true, 0.18, ""}, // the thinking hides from TTFT
		{"max(ttfa)<=2s", res, true, 2.0, ""},
		{"mean(tpot_reasoning)<=75ms", res, true, 0.075, ""},
		{"mean(tpot_reasoning)<75ms", res, false, 0.075, ""},
		{"min(tpot_answer)>=40ms", res, true, 0.04, ""},
		{"max(tpot_answer)<100ms", res, false, 0.1, ""},
		{"p50(ttfa)<=500ms", noReasoning, true, 0.5, ""}, // TTFT's median
		{"max(tpot_answer)<=100ms", noReasoning, true, 0.1, ""},
		{"mean(tpot_reasoning)<=1s", noReasoning, false, 0, "no tpot_reasoning values were measured"},
	}
	checkGateCases(t, tests)
}

// gateCase is one gate evaluated on one result: whether it passes, the
// value it measured, and a substring of the problem it reports ("" for
// none).
type gateCase struct {
	gate     string
	r        *metrics.Result
	pass     bool
	measured float64
	problem  string
}

// checkGateCases parses and evaluates each case's gate.
func checkGateCases(t *testing.T, tests []gateCase) {
	t.Helper()
	for _, tt := range tests {
		g, err := ParseGate(tt.gate)
		if err != nil {
			t.Fatal(err)
		}
		got := g.Eval(tt.r)
		if got.Pass != tt.pass || !near(got.Measured, tt.measured) ||
			(tt.problem == "") != (got.Problem == "") || !strings.Contains(got.Problem, tt.problem) {
			t.Errorf("%s: %+v; want pass %v, measured %v, problem %q", tt.gate, got, tt.pass, tt.measured, tt.problem)
		}
	}
}

func near(a, b float64) bool {
	d := a - b
	return d <= 1e-9 && d >= -1e-9
}

func TestGateResultString(t *testing.T) {
	tests := []struct {
		r    GateResult
		want string
	}{
		{GateResult{Gate: mustGate(t, "p99(ttft)<=500ms"), Measured: 0.41234, Pass: true}, "p99(ttft)<=500ms: measured 412.3ms: pass"},
		{GateResult{Gate: mustGate(t, "max(e2e)<=10s"), Measured: 12.5}, "max(e2e)<=10s: measured 12.5s: fail"},
		{GateResult{Gate: mustGate(t, "min(itl)>=1us"), Measured: 2.5e-7}, "min(itl)>=1us: measured 250ns: fail"},
		{GateResult{Gate: mustGate(t, "min(itl)>=1us"), Measured: 2.5e-6, Pass: true}, "min(itl)>=1us: measured 2.5us: pass"},
		{GateResult{Gate: mustGate(t, "min(itl)>=0s"), Measured: 0, Pass: true}, "min(itl)>=0s: measured 0s: pass"},
		{GateResult{Gate: mustGate(t, "attainment>=0.9"), Measured: 0.8765432}, "attainment>=0.9: measured 0.876543: fail"},
		{GateResult{Gate: mustGate(t, "goodput>=1"), Problem: "goodput needs a per-request SLO (--slo or --goodput; not --slo none)"}, "goodput>=1: fail: goodput needs a per-request SLO (--slo or --goodput; not --slo none)"},
	}
	for _, tt := range tests {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func mustGate(t *testing.T, s string) Gate {
	t.Helper()
	g, err := ParseGate(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGateResultJSON(t *testing.T) {
	r := GateResult{Gate: mustGate(t, "p99(ttft)<=500ms"), Measured: 0.5, Pass: true}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["gate"] != "p99(ttft)<=500ms" || m["measured"] != 0.5 || m["pass"] != true || len(m) != 3 {
		t.Errorf("JSON = %s", b)
	}
	var back GateResult
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"gate":"p99(ttft)<=5xx"}`), &back); err == nil {
		t.Error("a bad gate unmarshalled without error")
	}
}

// exampleResult summarizes one of the hand-worked examples in
// metrics/testdata, with the seeds' SLO when slo is set.
func exampleResult(t *testing.T, name string, slo bool) *metrics.Result {
	t.Helper()
	ex, err := workedexample.Read("../metrics/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	o := metrics.Options{}
	if slo {
		cs, err := ParseConditions("ttft<=500ms,tpot<=50ms")
		if err != nil {
			t.Fatal(err)
		}
		cs.Apply(&o)
	}
	s := metrics.NewSummary(o)
	for _, r := range ex.Records() {
		s.Add(r)
	}
	return s.Close()
}

// TestGateEvalFlows checks the gates on sessions and agent tasks against
// the worked examples: 1 of 3 sessions good, 7 tokens over W = 1.20 s,
// durations 0.98, 1.00 and 1.02 s; 2 of 3 tasks good, 15 tokens over
// 1.07 s, completions 0.14, 0.96 and 1.07 s. A run without sessions
// (tasks), or without an SLO, fails the gate and says why.
func TestGateEvalFlows(t *testing.T) {
	sessions := exampleResult(t, "sessions_worked_example.txt", true)
	tasks := exampleResult(t, "tasks_worked_example.txt", true)
	unjudged := exampleResult(t, "sessions_worked_example.txt", false)
	tests := []gateCase{
		{"session_goodput>=5.8", sessions, true, 7 / 1.2, ""},
		{"session_goodput>=5.9", sessions, false, 7 / 1.2, ""},
		{"session_attainment>=33%", sessions, true, 1.0 / 3, ""},
		{"session_attainment>=0.5", sessions, false, 1.0 / 3, ""},
		{"p50(session_duration)<=1s", sessions, true, 1.00, ""},
		// Linear between 1.00 and 1.02 s at rank 1.98 of 0–2.
		{"p99(session_duration)<1s", sessions, false, 1.0196, ""},
		{"max(session_duration)<=1.02s", sessions, true, 1.02, ""},
		{"mean(session_duration)<=1s", sessions, true, 1.00, ""},
		{"task_goodput>=14", tasks, true, 15 / 1.07, ""},
		{"task_attainment>=70%", tasks, false, 2.0 / 3, ""},
		{"median(task_completion)<=0.96s", tasks, true, 0.96, ""},
		{"p99(task_completion)<=1s", tasks, false, 1.0678, ""},
		// Sad paths: the flows are missing, or not judged.
		{"session_goodput>=1", tasks, false, 0, "session_goodput reads a run's sessions and this run has none (replay some with --multi-turn or --dataset-name sessions)"},
		{"session_attainment>=0.5", tasks, false, 0, "session_attainment reads a run's sessions and this run has none"},
		{"p99(session_duration)<=1s", tasks, false, 0, "session_duration reads a run's sessions and this run has none"},
		{"task_goodput>=1", sessions, false, 0, "task_goodput reads a run's agent tasks and this run has none (replay some with --dataset-name agent)"},
		{"p50(task_completion)<=1s", sessions, false, 0, "task_completion reads a run's agent tasks and this run has none"},
		{"session_goodput>=1", unjudged, false, 0, "session_goodput needs a per-request SLO (--slo or --goodput; not --slo none)"},
		{"session_attainment>=0.5", unjudged, false, 0, "session_attainment needs a per-request SLO"},
		// A session's duration needs no SLO.
		{"p50(session_duration)<=1s", unjudged, true, 1.00, ""},
		// A result whose tasks went unjudged though its requests were
		// (one read from a summary written by hand, say).
		{"task_attainment>=0.5", &metrics.Result{Goodput: &metrics.Goodput{}, Tasks: &metrics.Tasks{}}, false, 0, "task_attainment needs a per-request SLO"},
	}
	checkGateCases(t, tests)
	// A session's span is no per-request condition.
	if _, err := ParseConditions("session_duration<=30s"); err == nil || !strings.Contains(err.Error(), `unknown metric "session_duration"`) {
		t.Errorf("a per-request SLO on session_duration: %v", err)
	}
}
