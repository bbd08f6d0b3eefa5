package report

import (
	"math"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/slo"
)

// RequestSpan is what a report keeps of one measured request: enough to
// draw it on the per-request timeline and to judge it against another
// SLO on the page.
type RequestSpan struct {
	Seq int64
	// Times, ns from the run epoch. Sent equals Scheduled for a request
	// that was never sent; First and Last are 0 without a token.
	Scheduled, Sent, First, Last, End int64
	HasToken                          bool
	OK                                bool
	Error                             record.ErrorKind
	// GapStart and GapEnd are the request's longest gap between chunks
	// (GapEnd = GapStart without two chunks).
	GapStart, GapEnd int64

	// TTFT and TPOT in ns, when HasTTFT and HasTPOT; OutputTokens is N.
	TTFT, TPOT       int64
	HasTTFT, HasTPOT bool
	OutputTokens     int
	// Good says the request met the run's SLO. Other says it met the
	// SLO's conditions that the page's SLO controls leave as they are:
	// all but its upper bounds on TTFT and TPOT.
	Good, Other bool
}

// newRequestSpan describes r, judged against cs.
func newRequestSpan(r *record.Record, q metrics.Request, cs slo.Conditions) RequestSpan {
	s := RequestSpan{
		Seq: r.Seq, Scheduled: r.Scheduled, Sent: r.Sent, End: r.End, OK: q.OK, Error: r.Error,
		TTFT: int64(q.TTFT), HasTTFT: q.HasFirstToken, TPOT: int64(q.TPOT), HasTPOT: q.HasTPOT,
		OutputTokens: q.OutputTokens, Other: true,
	}
	if !q.HasSent {
		s.Sent = r.Scheduled
	}
	var prev int64
	longest := int64(-1)
	for _, c := range r.Chunks {
		if c.Tokens <= 0 {
			continue
		}
		if !s.HasToken {
			s.First, s.HasToken = c.At, true
		} else if g := c.At - prev; g > longest {
			longest, s.GapStart, s.GapEnd = g, prev, c.At
		}
		prev = c.At
		s.Last = c.At
	}
	s.Good = cs.Good(q)
	for _, c := range cs {
		if !tunable(c) && !c.Holds(q) {
			s.Other = false
		}
	}
	return s
}

// tunable reports whether the page's SLO controls set c: an upper bound
// on TTFT or TPOT.
func tunable(c slo.Condition) bool {
	return c.Op == slo.LE && (c.Metric == metrics.MetricTTFT || c.Metric == metrics.MetricTPOT)
}

// micros returns ns as whole microseconds, rounded up: for a bound b that
// is a whole number of microseconds, v ≤ b exactly when micros(v) ≤ b/1000,
// so the page can judge a request exactly from microseconds.
func micros(ns int64) int64 {
	if ns <= 0 {
		return -((-ns) / 1000)
	}
	return (ns + 999) / 1000
}

// sampleEvery returns the stride that keeps at most limit of n items.
func sampleEvery(n, limit int) int {
	if n <= limit || limit <= 0 {
		return 1
	}
	return int(math.Ceil(float64(n) / float64(limit)))
}
