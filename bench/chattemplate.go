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

// templateRoute is one server family's way of rendering a user message
// with its chat template into the text its completions endpoint takes.
type templateRoute struct {
	name   string // what the notes say was asked
	render func(ctx context.Context, s *server, model, prompt string) (string, error)
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
	// the rendered prompt.
	routeLlamaCpp = templateRoute{"POST /apply-template", renderLlamaCpp}
)

// userMessage is one prompt as the single user message of a chat.
func userMessage(prompt string) []map[string]string {
	return []map[string]string{{"role": "user", "content": prompt}}
}

func renderVLLM(ctx context.Context, s *server, model, prompt string) (string, error) {
	body := map[string]any{"model": model, "messages": userMessage(prompt), "add_generation_prompt": true}
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

func renderLlamaCpp(ctx context.Context, s *server, _, prompt string) (string, error) {
	status, data, err := s.do(ctx, http.MethodPost, "/apply-template", map[string]any{"messages": userMessage(prompt)}, postLimit, 64<<20)
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
}

// clientTemplate renders src's prompts with the server's own chat
// template where `vllm bench serve` renders them on the client (see
// workload.Config.ChatTemplate), one request per distinct prompt before
// the run, and counts each rendered prompt as the server will: its
// /tokenize, else --tokenizer, else the built-in tokenizer. A server with
// no route to its template gets the bare prompts and a note that says so;
// an error answer to a prompt is an error naming the URL.
func clientTemplate(ctx context.Context, cfg Config, wl workload.Config, srv *server, a *backend.Adapter, model string, src workload.Source) (templated, error) {
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
	var distinct []string
	seen := map[string]bool{}
	for i := range ds.Len() {
		if p := ds.Item(int64(i)).Prompt; !seen[p] {
			seen[p] = true
			distinct = append(distinct, p)
		}
	}
	var route templateRoute
	var first string
	var tried []string
	for _, r := range templateRoutes(a.Name()) {
		text, err := again(ctx, func() (string, error) { return r.render(ctx, srv, model, distinct[0]) })
		if errors.Is(err, errNoTemplateRoute) {
			tried = append(tried, r.name)
			continue
		}
		if err != nil {
			return t, fmt.Errorf("rendering --dataset-name %s's prompts with the server's chat template: %w", wl.Dataset, err)
		}
		route, first = r, text
		break
	}
	if route.render == nil {
		note := fmt.Sprintf("Chat template: not applied: %s, but the server offers no route to its template (tried %s); the prompts were sent bare. "+
			"--backend openai-chat has the server apply its template, --skip-chat-template sends bare prompts on purpose",
			d.Why, strings.Join(tried, "; "))
		srv.say("%s", note)
		t.notes, t.config = append(t.notes, note), "none: the server offers no route to its template (tried "+strings.Join(tried, "; ")+")"
		return t, nil
	}
	if len(distinct) >= fitNotice {
		srv.say("rendering %d prompts with the server's chat template before the run (%s)", len(distinct), route.name)
	}
	count, lengths, warns := renderCounter(ctx, cfg, srv, a, model)
	t.warns = warns
	rendered, counts, err := renderAll(ctx, distinct, first, func(p string) (string, error) {
		return again(ctx, func() (string, error) { return route.render(ctx, srv, model, p) })
	}, count)
	if err != nil {
		if ctx.Err() != nil {
			return t, ctx.Err()
		}
		return t, fmt.Errorf("rendering --dataset-name %s's prompts with the server's chat template: %w", wl.Dataset, err)
	}
	t.src = ds.WithItems(func(it workload.Item) workload.Item {
		p := it.Prompt
		it.Prompt, it.InputTokens = rendered[p], counts[p]
		// The rendered text is the one message a chat request sends, as
		// vLLM sends it; ids of the bare text would not be it.
		it.System, it.PromptTokenIDs = "", nil
		return it
	})
	t.lengths = lengths
	prompts := fmt.Sprintf("%d distinct prompts", len(distinct))
	if len(distinct) == 1 {
		prompts = "1 distinct prompt"
	}
	note := fmt.Sprintf("Chat template: %s: rendered with the server's own template (%s), %s, their input lengths %s",
		d.Why, route.name, prompts, lengths)
	if a.Chat() {
		note += "; the chat endpoint applies its template again over them, as under vLLM"
	}
	t.notes, t.config = append(t.notes, note), "client: "+route.name
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

// renderAll renders and counts every prompt of distinct, renderWorkers at
// a time; first is distinct[0] rendered already. It stops at the first
// rendering error and returns it; a count that fails falls back to the
// built-in tokenizer's, which cannot fail.
func renderAll(ctx context.Context, distinct []string, first string, render func(string) (string, error), count workload.Counter) (rendered map[string]string, counts map[string]int, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rendered, counts = make(map[string]string, len(distinct)), make(map[string]int, len(distinct))
	var mu sync.Mutex         // guards rendered, counts and err
	jobs := make(chan string) // owned by the loop below, which closes it
	var wg sync.WaitGroup
	for range min(renderWorkers, len(distinct)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range jobs {
				text, rerr := first, error(nil)
				if p != distinct[0] {
					text, rerr = render(p)
				}
				n := 0
				if rerr == nil {
					var cerr error
					if n, cerr = count(text); cerr != nil || n <= 0 {
						n = tokenizer.Count(text)
					}
				}
				mu.Lock()
				if rerr != nil && err == nil {
					err = rerr
					cancel()
				}
				rendered[p], counts[p] = text, n
				mu.Unlock()
			}
		}()
	}
	for _, p := range distinct {
		select {
		case jobs <- p:
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
