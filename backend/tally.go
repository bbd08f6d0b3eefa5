package backend

import (
	"math/bits"

	"github.com/goodput-dev/goodput/record"
)

// tally turns decoded events into a record's Chunks and token counts.
//
// An event is a Chunk when it carries at least one output token: text,
// reasoning, a tool call or token ids, or a rise in a running (continuous)
// usage count. Role-only and usage-only events are not Chunks. While the
// stream runs, each Chunk holds a provisional weight (its usage rise, else
// its token-id count, else 1); close then settles the counts:
//
//   - every weight a server count (usage rises or token ids) that agrees
//     with the reported total, or no total: the weights stand, source usage;
//   - a reported total T ≥ the number of chunks K: T is spread over the
//     chunks, each ≥ 1, in proportion to the weights; source usage;
//   - otherwise (no total and some weight inferred from text, or T < K):
//     one token per chunk; source chunks.
//
// A usage block is a running count only when the stream's first event with
// choices carried one (vLLM's continuous_usage_stats); servers that attach
// the total to their last content chunk (llama.cpp's /v1) are not mistaken
// for a stream whose last chunk carried every token.
type tally struct {
	continuous int8  // running usage: 0 undecided, 1 yes, -1 no
	running    int   // last running completion-token count
	usage      int   // last output-token count reported; -1 when none
	sum        int64 // Σ provisional weights
	exact      bool  // every weight so far is a server count
	finished   bool  // a finish reason arrived: generation is over
	done       bool  // the protocol's terminator arrived
}

func newTally() tally { return tally{usage: -1, exact: true} }

// add applies one event that arrived at time at.
func (t *tally) add(ev *event, at int64, rec *record.Record) {
	if ev.choices && t.continuous == 0 {
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
	case ev.tokens > 0:
		w, exact = ev.tokens, ev.exact
	}
	if w > 0 {
		rec.Chunks = append(rec.Chunks, record.Chunk{At: at, Tokens: int32(w)})
		t.sum += int64(w)
		t.exact = t.exact && exact
	}
	if ev.prompt >= 0 {
		rec.InputTokens = ev.prompt
	}
	if ev.finish != nil {
		t.finished = true
		if string(ev.finish) != rec.Finish {
			rec.Finish = string(ev.finish)
		}
	}
	if ev.done {
		t.done = true
	}
}

// close settles the chunks' token counts and sets OutputTokens and
// TokenSource (see tally).
func (t *tally) close(rec *record.Record) {
	chunks := rec.Chunks
	k := len(chunks)
	total := t.usage
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
		spread(chunks, total)
		rec.TokenSource = record.SourceUsage
	default:
		for i := range chunks {
			chunks[i].Tokens = 1
		}
		rec.TokenSource = record.SourceChunks
	}
	n := 0
	for _, c := range chunks {
		n += int(c.Tokens)
	}
	rec.OutputTokens = n
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
