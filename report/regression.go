package report

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/slo"
)

// RegressionGate fails a run that got worse than the baseline by more than
// a relative limit, for CI: regression(p99(ttft))<=10% fails when p99 TTFT
// rose by more than 10 %. The quantity is anything a slo gate reads (a
// latency statistic such as p99(ttft) or mean(e2e), a run-wide number
// such as throughput or attainment, or a figure of the run's sessions or
// agent tasks: session_goodput, session_attainment, p99(session_duration),
// task_goodput, task_attainment, p50(task_completion)). For latencies,
// spans and the error rate a rise is a regression; for throughput,
// goodput and attainment a fall is.
type RegressionGate struct {
	// Quantity says what is compared; its Op and bound are not used.
	Quantity slo.Gate
	Op       slo.Op
	// Limit is the relative change allowed, as a fraction: 0.1 for 10 %.
	// A negative limit demands an improvement.
	Limit float64
}

// IsRegressionGate reports whether s is written as a regression gate (it
// starts with "regression("), so that a flag can take both kinds.
func IsRegressionGate(s string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "regression(")
}

// ParseRegressionGate parses a gate such as
//
//	regression(p99(ttft))<=10%   regression(p99 ttft) <= 10%
//	regression(mean(e2e))<0.05  regression(throughput)<=5%
//	regression(session_goodput)<=5%  regression(p99 task_completion)<=10%
//
// The limit is a percentage or a fraction. Errors name the column where
// the expression went wrong.
func ParseRegressionGate(s string) (RegressionGate, error) {
	fail := func(col int, format string, args ...any) (RegressionGate, error) {
		return RegressionGate{}, fmt.Errorf("regression gate %q: at column %d: %s", s, col, fmt.Sprintf(format, args...))
	}
	i := skipSpaces(s, 0)
	const kw = "regression("
	if !strings.HasPrefix(strings.ToLower(s[i:]), kw) {
		return fail(i+1, "want regression(QUANTITY)<=LIMIT, for example regression(p99(ttft))<=10%%")
	}
	open := i + len(kw)
	// The quantity runs to the parenthesis that closes regression(.
	depth, end := 1, -1
	for j := open; j < len(s) && end < 0; j++ {
		switch s[j] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				end = j
			}
		}
	}
	if end < 0 {
		return fail(len(s)+1, "missing ')' to close regression(")
	}
	inner := strings.TrimSpace(s[open:end])
	if inner == "" {
		return fail(open+1, "empty quantity: want a latency statistic such as p99(ttft) or a run-wide number such as throughput")
	}
	q, err := parseQuantity(inner)
	if err != nil {
		return RegressionGate{}, fmt.Errorf("regression gate %q: at column %d: %w", s, open+1, err)
	}
	j := skipSpaces(s, end+1)
	var op slo.Op
	switch {
	case strings.HasPrefix(s[j:], "<="):
		op, j = slo.LE, j+2
	case strings.HasPrefix(s[j:], ">="):
		op, j = slo.GE, j+2
	case strings.HasPrefix(s[j:], "<"):
		op, j = slo.LT, j+1
	case strings.HasPrefix(s[j:], ">"):
		op, j = slo.GT, j+1
	default:
		return fail(j+1, "want a comparison (<=, <, >=, >) after regression(…)")
	}
	j = skipSpaces(s, j)
	numStart := j
	text := strings.TrimSpace(s[j:])
	if text == "" {
		return fail(numStart+1, "want a limit such as 10%% or 0.1")
	}
	pctSign := strings.HasSuffix(text, "%")
	text = strings.TrimSpace(strings.TrimSuffix(text, "%"))
	v, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fail(numStart+1, "limit %q is not a number", strings.TrimSpace(s[numStart:]))
	}
	if pctSign {
		v /= 100
	}
	if math.Abs(v) > 1e6 {
		return fail(numStart+1, "limit %s is out of range", strings.TrimSpace(s[numStart:]))
	}
	return RegressionGate{Quantity: q, Op: op, Limit: v}, nil
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// parseQuantity reads the left side of a slo gate: "p99(ttft)", "p99
// ttft", "mean(e2e)" or "throughput".
func parseQuantity(inner string) (slo.Gate, error) {
	if f := strings.Fields(inner); len(f) == 2 && !strings.Contains(inner, "(") {
		inner = f[0] + "(" + f[1] + ")"
	}
	g, lerr := slo.ParseGate(inner + ">=0s")
	if lerr == nil && g.Stat != slo.StatScalar {
		return g, nil
	}
	g, serr := slo.ParseGate(inner + ">=0")
	if serr == nil && g.Stat == slo.StatScalar {
		return g, nil
	}
	var se *slo.SyntaxError
	if errors.As(lerr, &se) {
		return slo.Gate{}, fmt.Errorf("%q: %w", inner, se.Err)
	}
	return slo.Gate{}, fmt.Errorf("%q is not a latency statistic (p99(ttft), mean(e2e), p99(session_duration)) or a run-wide number (throughput, goodput, attainment, session_goodput, task_attainment)", inner)
}

// String writes the gate as ParseRegressionGate reads it.
func (g RegressionGate) String() string {
	return fmt.Sprintf("regression(%s)%s%s%%", quantityName(g.Quantity), g.Op, strconv.FormatFloat(100*g.Limit, 'f', -1, 64))
}

// quantityName is the left side of a gate: "p99(ttft)", "throughput".
func quantityName(g slo.Gate) string {
	s := g.String()
	if i := strings.IndexAny(s, "<>"); i >= 0 {
		return s[:i]
	}
	return s
}

// higherIsWorse reports whether a rise of the quantity is a regression.
func (g RegressionGate) higherIsWorse() bool {
	q := g.Quantity
	return q.Stat != slo.StatScalar || q.Scalar == slo.ErrorRate
}

// RegressionResult is a regression gate checked on one run.
type RegressionResult struct {
	Gate RegressionGate
	Run  int // index of the run checked; the baseline is 0
	// Base and Measured are the quantity in the baseline and in the run
	// (seconds for a latency); Regression is the relative worsening,
	// positive when the run is worse.
	Base, Measured, Regression float64
	Pass                       bool
	Problem                    string // why it could not be read; the gate then fails

	// Judged says what the verdict rests on: JudgedInterval when the
	// difference's bootstrap interval decided whether it is noise,
	// JudgedPoint when the point estimates alone did.
	Judged string
	// HasCI says Lo and Hi hold the Confidence interval of the difference
	// run − baseline (seconds), and Verdict the comparison's word for it:
	// noise, better or worse.
	HasCI      bool
	Lo, Hi     float64
	Confidence float64
	Verdict    string
	// Note explains the judgement in words, when it needs explaining.
	Note string
}

// How a regression gate was judged.
const (
	JudgedInterval = "interval"
	JudgedPoint    = "point estimate"
)

// Eval checks the gate on run against base.
func (g RegressionGate) Eval(base, run *metrics.Result) RegressionResult {
	out := RegressionResult{Gate: g}
	b, m := g.Quantity.Eval(base), g.Quantity.Eval(run)
	switch {
	case b.Problem != "":
		out.Problem = "baseline: " + b.Problem
		return out
	case m.Problem != "":
		out.Problem = m.Problem
		return out
	}
	out.Base, out.Measured = b.Measured, m.Measured
	change := m.Measured - b.Measured
	if !g.higherIsWorse() {
		change = -change
	}
	switch {
	case change == 0:
		out.Regression = 0
	case b.Measured == 0:
		out.Problem = fmt.Sprintf("the baseline's %s is 0, so a relative change is undefined", quantityName(g.Quantity))
		return out
	default:
		out.Regression = change / math.Abs(b.Measured)
	}
	out.Pass = compare(out.Regression, g.Op, g.Limit)
	return out
}

func compare(v float64, op slo.Op, bound float64) bool {
	switch op {
	case slo.LE:
		return v <= bound
	case slo.LT:
		return v < bound
	case slo.GE:
		return v >= bound
	case slo.GT:
		return v > bound
	}
	return false
}

// String reports the result in one line.
func (r RegressionResult) String() string {
	if r.Problem != "" {
		return fmt.Sprintf("%s: fail: %s", r.Gate, r.Problem)
	}
	verdict := "fail"
	if r.Pass {
		verdict = "pass"
	}
	f := human.Brief
	if r.Gate.Quantity.Stat != slo.StatScalar {
		f = seconds
	}
	s := fmt.Sprintf("%s: %s → %s (%s)", r.Gate, f(r.Base), f(r.Measured), signedPercent(r.Regression))
	if r.HasCI {
		s += fmt.Sprintf(", %s %% CI of Δ %s, %s", pct(100*r.Confidence), intervalText(r.Gate.Quantity, r.Lo, r.Hi), r.Verdict)
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s + ": " + verdict
}

// intervalText writes the interval [lo, hi] of a difference of quantity
// q in its unit: milliseconds for a latency or a span, percentage points
// for an attainment, tokens per second for a goodput.
func intervalText(q slo.Gate, lo, hi float64) string {
	switch {
	case q.Stat != slo.StatScalar:
		return fmt.Sprintf("[%+.2f, %+.2f] ms", 1e3*lo, 1e3*hi)
	case q.Scalar == slo.SessionAttainment || q.Scalar == slo.TaskAttainment || q.Scalar == slo.Attainment:
		return fmt.Sprintf("[%+.1f, %+.1f] pp", 100*lo, 100*hi)
	}
	return fmt.Sprintf("[%+.1f, %+.1f] tok/s", lo, hi)
}
