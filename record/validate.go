package record

import (
	"errors"
	"fmt"
)

// ErrImpossible marks a record that no request can have produced: times
// that go backwards, negative token counts, counts that contradict each
// other. Every reader of records refuses one, wrapping this error with
// where the record was (file and line, or the request of an import).
var ErrImpossible = errors.New("impossible record")

// Check reports the first invariant r breaks, naming the field by its key
// in the record file (see AppendJSON), or nil. The invariants are what
// every producer guarantees:
//
//   - times never go backwards: s ≤ t0 ≤ c1 ≤ … ≤ cK ≤ te, and t0 ≤ te
//     when no chunk arrived (a request that failed at once ends when it
//     was sent);
//   - a dropped request (never sent) has no chunks and no output tokens,
//     and its sent and end times are either unset (0) or not before s;
//   - the sequence number, the turn number and every token count are ≥ 0,
//     and when the output count came from the chunks ("src" "chunks") it
//     is their sum;
//   - the HTTP status is 0 (no response) or a three-digit code;
//   - the reasoning tokens are between 0 and the output tokens, at least
//     one per reasoning chunk, and when counted over the chunks ("rsrc"
//     "chunks") the reasoning chunks' sum.
//
// Readers call Check on every record they yield, so that no analysis ever
// reports a negative latency or throughput computed from a corrupt file.
func (r *Record) Check() error {
	if err := r.check(); err != nil {
		return fmt.Errorf("%w: %w", ErrImpossible, err)
	}
	return nil
}

// MaxTokens bounds every token count of one request: some thousand times
// any model's context window, and small enough that the counts of 2³¹
// records add up in an int64 without overflowing.
const MaxTokens = 1 << 32

// MaxTime bounds every time of a record, in ns from its run's epoch
// either way: 146 years, and small enough that the difference of two
// times never overflows an int64.
const MaxTime = 1 << 62

// outOfTime reports whether t is beyond MaxTime either way.
func outOfTime(t int64) bool { return t > MaxTime || t < -MaxTime }

func (r *Record) check() error {
	switch {
	case outOfTime(r.Scheduled) || outOfTime(r.Sent) || outOfTime(r.End):
		return fmt.Errorf(`a time ("s" %d, "t0" %d, "te" %d) is more than %d ns (146 years) from the run's start`, r.Scheduled, r.Sent, r.End, int64(MaxTime))
	case r.Seq < 0:
		return fmt.Errorf(`"seq" %d is negative`, r.Seq)
	case r.InputTokens < 0:
		return fmt.Errorf(`"in" %d is negative`, r.InputTokens)
	case r.OutputTokens < 0:
		return fmt.Errorf(`"out" %d is negative`, r.OutputTokens)
	case r.InputTokens > MaxTokens || r.OutputTokens > MaxTokens || r.CachedTokens > MaxTokens || r.ReasoningTokens > MaxTokens:
		return fmt.Errorf(`a token count ("in" %d, "out" %d, "cached" %d, "rt" %d) is above %d, more than any request can hold`,
			r.InputTokens, r.OutputTokens, r.CachedTokens, r.ReasoningTokens, MaxTokens)
	case r.Turn < 0:
		return fmt.Errorf(`"turn" %d is negative`, r.Turn)
	case r.Status < 0 || r.Status > 999 || (r.Status > 0 && r.Status < 100):
		return fmt.Errorf(`"status" %d is not an HTTP status`, r.Status)
	case r.CachedTokens < 0:
		return fmt.Errorf(`"cached" %d is negative`, r.CachedTokens)
	case r.Retries < 0:
		return fmt.Errorf(`"retries" %d is negative`, r.Retries)
	case r.ServerPrefill < 0 || r.ServerDecode < 0:
		return fmt.Errorf(`"prefill_ns" %d or "decode_ns" %d is negative`, r.ServerPrefill, r.ServerDecode)
	}
	var tokens, reasoning, reasoningChunks int64
	for i, c := range r.Chunks {
		if c.Tokens < 0 {
			return fmt.Errorf(`"ck"[%d] %d is negative`, i, c.Tokens)
		}
		if outOfTime(c.At) {
			return fmt.Errorf(`"ct"[%d] %d is more than %d ns (146 years) from the run's start`, i, c.At, int64(MaxTime))
		}
		tokens += int64(c.Tokens)
		if c.Reasoning {
			reasoning += int64(c.Tokens)
			reasoningChunks++
		}
	}
	if err := r.checkReasoning(reasoning, reasoningChunks); err != nil {
		return err
	}
	if r.Error == ErrDropped {
		return r.checkDropped()
	}
	if r.Sent < r.Scheduled {
		return fmt.Errorf(`"t0" %d is before "s" %d: time goes backwards`, r.Sent, r.Scheduled)
	}
	prev := r.Sent
	for i, c := range r.Chunks {
		switch {
		case i == 0 && c.At < prev:
			return fmt.Errorf(`"ct"[0]: chunk at %d is before "t0" %d: time goes backwards`, c.At, prev)
		case c.At < prev:
			return fmt.Errorf(`"ct"[%d]: chunk at %d is before the chunk before it, at %d: time goes backwards`, i, c.At, prev)
		}
		prev = c.At
	}
	switch {
	case len(r.Chunks) > 0 && r.End < prev:
		return fmt.Errorf(`"te" %d is before the last chunk, at %d: time goes backwards`, r.End, prev)
	case r.End < r.Sent:
		return fmt.Errorf(`"te" %d is before "t0" %d: time goes backwards`, r.End, r.Sent)
	}
	if r.TokenSource == SourceChunks && len(r.Chunks) > 0 && int64(r.OutputTokens) != tokens {
		return fmt.Errorf(`"out" %d with "src" "chunks" must equal the chunks' %d tokens`, r.OutputTokens, tokens)
	}
	return nil
}

// checkReasoning checks the reasoning count against the output count and
// against the reasoning chunks, which carry tokens of their sum and number.
func (r *Record) checkReasoning(tokens, chunks int64) error {
	rt := int64(r.ReasoningTokens)
	switch {
	case rt < 0:
		return fmt.Errorf(`"rt" %d is negative`, rt)
	case rt > int64(r.OutputTokens):
		return fmt.Errorf(`"rt" %d is more than "out" %d: reasoning tokens are output tokens`, rt, r.OutputTokens)
	case rt < chunks:
		return fmt.Errorf(`"rt" %d is less than the %d reasoning chunks ("cr")`, rt, chunks)
	case r.ReasoningSource == SourceChunks && rt != tokens:
		return fmt.Errorf(`"rt" %d with "rsrc" "chunks" must equal the reasoning chunks' %d tokens`, rt, tokens)
	}
	return nil
}

// checkDropped checks a request that was never sent.
func (r *Record) checkDropped() error {
	switch {
	case len(r.Chunks) > 0:
		return fmt.Errorf("a dropped request (never sent) has %d chunks", len(r.Chunks))
	case r.OutputTokens > 0:
		return fmt.Errorf(`a dropped request (never sent) has "out" %d`, r.OutputTokens)
	case r.Sent != 0 && r.Sent < r.Scheduled:
		return fmt.Errorf(`"t0" %d is before "s" %d: time goes backwards`, r.Sent, r.Scheduled)
	case r.End != 0 && r.End < r.Scheduled:
		return fmt.Errorf(`"te" %d is before "s" %d: time goes backwards`, r.End, r.Scheduled)
	}
	return nil
}
