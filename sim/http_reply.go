package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/goodput-dev/goodput/tokenizer"
)

// reply is a whole answer: a reasoning model's thinking and the answer
// that follows, its length in tokens and why it ended.
type reply struct {
	thought, text []byte
	tokens        int
	thinking      int // the first tokens, those of thought
	finish        string
}

// wholeBody returns the endpoint's JSON answer carrying r.
func (x *exchange) wholeBody(r reply) any {
	if x.g.api == apiResponses {
		return responseBody(x.id, x.created, x.s.cfg.model, len(x.g.prompt), r)
	}
	u := usage{PromptTokens: len(x.g.prompt), CompletionTokens: r.tokens, TotalTokens: len(x.g.prompt) + r.tokens}
	if x.g.api == apiChat {
		msg := chatMsgBody{Role: "assistant", Content: string(r.text), ToolCalls: []any{}}
		if r.thinking > 0 {
			t := string(r.thought)
			msg.Reasoning = &t
			u.CompletionTokensDetails = &completionDetails{ReasoningTokens: r.thinking}
		}
		return chatResponse{ID: x.id, Object: "chat.completion", Created: x.created, Model: x.s.cfg.model, Usage: u,
			Choices: []chatChoice{{Message: msg, FinishReason: r.finish}}}
	}
	return completionResponse{ID: x.id, Object: "text_completion", Created: x.created, Model: x.s.cfg.model, Usage: u,
		Choices: []completionChoice{{Text: string(r.text), FinishReason: r.finish}}}
}

// textSource produces a request's output tokens: prose-like, composable
// token ids of the built-in tokenizer, so that clients counting tokens in
// the text find exactly the usage the server reports.
type textSource struct {
	rng *rand.Rand
	ids []int
}

func newTextSource(seed uint64, id int64) *textSource {
	return &textSource{rng: rand.New(rand.NewPCG(seed, uint64(id)))}
}

// textBatch is how many output tokens are generated at a time.
const textBatch = 64

// appendToken appends the text of output token i (0-based) to dst.
func (t *textSource) appendToken(dst []byte, i int) []byte {
	for len(t.ids) <= i {
		t.ids = tokenizer.AppendWords(t.ids, textBatch, t.rng)
	}
	return tokenizer.AppendText(dst, t.ids[i])
}

// requestID returns a vLLM-style response id: "cmpl-", "chatcmpl-" or
// "resp_" and the request's X-Request-Id when the client sent one (so
// that client records and server answers join on it, as with vLLM),
// else 32 hex digits, unique per server and seed and reproducible with
// them.
func requestID(endpoint api, seed uint64, id int64, header string) string {
	prefix := "cmpl-"
	switch endpoint {
	case apiChat:
		prefix = "chatcmpl-"
	case apiResponses:
		prefix = "resp_"
	}
	if header != "" {
		return prefix + header
	}
	a := splitmix(splitmix(seed) + uint64(id)) // no seed's ids are another's
	return fmt.Sprintf("%s%016x%016x", prefix, a, splitmix(a))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
