package runfile

// The responses of one GenAI-Perf request: their server-sent events, what
// each carries (text, reasoning, usage, an error) and the record they make.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/jsonerr"
	"github.com/goodput-dev/goodput/record"
)

// gpEvent is one server-sent event of a response stream, or the whole
// body of a reply that was not streamed.
type gpEvent struct {
	at   int64  // when its last byte arrived
	name string // its "event:" field, "" when it has none
	data []byte // its "data:" lines, joined
}

// gpChunk is what goodput reads of an OpenAI response event or body.
type gpChunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Text  json.RawMessage `json:"text"`
		Delta *gpMessage      `json:"delta"`
		// Message is a reply that was not streamed.
		Message      *gpMessage `json:"message"`
		FinishReason *string    `json:"finish_reason"`
	} `json:"choices"`
	TextOutput json.RawMessage `json:"text_output"` // Triton's generate endpoint
	Usage      *struct {
		PromptTokens        decimal `json:"prompt_tokens"`
		CompletionTokens    decimal `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens decimal `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails *struct {
			ReasoningTokens decimal `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Message json.RawMessage `json:"message"` // vLLM's {"object": "error", "message", "type", "code"}
	Type    json.RawMessage `json:"type"`
	Code    json.RawMessage `json:"code"`
	Detail  json.RawMessage `json:"detail"` // FastAPI's error body
}

type gpMessage struct {
	Content          json.RawMessage `json:"content"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
}

// gpMaxTime bounds the times read, as decimal.scaled bounds others', so
// that no difference of two overflows.
const gpMaxTime = 1 << 62

// record converts one request to a record on the Unix clock.
func (q *genaiPerfRequest) record(tally *gpTally) (imported, error) {
	if q.Timestamp == nil {
		return imported{}, errors.New(`no "timestamp"`)
	}
	sent := *q.Timestamp
	if sent < 0 || sent > gpMaxTime {
		return imported{}, fmt.Errorf(`"timestamp" %d is out of range`, sent)
	}
	for i, t := range q.ResponseTimestamps {
		if t < 0 || t > gpMaxTime {
			return imported{}, fmt.Errorf(`"response_timestamps"[%d] %d is out of range`, i, t)
		}
	}
	rec := record.Record{Scheduled: sent, Sent: sent, End: sent, Status: 200}
	req := imported{}
	if s, ok := gpString(q.Inputs["session_id"]); ok {
		req.session = s
	}
	ts := q.ResponseTimestamps
	if len(ts) == 0 {
		rec.Status, rec.Error, rec.Msg = 0, record.ErrOther, "GenAI-Perf recorded no response"
		req.rec = rec
		return req, nil
	}
	rec.End = ts[len(ts)-1]
	// Perf Analyzer writes a response's output beside its time; a time
	// without one (a last response that was null) only ends the request.
	outs := q.ResponseOutputs[:min(len(q.ResponseOutputs), len(ts))]
	var inputKnown bool
	var err error
	switch {
	case slices.ContainsFunc(outs, func(o genaiPerfOutput) bool { return o.Response != nil }):
		inputKnown, err = gpHTTP(&rec, outs, ts, tally)
	case slices.ContainsFunc(outs, func(o genaiPerfOutput) bool { return len(o.OutputIDs) > 0 }):
		err = gpTokenIDs(&rec, outs, ts)
	default:
		gpTexts(&rec, outs, ts, tally)
	}
	if err != nil {
		return imported{}, err
	}
	if ids, ok := q.Inputs["input_ids"]; ok && !inputKnown {
		// The engine's prompt is its token ids.
		var list []json.RawMessage
		if json.Unmarshal(ids, &list) == nil {
			rec.InputTokens, inputKnown = len(list), true
		}
	}
	if !inputKnown && rec.OK() {
		tally.noInput++
	}
	req.rec = rec
	return req, nil
}

// gpTexts reads Triton's responses: each that holds text is a chunk of
// one piece.
func gpTexts(rec *record.Record, outs []genaiPerfOutput, ts []int64, tally *gpTally) {
	for i, o := range outs {
		if o.TextOutput != nil && *o.TextOutput != "" {
			rec.Chunks = append(rec.Chunks, record.Chunk{At: ts[i], Tokens: 1})
		}
	}
	rec.OutputTokens, rec.TokenSource = len(rec.Chunks), record.SourceChunks
	if len(rec.Chunks) > 0 {
		tally.pieces++
	}
}

// gpTokenIDs reads the TensorRT-LLM engine's responses: each carries the
// ids of the tokens it generated, an exact count.
func gpTokenIDs(rec *record.Record, outs []genaiPerfOutput, ts []int64) error {
	for i, o := range outs {
		var k int
		switch b := bytes.TrimSpace(o.OutputIDs); {
		case len(b) == 0 || b[0] == '"' || string(b) == "null":
			// An empty first or last response.
		case b[0] == '[':
			var ids []json.RawMessage
			if err := json.Unmarshal(b, &ids); err != nil {
				return fmt.Errorf(`"response_outputs"[%d].output_ids: %w`, i, jsonerr.Plain(err))
			}
			k = len(ids)
		default:
			k = 1
		}
		if k > 0 {
			rec.Chunks = append(rec.Chunks, record.Chunk{At: ts[i], Tokens: int32(min(k, 1<<30))})
			rec.OutputTokens += k
		}
	}
	// The engine's own token ids: as good as a server's usage.
	rec.TokenSource = record.SourceUsage
	return nil
}

// gpHTTP reads the responses of an HTTP endpoint: server-sent events, or
// a body that was not streamed. A response that reports an error makes a
// failed record, which keeps the chunks before it. It reports whether the
// server's usage gave the prompt's tokens.
func gpHTTP(rec *record.Record, outs []genaiPerfOutput, ts []int64, tally *gpTally) (inputKnown bool, err error) {
	events, streamed := gpEvents(outs, ts)
	if !streamed {
		tally.nonStream++
	}
	var usage *gpUsage
	for _, ev := range events {
		if ev.name == "error" {
			msg := strings.TrimSpace(string(ev.data))
			if msg == "" {
				msg = "the server sent an error event"
			}
			gpFail(rec, record.ErrStream, 0, msg, streamed)
			return false, nil
		}
		data := bytes.TrimSpace(ev.data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		var c gpChunk
		if err := jsonerr.Unmarshal(data, &c); err != nil {
			gpFail(rec, record.ErrMalformed, 0, "a response could not be parsed: "+jsonerr.Plain(err).Error(), streamed)
			return false, nil
		}
		if kind, code, msg, failed := c.failure(); failed {
			gpFail(rec, kind, code, msg, streamed)
			return false, nil
		}
		answer, reasoning := c.texts()
		switch {
		case answer:
			rec.Chunks = gpPiece(rec.Chunks, ev.at, false)
		case reasoning:
			rec.Chunks = gpPiece(rec.Chunks, ev.at, true)
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				rec.Finish = *ch.FinishReason
			}
		}
		if c.Usage != nil {
			u, err := c.usage()
			if err != nil {
				return false, err
			}
			usage = &u
		}
	}
	gpCount(rec, usage, tally)
	return usage != nil && usage.prompt >= 0, nil
}

// gpFail marks rec failed by an error the server reported. One in a
// stream came after a 200; a body that was not streamed was answered with
// the status its code names, where it names one. The request still ends
// with its last response, when the stream closed.
func gpFail(rec *record.Record, kind record.ErrorKind, code int, msg string, streamed bool) {
	rec.Error, rec.Msg = kind, msg
	if !streamed && code != 0 {
		rec.Status = code
	}
	n := 0
	for _, c := range rec.Chunks {
		n += int(c.Tokens)
	}
	rec.OutputTokens, rec.TokenSource = n, record.SourceChunks
	rec.ReasoningTokens, rec.ReasoningSource = 0, ""
	for i := range rec.Chunks {
		rec.Chunks[i].Reasoning = false
	}
}

// gpPiece adds a piece of text arriving at time at: to the last chunk
// when it arrived in the same response and is of the same kind, else as
// a chunk of its own.
func gpPiece(cs []record.Chunk, at int64, reasoning bool) []record.Chunk {
	if k := len(cs); k > 0 && cs[k-1].At == at && cs[k-1].Reasoning == reasoning && cs[k-1].Tokens < 1<<30 {
		cs[k-1].Tokens++
		return cs
	}
	return append(cs, record.Chunk{At: at, Tokens: 1, Reasoning: reasoning})
}

// gpEvents splits the responses of one request into events, each at the
// response in which its last byte arrived, and reports whether they were
// a stream: a reply whose first bytes open a JSON object is a body that
// was not streamed, one event at the last response.
func gpEvents(outs []genaiPerfOutput, ts []int64) ([]gpEvent, bool) {
	var all strings.Builder
	for _, o := range outs {
		if o.Response != nil {
			all.WriteString(*o.Response)
		}
	}
	if t := strings.TrimSpace(all.String()); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return []gpEvent{{at: ts[len(ts)-1], data: []byte(t)}}, false
	}
	var events []gpEvent
	var pending []byte
	for i, o := range outs {
		if o.Response == nil {
			continue
		}
		pending = append(pending, strings.ReplaceAll(*o.Response, "\r\n", "\n")...)
		for {
			j := bytes.Index(pending, []byte("\n\n"))
			if j < 0 {
				break
			}
			if ev, ok := gpParseEvent(pending[:j], ts[i]); ok {
				events = append(events, ev)
			}
			pending = pending[j+2:]
		}
	}
	// An event whose blank line never came ends with the stream.
	if ev, ok := gpParseEvent(pending, ts[len(ts)-1]); ok {
		events = append(events, ev)
	}
	return events, true
}

// gpParseEvent reads one server-sent event's fields; ok is false for a
// block with neither data nor an event name (a comment, a blank).
func gpParseEvent(block []byte, at int64) (gpEvent, bool) {
	ev := gpEvent{at: at}
	var data [][]byte
	for line := range bytes.SplitSeq(block, []byte("\n")) {
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			data = append(data, value)
		case "event":
			ev.name = strings.TrimSpace(string(value))
		}
	}
	ev.data = bytes.Join(data, []byte("\n"))
	return ev, data != nil || ev.name != ""
}

// texts reports whether the event carries answer text or reasoning text.
func (c *gpChunk) texts() (answer, reasoning bool) {
	if s, ok := gpString(c.TextOutput); ok && s != "" {
		answer = true
	}
	for _, ch := range c.Choices {
		if s, ok := gpString(ch.Text); ok && s != "" {
			answer = true
		}
		for _, m := range []*gpMessage{ch.Delta, ch.Message} {
			if m == nil {
				continue
			}
			if s, ok := gpString(m.Content); ok && s != "" {
				answer = true
			}
			for _, r := range []json.RawMessage{m.ReasoningContent, m.Reasoning} {
				if s, ok := gpString(r); ok && s != "" {
					reasoning = true
				}
			}
		}
	}
	return answer, reasoning
}

// failure reports the error an event or body holds: an "error" object
// (OpenAI, SGLang, llama.cpp) or string (TGI), vLLM's flat
// {"object": "error", …}, or FastAPI's {"detail": …} with no choices.
// Its kind is that of the HTTP status its code names, as for goodput's
// own streams; ErrStream when it names none.
func (c *gpChunk) failure() (kind record.ErrorKind, code int, msg string, failed bool) {
	var typ, codeText string
	switch {
	case len(c.Error) > 0 && string(c.Error) != "null":
		var obj struct {
			Message json.RawMessage `json:"message"`
			Type    json.RawMessage `json:"type"`
			Code    json.RawMessage `json:"code"`
		}
		if s, ok := gpString(c.Error); ok {
			msg = s
		} else if json.Unmarshal(c.Error, &obj) == nil {
			msg, typ, codeText = gpText(obj.Message), gpText(obj.Type), gpText(obj.Code)
		} else {
			msg = string(c.Error)
		}
		if codeText == "" {
			codeText = gpText(c.Code)
		}
	case c.Object == "error":
		msg, typ, codeText = gpText(c.Message), gpText(c.Type), gpText(c.Code)
	case len(c.Detail) > 0 && string(c.Detail) != "null" && c.Choices == nil:
		msg = gpText(c.Detail)
	default:
		return "", 0, "", false
	}
	if msg == "" {
		msg = "the server reported an error without a message"
	}
	if typ != "" {
		msg = typ + ": " + msg
	}
	kind = record.ErrStream
	if n, err := strconv.Atoi(codeText); err == nil && n >= 400 && n <= 599 {
		code = n
		msg = fmt.Sprintf("%s (code %d)", msg, n)
		switch n {
		case 429:
			kind = record.ErrRateLimited
		case 503:
			kind = record.ErrUnavailable
		default:
			kind = record.ErrHTTP
		}
	}
	return kind, code, msg, true
}

// gpUsage is a usage block's counts, each -1 when not given.
type gpUsage struct {
	prompt, completion, cached, reasoning int
}

// usage reads the event's usage block.
func (c *gpChunk) usage() (gpUsage, error) {
	u := c.Usage
	count := func(d decimal, key string) (int, error) {
		if !d.set {
			return -1, nil
		}
		return d.count(key)
	}
	var out gpUsage
	var err error
	if out.prompt, err = count(u.PromptTokens, `usage "prompt_tokens"`); err != nil {
		return out, err
	}
	if out.completion, err = count(u.CompletionTokens, `usage "completion_tokens"`); err != nil {
		return out, err
	}
	out.cached, out.reasoning = -1, -1
	if d := u.PromptTokensDetails; d != nil {
		if out.cached, err = count(d.CachedTokens, `usage "cached_tokens"`); err != nil {
			return out, err
		}
	}
	if d := u.CompletionTokensDetails; d != nil {
		if out.reasoning, err = count(d.ReasoningTokens, `usage "reasoning_tokens"`); err != nil {
			return out, err
		}
	}
	return out, nil
}

// gpCount gives a successful request's chunks their tokens: the server's
// usage (the last block of the stream) where it gave one, shared over the
// chunks by the pieces each carried, reasoning and answer apart when it
// says how many were reasoning; else one per piece.
func gpCount(rec *record.Record, u *gpUsage, tally *gpTally) {
	cs := rec.Chunks
	isReasoning := func(c *record.Chunk) bool { return c.Reasoning }
	isAnswer := func(c *record.Chunk) bool { return !c.Reasoning }
	all := func(*record.Chunk) bool { return true }
	if u != nil && u.prompt >= 0 {
		rec.InputTokens = u.prompt
	}
	if u != nil && u.cached >= 0 {
		rec.CachedTokens, rec.CacheReported = u.cached, true
	}
	if u == nil || u.completion < 0 {
		n, rt := tokensIn(cs, all), tokensIn(cs, isReasoning)
		rec.OutputTokens, rec.TokenSource = n, record.SourceChunks
		if rt > 0 {
			rec.ReasoningTokens, rec.ReasoningSource = rt, record.SourceChunks
		}
		if len(cs) > 0 {
			tally.pieces++
		}
		return
	}
	n := u.completion
	rec.OutputTokens, rec.TokenSource = n, record.SourceUsage
	kr, ka := countIn(cs, isReasoning), countIn(cs, isAnswer)
	switch {
	case kr == 0:
		share(cs, all, n)
		if u.reasoning > 0 && u.reasoning <= n {
			// Reasoning the server hid: counted, never streamed.
			rec.ReasoningTokens, rec.ReasoningSource = u.reasoning, record.SourceUsage
		}
	case u.reasoning >= kr && n-u.reasoning >= ka:
		share(cs, isReasoning, u.reasoning)
		share(cs, isAnswer, n-u.reasoning)
		rec.ReasoningTokens, rec.ReasoningSource = u.reasoning, record.SourceUsage
	default:
		share(cs, all, n)
		if rt := tokensIn(cs, isReasoning); u.reasoning < 0 && rt <= n {
			rec.ReasoningTokens, rec.ReasoningSource = rt, record.SourceChunks
			break
		}
		// The usage contradicts the chunks: the reasoning is counted as
		// output, not apart.
		for i := range cs {
			cs[i].Reasoning = false
		}
	}
}

// share gives the chunks pick selects n tokens: each keeps the pieces it
// carried and the surplus is spread evenly over them, earlier chunks
// first. When n is less than their pieces, each keeps one.
func share(cs []record.Chunk, pick func(*record.Chunk) bool, n int) {
	k, have := countIn(cs, pick), tokensIn(cs, pick)
	if k == 0 {
		return
	}
	if n < have {
		for i := range cs {
			if pick(&cs[i]) {
				cs[i].Tokens = 1
			}
		}
		have = k
	}
	if n <= have {
		return
	}
	q, rem := (n-have)/k, (n-have)%k
	j := 0
	for i := range cs {
		if !pick(&cs[i]) {
			continue
		}
		t := int(cs[i].Tokens) + q
		if j < rem {
			t++
		}
		cs[i].Tokens = int32(min(t, 1<<30))
		j++
	}
}

func countIn(cs []record.Chunk, pick func(*record.Chunk) bool) int {
	k := 0
	for i := range cs {
		if pick(&cs[i]) {
			k++
		}
	}
	return k
}

func tokensIn(cs []record.Chunk, pick func(*record.Chunk) bool) int {
	n := 0
	for i := range cs {
		if pick(&cs[i]) {
			n += int(cs[i].Tokens)
		}
	}
	return n
}

// gpString returns a JSON string's value.
func gpString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// gpText returns a JSON value as text: a string's value, any other
// value's JSON, "" for none or null.
func gpText(raw json.RawMessage) string {
	if s, ok := gpString(raw); ok {
		return s
	}
	if t := strings.TrimSpace(string(raw)); t != "null" {
		return t
	}
	return ""
}

// gpScalar reads a Triton input that holds a count: a number, or a list
// of one.
func gpScalar(raw json.RawMessage) (int, bool) {
	var d decimal
	if json.Unmarshal(raw, &d) != nil {
		var list []decimal
		if json.Unmarshal(raw, &list) != nil || len(list) != 1 {
			return 0, false
		}
		d = list[0]
	}
	n, err := d.count("value")
	return n, err == nil
}
