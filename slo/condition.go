package slo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/metrics"
)

// Condition is one per-request SLO condition, such as ttft<=500ms.
//
// A condition on a value the request does not have (TPOT of a one-token
// reply, TTFT of a reply without tokens) holds vacuously. A condition on
// itl or inter_chunk constrains every gap of the request: "itl<=200ms"
// means no per-token ITL exceeded 200 ms (the largest is compared) and
// "itl>=1ms" means none fell below 1 ms (the smallest is compared).
//
// ttfa is the exception: a request that sent no answer token at all (a
// reasoning model cut off while thinking) never answered, so a ttfa
// condition does not hold for it. For a reply without reasoning ttfa is
// ttft and tpot_answer is tpot; tpot_reasoning holds vacuously for it.
type Condition struct {
	Metric metrics.Metric
	Op     Op
	Bound  time.Duration
}

// String writes the condition in the form ParseConditions reads.
func (c Condition) String() string {
	return string(c.Metric) + c.Op.String() + formatDuration(c.Bound)
}

// Holds reports whether request q meets the condition. It does not look at
// q.OK: Conditions.Good does.
func (c Condition) Holds(q metrics.Request) bool {
	var v time.Duration
	var ok bool
	switch c.Metric {
	case metrics.MetricTTFT:
		v, ok = q.TTFT, q.HasFirstToken
	case metrics.MetricTPOT:
		v, ok = q.TPOT, q.HasTPOT
	case metrics.MetricE2E:
		v, ok = q.E2E, q.HasE2E
	case metrics.MetricClientQueue:
		v, ok = q.ClientQueue, q.HasSent
	case metrics.MetricTTFTSent:
		v, ok = q.TTFTSent, q.HasFirstToken && q.HasSent
	case metrics.MetricITL:
		v, ok = q.ITLMin, q.HasGaps
		if c.Op.upper() {
			v = q.ITLMax
		}
	case metrics.MetricInterChunk:
		v, ok = q.ChunkGapMin, q.HasGaps
		if c.Op.upper() {
			v = q.ChunkGapMax
		}
	case metrics.MetricTTFA:
		return q.HasTTFA && holds(int64(q.TTFA), c.Op, int64(c.Bound))
	case metrics.MetricTPOTReasoning:
		v, ok = q.TPOTReasoning, q.HasTPOTReasoning
	case metrics.MetricTPOTAnswer:
		v, ok = q.TPOTAnswer, q.HasTPOTAnswer
	default:
		return false // ParseConditions admits no other metric
	}
	return !ok || holds(int64(v), c.Op, int64(c.Bound))
}

// Conditions is a per-request SLO: a request is good when it succeeded and
// every condition holds.
type Conditions []Condition

// Good reports whether q is a good request: it succeeded, carried at
// least one output token (an empty answer has no TTFT to meet a condition
// with) and meets every condition. Its method value fits
// metrics.Options.Good.
func (cs Conditions) Good(q metrics.Request) bool {
	if !q.OK || !q.HasFirstToken {
		return false
	}
	for _, c := range cs {
		if !c.Holds(q) {
			return false
		}
	}
	return true
}

// String writes the conditions in the form ParseConditions reads:
// comma-separated, for example "ttft<=500ms,tpot<=50ms".
func (cs Conditions) String() string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, ",")
}

// Apply makes cs the SLO of a Summary built from o: it sets o.Good and
// o.SLO.
func (cs Conditions) Apply(o *metrics.Options) {
	cs = slices.Clone(cs)
	o.Good = cs.Good
	o.SLO = cs.String()
}

// conditionMetrics are the metrics a condition may name, with the vLLM
// spelling e2el for e2e and the names AIPerf's and GenAI-Perf's --goodput
// take: time_to_first_token, request_latency, and inter_token_latency,
// which those tools define per request as (e2e − TTFT)/(N − 1), TPOT.
var conditionMetrics = map[string]metrics.Metric{
	"ttft":         metrics.MetricTTFT,
	"tpot":         metrics.MetricTPOT,
	"itl":          metrics.MetricITL,
	"inter_chunk":  metrics.MetricInterChunk,
	"e2e":          metrics.MetricE2E,
	"e2el":         metrics.MetricE2E,
	"client_queue": metrics.MetricClientQueue,
	"ttft_sent":    metrics.MetricTTFTSent,

	"time_to_first_token": metrics.MetricTTFT,
	"inter_token_latency": metrics.MetricTPOT,
	"request_latency":     metrics.MetricE2E,

	"ttfa":           metrics.MetricTTFA,
	"tpot_reasoning": metrics.MetricTPOTReasoning,
	"tpot_answer":    metrics.MetricTPOTAnswer,
}

const conditionMetricsHelp = "want ttft, tpot, itl, inter_chunk, e2e, client_queue, ttft_sent, or for reasoning models ttfa, tpot_reasoning, tpot_answer"

// ParseConditions parses a per-request SLO in either of two forms:
//
//	ttft<=500ms,tpot<=50ms,e2e<=10s,itl<=200ms
//	ttft:500 tpot:50 e2el:2000
//
// The first takes the operators <=, <, >= and > and the units ns, us (or
// µs), ms, s and m; conditions are separated by commas (or spaces). The
// second is the form `vllm bench serve --goodput` takes: name:value pairs
// separated by spaces, values in milliseconds, each meaning "at most".
// Metrics are ttft, tpot, itl, inter_chunk, e2e (also e2el), client_queue
// and ttft_sent (AIPerf's time_to_first_token, inter_token_latency and
// request_latency name ttft, tpot and e2e), and for reasoning models ttfa (time to the first answer
// token), tpot_reasoning and tpot_answer (TPOT over the reasoning and over
// the answer tokens). Values must be exact to the nanosecond. Errors give the
// column of the problem.
func ParseConditions(s string) (Conditions, error) {
	sc := newScanner("slo", s)
	sc.skipSpace()
	if sc.eof() {
		return nil, sc.errAt(sc.pos, errors.New("empty (want conditions like ttft<=500ms,tpot<=50ms)"))
	}
	vllm := !strings.ContainsAny(s, "<>=") && strings.Contains(s, ":")
	var cs Conditions
	for {
		c, err := parseCondition(sc, vllm)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
		sep := sc.pos
		sc.skipSpace()
		if sc.peek() == ',' {
			sc.pos++
			sc.skipSpace()
			if sc.eof() {
				return nil, sc.errorf(sep, "a condition must follow ','")
			}
			continue
		}
		if sc.eof() {
			return cs, nil
		}
		if sc.pos == sep {
			return nil, sc.errorf(sc.pos, "want ',' between conditions, found %s", sc.describe())
		}
	}
}

func parseCondition(sc *scanner, vllm bool) (Condition, error) {
	start := sc.pos
	name := sc.word()
	if name == "" {
		return Condition{}, sc.errorf(start, "want a metric name, found %s", sc.describe())
	}
	m, ok := conditionMetrics[name]
	if !ok {
		help := conditionMetricsHelp
		if name == "output_token_throughput_per_user" || name == "output_token_throughput_per_request" {
			help = "a bound on tokens per second per request is one on TPOT, its inverse: give tpot:MS with MS = 1000 / (tokens per second)"
		}
		return Condition{}, sc.errAt(start, fmt.Errorf("%w %q (%s)", ErrUnknownMetric, name, help))
	}
	if vllm {
		if sc.peek() != ':' {
			return Condition{}, sc.errorf(sc.pos, "want ':' after %s, found %s", name, sc.describe())
		}
		sc.pos++
		vs := sc.pos
		whole, frac, err := sc.decimal()
		if err != nil {
			return Condition{}, err
		}
		if !sc.eof() && !isSep(sc.peek()) {
			return Condition{}, sc.errorf(sc.pos, "want a number of milliseconds, found %s after it", sc.describe())
		}
		d, err := exactDuration(whole, frac, time.Millisecond)
		if err != nil {
			return Condition{}, sc.errAt(vs, fmt.Errorf("%s ms: %w", string(sc.rs[vs:sc.pos]), err))
		}
		return Condition{Metric: m, Op: LE, Bound: d}, nil
	}
	sc.skipSpace()
	op, err := sc.op()
	if err != nil {
		return Condition{}, err
	}
	sc.skipSpace()
	d, err := sc.duration()
	if err != nil {
		return Condition{}, err
	}
	return Condition{Metric: m, Op: op, Bound: d}, nil
}

func isSep(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }
