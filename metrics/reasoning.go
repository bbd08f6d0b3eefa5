package metrics

import (
	"time"

	"github.com/goodput-dev/goodput/record"
)

// reasoning fills q's reasoning metrics from r, a reply that reasoned
// (r.ReasoningTokens > 0), in one more pass over its chunks. Replies
// without reasoning never take it, so that a run of a model that does not
// reason costs nothing more.
func (q *Request) reasoning(r *record.Record) {
	var firstR, lastR, firstA, lastA int64
	var haveR, haveA bool
	for _, c := range r.Chunks {
		if c.Tokens <= 0 {
			continue
		}
		if c.Reasoning {
			if !haveR {
				firstR, haveR = c.At, true
			}
			lastR = c.At
			continue
		}
		if !haveA {
			firstA, haveA = c.At, true
		}
		lastA = c.At
	}
	rt := min(int64(r.ReasoningTokens), int64(q.OutputTokens))
	at := int64(q.OutputTokens) - rt
	q.Reasoned = true
	q.ReasoningTokens, q.AnswerTokens = int(rt), int(at)
	if haveA {
		q.HasTTFA, q.TTFA = true, time.Duration(firstA-r.Scheduled)
		if at >= 2 && !r.Whole {
			q.HasTPOTAnswer, q.TPOTAnswer = true, time.Duration(divRound(lastA-firstA, at-1))
		}
	}
	if haveR && rt >= 2 && !r.Whole {
		q.HasTPOTReasoning, q.TPOTReasoning = true, time.Duration(divRound(lastR-firstR, rt-1))
	}
}

// Reasoning is what a run's reasoning replies add to its Result: present
// only when at least one completed request reasoned (streamed reasoning,
// or a server's count of it). Token counts are over completed requests,
// rates per second of the window.
type Reasoning struct {
	Requests int64 `json:"requests"` // completed requests that reasoned
	// Unanswered counts those that sent no answer token at all: cut off
	// (max_tokens) while still thinking. They have no TTFA.
	Unanswered               int64   `json:"unanswered"`
	ReasoningTokens          int64   `json:"reasoning_tokens"`
	AnswerTokens             int64   `json:"answer_tokens"` // output tokens that were not reasoning
	ReasoningTokensPerSecond float64 `json:"reasoning_tokens_per_second"`
	AnswerTokensPerSecond    float64 `json:"answer_tokens_per_second"`
	// TokenSources counts the reasoning requests by where their reasoning
	// count came from (record.Source: usage when the server reported it,
	// chunks when counted over the reasoning chunks).
	TokenSources map[string]int64 `json:"token_sources"`
}
