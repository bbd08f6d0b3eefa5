package metrics

import (
	"math"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// Metric names a per-request latency and the distribution built from it.
// The names are the JSON keys of Latency and the names SLO expressions use.
type Metric string

// The latency metrics, as DESIGN.md defines them.
const (
	MetricTTFT        Metric = "ttft"         // c1 − s
	MetricTPOT        Metric = "tpot"         // (cK − c1)/(N − 1), N ≥ 2
	MetricITL         Metric = "itl"          // per-token inter-token latency
	MetricInterChunk  Metric = "inter_chunk"  // raw chunk gaps
	MetricE2E         Metric = "e2e"          // cK − s
	MetricClientQueue Metric = "client_queue" // t0 − s
	MetricTTFTSent    Metric = "ttft_sent"    // c1 − t0

	// Reasoning models: named apart, the seeds' metrics above stay the
	// default (see ReasoningMetrics).
	MetricTTFA          Metric = "ttfa"           // first answer-bearing chunk − s
	MetricTPOTReasoning Metric = "tpot_reasoning" // over the reasoning tokens
	MetricTPOTAnswer    Metric = "tpot_answer"    // over the answer tokens
)

// Metrics lists every latency metric in report order.
func Metrics() []Metric {
	return []Metric{MetricTTFT, MetricTPOT, MetricITL, MetricInterChunk, MetricE2E, MetricClientQueue, MetricTTFTSent}
}

// ReasoningMetrics lists the reasoning models' latency metrics in report
// order. Reports show them for runs in which a request reasoned.
func ReasoningMetrics() []Metric {
	return []Metric{MetricTTFA, MetricTPOTReasoning, MetricTPOTAnswer}
}

// Request is what one record says about one request: its latencies, each
// with a flag saying whether it is defined. Compute builds it; Options.Good
// judges it.
//
// A chunk whose Tokens is zero or negative cannot come from the stream
// parser (it drops role-only and usage-only chunks), but if a record holds
// one it is ignored entirely: it is not the first token, it does not end a
// gap, and it adds no tokens.
type Request struct {
	OK     bool             // the request succeeded (record.Error is empty)
	Error  record.ErrorKind // why it failed, empty on success
	Warmup bool             // a warm-up request

	InputTokens  int // prompt tokens
	OutputTokens int // N: the record's OutputTokens, or Σ chunk tokens when that is 0
	Chunks       int // chunks that carried at least one token

	// HasSent is false only for a request that was never sent (dropped).
	HasSent     bool
	ClientQueue time.Duration // t0 − s; defined when HasSent

	// HasFirstToken says a chunk carried a token: TTFT is defined, and
	// TTFTSent too when HasSent.
	HasFirstToken bool
	TTFT          time.Duration // c1 − s
	TTFTSent      time.Duration // c1 − t0

	HasTPOT bool          // N ≥ 2, a first token arrived and the answer was streamed (not Record.Whole)
	TPOT    time.Duration // (cK − c1)/(N − 1), rounded to the nanosecond

	// HasE2E is true when a token arrived (e2e = cK − s) and also for a
	// success that carried no token at all, whose e2e is its end: te − s.
	HasE2E bool
	E2E    time.Duration

	// HasGaps says at least two chunks carried tokens, so the ITL and
	// inter-chunk extremes below are defined. Per-token ITL values are
	// each gap divided by the tokens of the chunk that closed it, rounded
	// to the nanosecond.
	HasGaps     bool
	ITLMin      time.Duration
	ITLMax      time.Duration
	ChunkGapMin time.Duration
	ChunkGapMax time.Duration

	// Reasoning models (DESIGN.md, "Reasoning streams"). Reasoned says
	// the reply held reasoning, streamed or only counted by the server.
	// ReasoningTokens of the OutputTokens were reasoning and AnswerTokens
	// the rest. TTFA counts from s to the first answer-bearing chunk; for
	// a reply without reasoning it is TTFT, and TPOTAnswer is TPOT.
	Reasoned        bool
	ReasoningTokens int
	AnswerTokens    int

	HasTTFA bool          // an answer-bearing chunk arrived
	TTFA    time.Duration // first answer-bearing chunk − s

	// TPOTReasoning is (last reasoning chunk − first)/(ReasoningTokens −
	// 1), defined when a reasoning chunk arrived and ReasoningTokens ≥ 2;
	// TPOTAnswer is (last answer chunk − first)/(AnswerTokens − 1), when
	// an answer chunk arrived and AnswerTokens ≥ 2. A stream that goes
	// back to thinking after part of its answer counts each span from the
	// kind's first chunk to its last.
	HasTPOTReasoning bool
	TPOTReasoning    time.Duration
	HasTPOTAnswer    bool
	TPOTAnswer       time.Duration
}

// Compute derives the per-request metrics of r. It reads r and keeps nothing.
func Compute(r *record.Record) Request {
	st := statsOf(r.Chunks)
	return request(r, &st)
}

// chunkStats is what one pass over a record's chunks learns.
type chunkStats struct {
	first, last    int64 // c1 and cK
	tokens         int64 // Σk over token-bearing chunks
	chunks         int   // token-bearing chunks
	gapMin, gapMax int64 // raw gaps, when chunks ≥ 2
	itlMin, itlMax int64 // per-token gaps, when chunks ≥ 2
	// simple says every chunk carries exactly one token and arrivals never
	// go backwards: the common case, which a Summary takes a faster path
	// for.
	simple bool
}

// statsOf makes one pass over cs. The loop for the common case (one token
// per chunk) is kept apart from the general one so that it stays small
// enough to live in registers.
func statsOf(cs []record.Chunk) chunkStats {
	if len(cs) == 0 || cs[0].Tokens != 1 {
		return statsSlow(cs)
	}
	prev := cs[0].At
	gapMin, gapMax := int64(math.MaxInt64), int64(math.MinInt64)
	for _, c := range cs[1:] {
		if c.Tokens != 1 {
			return statsSlow(cs)
		}
		g := c.At - prev
		prev = c.At
		gapMin, gapMax = min(gapMin, g), max(gapMax, g)
	}
	n := len(cs)
	return chunkStats{
		first: cs[0].At, last: prev, tokens: int64(n), chunks: n,
		gapMin: gapMin, gapMax: gapMax, itlMin: gapMin, itlMax: gapMax,
		simple: n == 1 || gapMin >= 0,
	}
}

// statsSlow is statsOf for any chunks: several tokens per chunk, or chunks
// without tokens, which are skipped.
func statsSlow(cs []record.Chunk) chunkStats {
	st := chunkStats{
		gapMin: math.MaxInt64, itlMin: math.MaxInt64,
		gapMax: math.MinInt64, itlMax: math.MinInt64,
	}
	var prev int64
	for _, c := range cs {
		if c.Tokens <= 0 {
			continue
		}
		k := int64(c.Tokens)
		if st.chunks == 0 {
			st.first = c.At
		} else {
			gap := c.At - prev
			per := divRound(gap, k)
			st.gapMin, st.gapMax = min(st.gapMin, gap), max(st.gapMax, gap)
			st.itlMin, st.itlMax = min(st.itlMin, per), max(st.itlMax, per)
		}
		prev = c.At
		st.tokens += k
		st.chunks++
	}
	st.last = prev
	return st
}

// request derives a record's metrics from its chunk statistics.
func request(r *record.Record, st *chunkStats) Request {
	q := Request{
		OK:          r.Error == record.ErrNone,
		Error:       r.Error,
		Warmup:      r.Warmup,
		InputTokens: r.InputTokens,
		HasSent:     r.Error != record.ErrDropped,
		Chunks:      st.chunks,
	}
	if q.HasSent {
		q.ClientQueue = time.Duration(r.Sent - r.Scheduled)
	}
	if st.chunks >= 2 {
		q.HasGaps = true
		q.ITLMin, q.ITLMax = time.Duration(st.itlMin), time.Duration(st.itlMax)
		q.ChunkGapMin, q.ChunkGapMax = time.Duration(st.gapMin), time.Duration(st.gapMax)
	}
	n := int64(r.OutputTokens)
	if n <= 0 {
		n = st.tokens
	}
	q.OutputTokens = int(n)

	if st.chunks > 0 {
		q.HasFirstToken = true
		q.TTFT = time.Duration(st.first - r.Scheduled)
		if q.HasSent {
			q.TTFTSent = time.Duration(st.first - r.Sent)
		}
		q.HasE2E = true
		q.E2E = time.Duration(st.last - r.Scheduled)
		if n >= 2 && !r.Whole {
			q.HasTPOT = true
			q.TPOT = time.Duration(divRound(st.last-st.first, n-1))
		}
	} else if q.OK {
		q.HasE2E = true
		q.E2E = time.Duration(r.End - r.Scheduled)
	}
	if r.ReasoningTokens > 0 {
		q.reasoning(r)
	} else {
		q.AnswerTokens = q.OutputTokens
		q.HasTTFA, q.TTFA = q.HasFirstToken, q.TTFT
		q.HasTPOTAnswer, q.TPOTAnswer = q.HasTPOT, q.TPOT
	}
	return q
}

// divRound returns a/k rounded to the nearest integer, halves away from
// zero. k must be positive.
func divRound(a, k int64) int64 {
	q, r := a/k, a%k
	if r < 0 {
		r = -r
	}
	if r >= k-r { // 2r ≥ k without overflowing
		if a < 0 {
			q--
		} else {
			q++
		}
	}
	return q
}
