package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// templateRoute is one server family's way of rendering a conversation
// with its chat template into the text its completions endpoint takes.
type templateRoute struct {
	name   string // what the notes say was asked
	render func(ctx context.Context, s *server, model string, msgs []workload.Message, kwargs map[string]any) (string, error)
}

// errNoTemplateRoute says the server lacks a route: a 404 or 405, or an
// answer in another family's form.
var errNoTemplateRoute = errors.New("no such route")

var (
	// routeVLLM is vLLM's (and the simulator's): /tokenize renders the
	// messages and tokenizes them, /detokenize gives the text back, which
	// is the template's text as vLLM's client renders it, less whatever
	// the tokenizer does not give back whole.
	routeVLLM = templateRoute{"POST /tokenize with messages, then /detokenize", renderVLLM}
	// routeLlamaCpp is llama.cpp's llama-server: /apply-template answers
	// the rendered prompt. It parses its body as a chat request's, so it
	// takes chat_template_kwargs as /v1/chat/completions does.
	routeLlamaCpp = templateRoute{"POST /apply-template", renderLlamaCpp}
)

// userMessage is one prompt as the single user message of a chat.
func userMessage(prompt string) []workload.Message {
	return []workload.Message{{Role: "user", Content: prompt}}
}

// templateBody is a render request's body: messages, and the template's
// kwargs where there are any.
func templateBody(body map[string]any, msgs []workload.Message, kwargs map[string]any) map[string]any {
	body["messages"] = msgs
	if kwargs != nil {
		body["chat_template_kwargs"] = kwargs
	}
	return body
}

func renderVLLM(ctx context.Context, s *server, model string, msgs []workload.Message, kwargs map[string]any) (string, error) {
	body := templateBody(map[string]any{"model": model, "add_generation_prompt": true}, msgs, kwargs)
	status, data, err := s.do(ctx, http.MethodPost, "/tokenize", body, postLimit, 64<<20)
	if err != nil {
		return "", err
	}
	switch status {
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnprocessableEntity:
		// 422: a /tokenize that wants other fields (TGI's inputs).
		return "", errNoTemplateRoute
	}
	if err := s.checkStatus("POST "+s.base+"/tokenize", status, data); err != nil {
		return "", err
	}
	var tok struct {
		Tokens []int `json:"tokens"`
	}
	if json.Unmarshal(data, &tok) != nil || len(tok.Tokens) == 0 {
		// llama.cpp's /tokenize answers {"tokens": []} to a body without
		// its "content": it renders no messages.
		return "", errNoTemplateRoute
	}
	status, data, err = s.do(ctx, http.MethodPost, "/detokenize", map[string]any{"model": model, "tokens": tok.Tokens}, postLimit, 64<<20)
	if err != nil {
		return "", err
	}
	if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
		return "", errNoTemplateRoute
	}
	what := "POST " + s.base + "/detokenize"
	if err := s.checkStatus(what, status, data); err != nil {
		return "", err
	}
	var out struct {
		Prompt *string `json:"prompt"`
	}
	if json.Unmarshal(data, &out) != nil || out.Prompt == nil {
		return "", fmt.Errorf("%s: no prompt in %s", what, snippet(data))
	}
	return *out.Prompt, nil
}

func renderLlamaCpp(ctx context.Context, s *server, _ string, msgs []workload.Message, kwargs map[string]any) (string, error) {
	status, data, err := s.do(ctx, http.MethodPost, "/apply-template", templateBody(map[string]any{}, msgs, kwargs), postLimit, 64<<20)
	if err != nil {
		return "", err
	}
	if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
		return "", errNoTemplateRoute
	}
	what := "POST " + s.base + "/apply-template"
	if err := s.checkStatus(what, status, data); err != nil {
		return "", err
	}
	var out struct {
		Prompt *string `json:"prompt"`
	}
	if json.Unmarshal(data, &out) != nil || out.Prompt == nil {
		return "", fmt.Errorf("%s: no prompt in %s", what, snippet(data))
	}
	return *out.Prompt, nil
}

// templateRoutes returns the routes to try, the likeliest for the backend
// first.
func templateRoutes(backendName string) []templateRoute {
	if backendName == "llamacpp" {
		return []templateRoute{routeLlamaCpp, routeVLLM}
	}
	return []templateRoute{routeVLLM, routeLlamaCpp}
}

// errNoRoute is findRoute's answer for a server with none of the routes;
// tried names them.
type errNoRoute struct{ tried []string }

func (e *errNoRoute) Error() string {
	return "the server offers no route to its template (tried " + strings.Join(e.tried, "; ") + ")"
}

// findRoute finds the route that renders msgs on the server, trying the
// likeliest for the backend first, and returns it with msgs rendered. It
// returns an *errNoRoute where none does, and the error of a route that
// answers an error.
func findRoute(ctx context.Context, srv *server, backendName, model string, msgs []workload.Message, kwargs map[string]any) (templateRoute, string, error) {
	var tried []string
	for _, r := range templateRoutes(backendName) {
		text, err := again(ctx, func() (string, error) { return r.render(ctx, srv, model, msgs, kwargs) })
		if errors.Is(err, errNoTemplateRoute) {
			tried = append(tried, r.name)
			continue
		}
		if err != nil {
			return templateRoute{}, "", err
		}
		return r, text, nil
	}
	return templateRoute{}, "", &errNoRoute{tried}
}

// renderer renders conversations with the server's template through one
// route, with the same kwargs each time, and counts the rendered text; it
// remembers both, so that a prompt rendered to size it (see sonnetSizing)
// is not rendered again to send it. It is safe for concurrent use.
type renderer struct {
	ctx    context.Context // the run's
	srv    *server
	model  string
	route  templateRoute
	kwargs map[string]any
	count  workload.Counter
	// lengths says whose count count is, for the workload line.
	lengths string
	mu      sync.Mutex // guards texts and counts
	texts   map[string]string
	counts  map[string]int
}

// newRenderer returns a renderer whose route rendered msgs as text.
func newRenderer(ctx context.Context, srv *server, model string, route templateRoute, kwargs map[string]any, count workload.Counter, msgs []workload.Message, text string) *renderer {
	return &renderer{ctx: ctx, srv: srv, model: model, route: route, kwargs: kwargs, count: count,
		texts: map[string]string{convKey(msgs): text}, counts: map[string]int{}}
}

// convKey is a conversation's key in a renderer's memory.
func convKey(msgs []workload.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Role)
		b.WriteByte(0)
		b.WriteString(m.Content)
		b.WriteByte(1)
	}
	return b.String()
}

// render returns msgs rendered, and its count; a count that fails gives
// the built-in tokenizer's, which cannot.
func (r *renderer) render(msgs []workload.Message) (string, int, error) {
	key := convKey(msgs)
	r.mu.Lock()
	text, rendered := r.texts[key]
	n, counted := r.counts[key]
	r.mu.Unlock()
	if counted {
		return text, n, nil
	}
	if !rendered {
		var err error
		text, err = again(r.ctx, func() (string, error) { return r.route.render(r.ctx, r.srv, r.model, msgs, r.kwargs) })
		if err != nil {
			return "", 0, err
		}
	}
	n, err := r.count(text)
	if err != nil || n <= 0 {
		n = tokenizer.Count(text)
	}
	r.mu.Lock()
	r.texts[key], r.counts[key] = text, n
	r.mu.Unlock()
	return text, n, nil
}

// retryable reports whether a pre-run request's failure says nothing of
// its body: the server busy, failing for a moment or out of reach.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return busyStatus(se.status)
	}
	return outOfReach(err)
}

// again calls f up to probeTries times, probeRetryWait apart, while it
// fails in a way that says nothing of its request (see retryable), as the
// token-id probe is sent.
func again[T any](ctx context.Context, f func() (T, error)) (T, error) {
	v, err := f()
	for try := 1; try < probeTries && retryable(err) && ctx.Err() == nil; try++ {
		select {
		case <-ctx.Done():
		case <-time.After(probeRetryWait):
		}
		v, err = f()
	}
	return v, err
}

// renderWorkers is how many prompts are rendered and counted at once.
const renderWorkers = 4

// templated is what rendering a run's prompts with the chat template gave.
type templated struct {
	src workload.Source
	// lengths says whose count the rendered prompts' input lengths are,
	// for the workload line; "" where nothing was rendered.
	lengths string
	notes   []string
	warns   []string
	// config is the run configuration's "chat_template": how the prompts
	// were formatted; "" where vLLM would not format them.
	config string
	// kwargs says --chat-template-kwargs went into the rendering, so
	// that a completions request need not carry them.
	kwargs bool
}

// clientTemplate renders src's prompts with the server's own chat
// template where `vllm bench serve` renders them on the client (see
// workload.Config.ChatTemplate), one request per distinct conversation
// before the run (an item's system prompt is a message of its own), and
// counts each rendered prompt as the server will: its /tokenize, else
// --tokenizer, else the built-in tokenizer. --chat-template-kwargs go
// into the rendering where vLLM passes them to it. pre, when not nil, is
// the renderer that sized the prompts (see sonnetSizing), whose renderings
// are used again. A server with no route to its template gets the bare
// prompts and a note that says so; an error answer to a prompt is an error
// naming the URL.
func clientTemplate(ctx context.Context, cfg Config, wl workload.Config, srv *server, a *backend.Adapter, model string, src workload.Source, pre *renderer) (templated, error) {
	t := templated{src: src}
	d := wl.ChatTemplate(a.Name())
	if !d.Apply {
		if d.Why != "" {
			t.notes = append(t.notes, "Chat template: "+d.Why)
			t.config = "none: " + d.Why
		}
		return t, nil
	}
	ds, ok := src.(*workload.Dataset)
	if !ok || ds.Len() == 0 {
		note := fmt.Sprintf("Chat template: not applied: %s, but these prompts are not a dataset's list (--system-prompts?); they were sent bare", d.Why)
		t.notes, t.config = append(t.notes, note), "none: not a dataset's list"
		return t, nil
	}
	var kwargs map[string]any
	if d.Kwargs {
		kwargs = cfg.Request.ChatTemplateKwargs
	}
	var distinct [][]workload.Message
	seen := map[string]bool{}
	for i := range ds.Len() {
		msgs := ds.Item(int64(i)).Messages()
		if k := convKey(msgs); !seen[k] {
			seen[k] = true
			distinct = append(distinct, msgs)
		}
	}
	r := pre
	lengths := ""
	if r == nil {
		route, first, err := findRoute(ctx, srv, a.Name(), model, distinct[0], kwargs)
		var none *errNoRoute
		if errors.As(err, &none) {
			note := fmt.Sprintf("Chat template: not applied: %s, but %v; the prompts were sent bare. "+
				"--backend openai-chat has the server apply its template, --skip-chat-template sends bare prompts on purpose", d.Why, none)
			srv.say("%s", note)
			t.notes, t.config = append(t.notes, note), "none: "+none.Error()
			return t, nil
		}
		if err != nil {
			return t, fmt.Errorf("rendering --dataset-name %s's prompts with the server's chat template: %w", wl.Dataset, err)
		}
		count, l, warns := renderCounter(ctx, cfg, srv, a, model)
		t.warns, lengths = warns, l
		r = newRenderer(ctx, srv, model, route, kwargs, count, distinct[0], first)
	} else {
		lengths = pre.lengths
	}
	if len(distinct) >= fitNotice {
		srv.say("rendering %d prompts with the server's chat template before the run (%s)", len(distinct), r.route.name)
	}
	rendered, counts, err := renderAll(ctx, distinct, r)
	if err != nil {
		if ctx.Err() != nil {
			return t, ctx.Err()
		}
		return t, fmt.Errorf("rendering --dataset-name %s's prompts with the server's chat template: %w", wl.Dataset, err)
	}
	all := ds.WithItems(func(it workload.Item) workload.Item {
		k := convKey(it.Messages())
		it.Prompt, it.InputTokens = rendered[k], counts[k]
		// The rendered text is the one message a chat request sends, as
		// vLLM sends it; ids of the bare text would not be it.
		it.System, it.SystemSep, it.EmptySystem, it.PromptTokenIDs = "", "", false, nil
		return it
	})
	// vLLM checks some datasets' length bounds on the rendered count.
	const outside = "outside vLLM's length bounds once rendered"
	kept := all.Keep(wl.FitsRendered, outside)
	if kept == nil {
		return t, fmt.Errorf("--dataset-name %s: every one of the %d prompts is outside vLLM's length bounds once rendered with the server's chat template and counted by %s, as vLLM's sampler checks them",
			wl.Dataset, all.Len(), lengths)
	}
	t.src = kept
	t.lengths = lengths
	prompts := fmt.Sprintf("%d distinct prompts", len(distinct))
	if len(distinct) == 1 {
		prompts = "1 distinct prompt"
	}
	with := ""
	if kwargs != nil {
		with = " with --chat-template-kwargs"
		t.kwargs = true
	}
	note := fmt.Sprintf("Chat template: %s: rendered with the server's own template (%s)%s, %s, their input lengths %s",
		d.Why, r.route.name, with, prompts, lengths)
	if a.Chat() {
		note += "; the chat endpoint applies its template again over them, as under vLLM"
	}
	t.notes, t.config = append(t.notes, note), "client: "+r.route.name
	if n := kept.Stats().Skipped[outside]; n > 0 {
		t.notes = append(t.notes, fmt.Sprintf("Chat template: %d of %d prompts left out, outside vLLM's length bounds once rendered and counted, as vLLM's sampler leaves them out", n, all.Len()))
	}
	return t, nil
}

// renderCounter finds how to count a rendered prompt as the server will,
// and says whose count it is: the server's /tokenize (with its template
// again for a chat endpoint), else --tokenizer, else the built-in
// tokenizer, with a warning where /tokenize failed.
func renderCounter(ctx context.Context, cfg Config, srv *server, a *backend.Adapter, model string) (workload.Counter, string, []string) {
	c, err := srv.newCounter(ctx, model, a.Name(), a.Chat())
	switch {
	case err == nil:
		return c.Count, c.describe(), nil
	case errors.Is(err, errNoTokenizer) && cfg.Tokenizer != nil:
		return countWith(cfg.Tokenizer), "--tokenizer's (the server has no /tokenize)", nil
	case errors.Is(err, errNoTokenizer):
		return countBuiltIn, builtIn + " (the server has no /tokenize)", nil
	}
	return countBuiltIn, builtIn + " (the server's /tokenize failed: see the warnings)",
		[]string{fmt.Sprintf("rendered prompts not counted by the server's tokenizer, the built-in one counts them: %v", err)}
}

func countBuiltIn(s string) (int, error) { return tokenizer.Count(s), nil }

// renderAll renders and counts every conversation of distinct with r,
// renderWorkers at a time, keyed by convKey. It stops at the first
// rendering error and returns it.
func renderAll(ctx context.Context, distinct [][]workload.Message, r *renderer) (rendered map[string]string, counts map[string]int, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rendered, counts = make(map[string]string, len(distinct)), make(map[string]int, len(distinct))
	var mu sync.Mutex                     // guards rendered, counts and err
	jobs := make(chan []workload.Message) // owned by the loop below, which closes it
	var wg sync.WaitGroup
	for range min(renderWorkers, len(distinct)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for msgs := range jobs {
				text, n, rerr := r.render(msgs)
				mu.Lock()
				if rerr != nil && err == nil {
					err = rerr
					cancel()
				}
				k := convKey(msgs)
				rendered[k], counts[k] = text, n
				mu.Unlock()
			}
		}()
	}
	for _, msgs := range distinct {
		select {
		case jobs <- msgs:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(jobs)
	wg.Wait()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return rendered, counts, err
}
