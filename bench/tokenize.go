package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// tokenDialect is one server family's POST /tokenize: the body it takes and
// where its answer keeps the count.
//
//	vLLM, SGLang  {"model", "prompt"}             → {"count": n, "tokens": [...]}
//	              {"model", "messages", ...}      → the same, for the chat template
//	llama.cpp     {"content", "add_special"}      → {"tokens": [...]}
//	TGI           {"inputs"}                      → [{"id", "text", ...}, ...]
//
// Ollama has no /tokenize. A server asked in another's dialect may answer
// 200 with an empty list (llama.cpp ignores "prompt"), so a dialect is
// chosen by what counts a known text, not by the status alone.
type tokenDialect struct {
	name string
	body func(model, text string) any
}

var (
	dialectVLLM = tokenDialect{"vLLM", func(model, text string) any {
		// add_special_tokens is left to the server's default, which is
		// what its completions endpoint does with a text prompt.
		return map[string]any{"model": model, "prompt": text}
	}}
	dialectLlamaCpp = tokenDialect{"llama.cpp", func(_, text string) any {
		// A completion's prompt gets the BOS token and parsed special
		// tokens; /tokenize does neither unless asked.
		return map[string]any{"content": text, "add_special": true, "parse_special": true}
	}}
	dialectTGI = tokenDialect{"TGI", func(_, text string) any {
		return map[string]any{"inputs": text}
	}}
)

// dialects returns the dialects to try, the likeliest for the backend first.
func dialects(backendName string) []tokenDialect {
	switch backendName {
	case "llamacpp":
		return []tokenDialect{dialectLlamaCpp, dialectVLLM, dialectTGI}
	case "tgi":
		return []tokenDialect{dialectTGI, dialectVLLM, dialectLlamaCpp}
	}
	return []tokenDialect{dialectVLLM, dialectLlamaCpp, dialectTGI}
}

// errNoTokenizer means the server has no /tokenize endpoint.
var errNoTokenizer = errors.New("server has no /tokenize")

// tokenCount reads a /tokenize answer: a "count", else the length of
// "tokens", else, for a JSON array (TGI), its length. ok is false when
// the answer holds none of them.
func tokenCount(data []byte) (n int, ok bool) {
	data = bytes.Trim(data, " \t\r\n") // JSON's white space, not Unicode's
	if len(data) > 0 && data[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(data, &list) != nil {
			return 0, false
		}
		return len(list), true
	}
	var out struct {
		Count  *int              `json:"count"`
		Tokens []json.RawMessage `json:"tokens"`
	}
	if json.Unmarshal(data, &out) != nil {
		return 0, false
	}
	switch {
	case out.Count != nil:
		return *out.Count, true
	case out.Tokens != nil:
		return len(out.Tokens), true
	}
	return 0, false
}

// counter counts tokens as the server will: its /tokenize in its dialect,
// after its chat template for a chat endpoint where it can apply one.
type counter struct {
	ctx     context.Context // the run's: calibration stops when it ends
	srv     *server
	model   string
	dialect tokenDialect
	// chatAsked says the prompts go to a chat endpoint, whose template
	// the count should include.
	chatAsked bool
	// chat is how a chat prompt is counted: "" for plain text, "messages"
	// (vLLM: /tokenize takes the messages and applies the template), or
	// "apply-template" (llama.cpp: /apply-template first, then /tokenize).
	chat string
}

// probeText is what dialects are tried on: any text counts at least one
// token.
const probeText = "hello world"

// newCounter finds how the server counts tokens. For chat it also finds how
// to count the chat template; a server that can do neither counts the
// text alone (see describe). It returns errNoTokenizer when /tokenize does
// not exist, and an error naming the URL when it answers but no dialect
// counts a token of non-empty text.
func (s *server) newCounter(ctx context.Context, model, backendName string, chat bool) (*counter, error) {
	var tried []string
	var last error
	for _, d := range dialects(backendName) {
		c := &counter{ctx: ctx, srv: s, model: model, dialect: d, chatAsked: chat}
		n, err := c.countText(ctx, probeText)
		var se *statusError
		switch {
		case err == nil && n > 0:
			if chat {
				c.chooseChat(ctx)
			}
			return c, nil
		case errors.Is(err, errNoTokenizer):
			return nil, err
		case errors.As(err, &se) && se.hint != "":
			return nil, err // an API key or a wrong path: no dialect helps
		case errors.As(err, &se) || errors.Is(err, errNoCount):
			tried = append(tried, d.name)
			last = err
			continue // a 4xx for another dialect's body, or no count in it
		}
		return nil, err // a timeout or a transport failure: stop asking
	}
	return nil, fmt.Errorf("POST %s/tokenize counts no token of %q in the %s dialects: %w",
		s.base, probeText, strings.Join(tried, ", "), last)
}

// errNoCount is a /tokenize answer of 200 with no count, or a count of 0,
// for non-empty text.
var errNoCount = errors.New("answered 200 without a token count")

// countText counts text with the dialect's /tokenize.
func (c *counter) countText(ctx context.Context, text string) (int, error) {
	return c.post(ctx, "/tokenize", c.dialect.body(c.model, text), text)
}

// post sends a /tokenize body and reads the count; text is what it counts,
// for the error of a count of 0.
func (c *counter) post(ctx context.Context, path string, body any, text string) (int, error) {
	s := c.srv
	what := "POST " + s.base + path
	status, data, err := s.do(ctx, http.MethodPost, path, body, postLimit, 64<<20)
	if err != nil {
		return 0, err
	}
	if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
		return 0, errNoTokenizer
	}
	if err := s.checkStatus(what, status, data); err != nil {
		return 0, err
	}
	n, ok := tokenCount(data)
	if !ok || (n <= 0 && text != "") {
		return 0, fmt.Errorf("%s (%s dialect) %w for %d bytes of text: %s", what, c.dialect.name, errNoCount, len(text), snippet(data))
	}
	return n, nil
}

// chooseChat picks how a chat prompt is counted: vLLM's /tokenize with
// messages when it counts more than the text alone (the template adds
// tokens), else llama.cpp's /apply-template, else the text alone.
func (c *counter) chooseChat(ctx context.Context) {
	plain, err := c.countText(ctx, probeText)
	if err != nil {
		return
	}
	for _, mode := range []string{"messages", "apply-template"} {
		c.chat = mode
		if n, err := c.Count(probeText); err == nil && n > plain {
			return
		}
	}
	c.chat = ""
}

// Count counts text as the server will see it; it is a workload.Counter.
func (c *counter) Count(text string) (int, error) {
	ctx := c.ctx
	msgs := []map[string]string{{"role": "user", "content": text}}
	switch c.chat {
	case "messages":
		return c.post(ctx, "/tokenize", map[string]any{"model": c.model, "messages": msgs, "add_generation_prompt": true}, text)
	case "apply-template":
		s := c.srv
		status, data, err := s.do(ctx, http.MethodPost, "/apply-template", map[string]any{"messages": msgs}, postLimit, 64<<20)
		if err != nil {
			return 0, err
		}
		if err := s.checkStatus("POST "+s.base+"/apply-template", status, data); err != nil {
			return 0, err
		}
		var out struct {
			Prompt *string `json:"prompt"`
		}
		if json.Unmarshal(data, &out) != nil || out.Prompt == nil {
			return 0, fmt.Errorf("POST %s/apply-template: no prompt in %s", s.base, snippet(data))
		}
		return c.countText(ctx, *out.Prompt)
	}
	return c.countText(ctx, text)
}

// CountText counts text alone, without the chat template that Count may
// add; it is a workload.Counter.
func (c *counter) CountText(text string) (int, error) { return c.countText(c.ctx, text) }

// describe says whose count a calibrated input length is, for the workload
// line.
func (c *counter) describe() string {
	switch c.chat {
	case "messages":
		return "the server's, chat template included (/tokenize with messages)"
	case "apply-template":
		return "the server's, chat template included (/apply-template, then /tokenize)"
	}
	if c.chatAsked {
		return fmt.Sprintf("the server's count of the text alone (/tokenize, %s dialect): its chat template adds more", c.dialect.name)
	}
	return fmt.Sprintf("the server's (/tokenize, %s dialect)", c.dialect.name)
}

// snippet quotes the start of a body for an error message.
func snippet(b []byte) string {
	const n = 80
	b = bytes.TrimSpace(b)
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}
