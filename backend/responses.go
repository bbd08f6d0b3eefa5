package backend

import (
	"bytes"
	"fmt"
)

// buildResponses builds a /v1/responses body (OpenAI's Responses API, as
// vLLM and llama.cpp's server serve it): the prompt as the input text, or
// Messages as input message items. store is false so that the server keeps
// nothing of a benchmark's requests; vLLM's client sends the same.
func buildResponses(a *Adapter, req *Request) (map[string]any, error) {
	if err := unsupported(a, "min tokens (--min-tokens)", req.MinTokens > 0); err != nil {
		return nil, err
	}
	body := map[string]any{"stream": true, "store": false}
	switch {
	case len(req.Messages) > 0:
		body["input"] = req.Messages
	case req.Prompt != "":
		body["input"] = req.Prompt
	case len(req.PromptTokenIDs) > 0:
		return nil, fmt.Errorf("prompt token ids need a completions endpoint (backend openai); the Responses API needs text")
	default:
		return nil, errNoPrompt
	}
	if req.Model != "" {
		body["model"] = req.Model
	}
	if req.MaxTokens > 0 {
		body["max_output_tokens"] = req.MaxTokens
	}
	if req.IgnoreEOS {
		body["ignore_eos"] = true // vLLM's extension, as on its other endpoints
	}
	return body, nil
}

// Responses stream events, by their type. Every event of the stream names
// its type in its data. Output comes in events whose type ends in .delta:
// answer text, a refusal, a tool call's arguments, and, under
// response.reasoning, the thinking (reasoning_text, reasoning_summary_text).
// The others (response.created, response.output_item.added, the .done
// events that repeat the text streamed before) carry no new output.
const (
	respTextDelta      = "response.output_text.delta"
	respReasoningDelta = "response.reasoning_text.delta"
	respCompleted      = "response.completed"
	respIncomplete     = "response.incomplete"
	respFailed         = "response.failed"
)

var (
	respDeltaSuffix     = []byte(".delta")
	respReasoningPrefix = []byte("response.reasoning")
)

// decodeResponses decodes one event of a Responses stream, or a whole
// (non-streamed) response. A delta with text is output: reasoning under
// response.reasoning, else answer (text, a refusal, a tool call's
// arguments), so that output kinds of releases to come count as output
// too. The stream ends with response.completed (vLLM
// also ends it so when max_output_tokens cut the answer, with status
// "incomplete"), response.incomplete or response.failed, whose response
// carries the usage. An error event ({"type": "error", "code", "message"})
// or an "error" object fails the request. A whole response is the response
// object itself: its output items carry the answer.
//
// Servers write the fields of an event in any order (vLLM's put "type"
// last), so the event is read first and acted on after.
func decodeResponses(d *decoder, p []byte, ev *event) error {
	if isDone(p) { // not vLLM's, but other Responses servers send it
		ev.done = true
		return nil
	}
	s := &d.s
	s.reset(p)
	if err := s.object(); err != nil {
		return err
	}
	var typ, delta []byte
	var deltaEsc, whole, hasErr bool
	var reported, flat serverError
	var out respOutput
	var r respState
	promptN, predictedN := -1, -1
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(key) {
		case "type":
			typ, _, err = s.text()
		case "delta":
			if s.peek() == '"' {
				delta, deltaEsc, err = s.str()
			} else {
				err = s.skip()
			}
		case "response":
			err = d.responseObject(ev, &r)
		case "object":
			var raw []byte
			raw, _, err = s.text()
			whole = string(raw) == "response"
		case "output": // a whole response's
			err = d.responseOutput(&out)
		case "status", "usage", "incomplete_details":
			err = d.responseField(key, ev, &r)
		case "error":
			var got bool
			reported, got, err = d.errorValue()
			hasErr = hasErr || got
		case "message":
			flat.msg, err = d.anyText()
		case "code":
			flat.code, err = d.anyText()
		case "timings": // llama.cpp's, beside the response
			promptN, predictedN, err = d.llamaTimings(ev)
		default:
			err = s.skip()
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
	if err := s.end(); err != nil {
		return err
	}
	timingCounts(ev, promptN, predictedN)
	// string(typ) is compared, never kept: a kept conversion of a type
	// longer than 32 bytes would allocate once per token.
	switch {
	case hasErr:
		ev.setError(reported)
	case string(typ) == "error":
		ev.setError(flat)
	case bytes.HasSuffix(typ, respDeltaSuffix):
		ev.choices = true
		if len(delta) == 0 {
			break
		}
		ev.addText()
		if bytes.HasPrefix(typ, respReasoningPrefix) {
			ev.reasoning = true
			break
		}
		ev.answer = true
		if string(typ) == respTextDelta {
			ev.keepText(delta, deltaEsc)
		}
	case string(typ) == respCompleted || string(typ) == respIncomplete || string(typ) == respFailed:
		ev.done = true
		r.finish(ev, string(typ) == respIncomplete)
	case len(typ) == 0 && whole:
		ev.done = true
		r.finish(ev, false)
		out.apply(ev)
	case string(typ) != "response.created" && string(typ) != "response.in_progress" && string(typ) != "response.queued":
		// An item's bookkeeping (response.output_text.done, …): after
		// the last delta, it is where the answer's end-of-sequence token
		// belongs (see tally).
		ev.choices = true
	}
	return nil
}

// respState is what a response object said of how it ended.
type respState struct {
	status, reason []byte
	failed         bool
	err            serverError
}

// finish sets ev's finish reason, or its failure, from the response's
// status: "completed" is a stop, "incomplete" (or a response.incomplete
// event) a stop for the reason given, max_output_tokens being a length;
// "failed" (or a response.failed event) or "cancelled" fails the request.
func (r *respState) finish(ev *event, incomplete bool) {
	switch {
	case r.failed || string(r.status) == "failed":
		if r.err == (serverError{}) {
			r.err.msg = "the server reported the response failed (status failed)"
		}
		ev.setError(r.err)
	case string(r.status) == "cancelled":
		ev.setError(serverError{msg: "the server cancelled the response (status cancelled)"})
	case incomplete || string(r.status) == "incomplete":
		ev.finish = finishLength
		if len(r.reason) > 0 && string(r.reason) != "max_output_tokens" {
			ev.finish = r.reason
		}
	default:
		ev.finish = finishStop
	}
}

// responseObject reads the response object of a stream's event: its
// status, usage, incomplete details and error. Its output repeats the
// text the stream carried, and is skipped.
func (d *decoder) responseObject(ev *event, r *respState) error {
	s := &d.s
	if s.null() {
		return nil
	}
	if err := s.object(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch string(key) {
		case "status", "usage", "incomplete_details":
			err = d.responseField(key, ev, r)
		case "error":
			var got bool
			if r.err, got, err = d.errorValue(); got {
				r.failed = true
			}
		default:
			err = s.skip()
		}
		if err != nil {
			return fmt.Errorf("response.%s: %w", key, err)
		}
	}
}

// responseField reads one of the fields a response has at the top level
// of a whole response or inside a stream's final event.
func (d *decoder) responseField(key []byte, ev *event, r *respState) error {
	s := &d.s
	var err error
	switch string(key) {
	case "status":
		r.status, err = d.rawText(&d.finish)
		r.status = bytes.Clone(r.status)
	case "usage":
		err = d.responsesUsage(ev)
	case "incomplete_details":
		r.reason, err = d.incompleteReason()
	default:
		err = s.skip()
	}
	return err
}

// incompleteReason reads incomplete_details (or null) for its reason.
func (d *decoder) incompleteReason() ([]byte, error) {
	s := &d.s
	if s.null() {
		return nil, nil
	}
	if err := s.object(); err != nil {
		return nil, err
	}
	var reason []byte
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil || !ok {
			return reason, err
		}
		if string(key) == "reason" {
			var raw []byte
			if raw, err = d.rawText(&d.finish); err == nil {
				reason = bytes.Clone(raw)
			}
		} else {
			err = s.skip()
		}
		if err != nil {
			return reason, fmt.Errorf("reason: %w", err)
		}
	}
}

// responsesUsage reads a Responses usage block: input_tokens,
// output_tokens and their details (cached_tokens, reasoning_tokens).
func (d *decoder) responsesUsage(ev *event) error {
	s := &d.s
	if s.null() {
		return nil
	}
	if err := s.object(); err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		switch string(key) {
		case "input_tokens":
			ev.prompt, err = d.count("usage.input_tokens")
		case "output_tokens":
			ev.usage, err = d.count("usage.output_tokens")
		case "input_tokens_details":
			err = d.promptDetails(ev, "usage.input_tokens_details.cached_tokens")
		case "output_tokens_details":
			err = d.completionDetails(ev, "usage.output_tokens_details.reasoning_tokens")
		default:
			err = s.skip()
		}
		if err != nil {
			return fmt.Errorf("usage.%s: %w", key, err)
		}
	}
}

// respOutput is what a whole response's output items held.
type respOutput struct {
	answer, reasoning bool
	text              []byte // the first answer text, raw
	esc               bool
}

// apply makes ev the one chunk of a whole response.
func (o *respOutput) apply(ev *event) {
	if o.answer || o.reasoning {
		ev.addText()
		ev.answer, ev.reasoning = o.answer, o.reasoning && !o.answer
	}
	ev.keepText(o.text, o.esc)
}

// responseOutput reads a whole response's output items: messages whose
// content parts hold text (output_text) or a refusal, reasoning items, and
// tool calls.
func (d *decoder) responseOutput(out *respOutput) error {
	s := &d.s
	if s.null() {
		return nil
	}
	if err := s.array(); err != nil {
		return err
	}
	for first := true; ; first = false {
		more, err := s.elem(first)
		if err != nil || !more {
			return err
		}
		if err := d.outputItem(out); err != nil {
			return err
		}
	}
}

// outputItem reads one output item. Its type decides what its content is:
// a reasoning item's content is thinking, a function call is answer
// output, a message's text parts are the answer.
func (d *decoder) outputItem(out *respOutput) error {
	s := &d.s
	if s.null() {
		return nil
	}
	if err := s.object(); err != nil {
		return err
	}
	var typ []byte
	var text, args bool
	var raw []byte
	var esc bool
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(key) {
		case "type":
			var t []byte
			if t, _, err = s.text(); err == nil {
				typ = t
			}
		case "content", "summary":
			var r []byte
			var e bool
			r, e, text, err = d.contentParts(text)
			if raw == nil {
				raw, esc = r, e
			}
		case "arguments":
			var r []byte
			r, _, err = s.text()
			args = len(r) > 0
		default:
			err = s.skip()
		}
		if err != nil {
			return fmt.Errorf("output: %w", err)
		}
	}
	switch string(typ) {
	case "reasoning":
		out.reasoning = out.reasoning || text
	case "message":
		out.answer = out.answer || text
		if out.text == nil && raw != nil {
			out.text, out.esc = raw, esc
		}
	default: // function_call and the other tool calls
		out.answer = out.answer || args || text
	}
	return nil
}

// contentParts reads an item's content (or summary) parts and returns the
// first part's text, and whether any part had text (or a refusal).
func (d *decoder) contentParts(had bool) (raw []byte, esc, text bool, err error) {
	s := &d.s
	text = had
	if s.null() {
		return nil, false, text, nil
	}
	if s.peek() != '[' {
		return nil, false, text, s.skip()
	}
	if err := s.array(); err != nil {
		return nil, false, text, err
	}
	for first := true; ; first = false {
		more, err := s.elem(first)
		if err != nil || !more {
			return raw, esc, text, err
		}
		if s.peek() != '{' {
			if err := s.skip(); err != nil {
				return raw, esc, text, err
			}
			continue
		}
		if err := s.object(); err != nil {
			return raw, esc, text, err
		}
		for f := true; ; f = false {
			key, ok, err := s.field(f)
			if err != nil {
				return raw, esc, text, err
			}
			if !ok {
				break
			}
			switch string(key) {
			case "text", "refusal":
				var r []byte
				var e bool
				if r, e, err = s.text(); err == nil && len(r) > 0 {
					text = true
					if raw == nil && string(key) == "text" {
						raw, esc = r, e
					}
				}
			default:
				err = s.skip()
			}
			if err != nil {
				return raw, esc, text, err
			}
		}
	}
}
