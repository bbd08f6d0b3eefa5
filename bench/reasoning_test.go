package bench

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// fieldTokenizer counts one token per space-separated field.
type fieldTokenizer struct{}

func (fieldTokenizer) Count(s string) int { return len(strings.Fields(s)) }

// The kept text of a reply is its answer only, so a tokenizer cannot count
// a reply whose reasoning was counted over its chunks: it keeps one token
// per chunk, and its reasoning count stays the chunks'. A reply without
// reasoning is counted as before.
func TestCountFromTextLeavesReasoningRepliesAlone(t *testing.T) {
	r := record.Record{Sent: 0, End: 50, Status: 200, TokenSource: record.SourceChunks, OutputTokens: 4,
		ReasoningTokens: 2, ReasoningSource: record.SourceChunks,
		Chunks: []record.Chunk{{At: 10, Tokens: 1, Reasoning: true}, {At: 20, Tokens: 1, Reasoning: true}, {At: 30, Tokens: 1}, {At: 40, Tokens: 1}},
		Text:   "the answer is four, plainly"}
	countFromText(&r, fieldTokenizer{})
	if r.TokenSource != record.SourceChunks || r.OutputTokens != 4 || r.ReasoningTokens != 2 {
		t.Errorf("counted %d (%s), reasoning %d; want the chunks' 4 and 2", r.OutputTokens, r.TokenSource, r.ReasoningTokens)
	}
	if err := r.Check(); err != nil {
		t.Error(err)
	}
	for i := range r.Chunks {
		r.Chunks[i].Reasoning = false
	}
	r.ReasoningTokens, r.ReasoningSource = 0, ""
	countFromText(&r, fieldTokenizer{})
	if r.TokenSource != record.SourceTokenizer || r.OutputTokens != 5 {
		t.Errorf("without reasoning: %d (%s), want 5 from the tokenizer", r.OutputTokens, r.TokenSource)
	}
}
