package metrics

import (
	"math"
	"slices"
	"sync"

	"github.com/goodput-dev/goodput/record"
)

// Summary accumulates records into a Result. Create it with NewSummary, call
// Add once per record, and Close at the end; Snapshot reads the numbers so
// far for a live view. All methods are safe for concurrent use.
//
// A Summary keeps no record. Each latency value is kept exactly, in about
// two bytes while its 65.5 µs bucket is sparse and in a fixed 256 KiB table
// of counts once the bucket is dense (see store), so a long run whose gaps
// cluster needs tens of MiB. One pool serves both ITL and inter-chunk
// latency while chunks carry one token each.
type Summary struct {
	opts Options // normalized; read-only after NewSummary, so Add reads it unlocked

	mu     sync.Mutex // guards every field below
	result *Result    // set by Close; later calls return it

	total, completed, failed, warmup int64
	errors                           map[record.ErrorKind]int64
	examples                         map[record.ErrorKind]string // first message of each kind
	sources                          map[record.Source]int64
	haveWindow                       bool
	start, end                       int64 // window: min Scheduled, max End
	busy                             wideSum
	input, output                    int64 // tokens of completed requests
	good, goodTokens                 int64
	noToken, retried                 int64
	cacheReqs, cachePrompt, cached   int64 // completed requests whose response gave a cache count
	timedReqs                        int64 // completed requests with server timings

	// Per-request samples, one value per completed request that has it.
	ttft, tpot, e2e, queue, ttftSent store
	srvPrefill, srvDecode            store // the server's own timings, where given

	// Reasoning replies keep their TTFT and TPOT apart (ttftR, tpotR),
	// so that TTFA and TPOT over the answer are the union of the other
	// replies' TTFT and TPOT (equal by definition) with the reasoning
	// replies' own: a run without reasoning fills none of these.
	ttftR, tpotR, ttfaR, tpotAnswerR, tpotReasoning     store
	reasoned, unanswered, reasoningTokens, answerTokens int64
	reasoningSources                                    map[record.Source]int64

	// ITL and inter-chunk pools. gaps1 holds the gaps closed by one-token
	// chunks, which are both an ITL and an inter-chunk value. A gap closed
	// by a chunk of k > 1 tokens goes to gapsK once (inter-chunk) and to
	// itlK as k per-token values (ITL).
	gaps1, gapsK, itlK store

	series series
	groups groups

	// placed holds sessions, tasks and endpoints; leaf marks a Summary of
	// one endpoint, which breaks nothing down further.
	placed placed
	leaf   bool
}

// NewSummary returns an empty Summary. Options are used as Options.Validate
// describes, except that NewSummary never fails: percentiles outside
// [0, 100] are clamped and NaN ones dropped, an unknown Method means Linear,
// and a non-positive SeriesStep means DefaultSeriesStep.
func NewSummary(o Options) *Summary {
	o = o.normalized()
	return &Summary{
		opts:     o,
		errors:   map[record.ErrorKind]int64{},
		examples: map[record.ErrorKind]string{},
		sources:  map[record.Source]int64{},
		series:   series{step: int64(o.SeriesStep)},

		reasoningSources: map[record.Source]int64{},
	}
}

// Add folds one record in. It reads r and retains neither r nor its Chunks,
// so the caller may reuse both as soon as Add returns. A record added after
// Close is ignored. Add calls Options.Good with the Summary locked.
func (s *Summary) Add(r *record.Record) {
	if r == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.result != nil {
		return
	}
	if r.Warmup && !s.opts.IncludeWarmup {
		s.warmup++
		return
	}
	st := statsOf(r.Chunks)
	q := request(r, &st)
	if q.OK && st.chunks > 0 {
		if st.simple {
			s.series.addTokensInOrder(r.Chunks)
			s.gaps1.addGaps(r.Chunks)
		} else {
			s.addChunks(r.Chunks)
		}
	}

	s.total++
	// A record that ends before it was scheduled (a dropped request may
	// leave End unset) counts as ending when it was scheduled.
	te := max(r.End, r.Scheduled)
	if !s.haveWindow {
		s.haveWindow, s.start, s.end = true, r.Scheduled, te
	} else {
		s.start = min(s.start, r.Scheduled)
		s.end = max(s.end, te)
	}
	if r.Retries > 0 {
		s.retried++
	}
	s.busy.add(span(r.Scheduled, te))
	s.series.cover(r.Scheduled, te)
	s.series.inFlight(r.Scheduled, te)
	end := &s.series.b[s.series.slot(te)]
	group := groupOf(r)

	if !q.OK {
		s.failed++
		s.errors[q.Error]++
		if _, ok := s.examples[q.Error]; !ok && r.Msg != "" {
			s.examples[q.Error] = r.Msg
		}
		end.errors++
		s.place(r, &q, false)
		if group != "" {
			s.groups.add(group, q, false)
		}
		return
	}
	s.completed++
	end.completions++
	s.sources[r.TokenSource]++
	s.input += int64(q.InputTokens)
	s.output += int64(q.OutputTokens)
	if r.CacheReported {
		s.cacheReqs++
		s.cachePrompt += int64(q.InputTokens)
		s.cached += int64(r.CachedTokens)
	}
	if r.ServerPrefill > 0 || r.ServerDecode > 0 {
		s.timedReqs++
		if r.ServerPrefill > 0 {
			s.srvPrefill.add(r.ServerPrefill)
		}
		if r.ServerDecode > 0 && q.OutputTokens > 1 {
			// The decode time runs from the first token to the last, as
			// TPOT does: N − 1 steps.
			s.srvDecode.add(divRound(r.ServerDecode, int64(q.OutputTokens-1)))
		}
	}
	// An empty answer has no TTFT, so no SLO on latency can hold.
	good := q.HasFirstToken && s.opts.Good != nil && s.opts.Good(q)
	if !q.HasFirstToken {
		s.noToken++
	} else if good {
		s.good++
		s.goodTokens += int64(q.OutputTokens)
	}
	if group != "" {
		s.groups.add(group, q, good)
	}
	if q.HasSent {
		s.queue.add(int64(q.ClientQueue))
	}
	ttft, tpot := &s.ttft, &s.tpot
	if q.Reasoned {
		ttft, tpot = &s.ttftR, &s.tpotR
		s.addReasoning(&q, r.ReasoningSource)
	} else {
		s.answerTokens += int64(q.OutputTokens)
	}
	if q.HasFirstToken {
		ttft.add(int64(q.TTFT))
		if q.HasSent {
			s.ttftSent.add(int64(q.TTFTSent))
		}
	}
	if q.HasTPOT {
		tpot.add(int64(q.TPOT))
	}
	if q.HasE2E {
		s.e2e.add(int64(q.E2E))
	}
	s.place(r, &q, good)
}

// place hands a record that names a session, a task or an endpoint to the
// aggregation of those; most records name none and cost one test.
func (s *Summary) place(r *record.Record, q *Request, good bool) {
	if r.Session != "" || r.Task != "" || r.Endpoint != "" {
		s.placed.add(s, r, q, good)
	}
}

// addReasoning folds in what a completed reply that reasoned adds; s.mu
// must be held.
func (s *Summary) addReasoning(q *Request, src record.Source) {
	s.reasoned++
	s.reasoningTokens += int64(q.ReasoningTokens)
	s.answerTokens += int64(q.AnswerTokens)
	s.reasoningSources[src]++
	if q.HasTTFA {
		s.ttfaR.add(int64(q.TTFA))
	} else {
		s.unanswered++
	}
	if q.HasTPOTAnswer {
		s.tpotAnswerR.add(int64(q.TPOTAnswer))
	}
	if q.HasTPOTReasoning {
		s.tpotReasoning.add(int64(q.TPOTReasoning))
	}
}

// addChunks pools the gaps of a successful record and attributes its tokens
// to the series, for records outside the fast path: chunks of several
// tokens, chunks without tokens (skipped), arrivals out of order.
func (s *Summary) addChunks(cs []record.Chunk) {
	started := false
	var prev int64
	for _, c := range cs {
		if c.Tokens <= 0 {
			continue
		}
		k := int64(c.Tokens)
		s.series.cover(c.At, c.At)
		s.series.b[s.series.slot(c.At)].tokens += k
		if !started {
			started, prev = true, c.At
			continue
		}
		gap := c.At - prev
		prev = c.At
		if k == 1 {
			s.gaps1.add(gap)
			continue
		}
		s.gapsK.add(gap)
		s.itlK.addN(divRound(gap, k), k)
	}
}

// Snapshot returns the numbers so far without ending the run: the live view.
// It scans the allocated bucket pages and orders only the values of the few
// buckets that hold the wanted percentiles (and the list of values past
// 4.29 s; see store); BenchmarkSnapshot measures it. Call it about once a
// second, not once per record.
// After Close it returns the closed Result.
func (s *Summary) Snapshot() *Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.result != nil {
		return s.result
	}
	r := s.compute()
	s.placed.fill(s, r, false)
	return r
}

// Close ends the run and returns its Result. It releases the pooled samples,
// so it is cheap to keep a closed Summary around; calling it again (or
// Snapshot) returns the same Result, which callers must therefore treat as
// read-only. Adds after Close are ignored.
func (s *Summary) Close() *Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.result == nil {
		s.result = s.compute()
		s.placed.fill(s, s.result, true)
		s.placed = placed{}
		for _, st := range []*store{&s.ttft, &s.tpot, &s.e2e, &s.queue, &s.ttftSent, &s.gaps1, &s.gapsK, &s.itlK, &s.srvPrefill, &s.srvDecode,
			&s.ttftR, &s.tpotR, &s.ttfaR, &s.tpotAnswerR, &s.tpotReasoning} {
			st.reset()
		}
		s.series = series{}
		s.groups.reset()
	}
	return s.result
}

// compute builds a Result from the state; s.mu must be held.
func (s *Summary) compute() *Result {
	o := &s.opts
	r := &Result{
		Method:      o.Method,
		Percentiles: slices.Clone(o.Percentiles),
		Counts: Counts{Total: s.total, Completed: s.completed, Failed: s.failed, Canceled: s.errors[record.ErrCanceled],
			WarmupExcluded: s.warmup, Errors: map[string]int64{}, NoToken: s.noToken, Retried: s.retried},
		Tokens:       Tokens{Input: s.input, Output: s.output, Total: s.input + s.output},
		TokenSources: map[string]int64{},
	}
	for k, n := range s.errors {
		r.Counts.Errors[string(k)] = n
	}
	for k, m := range s.examples {
		if r.Counts.ErrorExamples == nil {
			r.Counts.ErrorExamples = map[string]string{}
		}
		r.Counts.ErrorExamples[string(k)] = m
	}
	for k, n := range s.sources {
		name := string(k)
		if name == "" {
			name = "unknown"
		}
		r.TokenSources[name] += n
	}
	if s.total > 0 {
		r.Counts.ErrorRate = float64(s.failed) / float64(s.total)
	}

	var w float64 // seconds
	end := s.end
	if s.haveWindow && o.Window > 0 && s.start <= math.MaxInt64-int64(o.Window) {
		end = max(end, s.start+int64(o.Window))
	}
	if s.haveWindow {
		w = float64(span(s.start, end)) / 1e9
		r.Window = Window{Start: s.start, End: end, Seconds: w}
	}
	rate := func(x int64) float64 {
		if w == 0 {
			return 0
		}
		return float64(x) / w
	}
	r.Throughput = Throughput{
		RequestsPerSecond:     rate(s.completed),
		OutputTokensPerSecond: rate(s.output),
		InputTokensPerSecond:  rate(s.input),
		TotalTokensPerSecond:  rate(s.input + s.output),
	}
	if o.Good != nil {
		g := &Goodput{
			SLO:                   o.SLO,
			GoodRequests:          s.good,
			GoodOutputTokens:      s.goodTokens,
			OutputTokensPerSecond: rate(s.goodTokens),
			RequestsPerSecond:     rate(s.good),
		}
		// Requests canceled at an interrupt never had their chance to be
		// good: they judge the interruption, not the server.
		if judged := s.total - s.errors[record.ErrCanceled]; judged > 0 {
			g.Attainment = float64(s.good) / float64(judged)
		}
		r.Goodput = g
	}

	ps, m := o.Percentiles, o.Method
	r.Latency = Latency{
		TTFT:        describe([]*store{&s.ttft, &s.ttftR}, ps, m),
		TPOT:        describe([]*store{&s.tpot, &s.tpotR}, ps, m),
		E2E:         describe([]*store{&s.e2e}, ps, m),
		ClientQueue: describe([]*store{&s.queue}, ps, m),
		TTFTSent:    describe([]*store{&s.ttftSent}, ps, m),
		ITL:         describe([]*store{&s.gaps1, &s.itlK}, ps, m),
		InterChunk:  describe([]*store{&s.gaps1, &s.gapsK}, ps, m),
	}
	if s.reasoned > 0 {
		ttfa := describe([]*store{&s.ttft, &s.ttfaR}, ps, m)
		tpotR := describe([]*store{&s.tpotReasoning}, ps, m)
		tpotA := describe([]*store{&s.tpot, &s.tpotAnswerR}, ps, m)
		r.Latency.TTFA, r.Latency.TPOTReasoning, r.Latency.TPOTAnswer = &ttfa, &tpotR, &tpotA
		rs := &Reasoning{
			Requests: s.reasoned, Unanswered: s.unanswered,
			ReasoningTokens: s.reasoningTokens, AnswerTokens: s.answerTokens,
			ReasoningTokensPerSecond: rate(s.reasoningTokens), AnswerTokensPerSecond: rate(s.answerTokens),
			TokenSources: map[string]int64{},
		}
		for k, n := range s.reasoningSources {
			name := string(k)
			if name == "" {
				name = "unknown"
			}
			rs.TokenSources[name] += n
		}
		r.Reasoning = rs
	}

	if s.cacheReqs > 0 {
		pc := &PromptCache{Requests: s.cacheReqs, PromptTokens: s.cachePrompt, CachedTokens: s.cached}
		if s.cachePrompt > 0 {
			pc.HitRate = float64(s.cached) / float64(s.cachePrompt)
		}
		r.PromptCache = pc
	}
	if s.timedReqs > 0 {
		r.ServerTimings = &ServerTimings{
			Requests:       s.timedReqs,
			Prefill:        describe([]*store{&s.srvPrefill}, ps, m),
			DecodePerToken: describe([]*store{&s.srvDecode}, ps, m),
		}
	}

	ll := &r.LittlesLaw
	if w > 0 {
		ll.InFlight = s.busy.float() / 1e9 / w
		ll.ArrivalRate = rate(s.completed)
	}
	ll.MeanLatency = r.Latency.E2E.Mean
	ll.RateTimesLatency = ll.ArrivalRate * ll.MeanLatency
	if ll.InFlight > 0 {
		d := ll.InFlight - ll.RateTimesLatency
		ll.RelativeGap = max(d, -d) / ll.InFlight
	}

	r.PrefixGroups = s.groups.results(ps, m)
	r.Series = Series{Step: float64(s.series.step) / 1e9, Points: []SeriesPoint{}}
	if s.haveWindow && o.Window <= 0 {
		r.Series.Points = s.series.points(s.start, s.end)
	}
	return r
}

// span returns to − from, or 0 when to ≤ from. It is unsigned so that the
// span between any two int64 times fits.
func span(from, to int64) uint64 {
	if to <= from {
		return 0
	}
	return uint64(to) - uint64(from)
}

// wideSum is an unsigned 128-bit running sum, so the total in-flight time of
// any run fits.
type wideSum struct{ u128 }
