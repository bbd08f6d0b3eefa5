package sim

import (
	"strconv"

	"github.com/goodput-dev/goodput/record"
)

// streamFormat writes the server-sent events of one streamed answer, in
// an endpoint's wire format. An exchange calls appendOpen once as the
// stream starts, appendToken for every token of the reply in order, then
// appendEnd after the last one, or appendFail instead when the server ends
// the stream early. Each method appends to dst and returns the result, so
// that one buffer serves a whole engine step; the events of one engine
// step are assembled from precomputed pieces, because thousands of streams
// each write one per step.
type streamFormat interface {
	appendOpen(dst []byte) []byte
	appendToken(dst []byte, t streamToken) []byte
	appendEnd(dst []byte, tokens int, finish string) []byte
	appendFail(dst []byte, status int, msg string) []byte
}

var _ streamFormat = (*chunkFormat)(nil)

// streamToken is one output token as a stream carries it.
type streamToken struct {
	text      []byte
	pos       int    // its place in the reply, from 1
	reasoning bool   // it is thinking, not answer (a reasoning model's first tokens)
	finish    string // on the reply's last token, the reply's finish reason; else ""
	malformed bool   // its event is cut off in the middle of its JSON (the malformed fault)
}

// chunkFormat writes the OpenAI chunks of /v1/completions and
// /v1/chat/completions, which differ only in their choices.
type chunkFormat struct {
	chat         bool
	head         []byte // `data: {"id":…,"object":…,"created":…,"model":…,"choices":`
	promptLen    int
	includeUsage bool // a usage chunk before [DONE]
	continuous   bool // usage on every chunk
	// reasons says the reply's first tokens are reasoning, which every
	// usage block counts (completion_tokens_details); reasoned counts them.
	reasons  bool
	reasoned int
}

func newChunkFormat(chat bool, id string, created int64, model string, promptLen int, opts *streamOptions) *chunkFormat {
	object := "text_completion"
	if chat {
		object = "chat.completion.chunk"
	}
	head := []byte(`data: {"id":`)
	head = record.AppendJSONString(head, id)
	head = append(head, `,"object":"`...)
	head = append(head, object...)
	head = append(head, `","created":`...)
	head = strconv.AppendInt(head, created, 10)
	head = append(head, `,"model":`...)
	head = record.AppendJSONString(head, model)
	head = append(head, `,"choices":`...)
	f := &chunkFormat{chat: chat, head: head, promptLen: promptLen}
	if opts != nil {
		// As vLLM: usage on every chunk only when the final usage is
		// asked for too.
		f.includeUsage, f.continuous = opts.IncludeUsage, opts.IncludeUsage && opts.ContinuousUsageStats
	}
	return f
}

// appendOpen appends nothing: an OpenAI stream starts with its first token.
func (f *chunkFormat) appendOpen(dst []byte) []byte { return dst }

// appendToken appends the chunk of t: a reasoning delta for chat's
// thinking, a content delta for its answer, text for completions. A chat
// stream's first token comes after a role-only chunk.
func (f *chunkFormat) appendToken(dst []byte, t streamToken) []byte {
	if f.chat && t.pos == 1 {
		dst = append(dst, f.head...)
		dst = append(dst, `[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`...)
		dst = f.appendTail(dst, 0)
	}
	if f.chat && t.reasoning {
		f.reasons = true
		f.reasoned++
	}
	dst = append(dst, f.head...)
	if t.malformed {
		// Cut off as a broken proxy might deliver it.
		dst = append(dst, `[{"index":0,"te`...)
		return append(dst, "\n\n"...)
	}
	if f.chat && t.reasoning {
		dst = append(dst, `[{"index":0,"delta":{"reasoning":`...)
		dst = record.AppendJSONString(dst, t.text)
		dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	} else if f.chat {
		dst = append(dst, `[{"index":0,"delta":{"content":`...)
		dst = record.AppendJSONString(dst, t.text)
		dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	} else {
		dst = append(dst, `[{"index":0,"text":`...)
		dst = record.AppendJSONString(dst, t.text)
		dst = append(dst, `,"logprobs":null,"finish_reason":`...)
	}
	if t.finish == "" {
		dst = append(dst, "null"...)
	} else {
		dst = record.AppendJSONString(dst, t.finish)
	}
	if !f.chat {
		dst = append(dst, `,"stop_reason":null`...)
	}
	dst = append(dst, "}]"...)
	return f.appendTail(dst, t.pos)
}

// appendEnd appends the usage-only chunk (stream_options.include_usage)
// and [DONE].
func (f *chunkFormat) appendEnd(dst []byte, tokens int, _ string) []byte {
	if f.includeUsage {
		dst = append(dst, f.head...)
		dst = append(dst, "[]"...)
		dst = f.appendUsageField(dst, tokens)
		dst = append(dst, "}\n\n"...)
	}
	return append(dst, "data: [DONE]\n\n"...)
}

// appendFail appends vLLM's in-stream error object; the stream ends
// without [DONE].
func (f *chunkFormat) appendFail(dst []byte, status int, msg string) []byte {
	dst = append(dst, `data: {"error":{"message":`...)
	dst = record.AppendJSONString(dst, msg)
	dst = append(dst, `,"type":"`...)
	dst = append(dst, errorType(status)...)
	dst = append(dst, `","code":`...)
	dst = strconv.AppendInt(dst, int64(status), 10)
	return append(dst, "}}\n\n"...)
}

func (f *chunkFormat) appendTail(dst []byte, tokens int) []byte {
	if f.continuous {
		dst = f.appendUsageField(dst, tokens)
	}
	return append(dst, "}\n\n"...)
}

func (f *chunkFormat) appendUsageField(dst []byte, tokens int) []byte {
	dst = append(dst, `,"usage":{"prompt_tokens":`...)
	dst = strconv.AppendInt(dst, int64(f.promptLen), 10)
	dst = append(dst, `,"total_tokens":`...)
	dst = strconv.AppendInt(dst, int64(f.promptLen+tokens), 10)
	dst = append(dst, `,"completion_tokens":`...)
	dst = strconv.AppendInt(dst, int64(tokens), 10)
	if f.reasons {
		dst = append(dst, `,"completion_tokens_details":{"reasoning_tokens":`...)
		dst = strconv.AppendInt(dst, int64(f.reasoned), 10)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}
