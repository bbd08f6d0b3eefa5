package slo

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/metrics"
)

// Stat is what a gate reads from a run's Result.
type Stat int

// Statistics of a latency distribution, and StatScalar for the run-wide
// numbers (attainment, goodput, …).
const (
	StatPercentile Stat = iota // pNN(metric)
	StatMean                   // mean(metric)
	StatMedian                 // median(metric)
	StatMin                    // min(metric)
	StatMax                    // max(metric)
	StatStd                    // std(metric)
	StatScalar                 // a named run-wide number
)

var statNames = map[string]Stat{"mean": StatMean, "median": StatMedian, "min": StatMin, "max": StatMax, "std": StatStd}

// Scalar is a run-wide number a gate can check.
type Scalar string

// The run-wide numbers. Rates are per second of the measurement window.
const (
	Attainment        Scalar = "attainment"         // good / all requests, 0–1
	Goodput           Scalar = "goodput"            // good output tokens per second
	RequestGoodput    Scalar = "request_goodput"    // good requests per second
	Throughput        Scalar = "throughput"         // output tokens per second
	RequestThroughput Scalar = "request_throughput" // completed requests per second
	InputThroughput   Scalar = "input_throughput"   // input tokens per second
	TotalThroughput   Scalar = "total_throughput"   // input + output tokens per second
	ErrorRate         Scalar = "error_rate"         // failed / all requests, 0–1

	// A run's multi-turn sessions and agent tasks (metrics.Sessions,
	// metrics.Tasks): one is good when every one of its requests is.
	SessionGoodput    Scalar = "session_goodput"    // output tokens of good sessions per second
	SessionAttainment Scalar = "session_attainment" // good / judged sessions, 0–1
	TaskGoodput       Scalar = "task_goodput"       // output tokens of good tasks per second
	TaskAttainment    Scalar = "task_attainment"    // good / judged tasks, 0–1
)

var scalars = []Scalar{Attainment, Goodput, RequestGoodput, Throughput, RequestThroughput, InputThroughput, TotalThroughput, ErrorRate,
	SessionGoodput, SessionAttainment, TaskGoodput, TaskAttainment}

// fraction reports whether the scalar is a ratio in [0, 1], which may be
// written as a percentage.
func (s Scalar) fraction() bool {
	return s == Attainment || s == ErrorRate || s == SessionAttainment || s == TaskAttainment
}

// needsSLO reports whether the scalar exists only with a per-request SLO.
func (s Scalar) needsSLO() bool {
	return s == Attainment || s == Goodput || s == RequestGoodput || s.flow() != ""
}

// flow returns "sessions" or "tasks" for a scalar of a run's sessions or
// agent tasks, and "" for the others.
func (s Scalar) flow() string {
	switch s {
	case SessionGoodput, SessionAttainment:
		return "sessions"
	case TaskGoodput, TaskAttainment:
		return "tasks"
	}
	return ""
}

// gateMetrics are the metrics a latency gate may name: those of a
// condition, and the spans of sessions and agent tasks, which belong to a
// whole session (task) rather than to a request.
var gateMetrics = func() map[string]metrics.Metric {
	m := map[string]metrics.Metric{
		"session_duration": metrics.MetricSessionDuration,
		"task_completion":  metrics.MetricTaskCompletion,
	}
	for k, v := range conditionMetrics {
		m[k] = v
	}
	return m
}()

const gateMetricsHelp = "want ttft, tpot, itl, inter_chunk, e2e, client_queue, ttft_sent, for reasoning models ttfa, tpot_reasoning, tpot_answer, or for sessions and agent tasks session_duration, task_completion"

// flowOf returns "sessions" or "tasks" for the span of a run's sessions
// or agent tasks, and "" for a per-request metric.
func flowOf(m metrics.Metric) string {
	switch m {
	case metrics.MetricSessionDuration:
		return "sessions"
	case metrics.MetricTaskCompletion:
		return "tasks"
	}
	return ""
}

// noFlows says that r has none of the sessions (tasks) that what reads,
// or "" when it has them.
func noFlows(r *metrics.Result, kind, what string) string {
	switch {
	case kind == "sessions" && r.Sessions == nil:
		return fmt.Sprintf("%s reads a run's sessions and this run has none (replay some with --multi-turn or --dataset-name sessions)", what)
	case kind == "tasks" && r.Tasks == nil:
		return fmt.Sprintf("%s reads a run's agent tasks and this run has none (replay some with --dataset-name agent)", what)
	}
	return ""
}

// Gate is a pass/fail check on a run, such as p99(ttft)<=500ms or
// attainment>=0.9.
type Gate struct {
	Stat   Stat
	P      float64        // the percentile, for StatPercentile
	Metric metrics.Metric // the latency metric, for every Stat but StatScalar
	Scalar Scalar         // the number, for StatScalar
	Op     Op
	Bound  time.Duration // the threshold of a latency gate
	Value  float64       // the threshold of a scalar gate
}

// String writes the gate in the form ParseGate reads.
func (g Gate) String() string {
	var b strings.Builder
	switch g.Stat {
	case StatScalar:
		b.WriteString(string(g.Scalar))
	case StatPercentile:
		fmt.Fprintf(&b, "p%s(%s)", formatNumber(g.P), g.Metric)
	default:
		fmt.Fprintf(&b, "%s(%s)", g.statName(), g.Metric)
	}
	b.WriteString(g.Op.String())
	if g.Stat == StatScalar {
		b.WriteString(formatNumber(g.Value))
	} else {
		b.WriteString(formatDuration(g.Bound))
	}
	return b.String()
}

func (g Gate) statName() string {
	for name, s := range statNames {
		if s == g.Stat {
			return name
		}
	}
	return fmt.Sprintf("stat(%d)", int(g.Stat))
}

// MarshalText writes the gate as String does, so a GateResult's JSON names
// its gate readably.
func (g Gate) MarshalText() ([]byte, error) { return []byte(g.String()), nil }

// UnmarshalText parses a gate written by MarshalText.
func (g *Gate) UnmarshalText(b []byte) error {
	v, err := ParseGate(string(b))
	if err != nil {
		return err
	}
	*g = v
	return nil
}

// GateResult is a gate checked against a run.
type GateResult struct {
	Gate Gate `json:"gate"`
	// Measured is the value read from the run: seconds for a latency
	// gate, the scalar's own unit otherwise. It is 0 when Problem is set.
	Measured float64 `json:"measured"`
	Pass     bool    `json:"pass"`
	// Problem says why the value could not be read (the percentile was not
	// computed, no value was measured, no SLO was given); the gate then
	// fails.
	Problem string `json:"problem,omitempty"`
}

// String reports the result in one line, for example
// "p99(ttft)<=500ms: measured 412ms: pass".
func (r GateResult) String() string {
	if r.Problem != "" {
		return fmt.Sprintf("%s: fail: %s", r.Gate, r.Problem)
	}
	verdict := "fail"
	if r.Pass {
		verdict = "pass"
	}
	m := strconv.FormatFloat(r.Measured, 'g', 6, 64)
	if r.Gate.Stat != StatScalar {
		m = formatSeconds(r.Measured)
	}
	return fmt.Sprintf("%s: measured %s: %s", r.Gate, m, verdict)
}

// formatSeconds writes a latency with a unit and four significant digits.
func formatSeconds(s float64) string {
	a := math.Abs(s)
	switch {
	case a == 0:
		return "0s"
	case a >= 1:
		return strconv.FormatFloat(s, 'g', 4, 64) + "s"
	case a >= 1e-3:
		return strconv.FormatFloat(s*1e3, 'g', 4, 64) + "ms"
	case a >= 1e-6:
		return strconv.FormatFloat(s*1e6, 'g', 4, 64) + "us"
	}
	return strconv.FormatFloat(s*1e9, 'g', 4, 64) + "ns"
}

// Eval checks the gate against r. A value that cannot be read fails the
// gate, with the reason in Problem.
func (g Gate) Eval(r *metrics.Result) GateResult {
	out := GateResult{Gate: g}
	v, problem := g.measure(r)
	if problem != "" {
		out.Problem = problem
		return out
	}
	out.Measured = v
	if g.Stat == StatScalar {
		out.Pass = holds(v, g.Op, g.Value)
	} else {
		out.Pass = holds(v, g.Op, float64(g.Bound)/1e9)
	}
	return out
}

func (g Gate) measure(r *metrics.Result) (float64, string) {
	if r == nil {
		return 0, "no result"
	}
	if g.Stat == StatScalar {
		if p := noFlows(r, g.Scalar.flow(), string(g.Scalar)); p != "" {
			return 0, p
		}
		if g.Scalar.needsSLO() && r.Goodput == nil {
			return 0, fmt.Sprintf("%s needs a per-request SLO (--slo or --goodput; not --slo none)", g.Scalar)
		}
		switch g.Scalar {
		case Attainment:
			return r.Goodput.Attainment, ""
		case Goodput:
			return r.Goodput.OutputTokensPerSecond, ""
		case RequestGoodput:
			return r.Goodput.RequestsPerSecond, ""
		case Throughput:
			return r.Throughput.OutputTokensPerSecond, ""
		case RequestThroughput:
			return r.Throughput.RequestsPerSecond, ""
		case InputThroughput:
			return r.Throughput.InputTokensPerSecond, ""
		case TotalThroughput:
			return r.Throughput.TotalTokensPerSecond, ""
		case ErrorRate:
			if r.Counts.Total == 0 {
				return 0, "no requests were measured"
			}
			return r.Counts.ErrorRate, ""
		}
		if g.Scalar.flow() != "" {
			if v, ok := flowScalar(r, g.Scalar); ok {
				return v, ""
			}
			return 0, fmt.Sprintf("%s needs a per-request SLO (--slo or --goodput; not --slo none)", g.Scalar)
		}
		return 0, fmt.Sprintf("unknown scalar %q", g.Scalar)
	}
	if p := noFlows(r, flowOf(g.Metric), string(g.Metric)); p != "" {
		return 0, p
	}
	d := r.Distribution(g.Metric)
	if d == nil {
		return 0, fmt.Sprintf("unknown metric %q", g.Metric)
	}
	if d.Count == 0 {
		return 0, fmt.Sprintf("no %s values were measured", g.Metric)
	}
	switch g.Stat {
	case StatPercentile:
		v, ok := d.Percentile(g.P)
		if !ok {
			return 0, fmt.Sprintf("p%s of %s was not computed (add %s to the percentiles)", formatNumber(g.P), g.Metric, formatNumber(g.P))
		}
		return v, ""
	case StatMean:
		return d.Mean, ""
	case StatMedian:
		return d.Median, ""
	case StatMin:
		return d.Min, ""
	case StatMax:
		return d.Max, ""
	case StatStd:
		return d.Std, ""
	}
	return 0, fmt.Sprintf("unknown statistic %d", int(g.Stat))
}

// flowScalar reads a scalar of r's sessions or tasks, which r must have;
// ok is false when they were not judged (no SLO).
func flowScalar(r *metrics.Result, s Scalar) (v float64, ok bool) {
	var g *metrics.FlowGoodput
	switch s.flow() {
	case "sessions":
		g = r.Sessions.Goodput
	case "tasks":
		g = r.Tasks.Goodput
	}
	if g == nil {
		return 0, false
	}
	if s == SessionAttainment || s == TaskAttainment {
		return g.Attainment, true
	}
	return g.OutputTokensPerSecond, true
}

// Gates is a list of gates, all of which must pass.
type Gates []Gate

// String writes the gates comma-separated, as ParseGates reads them.
func (gs Gates) String() string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = g.String()
	}
	return strings.Join(parts, ",")
}

// Percentiles returns the percentiles the gates read, sorted, without
// duplicates.
func (gs Gates) Percentiles() []float64 {
	var ps []float64
	for _, g := range gs {
		if g.Stat == StatPercentile {
			ps = append(ps, g.P)
		}
	}
	slices.Sort(ps)
	return slices.Compact(ps)
}

// Require adds the gates' percentiles to o, keeping those already asked for
// (or the defaults, when o.Percentiles is nil). Call it before NewSummary so
// that the Result can answer every gate.
func (gs Gates) Require(o *metrics.Options) {
	ps := gs.Percentiles()
	if len(ps) == 0 {
		return
	}
	base := o.Percentiles
	if base == nil {
		base = metrics.DefaultPercentiles()
	}
	all := append(slices.Clone(base), ps...)
	slices.Sort(all)
	o.Percentiles = slices.Compact(all)
}

// Eval checks every gate against r. ok is true when all pass.
func (gs Gates) Eval(r *metrics.Result) (results []GateResult, ok bool) {
	ok = true
	results = make([]GateResult, len(gs))
	for i, g := range gs {
		results[i] = g.Eval(r)
		ok = ok && results[i].Pass
	}
	return results, ok
}

const gateHelp = "want pNN(metric), mean(…), median(…), min(…), max(…), std(…) or attainment, goodput, request_goodput, throughput, request_throughput, input_throughput, total_throughput, error_rate, session_goodput, session_attainment, task_goodput, task_attainment"

// ParseGate parses one gate:
//
//	p99(ttft)<=500ms   p99.9(itl)<100ms   mean(tpot)<40ms   max(e2e)<=10s
//	attainment>=0.9    attainment>=90%    goodput>=1000     error_rate<=0.01
//	session_attainment>=80%   p99(session_duration)<=30s   task_goodput>=50
//
// Latency gates name a statistic (pNN with NN in [0, 100], mean, median,
// min, max, std) of a metric (ttft, tpot, itl, inter_chunk, e2e,
// client_queue, ttft_sent; ttfa, tpot_reasoning, tpot_answer for
// reasoning models; session_duration and task_completion, the spans of a
// run's sessions and agent tasks) and compare it with a duration. A run
// without reasoning answers ttfa and tpot_answer with ttft's and tpot's
// values; a tpot_reasoning gate then fails, having nothing to read.
// Scalar gates compare a run-wide number with a plain decimal:
// attainment, goodput, request_goodput, the throughputs, error_rate, and
// session_goodput, session_attainment, task_goodput and task_attainment
// for a run's sessions and agent tasks (with an SLO: a session or task is
// good when every one of its requests is). The attainments and error_rate
// also take a percentage. A gate on sessions (tasks) fails, saying so, on
// a run without them. Errors give the column of the problem.
func ParseGate(s string) (Gate, error) {
	sc := newScanner("gate", s)
	g, err := parseGate(sc)
	if err != nil {
		return Gate{}, err
	}
	sc.skipSpace()
	if !sc.eof() {
		return Gate{}, sc.errorf(sc.pos, "unexpected %s after the gate", sc.describe())
	}
	return g, nil
}

// ParseGates parses comma-separated gates, as ParseGate reads each one.
func ParseGates(s string) (Gates, error) {
	sc := newScanner("gate", s)
	sc.skipSpace()
	if sc.eof() {
		return nil, sc.errAt(sc.pos, errors.New("empty (want gates like p99(ttft)<=500ms)"))
	}
	var gs Gates
	for {
		g, err := parseGate(sc)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
		sc.skipSpace()
		if sc.eof() {
			return gs, nil
		}
		if sc.peek() != ',' {
			return nil, sc.errorf(sc.pos, "want ',' between gates, found %s", sc.describe())
		}
		comma := sc.pos
		sc.pos++
		sc.skipSpace()
		if sc.eof() {
			return nil, sc.errorf(comma, "a gate must follow ','")
		}
	}
}

func parseGate(sc *scanner) (Gate, error) {
	sc.skipSpace()
	start := sc.pos
	name := sc.word()
	var g Gate
	switch {
	case name == "":
		return Gate{}, sc.errorf(start, "%s, found %s", gateHelp, sc.describe())
	case name == "p" || name[0] == 'p' && isDigits(name[1:]):
		// pNN: the word took p and the whole digits; read the number again
		// from after the p to get any decimals.
		sc.pos = start + 1
		p, err := sc.number()
		if err != nil {
			return Gate{}, err
		}
		if p > 100 {
			return Gate{}, sc.errAt(start+1, fmt.Errorf("percentile %s: %w (want 0 to 100)", formatNumber(p), ErrRange))
		}
		g.Stat, g.P = StatPercentile, p
	default:
		if st, ok := statNames[name]; ok {
			g.Stat = st
		} else if slices.Contains(scalars, Scalar(name)) {
			g.Stat, g.Scalar = StatScalar, Scalar(name)
		} else {
			return Gate{}, sc.errAt(start, fmt.Errorf("%w %q (%s)", ErrUnknownMetric, name, gateHelp))
		}
	}
	if g.Stat != StatScalar {
		stat := string(sc.rs[start:sc.pos])
		sc.skipSpace()
		if sc.peek() != '(' {
			return Gate{}, sc.errorf(sc.pos, "want '(' and a metric after %s, found %s", stat, sc.describe())
		}
		sc.pos++
		sc.skipSpace()
		ms := sc.pos
		m := sc.word()
		mm, ok := gateMetrics[m]
		if !ok {
			if m == "" {
				return Gate{}, sc.errorf(ms, "want a metric name, found %s", sc.describe())
			}
			return Gate{}, sc.errAt(ms, fmt.Errorf("%w %q (%s)", ErrUnknownMetric, m, gateMetricsHelp))
		}
		g.Metric = mm
		sc.skipSpace()
		if sc.peek() != ')' {
			return Gate{}, sc.errorf(sc.pos, "want ')', found %s", sc.describe())
		}
		sc.pos++
	}
	sc.skipSpace()
	op, err := sc.op()
	if err != nil {
		return Gate{}, err
	}
	g.Op = op
	sc.skipSpace()
	if g.Stat != StatScalar {
		g.Bound, err = sc.duration()
		return g, err
	}
	vs := sc.pos
	g.Value, err = sc.number()
	if err != nil {
		return Gate{}, err
	}
	if sc.peek() == '%' {
		if !g.Scalar.fraction() {
			return Gate{}, sc.errorf(sc.pos, "%s takes no percentage", g.Scalar)
		}
		sc.pos++
		g.Value /= 100
	}
	if g.Scalar.fraction() && g.Value > 1 {
		return Gate{}, sc.errAt(vs, fmt.Errorf("%s %s: %w (want 0 to 1, or 0%% to 100%%)", g.Scalar, string(sc.rs[vs:sc.pos]), ErrRange))
	}
	return g, nil
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
