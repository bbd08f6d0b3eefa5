package report

import (
	"math"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/slo"
)

func TestParseRegressionGate(t *testing.T) {
	tests := []struct {
		in    string
		want  string // String of the parsed gate
		limit float64
		err   string // substring of the error; empty for success
	}{
		// The issue's own spelling: statistic and metric separated by a space.
		{in: "regression(p99 ttft) <= 10%", want: "regression(p99(ttft))<=10%", limit: 0.1},
		// The slo gate spelling inside.
		{in: "regression(p99(ttft))<=10%", want: "regression(p99(ttft))<=10%", limit: 0.1},
		// A fraction rather than a percentage.
		{in: "regression(mean(e2e))<0.05", want: "regression(mean(e2e))<5%", limit: 0.05},
		// A run-wide number.
		{in: "regression(throughput)<=5%", want: "regression(throughput)<=5%", limit: 0.05},
		// Upper case keyword and spaces everywhere.
		{in: "  Regression( p50 tpot )  <=  2.5 % ", want: "regression(p50(tpot))<=2.5%", limit: 0.025},
		// The sessions' and agent tasks' figures.
		{in: "regression(session_goodput)<=5%", want: "regression(session_goodput)<=5%", limit: 0.05},
		{in: "regression(p99 session_duration) <= 10%", want: "regression(p99(session_duration))<=10%", limit: 0.1},
		{in: "regression(median(task_completion))<0.2", want: "regression(median(task_completion))<20%", limit: 0.2},
		{in: "regression(task_attainment)<=1%", want: "regression(task_attainment)<=1%", limit: 0.01},
		// A negative limit demands an improvement.
		{in: "regression(p99.9(itl))<=-5%", want: "regression(p99.9(itl))<=-5%", limit: -0.05},
		// Sad paths, each naming where it went wrong.
		{in: "", err: "column 1: want regression("},
		{in: "p99(ttft)<=10%", err: "column 1: want regression("},
		{in: "regression(p99(ttft)<=10%", err: "missing ')'"},
		{in: "regression()<=10%", err: "column 12: empty quantity"},
		{in: "regression(p99(latency))<=10%", err: "unknown metric"},
		{in: "regression(p101(ttft))<=10%", err: "column 12"},
		{in: "regression(vibes)<=10%", err: "column 12"},
		{in: "regression(session_goodputs)<=10%", err: `column 12: "session_goodputs": unknown metric "session_goodputs" (want pNN(metric)`},
		{in: "regression(p99 session_attainment)<=10%", err: `unknown metric "session_attainment"`},
		{in: "regression(p99 ttft) == 10%", err: "want a comparison"},
		{in: "regression(p99 ttft) <=", err: "want a limit"},
		{in: "regression(p99 ttft) <= ten%", err: `limit "ten%" is not a number`},
		{in: "regression(p99 ttft) <= NaN", err: "is not a number"},
		{in: "regression(p99 ttft) <= 1e300", err: "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			g, err := ParseRegressionGate(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				if err.Error() != strings.ToLower(err.Error()[:1])+err.Error()[1:] {
					t.Errorf("error %q does not start in lower case", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.String() != tt.want || math.Abs(g.Limit-tt.limit) > 1e-15 {
				t.Errorf("parsed %s (limit %v), want %s (limit %v)", g, g.Limit, tt.want, tt.limit)
			}
			// The written form parses back to the same gate.
			again, err := ParseRegressionGate(g.String())
			if err != nil || again.String() != g.String() {
				t.Errorf("round trip: %v, %v", again, err)
			}
		})
	}
}

func TestIsRegressionGate(t *testing.T) {
	for in, want := range map[string]bool{
		"regression(p99 ttft)<=10%": true,
		" REGRESSION(throughput)<1": true,
		"p99(ttft)<=500ms":          false,
		"regressionless":            false,
		"":                          false,
	} {
		if got := IsRegressionGate(in); got != want {
			t.Errorf("IsRegressionGate(%q) = %v", in, got)
		}
	}
}

// result builds a Result with a p99 TTFT, a throughput, an error rate and,
// when att ≥ 0, an attainment.
func result(p99, tput, errRate, att float64) *metrics.Result {
	r := &metrics.Result{
		Counts:     metrics.Counts{Total: 100, ErrorRate: errRate},
		Throughput: metrics.Throughput{OutputTokensPerSecond: tput},
		Latency: metrics.Latency{TTFT: metrics.Distribution{Count: 100, Median: p99 / 2,
			Percentiles: []metrics.PercentileValue{{P: 50, Value: p99 / 2}, {P: 99, Value: p99}}}},
	}
	if att >= 0 {
		r.Goodput = &metrics.Goodput{Attainment: att}
	}
	return r
}

func TestRegressionEval(t *testing.T) {
	must := func(s string) RegressionGate {
		g, err := ParseRegressionGate(s)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	tests := []struct {
		name       string
		gate       string
		base, run  *metrics.Result
		regression float64
		pass       bool
		problem    string
	}{
		// p99 TTFT 400 → 420 ms: +5 %, inside 10 %.
		{"latency within", "regression(p99 ttft)<=10%", result(0.4, 1000, 0, -1), result(0.42, 1000, 0, -1), 0.05, true, ""},
		// 400 → 480 ms: +20 %, fails.
		{"latency beyond", "regression(p99 ttft)<=10%", result(0.4, 1000, 0, -1), result(0.48, 1000, 0, -1), 0.2, false, ""},
		// Faster is a negative regression, and passes.
		{"latency better", "regression(p99 ttft)<=10%", result(0.4, 1000, 0, -1), result(0.2, 1000, 0, -1), -0.5, true, ""},
		// Throughput 1000 → 900: a fall is a 10 % regression; < 10 % fails.
		{"throughput fall", "regression(throughput)<10%", result(0.4, 1000, 0, -1), result(0.4, 900, 0, -1), 0.1, false, ""},
		// Throughput rising is an improvement.
		{"throughput rise", "regression(throughput)<=0%", result(0.4, 1000, 0, -1), result(0.4, 1100, 0, -1), -0.1, true, ""},
		// A negative limit demands at least that improvement.
		{"demanded improvement", "regression(p99 ttft)<=-10%", result(0.4, 1000, 0, -1), result(0.38, 1000, 0, -1), -0.05, false, ""},
		// The error rate rising is a regression; from zero it is undefined.
		{"error rate from zero", "regression(error_rate)<=10%", result(0.4, 1000, 0, -1), result(0.4, 1000, 0.01, -1), 0, false, "baseline's error_rate is 0"},
		// Zero to zero is no change at all.
		{"zero to zero", "regression(error_rate)<=0%", result(0.4, 1000, 0, -1), result(0.4, 1000, 0, -1), 0, true, ""},
		// A percentile the run did not compute fails with the reason.
		{"missing percentile", "regression(p90 ttft)<=10%", result(0.4, 1000, 0, -1), result(0.4, 1000, 0, -1), 0, false, "baseline: p90 of ttft was not computed"},
		// Attainment needs an SLO in both runs.
		{"attainment without SLO", "regression(attainment)<=1%", result(0.4, 1000, 0, 0.9), result(0.4, 1000, 0, -1), 0, false, "needs a per-request SLO"},
		// Attainment 0.9 → 0.85: a 5.6 % regression.
		{"attainment fall", "regression(attainment)<=5%", result(0.4, 1000, 0, 0.9), result(0.4, 1000, 0, 0.85), 0.05 / 0.9, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := must(tt.gate).Eval(tt.base, tt.run)
			if r.Pass != tt.pass || math.Abs(r.Regression-tt.regression) > 1e-9 || !strings.Contains(r.Problem, tt.problem) || (tt.problem == "") != (r.Problem == "") {
				t.Errorf("Eval = %+v, want regression %v pass %v problem %q", r, tt.regression, tt.pass, tt.problem)
			}
			if s := r.String(); !strings.HasPrefix(s, tt.gate[:strings.Index(tt.gate, "(")]) || (tt.pass != strings.HasSuffix(s, "pass")) {
				t.Errorf("String() = %q", s)
			}
		})
	}
}

func TestRegressionOps(t *testing.T) {
	for _, tt := range []struct {
		op   slo.Op
		v    float64
		want bool
	}{
		{slo.LE, 0.1, true}, {slo.LT, 0.1, false}, {slo.GE, 0.1, true}, {slo.GT, 0.1, false},
		{slo.GT, 0.2, true}, {slo.Op(99), 0.1, false},
	} {
		if got := compare(tt.v, tt.op, 0.1); got != tt.want {
			t.Errorf("%v %v 0.1 = %v", tt.v, tt.op, got)
		}
	}
}

// FuzzParseRegressionGate checks that any input parses or fails cleanly,
// and that what parses writes back to a form that parses to itself.
func FuzzParseRegressionGate(f *testing.F) {
	for _, s := range []string{
		"regression(p99 ttft) <= 10%", "regression(p99(ttft))<=0.1", "regression(throughput)>=-5%",
		"regression(", "regression())", "regression((((", "regression(p99 ttft)<=", "regression(mean(e2e))<1e9",
		"regression(p99.999(itl))<=1%", "regression(goodput) > 0",
		"regression(session_goodput)<=5%", "regression(p99 session_duration)<=10%", "regression(task_attainment)<1%",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseRegressionGate(s)
		if err != nil {
			if !strings.Contains(err.Error(), "regression gate") {
				t.Fatalf("error %q does not name the gate", err)
			}
			return
		}
		again, err := ParseRegressionGate(g.String())
		if err != nil {
			t.Fatalf("%q parsed to %s, which does not parse: %v", s, g, err)
		}
		if again.String() != g.String() {
			t.Fatalf("%q: %s then %s", s, g, again)
		}
	})
}
