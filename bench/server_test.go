package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/sim"
)

// silentClient returns a client whose every connection reaches a peer that
// reads and never answers: a server that accepts TCP and stalls. It must
// be used inside a synctest bubble, whose clock the waits then run on.
func silentClient(t *testing.T) *http.Client {
	t.Helper()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		c, peer := net.Pipe()
		go io.Copy(io.Discard, peer) // ends when the client closes its end
		return c, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// The readiness wait is bounded as a whole by --ready-check-timeout, and
// its error says how long it waited and that the requests timed out.
func TestWaitReadyIsBoundedByItsTimeout(t *testing.T) {
	tests := []struct {
		name    string
		ready   time.Duration // --ready-check-timeout
		request time.Duration // --request-timeout
		waited  string        // what the error says
	}{
		// Two routes polled until the wait ends: 2 s in all, not a request
		// limit per route.
		{"two seconds", 2 * time.Second, 6 * time.Hour, "not ready after 2s (--ready-check-timeout 2s"},
		// Zero checks once, within one pre-run request limit.
		{"once", 0, 6 * time.Hour, "checked once, for 10s"},
		// A shorter --request-timeout bounds that one check.
		{"once, short request timeout", 0, 500 * time.Millisecond, "checked once, for 500ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(silentClient(t), "http://stalls.example:8000", nil, tt.request)
				start := time.Now()
				err := s.waitReady(t.Context(), tt.ready)
				waited := time.Since(start)
				if err == nil || !strings.Contains(err.Error(), tt.waited) || !strings.Contains(err.Error(), "timed out") {
					t.Errorf("err = %v, want it to say %q and that it timed out", err, tt.waited)
				}
				if limit := max(tt.ready, min(tt.request, getLimit)); waited > limit {
					t.Errorf("waited %v, more than %v", waited, limit)
				}
			})
		})
	}
}

// stallingServer answers /health and /v1/models, and lets every POST hang
// until the client gives up.
func stallingServer(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			w.WriteHeader(http.StatusOK)
		case "/v1/models":
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
		default:
			// With the body read, the server sees the client hang up.
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// The token-id probe and /tokenize obey --request-timeout, and a stall is
// called a timeout, not a refusal of token ids.
func TestPreRunRequestsObeyTheRequestTimeout(t *testing.T) {
	ts := stallingServer(t)
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.RequestTimeout = ts.URL, 200*time.Millisecond
	s := newServer(load.NewClient(load.ClientOptions{Conns: 1}), ts.URL, nil, cfg.RequestTimeout)
	a, _ := backend.Lookup("openai")

	use, note, warning, err := chooseIDs(t.Context(), cfg, s, a, "m", nil)
	if err != nil || use || note != "" ||
		!strings.Contains(warning, "timed out: no answer within 200ms") || !strings.Contains(warning, ts.URL+"/v1/completions") {
		t.Errorf("probe: ids %v, note %q, warning %q, err %v; want a warning that it timed out", use, note, warning, err)
	}
	_, err = s.newCounter(t.Context(), "m", "openai", false)
	var te *timeoutError
	if !errors.As(err, &te) || te.after != 200*time.Millisecond || !strings.Contains(err.Error(), ts.URL+"/tokenize") {
		t.Errorf("tokenize: err = %v, want a timeout after 200ms naming the URL", err)
	}
}

// Hints for the two mistakes every newcomer makes: no API key, and an
// endpoint path inside --base-url.
func TestPreRunHints(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Authorization") == "":
			http.Error(w, `{"error":{"message":"missing api key"}}`, http.StatusUnauthorized)
		case r.URL.Path == "/v1/models":
			io.WriteString(w, `{"data":[{"id":"m"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	client := load.NewClient(load.ClientOptions{Conns: 1})
	auth := http.Header{"Authorization": {"Bearer k"}}
	tests := []struct {
		name    string
		base    string
		headers http.Header
		want    string
	}{
		{"no key", ts.URL, nil, "401 Unauthorized: missing api key (the server wants an API key (OPENAI_API_KEY or --api-key))"},
		{"a path", ts.URL + "/v1/completions", auth,
			"404 Not Found: 404 page not found (--base-url should be the server's root, e.g. http://host:8000; got a path (/v1/completions))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newServer(client, tt.base, tt.headers, 0).firstModel(t.Context())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
	// The token-id probe says the same of a 401.
	cfg := DefaultConfig()
	cfg.BaseURL = ts.URL
	a, _ := backend.Lookup("openai")
	_, _, _, err := chooseIDs(t.Context(), cfg, newServer(client, ts.URL, nil, 0), a, "m", nil)
	if err == nil || !strings.Contains(err.Error(), "every request would") || !strings.Contains(err.Error(), "(the server wants an API key (OPENAI_API_KEY or --api-key))") {
		t.Errorf("probe without a key: %v", err)
	}
	// The root with the key works, and /v1 is a root too.
	for _, base := range []string{ts.URL, ts.URL + "/v1/"} {
		if m, err := newServer(client, base, auth, 0).firstModel(t.Context()); err != nil || m != "m" {
			t.Errorf("%s: model %q, err %v", base, m, err)
		}
	}
}

// tokenizeServer speaks one server family's /tokenize and chat template;
// each prompt word is a token, and its "BOS" adds one where the family's
// completions add one.
func tokenizeServer(t *testing.T, family string) *httptest.Server {
	t.Helper()
	words := func(s string) int { return len(strings.Fields(s)) }
	template := func(msgs []map[string]string) string {
		var b strings.Builder
		for _, m := range msgs {
			fmt.Fprintf(&b, "<start> %s %s <end> ", m["role"], m["content"])
		}
		return b.String() + "<start> assistant"
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt     *string             `json:"prompt"`
			Content    *string             `json:"content"`
			Inputs     *string             `json:"inputs"`
			Messages   []map[string]string `json:"messages"`
			AddSpecial bool                `json:"add_special"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		switch family + " " + r.URL.Path {
		case "vllm /tokenize":
			n := 0
			switch {
			case req.Messages != nil:
				n = words(template(req.Messages))
			case req.Prompt != nil:
				n = words(*req.Prompt)
			default:
				http.Error(w, `{"error":{"message":"prompt or messages required"}}`, http.StatusBadRequest)
				return
			}
			fmt.Fprintf(w, `{"count":%d,"max_model_len":4096,"tokens":[]}`, n)
		case "llamacpp /tokenize":
			// It ignores "prompt" and "messages": an empty list, with 200.
			n := 0
			if req.Content != nil {
				n = words(*req.Content)
				if req.AddSpecial {
					n++
				}
			}
			fmt.Fprintf(w, `{"tokens":[%s]}`, strings.TrimSuffix(strings.Repeat("1,", n), ","))
		case "llamacpp /apply-template":
			json.NewEncoder(w).Encode(map[string]string{"prompt": template(req.Messages)})
		case "tgi /tokenize":
			if req.Inputs == nil {
				http.Error(w, `{"error":"missing field inputs"}`, http.StatusUnprocessableEntity)
				return
			}
			fmt.Fprintf(w, "[%s]", strings.TrimSuffix(strings.Repeat(`{"id":1,"text":"x"},`, words(*req.Inputs)), ","))
		case "nocount /tokenize":
			io.WriteString(w, `{"max_model_len":4096}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestCounterSpeaksEachDialect(t *testing.T) {
	const text = "one two three four five"
	tests := []struct {
		family, backend string
		chat            bool
		want            int    // tokens the server sees for text
		describe        string // whose count
		err             string // instead
	}{
		// vLLM: prompt in, count out.
		{"vllm", "openai", false, 5, "the server's (/tokenize, vLLM dialect)", ""},
		// llama.cpp answers the vLLM body with 200 and no token: its own
		// dialect is found, and counts the BOS its completions add.
		{"llamacpp", "openai", false, 6, "the server's (/tokenize, llama.cpp dialect)", ""},
		{"llamacpp", "llamacpp", false, 6, "the server's (/tokenize, llama.cpp dialect)", ""},
		// TGI answers a list of tokens.
		{"tgi", "openai", false, 5, "the server's (/tokenize, TGI dialect)", ""},
		// Chat: what the server sees is the templated prompt: 5 words, 2
		// of the role and 3 of the template's markers.
		{"vllm", "openai-chat", true, 10, "the server's, chat template included (/tokenize with messages)", ""},
		{"llamacpp", "openai-chat", true, 11, "the server's, chat template included (/apply-template, then /tokenize)", ""},
		// TGI cannot template: the text alone, and the line says so.
		{"tgi", "openai-chat", true, 5, "the server's count of the text alone (/tokenize, TGI dialect): its chat template adds more", ""},
		// No count in any dialect: an error naming the URL.
		{"nocount", "openai", false, 0, "", "/tokenize counts no token of \"hello world\" in the vLLM, llama.cpp, TGI dialects"},
		// No /tokenize at all.
		{"ollama", "openai", false, 0, "", errNoTokenizer.Error()},
	}
	client := load.NewClient(load.ClientOptions{Conns: 1})
	for _, tt := range tests {
		t.Run(tt.family+" "+tt.backend, func(t *testing.T) {
			ts := tokenizeServer(t, tt.family)
			c, err := newServer(client, ts.URL, nil, 0).newCounter(t.Context(), "m", tt.backend, tt.chat)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				if tt.family == "nocount" && (!errors.Is(err, errNoCount) || !strings.Contains(err.Error(), ts.URL)) {
					t.Errorf("err = %v, want errNoCount naming %s", err, ts.URL)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n, err := c.Count(text); n != tt.want || err != nil {
				t.Errorf("Count = %d, %v; want %d", n, err, tt.want)
			}
			if got := c.describe(); got != tt.describe {
				t.Errorf("describe = %q, want %q", got, tt.describe)
			}
		})
	}
}

// A /tokenize that answers 200 without a count does not stop the run: a
// warning names the URL, the built-in tokenizer counts the prompts, and
// the workload line says so. So does one that counts the probe but then
// stops counting while prompts are fitted.
func TestTokenizeWithoutACountFallsBack(t *testing.T) {
	for _, after := range []int{0, 1} { // answers with a count before failing
		t.Run(fmt.Sprintf("after %d", after), func(t *testing.T) {
			url := startSim(t, sim.Options{Seed: 11})
			calls := 0
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/tokenize" {
					if calls++; calls > after {
						io.WriteString(w, `{"max_model_len":4096}`)
						return
					}
					io.WriteString(w, `{"count":2}`)
					return
				}
				proxy(t, w, r, url)
			}))
			defer ts.Close()
			cfg := smallConfig(t, ts.URL)
			cfg.PromptFormat = PromptText
			cfg.Arrival.NumPrompts, cfg.Warmups = 4, 0
			out, err := Run(t.Context(), cfg, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			warnings, notes := strings.Join(out.Warnings, "\n"), strings.Join(out.Notes, "\n")
			if !strings.Contains(warnings, "POST "+ts.URL+"/tokenize") || !strings.Contains(warnings, "without a token count") {
				t.Errorf("warnings %q: want one naming %s/tokenize", warnings, ts.URL)
			}
			if !strings.Contains(notes, "input lengths: the built-in tokenizer's (the server's /tokenize failed") {
				t.Errorf("workload line does not say who counted: %q", notes)
			}
			if out.Result.Counts.Completed != 4 {
				t.Errorf("%+v", out.Result.Counts)
			}
		})
	}
}

// proxy forwards r to the server at base.
func proxy(t *testing.T, w http.ResponseWriter, r *http.Request, base string) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.Path, r.Body)
	if err != nil {
		t.Error(err)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
			w.(http.Flusher).Flush()
		}
		if err != nil {
			return
		}
	}
}

// A llama.cpp server needs no model name, but the summary names it from
// /v1/models, or /props when that is all it has.
func TestModelNameOfALlamaCppServer(t *testing.T) {
	for _, tt := range []struct {
		routes map[string]string
		want   string
	}{
		{map[string]string{"/v1/models": `{"data":[{"id":"tiny.gguf"}]}`, "/props": `{"model_alias":"alias"}`}, "tiny.gguf"},
		{map[string]string{"/props": `{"model_alias":"alias"}`}, "alias"},
		{map[string]string{}, ""},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if body, ok := tt.routes[r.URL.Path]; ok {
				io.WriteString(w, body)
				return
			}
			http.NotFound(w, r)
		}))
		got := newServer(load.NewClient(load.ClientOptions{Conns: 1}), ts.URL, nil, 0).modelName(t.Context(), "llamacpp")
		ts.Close()
		if got != tt.want {
			t.Errorf("routes %v: model %q, want %q", tt.routes, got, tt.want)
		}
	}
}

// Options a protocol cannot express are configuration errors before the
// run, not a failure of every request.
func TestOptionsTheBackendCannotSend(t *testing.T) {
	tests := []struct {
		backend   string
		minTokens int
		ignoreEOS bool
		want      string // "" when valid
	}{
		{"llamacpp", 8, false, "--backend llamacpp cannot send this run's requests: backend llamacpp: min tokens (--min-tokens) is not supported"},
		{"tgi", 0, true, "ignore eos (--ignore-eos) is not supported by tgi"},
		{"ollama", 0, true, "ignore eos (--ignore-eos) is not supported by ollama"},
		{"openai", 8, true, ""},
		{"openai-chat", 8, true, ""},
		{"llamacpp", 0, true, ""},
		{"ollama", 0, false, ""}, // the model comes from the server later
	}
	for _, tt := range tests {
		cfg := DefaultConfig()
		cfg.BaseURL, cfg.Backend = "http://127.0.0.1:1", tt.backend
		cfg.Arrival.NumPrompts = 10
		cfg.Workload.Request.MinTokens, cfg.Workload.Request.IgnoreEOS = tt.minTokens, tt.ignoreEOS
		err := cfg.Validate()
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s min %d ignore-eos %v: err = %v, want %q", tt.backend, tt.minTokens, tt.ignoreEOS, err, tt.want)
		}
	}
}

// A probe whose answer began (a status, a first event) and then stalled is
// not called "no answer": its warning says the answer began and did not
// end.
func TestProbeThatStallsMidAnswer(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`+"\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(ts.Close)
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.RequestTimeout = ts.URL, 200*time.Millisecond
	s := newServer(load.NewClient(load.ClientOptions{Conns: 1}), ts.URL, nil, cfg.RequestTimeout)
	a, _ := backend.Lookup("openai")
	use, _, warning, err := chooseIDs(t.Context(), cfg, s, a, "m", nil)
	if err != nil || use || !strings.Contains(warning, "timed out: the answer (status 200) began but did not end within 200ms") {
		t.Errorf("ids %v, warning %q, err %v; want a warning that the answer began and stalled", use, warning, err)
	}
}

// A token-id probe answered 200 with a stream that does not read is not
// taken for a server that refused token ids: the warning says the stream
// failed, and that the run may fail alike. One refused with 400 is the
// note of text prompts.
func TestProbeTellsABrokenStreamFromARefusal(t *testing.T) {
	for _, tt := range []struct {
		name          string
		status        int
		body          string
		note, warning string
	}{
		{"broken stream", http.StatusOK, "data: {not json\n\n", "", "answered with a stream that could not be read"},
		{"refused ids", http.StatusBadRequest, `{"error":{"message":"prompt must be a string"}}`, "the server did not take a token-id prompt", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer ts.Close()
			cfg := DefaultConfig()
			cfg.BaseURL = ts.URL
			a, _ := backend.Lookup("openai")
			use, note, warning, err := chooseIDs(t.Context(), cfg, newServer(load.NewClient(load.ClientOptions{Conns: 1}), ts.URL, nil, 0), a, "m", nil)
			if err != nil || use || (tt.note == "") != (note == "") || !strings.Contains(note, tt.note) ||
				(tt.warning == "") != (warning == "") || !strings.Contains(warning, tt.warning) {
				t.Errorf("ids %v, note %q, warning %q, err %v", use, note, warning, err)
			}
		})
	}
}

// A pre-run request the server leaves unanswered is said after
// slowNotice, with the limit it is given, and a readiness wait says every
// readyNotice that it is still waiting, with the server's last answer: a
// stalled server does not make a silent client.
func TestStalledPreRunRequestsAreSaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var said strings.Builder
		s := newServer(silentClient(t), "http://stalls.example:8000", nil, 6*time.Hour)
		s.notice = &said
		if _, err := s.firstModel(t.Context()); err == nil {
			t.Fatal("a stalled /v1/models gave a model")
		}
		const want = "goodput: waiting for the server: GET http://stalls.example:8000/v1/models is unanswered after 3s (given up after 10s)\n"
		if said.String() != want {
			t.Errorf("said %q, want %q", said.String(), want)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		var said strings.Builder
		unavailable := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusServiceUnavailable, Status: "503 Service Unavailable",
				Body: io.NopCloser(strings.NewReader(`{"error":"Loading model"}`)), Request: r}, nil
		})}
		s := newServer(unavailable, "http://loading.example:8000", nil, 6*time.Hour)
		s.notice = &said
		if err := s.waitReady(t.Context(), 70*time.Second); err == nil {
			t.Fatal("a server answering 503 was taken as ready")
		}
		lines := strings.Split(strings.TrimSuffix(said.String(), "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("said %q, want three lines (at 3 s, 33 s and 63 s)", said.String())
		}
		for i, at := range []string{"3s", "33s", "1m3s"} {
			want := fmt.Sprintf("goodput: waiting for the server to become ready: %s of --ready-check-timeout 1m10s so far (GET http://loading.example:8000/v1/models: http 503 Service Unavailable: Loading model)", at)
			if !strings.HasPrefix(lines[i], want) {
				t.Errorf("line %d: %q, want it to start %q", i, lines[i], want)
			}
		}
	})
	// A server that accepts and never answers: the wait says how it goes,
	// and its polls, each given up after 10 s, add nothing of their own.
	synctest.Test(t, func(t *testing.T) {
		var said strings.Builder
		s := newServer(silentClient(t), "http://stalls.example:8000", nil, 6*time.Hour)
		s.notice = &said
		if err := s.waitReady(t.Context(), 40*time.Second); err == nil {
			t.Fatal("a stalled server was taken as ready")
		}
		lines := strings.Split(strings.TrimSuffix(said.String(), "\n"), "\n")
		// Two polls of 10 s each a round: said once, between the rounds.
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "goodput: waiting for the server to become ready: 20s of --ready-check-timeout 40s so far (GET http://stalls.example:8000/v1/models: timed out: no answer within 10s)") {
			t.Errorf("said %q", said.String())
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A model the server does not list is worth a warning, since llama.cpp
// answers whatever the name; a listed one, or a list that cannot be had,
// is not.
func TestUnlistedModel(t *testing.T) {
	for _, tt := range []struct {
		name, models, model, want string
	}{
		{"listed", `{"data":[{"id":"a"},{"id":"b"}]}`, "b", ""},
		{"unlisted", `{"data":[{"id":"a"},{"id":"b"}]}`, "c",
			"--model c is not among the models GET %s/v1/models lists (a, b): a server that serves one model whatever the name answers anyway"},
		{"many", `{"data":[{"id":"1"},{"id":"2"},{"id":"3"},{"id":"4"},{"id":"5"},{"id":"6"},{"id":"7"}]}`, "c", "lists (1, 2, 3, 4, 5 and 2 more)"},
		{"empty list", `{"data":[]}`, "c", ""},
		{"no list", "", "c", ""},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tt.models == "" {
				http.NotFound(w, r)
				return
			}
			io.WriteString(w, tt.models)
		}))
		got := newServer(load.NewClient(load.ClientOptions{Conns: 1}), ts.URL, nil, 0).unlistedModel(t.Context(), tt.model, "--model")
		ts.Close()
		want := tt.want
		if strings.Contains(want, "%s") {
			want = fmt.Sprintf(want, ts.URL)
		}
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: warning %q, want %q", tt.name, got, want)
		}
	}
}

// A token-id probe that meets a busy or failing server (503, 429, 502, a
// reset) is sent again, and ids are used once it is taken; one that fails
// every time is a warning that says it tells nothing of token ids, not
// the note of a server that refused them.
func TestProbeRetriesAMomentaryFailure(t *testing.T) {
	for _, tt := range []struct {
		name     string
		failures int // answers before the server takes ids
		status   int
		ids      bool
		warning  string
	}{
		{"503 then taken", 2, http.StatusServiceUnavailable, true, ""},
		{"429 then taken", 1, http.StatusTooManyRequests, true, ""},
		{"always 502", 100, http.StatusBadGateway, false, "the token-id probe failed 3 times (POST "},
		{"reset then taken", 1, 0, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if calls.Add(1) <= int64(tt.failures) {
					if tt.status == 0 {
						conn, _, _ := w.(http.Hijacker).Hijack()
						conn.Close()
						return
					}
					http.Error(w, `{"error":"busy"}`, tt.status)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":"length"}]}`+"\n\ndata: [DONE]\n\n")
			}))
			defer ts.Close()
			cfg := DefaultConfig()
			cfg.BaseURL = ts.URL
			a, _ := backend.Lookup("openai")
			use, note, warning, err := chooseIDs(t.Context(), cfg, newServer(load.NewClient(load.ClientOptions{Conns: 1}), ts.URL, nil, 0), a, "m", nil)
			if err != nil || use != tt.ids || note != "" || (tt.warning == "") != (warning == "") || !strings.Contains(warning, tt.warning) {
				t.Errorf("ids %v, note %q, warning %q, err %v; want ids %v and a warning %q", use, note, warning, err, tt.ids, tt.warning)
			}
			if want := min(int64(tt.failures)+1, probeTries); calls.Load() != want {
				t.Errorf("%d probes, want %d", calls.Load(), want)
			}
		})
	}
}
