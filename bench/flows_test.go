package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/workload"
)

// llmRequest is one request a fake server received.
type llmRequest struct {
	header   http.Header
	messages []session.Message // chat
	prompt   string            // completions
	reply    string
}

// fakeLLM is an OpenAI-compatible server that answers every chat,
// completion or response (/v1/responses, its input as messages) with a
// reply naming how many user messages it saw, and keeps what it was sent.
type fakeLLM struct {
	name string
	mu   sync.Mutex // guards got
	got  []llmRequest
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/health":
		return
	case "/tokenize":
		http.NotFound(w, r) // a server without a tokenizer: texts keep the built-in count
		return
	case "/metrics":
		fmt.Fprint(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} 0\n")
		return
	}
	var body struct {
		Messages []session.Message `json:"messages"`
		Input    []session.Message `json:"input"`
		Prompt   string            `json:"prompt"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	responses := r.URL.Path == "/v1/responses"
	if responses {
		body.Messages = body.Input
	}
	users := strings.Count(body.Prompt, "\n\n")/2 + 1
	if body.Messages != nil {
		users = 0
		for _, m := range body.Messages {
			if m.Role == session.RoleUser {
				users++
			}
		}
	}
	reply := fmt.Sprintf("%s answers message %d", f.name, users)
	f.mu.Lock()
	f.got = append(f.got, llmRequest{header: r.Header.Clone(), messages: body.Messages, prompt: body.Prompt, reply: reply})
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	words := strings.SplitAfter(reply, " ")
	if responses {
		for _, word := range words {
			fmt.Fprintf(w, "event: response.output_text.delta\ndata: {\"delta\":%q,\"type\":\"response.output_text.delta\"}\n\n", word)
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
		fmt.Fprintf(w, "event: response.completed\ndata: {\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":9,\"output_tokens\":%d}},\"type\":\"response.completed\"}\n\n", len(words))
		return
	}
	for i, word := range words {
		if body.Messages != nil {
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":%q}}],"usage":{"prompt_tokens":9,"completion_tokens":%d}}`+"\n\n", word, i+1)
		} else {
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"text":%q}],"usage":{"prompt_tokens":9,"completion_tokens":%d}}`+"\n\n", word, i+1)
		}
		w.(http.Flusher).Flush()
		time.Sleep(time.Millisecond)
	}
	fmt.Fprintf(w, `data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":%d}}`+"\n\ndata: [DONE]\n\n", len(words))
}

func (f *fakeLLM) requests() []llmRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llmRequest(nil), f.got...)
}

func flowConfig(t *testing.T, urls ...string) Config {
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.Model, cfg.Backend = urls[0], "m", "openai-chat"
	if len(urls) > 1 {
		cfg.BaseURLs = urls
	}
	cfg.NoServerMetrics = true
	cfg.Arrival.NumPrompts = 4
	cfg.Arrival.MaxConcurrency = 2
	cfg.Workload.Random = workload.RandomConfig{InputLen: 12, OutputLen: 8}
	cfg.Sessions.MultiTurn = true
	cfg.Sessions.Turns = session.Span{Lo: 3, Hi: 3}
	cfg.Sessions.Think = session.Think{Kind: session.ThinkFixed, Mean: 30 * time.Millisecond}
	cfg.ResultDir, cfg.RunName = t.TempDir(), "run"
	return cfg
}

// TestSessionTurnsSendTheirHistory: over HTTP, turn k of a session sends
// exactly the earlier messages with the replies the server gave, then its
// own message; carries its session id in x-session-id; and is scheduled
// when the previous turn ended plus the think time.
func TestSessionTurnsSendTheirHistory(t *testing.T) {
	for _, backend := range []string{"openai-chat", "openai-responses", "openai"} {
		t.Run(backend, func(t *testing.T) {
			llm := &fakeLLM{name: "A"}
			srv := httptest.NewServer(llm)
			defer srv.Close()
			cfg := flowConfig(t, srv.URL)
			cfg.Backend = backend
			out, err := Run(t.Context(), cfg, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			src, err := session.New(cfg.Workload, cfg.Sessions)
			if err != nil {
				t.Fatal(err)
			}
			got := llm.requests()
			if len(got) != 12 {
				t.Fatalf("the server saw %d requests, want 4 sessions × 3 turns", len(got))
			}
			// What each session's turns must have sent, replies included.
			want := map[string]bool{}
			for f := range int64(4) {
				fl := src.Flow(f)
				var conv session.Conversation
				for k, c := range fl.Calls {
					conv = append(conv, session.Message{Role: session.RoleUser, Content: c.Text})
					key := fl.ID + "|" + render(conv, backend)
					want[key] = true
					conv = append(conv, session.Message{Role: session.RoleAssistant, Content: fmt.Sprintf("A answers message %d", k+1)})
				}
			}
			for _, g := range got {
				sent := session.Conversation(g.messages)
				key := g.header.Get("X-Session-Id") + "|" + render(sent, backend)
				if backend == "openai" {
					key = g.header.Get("X-Session-Id") + "|" + g.prompt
				}
				if !want[key] {
					t.Errorf("a request of session %q sent %q, which no turn should", g.header.Get("X-Session-Id"), render(sent, backend)+g.prompt)
				}
				delete(want, key)
			}
			if len(want) != 0 {
				t.Errorf("%d turns never sent what they should", len(want))
			}
			recs, _, _ := readRecords(t, out.RecordsPath)
			checkThinkTimes(t, recs, 30*time.Millisecond)
			if s := out.Result.Sessions; s == nil || s.Count != 4 || s.Requests != 12 || len(s.TTFTByTurn) != 3 {
				t.Errorf("sessions summary %+v", s)
			}
		})
	}
}

// render writes a conversation as the backend sends it.
func render(c session.Conversation, backend string) string {
	if backend == "openai" {
		return c.Text()
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// checkThinkTimes: every turn after the first is scheduled exactly when the
// previous turn of its session ended plus think, and records say which.
func checkThinkTimes(t *testing.T, recs []record.Record, think time.Duration) {
	t.Helper()
	bySession := map[string][]record.Record{}
	for _, r := range recs {
		if r.Session == "" || r.Turn < 1 || !r.OK() {
			t.Errorf("record %d: session %q turn %d error %s %s", r.Seq, r.Session, r.Turn, r.Error, r.Msg)
		}
		bySession[r.Session] = append(bySession[r.Session], r)
	}
	for id, rs := range bySession {
		sort.Slice(rs, func(a, b int) bool { return rs[a].Turn < rs[b].Turn })
		for k := 1; k < len(rs); k++ {
			if rs[k].Turn != k+1 {
				t.Errorf("session %s: turns %d then %d", id, rs[k-1].Turn, rs[k].Turn)
			}
			if due := rs[k-1].End + int64(think); rs[k].Scheduled != due {
				t.Errorf("session %s turn %d: scheduled %d ns, want the previous end %d + think %v = %d",
					id, rs[k].Turn, rs[k].Scheduled, rs[k-1].End, think, due)
			}
			if rs[k].Sent < rs[k].Scheduled {
				t.Errorf("session %s turn %d sent before it was due", id, rs[k].Turn)
			}
		}
	}
}

// TestAgentTasksOverHTTP: a fan-out's calls both continue or restart as
// the task says, the join gets both replies, and records name task and call.
func TestAgentTasksOverHTTP(t *testing.T) {
	llm := &fakeLLM{name: "B"}
	srv := httptest.NewServer(llm)
	defer srv.Close()
	cfg := flowConfig(t, srv.URL)
	cfg.Sessions.MultiTurn = false
	cfg.Workload.Dataset, cfg.Workload.Path, cfg.Workload.NoShuffle = session.DatasetAgent, "../session/testdata/tasks.jsonl", true
	cfg.Arrival.NumPrompts = 1 // t1: plan, read-a (fresh), read-b, answer
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	calls := map[string]record.Record{}
	for _, r := range recs {
		if r.Task != "t1" || r.Session != "" || r.Turn != 0 {
			t.Errorf("record %+v does not place itself in task t1", r)
		}
		calls[r.Call] = r
	}
	if len(calls) != 4 {
		t.Fatalf("calls %v", calls)
	}
	// read-a and read-b wait for plan plus its 1.2 s tool time, the join
	// for read-a (no tool) and read-b plus 300 ms.
	plan, a, b, join := calls["plan"], calls["read-a"], calls["read-b"], calls["answer"]
	if a.Scheduled != plan.End+int64(1200*time.Millisecond) || b.Scheduled != a.Scheduled {
		t.Errorf("fan-out scheduled at %d and %d, want plan's end %d + 1.2 s", a.Scheduled, b.Scheduled, plan.End)
	}
	if due := max(a.End, b.End+int64(300*time.Millisecond)); join.Scheduled != due {
		t.Errorf("join scheduled at %d, want %d", join.Scheduled, due)
	}
	src, err := session.New(cfg.Workload, cfg.Sessions)
	if err != nil {
		t.Fatal(err)
	}
	fl := src.Flow(0)
	text := func(id string) string {
		for _, c := range fl.Calls {
			if c.ID == id {
				return c.Text
			}
		}
		return ""
	}
	// The join continues read-a's conversation (read-a was fresh: the
	// system prompt and its own message, then its reply) and hands
	// read-b's reply (read-b continued plan's: two user messages) over
	// with its own message.
	want := []session.Message{
		{Role: "system", Content: "You are a research agent."},
		{Role: "user", Content: text("read-a")},
		{Role: "assistant", Content: "B answers message 1"},
		{Role: "user", Content: "[read-b]\nB answers message 2\n\n" + text("answer")},
	}
	found := false
	for _, g := range llm.requests() {
		if g.header.Get("X-Session-Id") != "t1" {
			t.Errorf("a call carried session header %q", g.header.Get("X-Session-Id"))
		}
		if n := len(g.messages); n > 0 && strings.HasPrefix(g.messages[n-1].Content, "[read-b]") {
			found = true
			if !reflect.DeepEqual(g.messages, want) {
				t.Errorf("the join sent\n%q\nwant\n%q", g.messages, want)
			}
		}
	}
	if !found {
		t.Error("no request was the join")
	}
	if tk := out.Result.Tasks; tk == nil || tk.Count != 1 || tk.Requests != 4 || tk.Completion.Max <= 1.5 {
		t.Errorf("tasks summary %+v", tk)
	}
}

// TestSeveralEndpointsBreakDown: over two servers, every record names its
// endpoint, the summary splits per endpoint exactly as the servers saw the
// requests, sessions stay on one endpoint, and each server's /metrics is
// scraped.
func TestSeveralEndpointsBreakDown(t *testing.T) {
	llms := []*fakeLLM{{name: "A"}, {name: "B"}}
	var urls []string
	for _, l := range llms {
		srv := httptest.NewServer(l)
		defer srv.Close()
		urls = append(urls, srv.URL)
	}
	for _, policy := range []load.Balance{load.BalanceRoundRobin, load.BalanceSession} {
		t.Run(string(policy), func(t *testing.T) {
			for _, l := range llms {
				l.mu.Lock()
				l.got = nil
				l.mu.Unlock()
			}
			cfg := flowConfig(t, urls...)
			cfg.NoServerMetrics = false
			cfg.ScrapeInterval = 50 * time.Millisecond
			cfg.Balance = policy
			cfg.Arrival.NumPrompts = 6
			cfg.SaveResult = true
			out, err := Run(t.Context(), cfg, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			res := out.Result
			// Round robin uses both; affinity hashes the six sessions'
			// ids, and the ports are random, so it may (rarely) put all on
			// one: the summary lists the endpoints that served.
			busy := 0
			for _, l := range llms {
				if len(l.requests()) > 0 {
					busy++
				}
			}
			if len(res.Endpoints) != busy || (policy == load.BalanceRoundRobin && busy != 2) {
				t.Fatalf("%d servers served, the summary lists %+v", busy, res.Endpoints)
			}
			var total int64
			for _, e := range res.Endpoints {
				i := slices.Index(urls, e.Endpoint)
				if i < 0 {
					t.Fatalf("the summary names endpoint %q", e.Endpoint)
				}
				n := int64(len(llms[i].requests()))
				if e.Result.Counts.Total != n {
					t.Errorf("endpoint %s: %d requests in the summary, the server saw %d", e.Endpoint, e.Result.Counts.Total, n)
				}
				total += e.Result.Counts.Total
			}
			if total != res.Counts.Total || total != 18 {
				t.Errorf("endpoints add up to %d of %d requests, want 18", total, res.Counts.Total)
			}
			recs, _, _ := readRecords(t, out.RecordsPath)
			where := map[string]string{}
			for _, r := range recs {
				if r.Endpoint != urls[0] && r.Endpoint != urls[1] {
					t.Fatalf("record %d names endpoint %q", r.Seq, r.Endpoint)
				}
				if prev, ok := where[r.Session]; ok && prev != r.Endpoint && policy == load.BalanceSession {
					t.Errorf("session %s moved from %s to %s", r.Session, prev, r.Endpoint)
				}
				where[r.Session] = r.Endpoint
			}
			// A session's replies came from the endpoint it was on: with
			// affinity every turn after the first saw its own server's
			// earlier replies.
			if policy == load.BalanceSession {
				for i, l := range llms {
					other := llms[1-i].name + " answers"
					for _, g := range l.requests() {
						for _, m := range g.messages {
							if strings.HasPrefix(m.Content, other) {
								t.Errorf("%s received a reply of %s in its history", l.name, llms[1-i].name)
							}
						}
					}
				}
			}
			if len(out.Servers) != 2 || out.Servers[0].Endpoint != urls[0] || out.Servers[1].Path == "" {
				t.Fatalf("servers %+v", out.Servers)
			}
			for _, s := range out.Servers {
				if s.Series == nil || len(s.Series.Samples) == 0 {
					t.Errorf("%s: no scrape", s.Endpoint)
				}
				if _, err := os.Stat(s.Path); err != nil {
					t.Error(err)
				}
			}
			var sum SummaryFile
			b, err := os.ReadFile(out.SummaryPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			// Both servers are scraped; only those that served are
			// endpoints of the result (see above).
			if len(sum.Servers) != 2 || len(sum.Result.Endpoints) != len(res.Endpoints) || filepath.Dir(sum.Servers[1].Path) != cfg.ResultDir {
				t.Errorf("summary file: servers %+v, endpoints %d, want %d", sum.Servers, len(sum.Result.Endpoints), len(res.Endpoints))
			}
			if !reflect.DeepEqual(sum.Result.Endpoints[0].Result.Counts, res.Endpoints[0].Result.Counts) {
				t.Errorf("summary file's endpoint counts %+v, run's %+v", sum.Result.Endpoints[0].Result.Counts, res.Endpoints[0].Result.Counts)
			}
		})
	}
}

func TestConfigRefusesBadEndpoints(t *testing.T) {
	tests := []struct {
		name string
		edit func(c *Config)
		want string
	}{
		{"relative", func(c *Config) { c.BaseURLs = []string{c.BaseURL, "localhost:9"} }, `"localhost:9"`},
		{"twice", func(c *Config) { c.BaseURLs = []string{c.BaseURL, c.BaseURL} }, "given twice"},
		{"balance alone", func(c *Config) { c.Balance = load.BalanceSession }, "give --base-url more than once"},
		{"bad balance", func(c *Config) { c.BaseURLs, c.Balance = []string{c.BaseURL, "http://b"}, "fastest" }, "--balance"},
		{"one metrics url", func(c *Config) { c.BaseURLs, c.MetricsURL = []string{c.BaseURL, "http://b"}, "http://m/metrics" }, "--metrics-url"},
		{"first not base", func(c *Config) { c.BaseURLs = []string{"http://b", "http://c"} }, "the first of the endpoints"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			c.BaseURL = "http://a"
			c.Arrival.NumPrompts = 1
			tt.edit(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestSimulatorCachesSessionHistory: over HTTP, with text prompts, the
// simulator's prefix cache serves what each later turn repeats of its
// session's history, for chat messages and for one text prompt alike.
func TestSimulatorCachesSessionHistory(t *testing.T) {
	for _, backend := range []string{"openai-chat", "openai-responses", "openai"} {
		t.Run(backend, func(t *testing.T) {
			url := startSim(t, sim.Options{Seed: 4})
			cfg := flowConfig(t, url)
			cfg.Backend, cfg.Model = backend, ""
			cfg.Workload.Random = workload.RandomConfig{InputLen: 200, OutputLen: 8}
			cfg.Workload.Request.IgnoreEOS = true
			cfg.Arrival.NumPrompts = 2
			out, err := Run(t.Context(), cfg, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if out.Result.Counts.Completed != 6 {
				t.Fatalf("counts %+v", out.Result.Counts)
			}
			hits := scrapeCounter(t, url, "vllm:prefix_cache_hits_total")
			// In both sessions turn 2 repeats turn 1's prompt, at least
			// 200 tokens (12 full 16-token blocks), and turn 3 repeats
			// turn 2's, at least 200 + 8 + 200 (25 blocks; 24 leave room
			// for where the text's tokens fall).
			if want := 2.0 * (12 + 24) * 16; hits < want {
				t.Errorf("prefix cache hits %v tokens, want at least %v", hits, want)
			}
		})
	}
}

// scrapeCounter returns the value of a counter on the server's /metrics.
func scrapeCounter(t *testing.T, base, name string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") {
			var v float64
			if _, err := fmt.Sscanf(line[strings.LastIndexByte(line, ' ')+1:], "%g", &v); err == nil {
				return v
			}
		}
	}
	t.Fatalf("%s not on %s/metrics", name, base)
	return 0
}

// --no-oversample and --num-prompts -1 size a run of agent tasks or
// sessions read from a file as they size one of requests: at most, or
// exactly, the file's flows, none sent twice.
func TestFlowsFitTheirDataset(t *testing.T) {
	cfg := flowConfig(t, "http://127.0.0.1:9")
	cfg.Sessions.MultiTurn = false
	cfg.Workload.Dataset, cfg.Workload.Path = session.DatasetAgent, "../session/testdata/tasks.jsonl"
	src, err := session.New(cfg.Workload, cfg.Sessions)
	if err != nil {
		t.Fatal(err)
	}
	n := src.Len()
	for _, tt := range []struct {
		name string
		set  func(*Config)
		want int
	}{
		{"no oversampling", func(c *Config) { c.NoOversample, c.Arrival.NumPrompts = true, n+5 }, n},
		{"fewer than the file", func(c *Config) { c.NoOversample, c.Arrival.NumPrompts = true, 1 }, 1},
		{"every entry", func(c *Config) { c.AllEntries, c.Arrival.NumPrompts = true, 0 }, n},
		{"oversampling", func(c *Config) { c.Arrival.NumPrompts = n + 5 }, n + 5},
	} {
		c := cfg
		tt.set(&c)
		if err := FitToDataset(&c); err != nil || c.Arrival.NumPrompts != tt.want {
			t.Errorf("%s: %d tasks, %v; want %d of the file's %d", tt.name, c.Arrival.NumPrompts, err, tt.want, n)
		}
	}
}
