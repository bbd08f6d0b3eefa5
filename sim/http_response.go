package sim

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/goodput-dev/goodput/record"
)

// errorBody is vLLM's (and OpenAI's) error response.
type errorBody struct {
	Error apiError `json:"error"`
}

type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

// errorType names an HTTP status the way vLLM's error objects do.
func errorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BadRequestError"
	case http.StatusUnauthorized:
		return "AuthenticationError"
	case http.StatusNotFound:
		return "NotFoundError"
	case http.StatusMethodNotAllowed:
		return "MethodNotAllowedError"
	case http.StatusRequestEntityTooLarge:
		return "RequestEntityTooLargeError"
	case http.StatusTooManyRequests:
		return "RateLimitError"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailableError"
	}
	return "InternalServerError"
}

// writeError answers with status and a JSON error object carrying msg.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: apiError{Message: msg, Type: errorType(status), Code: status}})
}

// writeJSON answers with status and v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"message":"cannot encode the response","type":"InternalServerError","param":null,"code":500}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b) // a client that left cannot be told anything more
}

// usage is the OpenAI usage object.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	TotalTokens      int `json:"total_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CompletionTokensDetails counts a reasoning model's reasoning tokens.
	CompletionTokensDetails *completionDetails `json:"completion_tokens_details,omitempty"`
}

type completionDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// Non-streaming responses.
type completionResponse struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   usage              `json:"usage"`
}

type completionChoice struct {
	Index        int     `json:"index"`
	Text         string  `json:"text"`
	Logprobs     *string `json:"logprobs"`
	FinishReason string  `json:"finish_reason"`
	StopReason   *string `json:"stop_reason"`
}

type chatResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   usage        `json:"usage"`
}

type chatChoice struct {
	Index        int         `json:"index"`
	Message      chatMsgBody `json:"message"`
	Logprobs     *string     `json:"logprobs"`
	FinishReason string      `json:"finish_reason"`
	StopReason   *string     `json:"stop_reason"`
}

type chatMsgBody struct {
	Role      string  `json:"role"`
	Content   string  `json:"content"`
	Reasoning *string `json:"reasoning,omitempty"` // a reasoning model's thinking
	ToolCalls []any   `json:"tool_calls"`
}

// chunkFormat builds the SSE events of one streamed response. Events are
// assembled from precomputed pieces because thousands of streams each write
// one per engine step.
type chunkFormat struct {
	chat       bool
	head       []byte // `data: {"id":…,"object":…,"created":…,"model":…,"choices":`
	promptLen  int
	continuous bool // usage on every chunk
	// reasons says the reply's first thinking tokens are reasoning, which
	// every usage block counts (completion_tokens_details).
	reasons  bool
	thinking int
}

func newChunkFormat(chat bool, id string, created int64, model string, promptLen int, continuous bool) *chunkFormat {
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
	return &chunkFormat{chat: chat, head: head, promptLen: promptLen, continuous: continuous}
}

// appendRole appends the role-only first chunk of a chat stream.
func (f *chunkFormat) appendRole(dst []byte) []byte {
	dst = append(dst, f.head...)
	dst = append(dst, `[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`...)
	return f.appendTail(dst, 0)
}

// setReasoning makes the first thinking tokens of the reply reasoning
// (chat only).
func (f *chunkFormat) setReasoning(thinking int) {
	f.reasons, f.thinking = f.chat && thinking > 0, thinking
}

// appendToken appends a content chunk carrying text, the completion's
// tokens-th token (a reasoning delta while tokens ≤ the reply's thinking
// tokens); finish is "" until the last one.
func (f *chunkFormat) appendToken(dst []byte, text []byte, tokens int, finish string) []byte {
	dst = append(dst, f.head...)
	if f.chat && f.reasons && tokens <= f.thinking {
		dst = append(dst, `[{"index":0,"delta":{"reasoning":`...)
		dst = record.AppendJSONString(dst, text)
		dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	} else if f.chat {
		dst = append(dst, `[{"index":0,"delta":{"content":`...)
		dst = record.AppendJSONString(dst, text)
		dst = append(dst, `},"logprobs":null,"finish_reason":`...)
	} else {
		dst = append(dst, `[{"index":0,"text":`...)
		dst = record.AppendJSONString(dst, text)
		dst = append(dst, `,"logprobs":null,"finish_reason":`...)
	}
	if finish == "" {
		dst = append(dst, "null"...)
	} else {
		dst = record.AppendJSONString(dst, finish)
	}
	if !f.chat {
		dst = append(dst, `,"stop_reason":null`...)
	}
	dst = append(dst, "}]"...)
	return f.appendTail(dst, tokens)
}

// appendUsage appends the final usage-only chunk (stream_options.include_usage).
func (f *chunkFormat) appendUsage(dst []byte, tokens int) []byte {
	dst = append(dst, f.head...)
	dst = append(dst, "[]"...)
	dst = f.appendUsageField(dst, tokens)
	return append(dst, "}\n\n"...)
}

// appendMalformed appends a chunk cut off in the middle of its JSON, as a
// broken proxy might deliver it.
func (f *chunkFormat) appendMalformed(dst []byte) []byte {
	dst = append(dst, f.head...)
	dst = append(dst, `[{"index":0,"te`...)
	return append(dst, "\n\n"...)
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
		dst = strconv.AppendInt(dst, int64(min(tokens, f.thinking)), 10)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// doneEvent ends every stream.
const doneEvent = "data: [DONE]\n\n"
