package backend

import (
	"bytes"
	"fmt"
)

// UsageMode says which usage reports an OpenAI-style request asks for.
type UsageMode uint8

// Usage modes, most informative first. The zero value asks for everything.
const (
	// UsageContinuous asks for stream_options {include_usage: true,
	// continuous_usage_stats: true}: every chunk carries a running usage
	// block, which gives exact per-chunk token counts (vLLM, SGLang).
	UsageContinuous UsageMode = iota
	// UsageFinal asks for stream_options {include_usage: true} only: one
	// usage block at the end, spread over the chunks. Use it for hosted APIs
	// that reject the unknown continuous_usage_stats field (OpenAI itself).
	UsageFinal
	// UsageNone sends no stream_options, for servers that reject the field
	// altogether; tokens are then counted one per chunk.
	UsageNone
)

var usageModeNames = [...]string{UsageContinuous: "continuous", UsageFinal: "final", UsageNone: "none"}

func (m UsageMode) String() string {
	if int(m) < len(usageModeNames) {
		return usageModeNames[m]
	}
	return fmt.Sprintf("UsageMode(%d)", m)
}

// ParseUsageMode parses "continuous", "final" or "none", the values of the
// flag that selects a UsageMode.
func ParseUsageMode(s string) (UsageMode, error) {
	for m, name := range usageModeNames {
		if s == name {
			return UsageMode(m), nil
		}
	}
	return 0, fmt.Errorf("usage mode %q: want continuous, final or none", s)
}

// MaxTokensField says which body field of a chat request carries its
// output limit (Request.MaxTokens). The zero value sends
// max_completion_tokens, OpenAI's current name, which vLLM, SGLang and
// vLLM's own benchmark client use; some servers read only the older
// max_tokens (Ollama's /v1, older TGI releases) and let an answer run past
// a limit sent the new way; OpenAI refuses max_tokens for some models.
type MaxTokensField uint8

// Fields for the chat output limit.
const (
	LimitMaxCompletionTokens MaxTokensField = iota // max_completion_tokens
	LimitMaxTokens                                 // max_tokens
	LimitBoth                                      // both, with the same value
)

var maxTokensFieldNames = [...]string{LimitMaxCompletionTokens: "max_completion_tokens", LimitMaxTokens: "max_tokens", LimitBoth: "both"}

func (f MaxTokensField) String() string {
	if int(f) < len(maxTokensFieldNames) {
		return maxTokensFieldNames[f]
	}
	return fmt.Sprintf("MaxTokensField(%d)", f)
}

// ParseMaxTokensField parses "max_completion_tokens", "max_tokens" or
// "both", the values of the flag that selects a MaxTokensField.
func ParseMaxTokensField(s string) (MaxTokensField, error) {
	for f, name := range maxTokensFieldNames {
		if s == name {
			return MaxTokensField(f), nil
		}
	}
	return 0, fmt.Errorf("%q: want max_completion_tokens, max_tokens or both", s)
}

// streamOptions returns the stream_options object for m, or nil.
func streamOptions(m UsageMode) map[string]any {
	switch m {
	case UsageContinuous:
		return map[string]any{"include_usage": true, "continuous_usage_stats": true}
	case UsageFinal:
		return map[string]any{"include_usage": true}
	}
	return nil
}

// buildCompletions builds a /v1/completions body. Token ids, when given,
// are sent as the prompt (a list of ints, as vLLM and SGLang accept).
func buildCompletions(a *Adapter, req *Request) (map[string]any, error) {
	if len(req.Messages) > 0 {
		return nil, needsChat(a)
	}
	prompt, err := idsOrTextPrompt(req)
	if err != nil {
		return nil, err
	}
	body := map[string]any{"stream": true, "prompt": prompt}
	if req.MaxTokens > 0 {
		body["max_tokens"] = req.MaxTokens
	}
	openAIExtras(a, req, body)
	return body, nil
}

// buildChat builds a /v1/chat/completions body: Messages when given, else
// the prompt as one user message.
func buildChat(a *Adapter, req *Request) (map[string]any, error) {
	body := map[string]any{"stream": true}
	switch {
	case len(req.Messages) > 0:
		body["messages"] = req.Messages
	case req.Prompt != "":
		body["messages"] = []Message{{Role: "user", Content: req.Prompt}}
	case len(req.PromptTokenIDs) > 0:
		return nil, fmt.Errorf("prompt token ids need a completions endpoint (backend openai); chat needs text")
	default:
		return nil, errNoPrompt
	}
	if len(req.Tools) > 0 {
		body["tools"], body["tool_choice"] = req.Tools, "auto"
	}
	if req.MaxTokens > 0 {
		if a.maxField != LimitMaxTokens {
			body["max_completion_tokens"] = req.MaxTokens
		}
		if a.maxField != LimitMaxCompletionTokens {
			body["max_tokens"] = req.MaxTokens
		}
	}
	openAIExtras(a, req, body)
	return body, nil
}

// openAIExtras adds the fields shared by both OpenAI-style endpoints. The
// vLLM extensions are sent only when set, since hosted APIs reject them.
func openAIExtras(a *Adapter, req *Request, body map[string]any) {
	if req.Model != "" {
		body["model"] = req.Model
	}
	if req.MinTokens > 0 {
		body["min_tokens"] = req.MinTokens
	}
	if req.IgnoreEOS {
		body["ignore_eos"] = true
	}
	if so := streamOptions(a.usage); so != nil {
		body["stream_options"] = so
	}
}

// decodeOpenAI decodes one chunk of an OpenAI-style stream, completions or
// chat: choices[].text, choices[].delta.{content, reasoning_content,
// reasoning, tool_calls}, choices[].token_ids (vLLM's return_token_ids),
// choices[].finish_reason, usage, and in-stream errors in the
// {"error": {...}} shape (vLLM, SGLang, llama.cpp, OpenAI), vLLM's older
// {"object": "error", ...} shape and TGI's {"error": "…", "error_type": …}.
func decodeOpenAI(d *decoder, p []byte, ev *event) error {
	if isDone(p) {
		ev.done = true
		return nil
	}
	s := &d.s
	s.reset(p)
	// A stream's chunks begin alike ({"id":…,"object":…,"created":…,
	// "model":…, then "choices"): where this one begins with the bytes of
	// the fields the last one led with that decoded to nothing, up to the
	// comma after them, it takes up at that comma, as it would be after
	// reading them. The comma ends the last value, so the same bytes are
	// the same fields (a number cannot go on past it).
	first, learn := true, true
	if n := len(d.lead); n > 0 && bytes.HasPrefix(p, d.lead) {
		s.i, s.depth = n-1, 1
		first, learn = false, false
	} else if err := s.object(); err != nil {
		return err
	}
	var errObject, hasErr bool
	var msg, typ, code, errType string
	var reported serverError
	promptN, predictedN := -1, -1
	lead, leading := 0, learn
	for ; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		silent := false // the field changes nothing decoded
		switch string(key) {
		case "choices":
			err = d.openAIChoices(ev)
		case "usage":
			err = d.openAIUsage(ev)
		case "timings": // llama.cpp's /v1 endpoints add its own
			promptN, predictedN, err = d.llamaTimings(ev)
		case "error":
			var got bool
			reported, got, err = d.errorValue()
			hasErr = hasErr || got
		case "error_type": // TGI's, beside an error string
			errType, err = d.anyText()
		case "object":
			var raw []byte
			raw, _, err = s.text()
			errObject = string(raw) == "error"
			silent = !errObject
		case "message":
			msg, err = d.anyText()
		case "type":
			typ, err = d.anyText()
		case "code":
			code, err = d.anyText()
		default:
			err = s.skip()
			silent = true
		}
		if err != nil {
			return err
		}
		if leading {
			if leading = silent && s.peek() == ','; leading {
				lead = s.i + 1
			}
		}
	}
	if err := s.end(); err != nil {
		return err
	}
	if learn {
		d.lead = append(d.lead[:0], p[:lead]...)
	}
	timingCounts(ev, promptN, predictedN)
	switch {
	case hasErr:
		if reported.typ == "" {
			reported.typ = errType
		}
		ev.setError(reported)
	case errObject:
		ev.setError(serverError{msg: msg, typ: typ, code: code})
	}
	return nil
}

func (d *decoder) openAIChoices(ev *event) error {
	s := &d.s
	if s.null() {
		return nil
	}
	if err := s.array(); err != nil {
		return err
	}
	for first := true; ; first = false {
		more, err := s.elem(first)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		ev.choices = true
		if err := d.openAIChoice(ev); err != nil {
			return err
		}
	}
}

func (d *decoder) openAIChoice(ev *event) error {
	s := &d.s
	if s.null() {
		return nil
	}
	if err := s.object(); err != nil {
		return err
	}
	text, reasoning, blank, finished := false, false, false, false
	ids, listed := 0, 0
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		switch string(key) {
		case "text":
			var raw []byte
			var esc bool
			raw, esc, err = s.text()
			ev.keepText(raw, esc)
			text = text || len(raw) > 0
			blank = raw != nil && len(raw) == 0
		case "delta", "message":
			// message is a non-streamed answer's whole delta.
			var t, r bool
			t, r, err = d.openAIDelta(ev)
			text, reasoning = text || t, reasoning || r
		case "token_ids":
			ids, err = d.countArray()
		case "logprobs":
			listed, err = d.logprobCount()
		case "finish_reason":
			var f []byte
			if f, err = d.rawText(&d.finish); err == nil && f != nil {
				ev.finish, finished = f, true
			}
		default:
			err = s.skip()
		}
		if err != nil {
			return err
		}
	}
	switch {
	case ids > 0:
		ev.addIDs(ids)
	case listed > 0:
		ev.addIDs(listed) // the server listed each token's logprob
	case text || reasoning:
		ev.addText()
	case blank && !finished:
		ev.addHeld()
	}
	ev.answer = ev.answer || text
	ev.reasoning = ev.reasoning || reasoning
	return nil
}

// openAIDelta reads a chat delta and reports whether it carries answer
// output (content or a tool call) and whether it carries reasoning: the
// reasoning_content of vLLM before 0.11, SGLang, llama.cpp
// (--reasoning-format) and DeepSeek's API, or the reasoning of later vLLM,
// OpenRouter and Ollama's /v1. A role-only delta carries neither. Its
// content is kept in ev as answer text (the thinking is not, as vLLM's
// generated text leaves it out).
func (d *decoder) openAIDelta(ev *event) (answer, reasoning bool, err error) {
	s := &d.s
	if s.null() {
		return false, false, nil
	}
	if err := s.object(); err != nil {
		return false, false, err
	}
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil {
			return false, false, err
		}
		if !ok {
			return answer, reasoning, nil
		}
		switch string(key) {
		case "content", "reasoning_content", "reasoning":
			var raw []byte
			var esc bool
			raw, esc, err = s.text()
			if string(key) == "content" {
				ev.keepText(raw, esc)
				answer = answer || len(raw) > 0
			} else {
				reasoning = reasoning || len(raw) > 0
			}
		case "tool_calls":
			var n int
			n, err = d.countArray()
			answer = answer || n > 0
		default:
			err = s.skip()
		}
		if err != nil {
			return false, false, err
		}
	}
}

// logprobCount reads a choice's logprobs (or null) and returns how many
// tokens they list: the entries of chat's content (also llama.cpp's
// /v1/completions) or of the completions API's tokens, one per token
// the event carries, whatever text the server released with them.
func (d *decoder) logprobCount() (int, error) {
	s := &d.s
	if s.null() {
		return 0, nil
	}
	if s.peek() != '{' {
		return 0, s.skip()
	}
	if err := s.object(); err != nil {
		return 0, err
	}
	n := 0
	for first := true; ; first = false {
		key, ok, err := s.field(first)
		if err != nil || !ok {
			return n, err
		}
		switch string(key) {
		case "content", "tokens":
			var c int
			c, err = d.countArray()
			n = max(n, c)
		default:
			err = s.skip()
		}
		if err != nil {
			return n, err
		}
	}
}

// countArray reads an array (or null) and returns its length.
func (d *decoder) countArray() (int, error) {
	s := &d.s
	if s.null() {
		return 0, nil
	}
	if err := s.array(); err != nil {
		return 0, err
	}
	n := 0
	for first := true; ; first = false {
		more, err := s.elem(first)
		if err != nil || !more {
			return n, err
		}
		if err := s.skip(); err != nil {
			return n, err
		}
		n++
	}
}

func (d *decoder) openAIUsage(ev *event) error {
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
		case "completion_tokens":
			ev.usage, err = d.count("usage.completion_tokens")
		case "prompt_tokens":
			ev.prompt, err = d.count("usage.prompt_tokens")
		case "prompt_tokens_details":
			err = d.promptDetails(ev, "usage.prompt_tokens_details.cached_tokens")
		case "completion_tokens_details":
			err = d.completionDetails(ev, "usage.completion_tokens_details.reasoning_tokens")
		case "reasoning_tokens": // SGLang puts it beside the totals
			ev.reasoningUsage, err = d.count("usage.reasoning_tokens")
		default:
			err = s.skip()
		}
		if err != nil {
			return fmt.Errorf("usage.%s: %w", key, err)
		}
	}
}

// promptDetails reads usage.prompt_tokens_details (the Responses API's
// input_tokens_details) for its cached_tokens, whose full name is field.
func (d *decoder) promptDetails(ev *event, field string) error {
	n, ok, err := d.detailCount("cached_tokens", field)
	if ok && n >= 0 {
		ev.cached = n
	}
	return err
}

// completionDetails reads usage.completion_tokens_details (the Responses
// API's output_tokens_details) for its reasoning_tokens (OpenAI, DeepSeek,
// recent vLLM and SGLang), whose full name is field.
func (d *decoder) completionDetails(ev *event, field string) error {
	n, ok, err := d.detailCount("reasoning_tokens", field)
	if ok {
		ev.reasoningUsage = n
	}
	return err
}

// detailCount reads a usage details object (or null) for the count under
// key want, whose full name is field, skipping the rest; ok says it was
// there.
func (d *decoder) detailCount(want, field string) (n int, ok bool, err error) {
	s := &d.s
	if s.null() {
		return 0, false, nil
	}
	if err := s.object(); err != nil {
		return 0, false, err
	}
	for first := true; ; first = false {
		key, more, err := s.field(first)
		if err != nil || !more {
			return n, ok, err
		}
		if string(key) == want {
			n, err = d.count(field)
			ok = err == nil
		} else {
			err = s.skip()
		}
		if err != nil {
			return n, ok, fmt.Errorf("%s: %w", want, err)
		}
	}
}
