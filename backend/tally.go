package backend

import (
	"math"
	"math/bits"

	"github.com/goodput-dev/goodput/record"
)

// tally turns decoded events into a record's Chunks and token counts.
//
// An event is a Chunk when it carries at least one output token: text,
// reasoning, a tool call, token ids or logprobs, or a rise in a running
// (continuous) usage count. Role-only and usage-only events are not
// Chunks. A completions choice with empty text and no finish reason is a
// token whose text the server held back (llama.cpp and vLLM stream one
// event per decoding step, and hold back the text of a step that may begin
// a stop string or ends inside a character): after the first Chunk it is a
// Chunk of its own, so that each step keeps its time; before it, where a
// server might stream an empty choice to say it started, it is not, and
// the first token is the first event that shows one. While the stream
// runs, each Chunk holds a provisional weight (its usage rise, else its
// count of token ids or logprobs, else 1); close then settles the counts:
//
//   - every weight a server count (usage rises or token ids) that agrees
//     with the reported total, or no total: the weights stand, source usage;
//   - a reported total T ≥ the number of chunks K: T is spread over the
//     chunks, each ≥ 1, in proportion to the weights; source usage;
//   - otherwise (no total and some weight inferred from text, or T < K):
//     one token per chunk; source chunks.
//
// An end-of-sequence token is generated like any other but has no text, so
// an OpenAI-style stream shows it at most as an event with empty text
// (llama.cpp's /v1/completions) or only as the finish event (chat), while
// the server's usage counts it. When the total is exactly one more than the
// streamed tokens and generation stopped (finish reason "stop") on an event
// that carried none, the token is the first event without output after the
// last chunk: close adds it there as a one-token chunk, at the time the
// server decoded it. TPOT is then that of the tokens the server generated,
// and the count agrees with the stream, as on llama.cpp's native
// /completion, which streams the token with its id.
//
// Reasoning models stream their thinking before the answer. An event that
// carried reasoning text and no answer text makes a reasoning Chunk; one
// that carried neither (token ids or a usage rise without text, such as the
// token that ends the thinking, or an end-of-sequence token) continues the
// kind of the chunk before it, or, at the start, takes the kind of the
// first chunk with text. When the server reports its reasoning tokens
// (usage.completion_tokens_details) and a total is spread, the reasoning
// chunks share the reasoning count and the answer chunks the rest, so each
// kind's per-token times hold; a count the reasoning chunks cannot hold
// (fewer tokens than chunks) is not the stream's and is left for the
// chunks' own sum.
//
// A usage block is a running count only when the stream's first event with
// choices and either output or a usage block carried one (vLLM's and
// SGLang's continuous_usage_stats; SGLang's role-only first chunk has
// "usage":null, vLLM's a count of 0); servers that attach the total to
// their last content chunk (llama.cpp's /v1) are not mistaken for a stream
// whose last chunk carried every token.
type tally struct {
	continuous int8  // running usage: 0 undecided, 1 yes, -1 no
	running    int   // last running completion-token count
	usage      int   // last output-token count reported; -1 when none
	sum        int64 // Σ provisional weights
	exact      bool  // every weight so far is a server count
	finished   bool  // a finish reason arrived: generation is over
	done       bool  // the protocol's terminator arrived
	// quietAt is the arrival of the first event without output since the
	// last chunk (one with choices, or a finish), -1 when none: where an
	// end-of-sequence token belongs. stopped says generation stopped
	// ("stop") on an event without output.
	quietAt int64
	stopped bool
	// reasoning is the last reasoning-token count reported, -1 when none.
	// leading counts the chunks at the start that carried no text, whose
	// kind the first chunk with text decides; -1 once one has.
	reasoning int
	leading   int
}

func newTally() tally { return tally{usage: -1, exact: true, quietAt: -1, reasoning: -1} }

// add applies one event that arrived at time at.
func (t *tally) add(ev *event, at int64, rec *record.Record) {
	if ev.choices && t.continuous == 0 && (ev.tokens > 0 || ev.usage >= 0) {
		// A role-only chunk without usage (SGLang's first) says nothing
		// of the counts that follow; the first with output or a count does.
		t.continuous = -1
		if ev.usage >= 0 {
			t.continuous = 1
		}
	}
	rise := 0
	if ev.usage >= 0 {
		if t.continuous == 1 && ev.choices {
			if ev.usage > t.running {
				rise = ev.usage - t.running
				t.running = ev.usage
			}
		}
		t.usage = ev.usage
	}
	w, exact := 0, false
	switch {
	case rise > 0:
		w, exact = rise, true
	case ev.tokens > 0 && (ev.held < ev.tokens || len(rec.Chunks) > 0):
		w, exact = ev.tokens, ev.exact
	}
	if w > 0 {
		rec.Chunks = append(rec.Chunks, record.Chunk{At: at, Tokens: int32(w), Reasoning: t.kind(ev, rec.Chunks)})
		t.sum += int64(w)
		t.exact = t.exact && exact
		t.quietAt = -1
	} else if t.quietAt < 0 && (ev.finish != nil || (ev.choices && len(rec.Chunks) > 0)) {
		t.quietAt = at
	}
	if ev.reasoningUsage >= 0 {
		t.reasoning = ev.reasoningUsage
	}
	if ev.prompt >= 0 {
		rec.InputTokens = ev.prompt
	}
	if ev.cached >= 0 {
		rec.CachedTokens, rec.CacheReported = ev.cached, true
	}
	if ev.prefillMS >= 0 {
		rec.ServerPrefill = millis(ev.prefillMS)
	}
	if ev.decodeMS >= 0 {
		rec.ServerDecode = millis(ev.decodeMS)
	}
	if ev.finish != nil {
		t.finished = true
		if string(ev.finish) != rec.Finish {
			rec.Finish = string(ev.finish)
		}
		t.stopped = w == 0 && string(ev.finish) == string(finishStop)
	}
	if ev.done {
		t.done = true
	}
}

// kind reports whether the chunk that ev makes, after chunks, is
// reasoning (see tally).
func (t *tally) kind(ev *event, chunks []record.Chunk) bool {
	switch {
	case ev.answer || ev.reasoning:
		r := !ev.answer
		if t.leading > 0 {
			for i := range chunks {
				chunks[i].Reasoning = r
			}
		}
		t.leading = -1
		return r
	case t.leading >= 0:
		t.leading++
		return false // until a chunk with text says otherwise
	}
	return chunks[len(chunks)-1].Reasoning
}

// close settles the chunks' token counts and sets OutputTokens,
// TokenSource and the reasoning count (see tally).
func (t *tally) close(rec *record.Record) {
	total := t.usage
	if t.stopped && t.quietAt >= 0 && total >= 0 && int64(total) == t.sum+1 {
		// The end-of-sequence token carried no text: it continues the
		// chunk before it.
		eos := record.Chunk{At: t.quietAt, Tokens: 1}
		if n := len(rec.Chunks); n > 0 {
			eos.Reasoning = rec.Chunks[n-1].Reasoning
		}
		rec.Chunks = append(rec.Chunks, eos)
		t.sum++
	}
	chunks := rec.Chunks
	k := len(chunks)
	n := -1 // the output count, when not the chunks' sum
	switch {
	case k == 0:
		rec.OutputTokens = 0
		rec.TokenSource = record.SourceChunks
		if total >= 0 {
			rec.TokenSource = record.SourceUsage
		}
		return
	case t.exact && (total < 0 || int64(total) == t.sum):
		rec.TokenSource = record.SourceUsage
	case total >= k:
		if t.spreadByKind(chunks, total) {
			n = total // hidden reasoning leaves the chunks total − reasoning
		} else {
			spread(chunks, total)
		}
		rec.TokenSource = record.SourceUsage
	default:
		for i := range chunks {
			chunks[i].Tokens = 1
		}
		rec.TokenSource = record.SourceChunks
	}
	if n < 0 {
		n = 0
		for _, c := range chunks {
			n += int(c.Tokens)
		}
	}
	rec.OutputTokens = n
	t.settleReasoning(rec)
}

// spreadByKind spreads a reported total over the chunks kind by kind: the
// reported reasoning count over the reasoning chunks, the rest over the
// answer chunks. It reports false, changing nothing, when there is no
// reasoning count or a kind's chunks cannot hold their share (at least one
// token each). With reasoning reported but never streamed the answer chunks
// get only the answer's share.
func (t *tally) spreadByKind(chunks []record.Chunk, total int) bool {
	r := t.reasoning
	if r < 0 || r > total {
		return false
	}
	var kr, ka int
	for _, c := range chunks {
		if c.Reasoning {
			kr++
		} else {
			ka++
		}
	}
	if kr > r || ka > total-r || kr == 0 && r == 0 || ka == 0 && total-r > 0 {
		return false
	}
	spreadKind(chunks, true, r)
	spreadKind(chunks, false, total-r)
	return true
}

// settleReasoning sets the record's reasoning count: the server's, when
// it reported one the reasoning chunks can hold and the output count
// holds; else the reasoning chunks' sum.
func (t *tally) settleReasoning(rec *record.Record) {
	counted, kr := 0, 0
	for _, c := range rec.Chunks {
		if c.Reasoning {
			counted += int(c.Tokens)
			kr++
		}
	}
	switch r := t.reasoning; {
	case r > 0 && r >= kr && r <= rec.OutputTokens:
		rec.ReasoningTokens, rec.ReasoningSource = r, record.SourceUsage
	case counted > 0:
		rec.ReasoningTokens, rec.ReasoningSource = counted, record.SourceChunks
	}
}

// millis converts a server's milliseconds to nanoseconds, at least 1 so
// that a timing given as 0 still reads as given.
func millis(ms float64) int64 { return max(1, int64(math.Round(ms*1e6))) }

// spreadKind spreads total over the chunks whose Reasoning is reasoning,
// as spread does over all of them; total must be at least their number.
func spreadKind(chunks []record.Chunk, reasoning bool, total int) {
	var weights uint64
	n := 0
	for _, c := range chunks {
		if c.Reasoning == reasoning {
			weights += uint64(c.Tokens)
			n++
		}
	}
	if n == 0 {
		return
	}
	rest := uint64(total - n)
	var acc, given uint64
	for i := range chunks {
		if chunks[i].Reasoning != reasoning {
			continue
		}
		acc += uint64(chunks[i].Tokens)
		hi, lo := bits.Mul64(rest, acc)
		due, _ := bits.Div64(hi, lo, weights)
		chunks[i].Tokens = int32(1 + due - given)
		given = due
	}
}

// spread sets the chunks' tokens to sum to total (≥ len(chunks)): one each,
// and the rest in proportion to their current weights, by cumulative
// rounding so that the result is exact and deterministic.
func spread(chunks []record.Chunk, total int) {
	var weights uint64
	for _, c := range chunks {
		weights += uint64(c.Tokens)
	}
	rest := uint64(total - len(chunks))
	var acc, given uint64
	for i := range chunks {
		acc += uint64(chunks[i].Tokens)
		// rest·acc/weights never exceeds rest, so the 128-bit quotient fits.
		hi, lo := bits.Mul64(rest, acc)
		due, _ := bits.Div64(hi, lo, weights)
		chunks[i].Tokens = int32(1 + due - given)
		given = due
	}
}
