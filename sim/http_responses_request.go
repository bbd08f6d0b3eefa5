package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// responsesRequest is the body of POST /v1/responses, OpenAI's Responses
// API as vLLM serves it. Fields the simulator does not model (store,
// temperature, top_p, …) are accepted and ignored, as on chat.
type responsesRequest struct {
	Model           string          `json:"model"`
	Input           json.RawMessage `json:"input"`
	Instructions    string          `json:"instructions"`
	MaxOutputTokens *int            `json:"max_output_tokens"`
	MinTokens       int             `json:"min_tokens"` // vLLM extension
	IgnoreEOS       bool            `json:"ignore_eos"` // vLLM extension
	Stream          bool            `json:"stream"`
	Seed            *int64          `json:"seed"`
}

// handleResponses serves a Responses request as the chat request it is
// underneath: its instructions and input are the conversation, rendered
// through the chat template, and max_output_tokens is chat's
// max_completion_tokens, the rest of the context when absent or null.
func (s *Server) handleResponses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if !s.readBody(w, r, &req) || !s.checkModel(w, req.Model) {
		return
	}
	if m := req.MaxOutputTokens; m != nil && *m < 1 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("max_output_tokens must be at least 1, got %d", *m))
		return
	}
	prompt, err := responsesPrompt(req.Instructions, req.Input)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	p := generationParams{Model: req.Model, MinTokens: req.MinTokens, IgnoreEOS: req.IgnoreEOS, Stream: req.Stream, Seed: req.Seed}
	s.generate(w, r, p, req.MaxOutputTokens, prompt, apiResponses)
}

// inputRoles are the roles of a Responses message item.
var inputRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true}

// inputItem is one item of a Responses input list. Only messages are
// served: type "message", or no type, which means the same.
type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// responsesPrompt renders a Responses conversation and tokenizes it: the
// instructions, when not empty, as a system message (vLLM's order), then
// the input, a string (one user message) or a list of message items.
func responsesPrompt(instructions string, input json.RawMessage) ([]int, error) {
	var t chatTemplate
	if instructions != "" {
		t.add("system", instructions)
	}
	input = bytes.TrimSpace(input)
	if len(input) == 0 || bytes.Equal(input, []byte("null")) {
		return nil, errors.New("input is required")
	}
	var text string
	if err := json.Unmarshal(input, &text); err == nil {
		t.add("user", text)
		return t.tokens(), nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(input, &items); err != nil {
		return nil, errors.New("input must be a string or a list of message items")
	}
	if len(items) == 0 {
		return nil, errors.New("input must not be empty")
	}
	for i, raw := range items {
		role, text, err := inputMessage(raw)
		if err != nil {
			return nil, fmt.Errorf("input[%d]: %w", i, err)
		}
		t.add(role, text)
	}
	return t.tokens(), nil
}

// inputMessage returns the role and flattened text of one input item.
func inputMessage(raw json.RawMessage) (role, text string, err error) {
	var m inputItem
	if err := json.Unmarshal(raw, &m); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field != "" {
			return "", "", fmt.Errorf("%s: want %s, got %s", typ.Field, jsonKind(typ.Type.String()), typ.Value)
		}
		return "", "", errors.New("want a message item, an object with role and content")
	}
	switch {
	case m.Type != "" && m.Type != "message":
		return "", "", fmt.Errorf("only message items are supported, got type %q", m.Type)
	case m.Role == "":
		return "", "", errors.New("role is required")
	case !inputRoles[m.Role]:
		return "", "", fmt.Errorf("unknown role %q (want user, system, developer or assistant)", m.Role)
	}
	text, err = inputText(m.Content)
	return m.Role, text, err
}

// inputText flattens a message item's content: a string, or a list of
// text parts, input_text (what users send) or output_text (an earlier
// assistant turn, as a client replays it).
func inputText(raw json.RawMessage) (string, error) {
	text, present, err := contentText(raw, "input_text", "output_text")
	if !present {
		return "", errors.New("content is required")
	}
	return text, err
}
