package sim

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/record"
)

// responseObject is a Responses API response: the whole answer of a
// request that does not stream, and the response inside the events that
// open and close one that does.
type responseObject struct {
	ID                string             `json:"id"`
	Object            string             `json:"object"`
	CreatedAt         int64              `json:"created_at"`
	Status            string             `json:"status"` // in_progress, completed or incomplete
	IncompleteDetails *incompleteDetails `json:"incomplete_details"`
	Model             string             `json:"model"`
	Output            []any              `json:"output"` // reasoningItem, messageItem
	Usage             *responseUsage     `json:"usage"`
}

type incompleteDetails struct {
	Reason string `json:"reason"`
}

// responseUsage counts every generated token in output_tokens, reasoning
// included, as chat's completion_tokens does. The simulator reports no
// cached prompt tokens on any endpoint.
type responseUsage struct {
	InputTokens         int                `json:"input_tokens"`
	InputTokensDetails  inputDetails       `json:"input_tokens_details"`
	OutputTokens        int                `json:"output_tokens"`
	OutputTokensDetails *completionDetails `json:"output_tokens_details,omitempty"` // a reasoning model's
	TotalTokens         int                `json:"total_tokens"`
}

type inputDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// messageItem is the answer as an output item.
type messageItem struct {
	ID      string       `json:"id"`
	Type    string       `json:"type"` // "message"
	Role    string       `json:"role"`
	Status  string       `json:"status"`
	Content []outputText `json:"content"`
}

type outputText struct {
	Type        string `json:"type"` // "output_text"
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
	Logprobs    []any  `json:"logprobs"`
}

// reasoningItem is a reasoning model's thinking as an output item.
type reasoningItem struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"` // "reasoning"
	Status  string          `json:"status"`
	Summary []any           `json:"summary"`
	Content []reasoningText `json:"content,omitempty"` // once done
}

type reasoningText struct {
	Type string `json:"type"` // "reasoning_text"
	Text string `json:"text"`
}

func newOutputText(text string) outputText {
	return outputText{Type: "output_text", Text: text, Annotations: []any{}, Logprobs: []any{}}
}

func messageDone(id, text string) messageItem {
	return messageItem{ID: id, Type: "message", Role: "assistant", Status: "completed", Content: []outputText{newOutputText(text)}}
}

func reasoningDone(id, text string) reasoningItem {
	return reasoningItem{ID: id, Type: "reasoning", Status: "completed", Summary: []any{},
		Content: []reasoningText{{Type: "reasoning_text", Text: text}}}
}

// responseBody returns the finished response that carries r. A reply cut
// off at its limit is incomplete, as vLLM reports a "length" finish; its
// items are completed all the same, as vLLM's are.
func responseBody(id string, created int64, model string, promptLen int, r reply) responseObject {
	o := responseObject{ID: id, Object: "response", CreatedAt: created, Status: "completed", Model: model, Output: []any{}}
	if r.finish == finishLength {
		o.Status, o.IncompleteDetails = "incomplete", &incompleteDetails{Reason: "max_output_tokens"}
	}
	if r.thinking > 0 {
		o.Output = append(o.Output, reasoningDone(itemID("rs_", id), string(r.thought)))
	}
	if r.tokens > r.thinking {
		o.Output = append(o.Output, messageDone(itemID("msg_", id), string(r.text)))
	}
	u := responseUsage{InputTokens: promptLen, OutputTokens: r.tokens, TotalTokens: promptLen + r.tokens}
	if r.thinking > 0 {
		u.OutputTokensDetails = &completionDetails{ReasoningTokens: r.thinking}
	}
	o.Usage = &u
	return o
}

// itemID names an output item of the response respID: prefix ("msg_",
// "rs_") and the response's own hex digits.
func itemID(prefix, respID string) string {
	return prefix + strings.TrimPrefix(respID, "resp_")
}

// The payloads of the events other than deltas: each event's data is
// {"type":…, the payload's fields, "sequence_number":…}.
type (
	responsePayload struct {
		Response responseObject `json:"response"`
	}
	itemPayload struct {
		OutputIndex int `json:"output_index"`
		Item        any `json:"item"`
	}
	partPayload struct {
		ItemID       string     `json:"item_id"`
		OutputIndex  int        `json:"output_index"`
		ContentIndex int        `json:"content_index"`
		Part         outputText `json:"part"`
	}
	textDonePayload struct {
		ItemID       string `json:"item_id"`
		OutputIndex  int    `json:"output_index"`
		ContentIndex int    `json:"content_index"`
		Text         string `json:"text"`
		Logprobs     []any  `json:"logprobs"`
	}
	reasoningDonePayload struct {
		ItemID       string `json:"item_id"`
		OutputIndex  int    `json:"output_index"`
		ContentIndex int    `json:"content_index"`
		Text         string `json:"text"`
	}
	errorPayload struct {
		Code    string  `json:"code"`
		Message string  `json:"message"`
		Param   *string `json:"param"`
	}
)

// The output item a responses stream has open.
const (
	itemNone = iota
	itemReasoning
	itemMessage
)

// responsesFormat writes a streamed /v1/responses answer as vLLM does:
// response.created and response.in_progress at once; a reasoning model's
// thinking as a reasoning item of response.reasoning_text.delta events;
// the answer as a message item of response.output_text.delta events, one
// per token; each item closed by its done events; then response.completed
// with the whole response. There is no [DONE].
type responsesFormat struct {
	id, msgID, rsID string
	model           string
	created         int64
	promptLen       int

	seq   int    // the next event's sequence_number
	item  int    // the item open now: itemNone, itemReasoning or itemMessage
	index int    // its output_index
	items int    // items opened so far
	delta []byte // the open item's delta event, up to the delta's JSON string
	// The reply's tokens so far and how many of them were reasoning. Their
	// text, which the done events repeat whole, is rendered again from the
	// reply's text source rather than copied token by token.
	tokens, reasoned int
	reply            *textSource
}

var _ streamFormat = (*responsesFormat)(nil)

// newResponsesFormat returns the format of the stream of response id,
// whose tokens come from reply.
func newResponsesFormat(id string, created int64, model string, promptLen int, reply *textSource) *responsesFormat {
	return &responsesFormat{
		id: id, msgID: itemID("msg_", id), rsID: itemID("rs_", id),
		model: model, created: created, promptLen: promptLen, reply: reply,
	}
}

// appendOpen appends response.created and response.in_progress, which
// vLLM sends before the prompt is computed.
func (f *responsesFormat) appendOpen(dst []byte) []byte {
	o := responseObject{ID: f.id, Object: "response", CreatedAt: f.created, Status: "in_progress", Model: f.model, Output: []any{}}
	dst = f.appendEvent(dst, "response.created", responsePayload{o})
	return f.appendEvent(dst, "response.in_progress", responsePayload{o})
}

// appendToken appends t's delta event, opening its item first when t is
// the item's first token (and closing the reasoning item before the
// answer's first).
func (f *responsesFormat) appendToken(dst []byte, t streamToken) []byte {
	if t.reasoning && f.item != itemReasoning {
		dst = f.openReasoning(f.closeItem(dst))
	} else if !t.reasoning && f.item != itemMessage {
		dst = f.openMessage(f.closeItem(dst))
	}
	f.tokens = t.pos
	if t.reasoning {
		f.reasoned = t.pos
	}
	if t.malformed {
		// Cut off in the middle of its JSON, as a broken proxy might
		// deliver it; its sequence number is spent.
		f.seq++
		dst = append(dst, f.delta[:len(f.delta)-len(`ta":`)]...)
		return append(dst, "\n\n"...)
	}
	dst = append(dst, f.delta...)
	dst = record.AppendJSONString(dst, t.text)
	if !t.reasoning {
		dst = append(dst, `,"logprobs":[]`...)
	}
	return f.appendTail(dst)
}

// appendEnd closes the open item and appends response.completed.
func (f *responsesFormat) appendEnd(dst []byte, tokens int, finish string) []byte {
	dst = f.closeItem(dst)
	r := reply{thought: f.thought(), text: f.text(), tokens: tokens, thinking: f.reasoned, finish: finish}
	return f.appendEvent(dst, "response.completed", responsePayload{responseBody(f.id, f.created, f.model, f.promptLen, r)})
}

// appendFail appends the Responses API's error event, code naming the
// failure as vLLM's error types do ("ServiceUnavailableError"); nothing
// follows it.
func (f *responsesFormat) appendFail(dst []byte, status int, msg string) []byte {
	return f.appendEvent(dst, "error", errorPayload{Code: errorType(status), Message: msg})
}

func (f *responsesFormat) openReasoning(dst []byte) []byte {
	f.item, f.index, f.items = itemReasoning, f.items, f.items+1
	dst = f.appendEvent(dst, "response.output_item.added", itemPayload{f.index,
		reasoningItem{ID: f.rsID, Type: "reasoning", Status: "in_progress", Summary: []any{}}})
	f.delta = f.appendDeltaHead(f.delta[:0], "response.reasoning_text.delta", f.rsID)
	return dst
}

func (f *responsesFormat) openMessage(dst []byte) []byte {
	f.item, f.index, f.items = itemMessage, f.items, f.items+1
	dst = f.appendEvent(dst, "response.output_item.added", itemPayload{f.index,
		messageItem{ID: f.msgID, Type: "message", Role: "assistant", Status: "in_progress", Content: []outputText{}}})
	dst = f.appendEvent(dst, "response.content_part.added", partPayload{f.msgID, f.index, 0, newOutputText("")})
	f.delta = f.appendDeltaHead(f.delta[:0], "response.output_text.delta", f.msgID)
	return dst
}

// closeItem appends the done events of the open item, if any.
func (f *responsesFormat) closeItem(dst []byte) []byte {
	switch f.item {
	case itemReasoning:
		text := string(f.thought())
		dst = f.appendEvent(dst, "response.reasoning_text.done", reasoningDonePayload{f.rsID, f.index, 0, text})
		dst = f.appendEvent(dst, "response.output_item.done", itemPayload{f.index, reasoningDone(f.rsID, text)})
	case itemMessage:
		text := string(f.text())
		dst = f.appendEvent(dst, "response.output_text.done", textDonePayload{f.msgID, f.index, 0, text, []any{}})
		dst = f.appendEvent(dst, "response.content_part.done", partPayload{f.msgID, f.index, 0, newOutputText(text)})
		dst = f.appendEvent(dst, "response.output_item.done", itemPayload{f.index, messageDone(f.msgID, text)})
	}
	f.item = itemNone
	return dst
}

// thought returns the text of the reply's reasoning tokens so far.
func (f *responsesFormat) thought() []byte { return f.render(0, f.reasoned) }

// text returns the text of the reply's answer tokens so far.
func (f *responsesFormat) text() []byte { return f.render(f.reasoned, f.tokens) }

func (f *responsesFormat) render(from, to int) []byte {
	var b []byte
	for i := from; i < to; i++ {
		b = f.reply.appendToken(b, i)
	}
	return b
}

// appendDeltaHead appends a delta event of the open item up to its
// delta's value: the piece every token of the item repeats.
func (f *responsesFormat) appendDeltaHead(dst []byte, typ, itemID string) []byte {
	dst = appendEventHead(dst, typ)
	dst = append(dst, `,"item_id":`...)
	dst = record.AppendJSONString(dst, itemID)
	dst = append(dst, `,"output_index":`...)
	dst = strconv.AppendInt(dst, int64(f.index), 10)
	return append(dst, `,"content_index":0,"delta":`...)
}

// appendEvent appends an event whose data holds payload's fields.
func (f *responsesFormat) appendEvent(dst []byte, typ string, payload any) []byte {
	dst = appendEventHead(dst, typ)
	b, err := json.Marshal(payload) // plain values: it cannot fail
	if err == nil && len(b) > 2 {
		dst = append(dst, ',')
		dst = append(dst, b[1:len(b)-1]...)
	}
	return f.appendTail(dst)
}

// appendTail ends an event's data with its sequence number.
func (f *responsesFormat) appendTail(dst []byte) []byte {
	dst = append(dst, `,"sequence_number":`...)
	dst = strconv.AppendInt(dst, int64(f.seq), 10)
	f.seq++
	return append(dst, "}\n\n"...)
}

// appendEventHead appends an event's type line and the start of its data.
func appendEventHead(dst []byte, typ string) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, typ...)
	dst = append(dst, "\ndata: {\"type\":\""...)
	dst = append(dst, typ...)
	return append(dst, '"')
}
