package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
)

// server talks to the target outside the measured requests: readiness, the
// model list, the token-id probe and the tokenizer. Every such request
// obeys the user's --request-timeout, and at most a pre-run limit of its
// own (getLimit, postLimit), so that a server that stalls costs seconds
// before the run, not hours.
type server struct {
	client  *http.Client
	base    string // base URL without a trailing slash or /v1
	path    string // the path the user's --base-url carried, "" when none
	headers http.Header
	timeout time.Duration // --request-timeout; 0 means none
	// notice, when set, is told of a pre-run request that has gone
	// unanswered for slowNotice, and of a readiness wait as it goes on,
	// so that a stalled server is not a silent client.
	notice io.Writer
	// mu serialises writes to notice and guards software, for the
	// /tokenize calls that fit prompts several at a time.
	mu sync.Mutex
	// software is the Server header of the first answer that had one
	// ("llama.cpp"), "" before any.
	software string
}

// Pre-run limits: a request outside the run that takes longer than this
// (or than --request-timeout, when shorter) has timed out.
const (
	getLimit  = 10 * time.Second // readiness, model lists
	postLimit = 30 * time.Second // the token-id probe, /tokenize
)

// slowNotice is how long a pre-run request goes unanswered before the
// notice writer is told, and readyNotice how often a readiness wait says
// it is still waiting.
const (
	slowNotice  = 3 * time.Second
	readyNotice = 30 * time.Second
)

// say writes one line to the notice writer, if any.
func (s *server) say(format string, args ...any) {
	if s.notice == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.notice, "goodput: "+format+"\n", args...)
}

// slow tells the notice writer when the pre-run request what has gone
// unanswered for slowNotice, of its limit lim; the caller calls the
// function it returns once the request ended.
func (s *server) slow(what string, lim time.Duration) (done func()) {
	if s.notice == nil || lim <= slowNotice {
		return func() {}
	}
	t := time.AfterFunc(slowNotice, func() {
		s.say("waiting for the server: %s is unanswered after %v (given up after %v)", what, slowNotice, lim.Round(time.Millisecond))
	})
	return func() { t.Stop() }
}

func newServer(client *http.Client, baseURL string, headers http.Header, timeout time.Duration) *server {
	base := strings.TrimRight(baseURL, "/")
	base = strings.TrimSuffix(base, "/v1")
	s := &server{client: client, base: base, headers: headers, timeout: timeout}
	if u, err := url.Parse(base); err == nil && u.Path != "" {
		s.path = u.Path
	}
	return s
}

// limit returns the time a pre-run request may take: lim, or the user's
// --request-timeout when that is shorter.
func (s *server) limit(lim time.Duration) time.Duration {
	if s.timeout > 0 && s.timeout < lim {
		return s.timeout
	}
	return lim
}

// timeoutError is a pre-run request that got no (complete) answer in time.
type timeoutError struct {
	what  string // "GET http://…/health"
	after time.Duration
	// status is the answer's HTTP status when it began but did not end
	// in time (a stream that stalled); 0 when nothing came back.
	status int
}

func (e *timeoutError) Error() string {
	if e.status != 0 {
		return fmt.Sprintf("%s: timed out: the answer (status %d) began but did not end within %v", e.what, e.status, e.after.Round(time.Millisecond))
	}
	return fmt.Sprintf("%s: timed out: no answer within %v", e.what, e.after.Round(time.Millisecond))
}

// statusError is a pre-run request that got an HTTP error status.
type statusError struct {
	what   string
	status int
	msg    string // the status line and the server's message
	hint   string
}

func (e *statusError) Error() string {
	s := e.what + ": " + e.msg
	if e.hint != "" {
		s += " (" + e.hint + ")"
	}
	return s
}

// hintFor says what a status most likely means for the whole run, or "":
// a 401 or 403 wants an API key, or another one than was sent; a 404 on a base URL with a path means the
// path belongs in --endpoint.
func (s *server) hintFor(status int) string {
	switch {
	case (status == http.StatusUnauthorized || status == http.StatusForbidden) && s.headers.Get("Authorization") != "":
		return "the server refused the API key sent: check OPENAI_API_KEY, --api-key or the Authorization --header"
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "the server wants an API key (OPENAI_API_KEY or --api-key)"
	case status == http.StatusNotFound && s.path != "":
		return fmt.Sprintf("--base-url should be the server's root, e.g. http://host:8000; got a path (%s)", s.path)
	}
	return ""
}

// do sends one pre-run request, bounded by s.limit(lim) and by ctx, and
// returns its status and up to max bytes of its body. A deadline is
// reported as a timeoutError, a transport failure with the URL.
func (s *server) do(ctx context.Context, method, path string, body any, lim time.Duration, max int64) (int, []byte, error) {
	return s.send(ctx, method, path, body, lim, max, true)
}

// send is do, which tells the notice writer of a stall only when told to:
// a readiness wait that says how it goes speaks for its polls.
func (s *server) send(ctx context.Context, method, path string, body any, lim time.Duration, max int64, tell bool) (int, []byte, error) {
	lim = s.limit(lim)
	cctx, cancel := context.WithTimeout(ctx, lim)
	defer cancel()
	what := method + " " + s.base + path
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", what, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(cctx, method, s.base+path, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", what, err)
	}
	for k, v := range s.headers {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tell {
		done := s.slow(what, lim)
		defer done()
	}
	resp, err := s.client.Do(req)
	if err == nil {
		s.mu.Lock()
		if s.software == "" {
			s.software = resp.Header.Get("Server")
		}
		s.mu.Unlock()
		var data []byte
		data, err = io.ReadAll(io.LimitReader(resp.Body, max))
		resp.Body.Close()
		if err == nil {
			return resp.StatusCode, data, nil
		}
	}
	return 0, nil, s.transportError(ctx, what, lim, err)
}

// transportError words a failed pre-run request: a timeout as a timeout,
// and the run's own interruption as such.
func (s *server) transportError(ctx context.Context, what string, lim time.Duration, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", what, ctx.Err())
	case backend.ClassifyError(err) == record.ErrTimeout:
		return &timeoutError{what: what, after: lim}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// checkStatus turns a non-2xx answer into a statusError.
func (s *server) checkStatus(what string, status int, body []byte) error {
	if status/100 == 2 {
		return nil
	}
	resp := &http.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Body: io.NopCloser(bytes.NewReader(body))}
	_, msg := backend.CheckStatus(resp)
	return &statusError{what: what, status: status, msg: msg, hint: s.hintFor(status)}
}

// errNoReadyRoute says the server answered, but has neither /health nor
// /v1/models: it is up, and nothing tells more about its readiness.
var errNoReadyRoute = errors.New("no readiness route")

// waitReady polls /health, then /v1/models, until one answers 2xx or the
// wait passes timeout; a zero timeout checks once, within the pre-run
// limit of one request. The wait is bounded as a whole, so a server that
// accepts connections and never answers costs timeout, not a request
// limit per route. A server that answers both with 404 or 405 is up but
// has neither route (a gateway that forwards only the generation
// endpoint): waitReady then returns errNoReadyRoute at once, which
// callers may take as ready. An error says how long it really waited.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	start := time.Now()
	budget := timeout
	if budget <= 0 {
		budget = s.limit(getLimit)
	}
	deadline := start.Add(budget)
	var last error
	told := time.Duration(0) // how far into the wait it was last said
	for {
		absent := 0
		for _, path := range []string{"/health", "/v1/models"} {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			status, body, err := s.send(ctx, http.MethodGet, path, nil, min(left, getLimit), 64<<10, timeout <= 0)
			if err != nil {
				last = err
				continue
			}
			if status/100 == 2 {
				return nil
			}
			if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
				absent++
			}
			last = s.checkStatus("GET "+s.base+path, status, body)
		}
		if absent == 2 {
			return errNoReadyRoute
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		pause := min(500*time.Millisecond, time.Until(deadline))
		if timeout <= 0 || pause <= 0 {
			break
		}
		if w := time.Since(start); (told == 0 && w >= slowNotice) || (told > 0 && w-told >= readyNotice) {
			told = w
			s.say("waiting for the server to become ready: %v of --ready-check-timeout %v so far (%v)", w.Round(time.Second), timeout, last)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
	waited := time.Since(start).Round(10 * time.Millisecond)
	if timeout <= 0 {
		return fmt.Errorf("server %s is not ready (checked once, for %v; give --ready-check-timeout to wait for it): %w", s.base, waited, last)
	}
	return fmt.Errorf("server %s is not ready after %v (--ready-check-timeout %v; raise it to wait longer): %w", s.base, waited, timeout, last)
}

// firstModel returns the first model id of /v1/models, the name requests
// carry.
func (s *server) firstModel(ctx context.Context) (string, error) {
	m, err := s.firstListed(ctx)
	return m.ID, err
}

// listedModel is a model of /v1/models: its id, the name requests give,
// and its root, the weights it serves (vLLM's: the path or Hugging Face
// id --served-model-name renamed), "" where the server does not say.
type listedModel struct{ ID, Root string }

// firstListed returns the first model of /v1/models.
func (s *server) firstListed(ctx context.Context) (listedModel, error) {
	ms, err := s.listed(ctx)
	switch {
	case err != nil:
		return listedModel{}, fmt.Errorf("%w (or give --model)", err)
	case len(ms) == 0 || ms[0].ID == "":
		return listedModel{}, fmt.Errorf("GET %s/v1/models lists no model (give --model)", s.base)
	}
	return ms[0], nil
}

// models returns the model ids of /v1/models.
func (s *server) models(ctx context.Context) ([]string, error) {
	ms, err := s.listed(ctx)
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	return ids, err
}

// listed returns the models of /v1/models.
func (s *server) listed(ctx context.Context) ([]listedModel, error) {
	what := "GET " + s.base + "/v1/models"
	status, body, err := s.do(ctx, http.MethodGet, "/v1/models", nil, getLimit, 8<<20)
	if err != nil {
		return nil, fmt.Errorf("ask for a model: %w", err)
	}
	if err := s.checkStatus(what, status, body); err != nil {
		return nil, err
	}
	var list struct {
		Data []listedModel `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return list.Data, nil
}

// unlistedModel warns when the server's /v1/models lists models and the
// model the requests name is not among them: a server that serves one
// model whatever the name (llama.cpp) answers anyway, and the run would
// carry a name the server does not serve without a word. It says nothing
// when the list cannot be had.
func (s *server) unlistedModel(ctx context.Context, model, flag string) string {
	ids, err := s.models(ctx)
	if err != nil || len(ids) == 0 || slices.Contains(ids, model) {
		return ""
	}
	const most = 5
	listed := strings.Join(ids[:min(len(ids), most)], ", ")
	if len(ids) > most {
		listed += fmt.Sprintf(" and %d more", len(ids)-most)
	}
	return fmt.Sprintf("%s %s is not among the models GET %s/v1/models lists (%s): a server that serves one model whatever the name answers anyway, "+
		"and the run is labelled with a name the server does not serve; a server that checks the name refuses every request", flag, model, s.base, listed)
}

// modelName asks a server whose protocol needs no model name for the one
// it serves, to say which it was: llama.cpp's /v1/models, else its /props
// model_alias; TGI's /info model_id. It returns "" when the server does
// not say; the run does not need it.
func (s *server) modelName(ctx context.Context, backendName string) string {
	switch backendName {
	case "llamacpp":
		if m, err := s.firstModel(ctx); err == nil {
			return m
		}
		var props struct {
			Alias string `json:"model_alias"`
		}
		if s.getJSON(ctx, "/props", &props) {
			return props.Alias
		}
	case "tgi":
		var info struct {
			ID string `json:"model_id"`
		}
		if s.getJSON(ctx, "/info", &info) {
			return info.ID
		}
	}
	return ""
}

// getJSON reads a small JSON document from path into v, reporting whether
// it could.
func (s *server) getJSON(ctx context.Context, path string, v any) bool {
	status, body, err := s.do(ctx, http.MethodGet, path, nil, getLimit, 1<<20)
	return err == nil && status/100 == 2 && json.Unmarshal(body, v) == nil
}

// idleHoldsWorker reports whether the server gives every open connection
// a worker of a fixed pool, which holds it while it is idle: llama.cpp's
// server (and the servers built on it that keep its name), whose HTTP
// threads each serve one connection until it closes or its keep-alive
// runs out.
func (s *server) idleHoldsWorker() bool {
	return strings.Contains(strings.ToLower(s.software), "llama.cpp")
}
