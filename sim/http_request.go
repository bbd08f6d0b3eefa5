package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/tokenizer"
)

// streamOptions is the OpenAI stream_options object.
type streamOptions struct {
	IncludeUsage         bool `json:"include_usage"`
	ContinuousUsageStats bool `json:"continuous_usage_stats"` // vLLM extension
}

// generationParams are the request fields both endpoints share. Fields the
// simulator does not model (temperature, top_p, …) are accepted and ignored,
// as a real server would honour them without changing the timing much;
// stop strings, which would change it, are refused.
type generationParams struct {
	Model         string         `json:"model"`
	MaxTokens     *int           `json:"max_tokens"`
	MinTokens     int            `json:"min_tokens"` // vLLM extension
	IgnoreEOS     bool           `json:"ignore_eos"` // vLLM extension
	Stream        bool           `json:"stream"`
	StreamOptions *streamOptions `json:"stream_options"`
	N             *int           `json:"n"`
	Seed          *int64         `json:"seed"`
	// Stop strings end an answer where its text holds one, which the
	// simulator's made-up text cannot honour faithfully: a request with
	// one is refused rather than answered at another length.
	Stop json.RawMessage `json:"stop"`
}

// completionRequest is the body of POST /v1/completions.
type completionRequest struct {
	generationParams
	Prompt json.RawMessage `json:"prompt"`
}

// chatRequest is the body of POST /v1/chat/completions.
type chatRequest struct {
	generationParams
	MaxCompletionTokens *int          `json:"max_completion_tokens"`
	Messages            []chatMessage `json:"messages"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// tokenizeRequest is the body of POST /tokenize: a prompt, or chat messages.
type tokenizeRequest struct {
	Model    string          `json:"model"`
	Prompt   json.RawMessage `json:"prompt"`
	Messages []chatMessage   `json:"messages"`
}

// detokenizeRequest is the body of POST /detokenize.
type detokenizeRequest struct {
	Model  string `json:"model"`
	Tokens []int  `json:"tokens"`
}

// decodeJSON reads one JSON object from r into v, with errors that say
// where the body is wrong.
func decodeJSON(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	if err := dec.Decode(v); err != nil {
		return describeJSONError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("invalid request body: unexpected data after the JSON object")
	}
	return nil
}

// bodyError is a request body problem: Error is the message for the client,
// Unwrap gives the decoder's own error, whose text names Go types.
type bodyError struct {
	msg string
	err error
}

func (e *bodyError) Error() string { return e.msg }
func (e *bodyError) Unwrap() error { return e.err }

func describeJSONError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return err
	case errors.Is(err, io.EOF):
		return &bodyError{"invalid request body: it is empty, want a JSON object", err}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &bodyError{"invalid request body: the JSON ends early", err}
	case errors.As(err, &syn):
		return &bodyError{fmt.Sprintf("invalid request body: malformed JSON at byte %d: %v", syn.Offset, syn), err}
	case errors.As(err, &typ):
		// Embedded structs show up in the path; the client never saw them.
		field := strings.TrimPrefix(typ.Field, "generationParams.")
		if field == "" {
			return &bodyError{fmt.Sprintf("invalid request body: want a JSON object, got %s", typ.Value), err}
		}
		return &bodyError{fmt.Sprintf("invalid request body: field %q at byte %d: want %s, got %s",
			field, typ.Offset, jsonKind(typ.Type.String()), typ.Value), err}
	}
	return fmt.Errorf("invalid request body: %w", err)
}

// jsonKind names a Go type the way a JSON author thinks of it.
func jsonKind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.Contains(goType, "int"):
		return "an integer"
	case strings.Contains(goType, "float"):
		return "a number"
	case strings.Contains(goType, "string"), strings.Contains(goType, "RawMessage"):
		return "a string"
	case strings.Contains(goType, "bool"):
		return "true or false"
	}
	return "an object"
}

// check validates the shared fields; maxTokens is the request's output cap
// (max_tokens, or max_completion_tokens for chat), nil when not given.
func (p *generationParams) check(maxTokens *int) error {
	if maxTokens != nil && *maxTokens < 1 {
		return fmt.Errorf("max_tokens must be at least 1, got %d", *maxTokens)
	}
	if p.N != nil && *p.N != 1 {
		return fmt.Errorf("n must be 1: the simulator generates one choice per request, got %d", *p.N)
	}
	if p.StreamOptions != nil && !p.Stream {
		return errors.New("stream_options can only be defined when stream is true")
	}
	if hasStop(p.Stop) {
		return errors.New(`stop strings are not simulated: the simulator's text is made up, and would end at another length than a model's; leave "stop" out`)
	}
	return nil
}

// hasStop reports whether a request's "stop" asks for anything: a
// string, or a list with one, not null, "" or [].
func hasStop(raw json.RawMessage) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one != ""
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return slices.ContainsFunc(many, func(s string) bool { return s != "" })
	}
	return len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null"
}

// promptIDs turns a completions prompt into token ids: a string (tokenized),
// a list of token ids below vocab, or a list holding exactly one of either.
func promptIDs(raw json.RawMessage, vocab int) ([]int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, errors.New("prompt is required")
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		if text == "" {
			return nil, errors.New("prompt must not be empty")
		}
		return tokenizer.Encode(text), nil
	}
	var ids []int
	if err := json.Unmarshal(raw, &ids); err == nil {
		if len(ids) == 0 {
			return nil, errors.New("prompt must not be empty")
		}
		return ids, checkTokenIDs(ids, vocab)
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || len(list) == 0 {
		return nil, errors.New("prompt must be a string, a list of token ids, or a list of one of those")
	}
	if len(list) > 1 {
		return nil, fmt.Errorf("prompt is a batch of %d prompts: the simulator serves one prompt per request", len(list))
	}
	if inner := bytes.TrimSpace(list[0]); len(inner) > 0 && (inner[0] == '"' || inner[0] == '[') {
		return promptIDs(inner, vocab)
	}
	return nil, errors.New("prompt must be a string, a list of token ids, or a list of one of those")
}

// chatRoles are the message roles the chat template knows.
var chatRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true}

// chatPrompt renders messages with the simulator's chat template and
// tokenizes the result.
func chatPrompt(msgs []chatMessage) ([]int, error) {
	if len(msgs) == 0 {
		return nil, errors.New("messages must not be empty")
	}
	var t chatTemplate
	for i, m := range msgs {
		if !chatRoles[m.Role] {
			return nil, fmt.Errorf("messages[%d]: unknown role %q (want system, developer, user, assistant or tool)", i, m.Role)
		}
		text, err := messageText(m.Content)
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
		}
		t.add(m.Role, text)
	}
	return t.tokens(), nil
}

// chatTemplate renders conversation turns the way the simulator's chat
// template does: each turn as "<|role|>\ncontent\n", then "<|assistant|>\n"
// to open the reply, the shape of common templates, so that a prompt
// counts a few tokens of markup per turn. Every endpoint that takes turns
// renders them through it, so that the same conversation is the same
// prompt on each. The zero value is an empty conversation.
type chatTemplate struct {
	b strings.Builder
}

// add appends one turn.
func (t *chatTemplate) add(role, text string) {
	t.b.WriteString("<|")
	t.b.WriteString(role)
	t.b.WriteString("|>\n")
	t.b.WriteString(text)
	t.b.WriteString("\n")
}

// tokens ends the conversation with the opening of the assistant's reply
// and tokenizes it.
func (t *chatTemplate) tokens() []int {
	t.b.WriteString("<|assistant|>\n")
	return tokenizer.Encode(t.b.String())
}

// messageText flattens a message's content: a string, null (an assistant
// turn with tool calls), or a list of {"type":"text","text":…} parts.
func messageText(raw json.RawMessage) (string, error) {
	text, _, err := contentText(raw, "text")
	return text, err
}

// contentText flattens a message's content, a string or a list of parts
// of the types kinds, each with its text; present is false for null or
// nothing, which gives "".
func contentText(raw json.RawMessage, kinds ...string) (text string, present bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, true, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", true, fmt.Errorf("content must be a string or a list of %s parts", strings.Join(kinds, " or "))
	}
	var b strings.Builder
	for j, p := range parts {
		switch {
		case !slices.Contains(kinds, p.Type) && len(kinds) == 1:
			return "", true, fmt.Errorf("content[%d]: only %s parts are supported, got type %q", j, kinds[0], p.Type)
		case !slices.Contains(kinds, p.Type):
			return "", true, fmt.Errorf("content[%d]: only text parts (%s) are supported, got type %q", j, strings.Join(kinds, ", "), p.Type)
		case p.Text == nil:
			return "", true, fmt.Errorf("content[%d]: text is required", j)
		}
		b.WriteString(*p.Text)
	}
	return b.String(), true, nil
}
