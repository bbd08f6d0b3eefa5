package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// bodies records the prompt of every generation request a handler
// received, keyed by its x-request-id.
type bodies struct {
	mu      sync.Mutex // guards prompts and raw
	prompts map[string]string
	raw     []string // whole completions bodies, where a handler keeps them
}

// wrap records the prompt (or the first message's content) of each
// completions and chat request before next serves it.
func (b *bodies) wrap(next http.Handler) http.Handler {
	b.prompts = map[string]string{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			data, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(data))
			var req struct {
				Prompt   string `json:"prompt"`
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
			}
			_ = json.Unmarshal(data, &req)
			p := req.Prompt
			if len(req.Messages) > 0 {
				p = req.Messages[0].Content
			}
			b.mu.Lock()
			b.prompts[r.Header.Get("X-Request-Id")] = p
			b.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// templateConfig is a small run of dataset at url with backend.
func templateConfig(t *testing.T, url, backendName, dataset, path string) Config {
	t.Helper()
	cfg := DefaultConfig()
	cfg.BaseURL, cfg.Backend = url, backendName
	cfg.Arrival.NumPrompts, cfg.Arrival.MaxConcurrency = 4, 2
	cfg.Workload.Dataset, cfg.Workload.Path = dataset, path
	cfg.Workload.Sonnet = workload.SonnetConfig{InputLen: 120, PrefixLen: 40, OutputLen: 4}
	cfg.Workload.Custom.OutputLen = 4
	cfg.Workload.Request.MaxTokens = 4
	cfg.Warmups = 0
	cfg.NoServerMetrics = true
	cfg.ResultDir, cfg.RunName = t.TempDir(), "run"
	cfg.Request.RequestIDPrefix = "t-" // each request's x-request-id keys its prompt
	if backendName == "openai-chat" {
		cfg.Endpoint = "/v1/chat/completions"
	}
	return cfg
}

// configValue returns the run configuration's value of key in the record
// header of out's records.
func configValue(t *testing.T, out *Outcome, key string) string {
	t.Helper()
	_, h, _ := readRecords(t, out.RecordsPath)
	var c map[string]any
	if err := json.Unmarshal(h.Config, &c); err != nil {
		t.Fatal(err)
	}
	s, _ := c[key].(string)
	return s
}

// Against the simulator, whose /tokenize renders messages with its chat
// template ("<|user|>\n…\n<|assistant|>\n") and whose /detokenize gives
// the text back: sonnet on a completions backend sends the rendered text,
// counted as the simulator counts it; openai-chat sends the bare prompt,
// which the server templates; custom with --skip-chat-template sends the
// file's prompt as it is.
func TestClientChatTemplateOnTheSimulator(t *testing.T) {
	s, _ := simtest.Serve(t, sim.Options{Seed: 1})
	var got bodies
	ts := httptest.NewServer(got.wrap(s))
	t.Cleanup(ts.Close)
	sonnet := filepath.Join("..", "workload", "testdata", "sonnet_small.txt")

	t.Run("sonnet completions", func(t *testing.T) {
		cfg := templateConfig(t, ts.URL, "openai", workload.DatasetSonnet, sonnet)
		// No usage: the records' input lengths are goodput's own count.
		cfg.Usage = backend.UsageNone
		out, err := Run(t.Context(), cfg, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, _ := readRecords(t, out.RecordsPath)
		if len(recs) != 4 || out.Result.Counts.Failed != 0 {
			t.Fatalf("%d records, %+v", len(recs), out.Result.Counts)
		}
		for _, r := range recs {
			p := got.prompts[r.RequestID]
			if !strings.HasPrefix(p, "<|user|>\nPick as many lines as you can from these poem lines:\n") || !strings.HasSuffix(p, "\n<|assistant|>\n") {
				t.Fatalf("%s: the server got %q, want the sonnet prompt in the simulator's template", r.RequestID, p)
			}
			// The simulator counts a text prompt with the built-in
			// tokenizer, so its count is this one.
			if want := tokenizer.Count(p); r.InputTokens != want {
				t.Errorf("%s: recorded %d input tokens, the server counts %d", r.RequestID, r.InputTokens, want)
			}
		}
		if c := configValue(t, out, "chat_template"); c != "client: POST /tokenize with messages, then /detokenize" {
			t.Errorf("chat_template = %q", c)
		}
		if !hasNote(out.Notes, "Chat template: vllm bench serve renders the sonnet prompts with the model's chat template on the client for backend openai: rendered with the server's own template") {
			t.Errorf("notes %q", out.Notes)
		}
	})

	t.Run("sonnet chat", func(t *testing.T) {
		cfg := templateConfig(t, ts.URL, "openai-chat", workload.DatasetSonnet, sonnet)
		out, err := Run(t.Context(), cfg, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, _ := readRecords(t, out.RecordsPath)
		for _, r := range recs {
			p := got.prompts[r.RequestID]
			if !strings.HasPrefix(p, "Pick as many lines") || strings.Contains(p, "<|") {
				t.Fatalf("%s: the chat endpoint got %q, want the bare prompt", r.RequestID, p)
			}
			// The server's count holds its template's markup: more
			// than the bare text's.
			if r.InputTokens <= tokenizer.Count(p) {
				t.Errorf("%s: %d input tokens for a prompt of %d", r.RequestID, r.InputTokens, tokenizer.Count(p))
			}
		}
		if c := configValue(t, out, "chat_template"); !strings.HasPrefix(c, "none: the sonnet prompts go bare to openai-chat") {
			t.Errorf("chat_template = %q", c)
		}
	})

	t.Run("custom skipped", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "c.jsonl")
		if err := os.WriteFile(path, []byte(`{"prompt": "Name three prime numbers."}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := templateConfig(t, ts.URL, "openai", workload.DatasetCustom, path)
		cfg.Workload.SkipChatTemplate = true
		out, err := Run(t.Context(), cfg, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, _ := readRecords(t, out.RecordsPath)
		for _, r := range recs {
			if p := got.prompts[r.RequestID]; p != "Name three prime numbers." {
				t.Fatalf("%s: the server got %q, want the bare prompt", r.RequestID, p)
			}
		}
		if c := configValue(t, out, "chat_template"); c != "none: the custom prompts go bare (--skip-chat-template)" {
			t.Errorf("chat_template = %q", c)
		}
	})

	t.Run("custom rendered", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "c.jsonl")
		if err := os.WriteFile(path, []byte(`{"prompt": "Name three prime numbers."}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := Run(t.Context(), templateConfig(t, ts.URL, "openai", workload.DatasetCustom, path), nil, false)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, _ := readRecords(t, out.RecordsPath)
		for _, r := range recs {
			if p := got.prompts[r.RequestID]; p != "<|user|>\nName three prime numbers.\n<|assistant|>\n" {
				t.Fatalf("%s: the server got %q", r.RequestID, p)
			}
		}
	})
}

// hasNote reports whether a note begins with prefix.
func hasNote(notes []string, prefix string) bool {
	for _, n := range notes {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// fakeCompletions is a completions server that answers every request with
// one token and records its prompt; with template set it offers
// llama.cpp's /apply-template, which wraps a user message in
// "[INST] … [/INST]", a system message before it in "<<SYS>>\n…\n<</SYS>>\n\n",
// and puts "{kwargs JSON}" first when the body has chat_template_kwargs;
// templateStatus, when set, is that route's answer instead. Every
// completions body is kept in bodies, in arrival order.
func fakeCompletions(t *testing.T, template bool, templateStatus int) (*httptest.Server, *bodies) {
	t.Helper()
	var got bodies
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		got.mu.Lock()
		got.raw = append(got.raw, string(data))
		got.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"text\":\"x\",\"finish_reason\":\"length\"}]}\n\ndata: [DONE]\n\n")
	})
	if template {
		mux.HandleFunc("POST /apply-template", func(w http.ResponseWriter, r *http.Request) {
			if templateStatus != 0 {
				http.Error(w, `{"error":{"message":"no template"}}`, templateStatus)
				return
			}
			var req struct {
				Messages []struct{ Role, Content string } `json:"messages"`
				Kwargs   json.RawMessage                  `json:"chat_template_kwargs"`
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 || len(req.Messages) > 2 {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			var b strings.Builder
			if req.Kwargs != nil {
				b.WriteString(string(req.Kwargs))
			}
			b.WriteString("[INST] ")
			for _, m := range req.Messages {
				if m.Role == "system" {
					b.WriteString("<<SYS>>\n" + m.Content + "\n<</SYS>>\n\n")
				} else {
					b.WriteString(m.Content)
				}
			}
			b.WriteString(" [/INST]")
			json.NewEncoder(w).Encode(map[string]string{"prompt": b.String()})
		})
	}
	ts := httptest.NewServer(got.wrap(mux))
	t.Cleanup(ts.Close)
	return ts, &got
}

// A server that offers llama.cpp's /apply-template and no /tokenize gets
// the rendered prompts, counted by the built-in tokenizer.
func TestClientChatTemplateByApplyTemplate(t *testing.T) {
	ts, got := fakeCompletions(t, true, 0)
	cfg := templateConfig(t, ts.URL, "openai", workload.DatasetCustom, filepath.Join("..", "workload", "testdata", "custom.jsonl"))
	cfg.Model = "m"
	out, err := Run(t.Context(), cfg, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	if len(recs) != 4 || out.Result.Counts.Failed != 0 {
		t.Fatalf("%d records, %+v", len(recs), out.Result.Counts)
	}
	for _, r := range recs {
		p := got.prompts[r.RequestID]
		if !strings.HasPrefix(p, "[INST] ") || !strings.HasSuffix(p, " [/INST]") {
			t.Fatalf("%s: the server got %q, want it rendered by /apply-template", r.RequestID, p)
		}
		// Even a line's own input_len gives way to the rendered
		// prompt's count.
		if want := tokenizer.Count(p); r.InputTokens != want {
			t.Errorf("%s: %d input tokens, want %d", r.RequestID, r.InputTokens, want)
		}
	}
	if c := configValue(t, out, "chat_template"); c != "client: POST /apply-template" {
		t.Errorf("chat_template = %q", c)
	}
	if !hasNote(out.Notes, "Chat template: vllm bench serve renders the custom prompts") || !strings.Contains(strings.Join(out.Notes, "\n"), "the built-in tokenizer's (the server has no /tokenize)") {
		t.Errorf("notes %q", out.Notes)
	}
}

// A server with no route to its template gets the bare prompts, with one
// note before the run and in the summary's notes, and the run completes.
func TestClientChatTemplateWithoutARoute(t *testing.T) {
	ts, got := fakeCompletions(t, false, 0)
	cfg := templateConfig(t, ts.URL, "openai", workload.DatasetCustom, filepath.Join("..", "workload", "testdata", "custom.jsonl"))
	cfg.Model = "m"
	var said bytes.Buffer
	out, err := Run(t.Context(), cfg, &said, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.Result.Counts.Completed != 4 {
		t.Fatalf("%+v", out.Result.Counts)
	}
	recs, _, _ := readRecords(t, out.RecordsPath)
	for _, r := range recs {
		if p := got.prompts[r.RequestID]; strings.Contains(p, "[INST]") || p == "" {
			t.Fatalf("%s: the server got %q, want a bare prompt", r.RequestID, p)
		}
	}
	const note = "Chat template: not applied: vllm bench serve renders the custom prompts with the model's chat template on the client for backend openai, but the server offers no route to its template (tried POST /tokenize with messages, then /detokenize; POST /apply-template); the prompts were sent bare. --backend openai-chat has the server apply its template, --skip-chat-template sends bare prompts on purpose"
	if !hasNote(out.Notes, note) {
		t.Errorf("notes %q", out.Notes)
	}
	if n := strings.Count(said.String(), "Chat template: not applied"); n != 1 {
		t.Errorf("said the note %d times before the run:\n%s", n, said.String())
	}
	if c := configValue(t, out, "chat_template"); !strings.HasPrefix(c, "none: the server offers no route to its template") {
		t.Errorf("chat_template = %q", c)
	}
}

// A route that answers an error for a real prompt stops the run before
// anything is sent, naming the URL and the status.
func TestClientChatTemplateError(t *testing.T) {
	ts, got := fakeCompletions(t, true, http.StatusBadRequest)
	cfg := templateConfig(t, ts.URL, "openai", workload.DatasetCustom, filepath.Join("..", "workload", "testdata", "custom.jsonl"))
	cfg.Model = "m"
	_, err := Run(t.Context(), cfg, nil, false)
	if err == nil || !strings.Contains(err.Error(), "POST "+ts.URL+"/apply-template") || !strings.Contains(err.Error(), "400") {
		t.Fatalf("err = %v, want one naming POST %s/apply-template and its 400", err, ts.URL)
	}
	if len(got.prompts) != 0 {
		t.Errorf("%d requests sent", len(got.prompts))
	}
}

// MLPerf's system prompt goes to the template as a message of its own, as
// vLLM renders it; --chat-template-kwargs reach the custom dataset's
// rendering, as vLLM passes them there (vllm-project/vllm#44244), and not
// the completions body, which is then sent, not refused; the sonnet
// prompts, sized by their rendering, fit --sonnet-input-len on the
// built-in count where the server has no /tokenize.
func TestClientChatTemplateMessagesAndKwargs(t *testing.T) {
	kw := map[string]any{"enable_thinking": false}

	t.Run("mlperf system message", func(t *testing.T) {
		ts, got := fakeCompletions(t, true, 0)
		path := filepath.Join(t.TempDir(), "mlperf.jsonl")
		rows := `{"system_prompt": "You are a careful assistant.", "question": "What is the capital of France? Answer in one word, please.", "output": "Paris is the capital of France, of course."}
{"system_prompt": "", "question": "Name three primary colours, in a list please.", "output": "Red, yellow and blue are the three."}`
		if err := os.WriteFile(path, []byte(rows+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := templateConfig(t, ts.URL, "openai", workload.DatasetHF, path)
		cfg.Workload.HF.Name, cfg.Model = "mgoin/mlperf-inference-llama3.1-data", "m"
		out, err := Run(t.Context(), cfg, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, _ := readRecords(t, out.RecordsPath)
		// The empty system prompt is rendered as the empty message it is.
		want := map[string]bool{
			"[INST] <<SYS>>\nYou are a careful assistant.\n<</SYS>>\n\nWhat is the capital of France? Answer in one word, please. [/INST]": true,
			"[INST] <<SYS>>\n\n<</SYS>>\n\nName three primary colours, in a list please. [/INST]":                                          true,
		}
		seen := map[string]bool{}
		for _, r := range recs {
			p := got.prompts[r.RequestID]
			if !want[p] {
				t.Fatalf("%s: the server got %q, want one of %q", r.RequestID, p, slices.Collect(maps.Keys(want)))
			}
			seen[p] = true
		}
		if len(seen) != 2 {
			t.Errorf("the server got %d distinct prompts, want both rows'", len(seen))
		}
		if len(recs) != 4 {
			t.Fatalf("%d records", len(recs))
		}
	})

	t.Run("custom with kwargs", func(t *testing.T) {
		ts, got := fakeCompletions(t, true, 0)
		cfg := templateConfig(t, ts.URL, "openai", workload.DatasetCustom, filepath.Join("..", "workload", "testdata", "custom.jsonl"))
		cfg.Model, cfg.Request.ChatTemplateKwargs = "m", kw
		out, err := Run(t.Context(), cfg, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if out.Result.Counts.Completed != 4 {
			t.Fatalf("%+v", out.Result.Counts)
		}
		recs, _, _ := readRecords(t, out.RecordsPath)
		for _, r := range recs {
			if p := got.prompts[r.RequestID]; !strings.HasPrefix(p, `{"enable_thinking":false}[INST] `) {
				t.Fatalf("%s: the server got %q, want it rendered with the kwargs", r.RequestID, p)
			}
		}
		for _, b := range got.raw {
			if strings.Contains(b, "chat_template_kwargs") {
				t.Fatalf("a completions body carries the kwargs: %s", b)
			}
		}
		if !hasNote(out.Notes, "Chat template: vllm bench serve renders the custom prompts") || !strings.Contains(strings.Join(out.Notes, "\n"), "(POST /apply-template) with --chat-template-kwargs") {
			t.Errorf("notes %q", out.Notes)
		}
	})

	// Prompts that no template renders (random, or a skipped custom) on a
	// completions backend leave the kwargs unused, as vLLM's client
	// does: the run goes on with a note, its bodies without them.
	t.Run("kwargs nothing applies", func(t *testing.T) {
		ts, got := fakeCompletions(t, true, 0)
		cfg := templateConfig(t, ts.URL, "openai", workload.DatasetCustom, filepath.Join("..", "workload", "testdata", "custom.jsonl"))
		cfg.Model, cfg.Request.ChatTemplateKwargs = "m", kw
		cfg.Workload.SkipChatTemplate = true
		out, err := Run(t.Context(), cfg, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if out.Result.Counts.Completed != 4 {
			t.Fatalf("%+v", out.Result.Counts)
		}
		for _, b := range got.raw {
			if strings.Contains(b, "chat_template_kwargs") || strings.Contains(b, "enable_thinking") {
				t.Fatalf("a completions body carries the kwargs: %s", b)
			}
		}
		if !hasNote(out.Notes, "--chat-template-kwargs: not applied: backend openai sends its prompts as they are") {
			t.Errorf("notes %q", out.Notes)
		}
	})

	t.Run("sonnet sized without /tokenize", func(t *testing.T) {
		ts, got := fakeCompletions(t, true, 0)
		cfg := templateConfig(t, ts.URL, "openai", workload.DatasetSonnet, filepath.Join("..", "workload", "testdata", "sonnet_small.txt"))
		cfg.Model = "m"
		cfg.Usage = backend.UsageNone
		out, err := Run(t.Context(), cfg, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, _ := readRecords(t, out.RecordsPath)
		for _, r := range recs {
			p := got.prompts[r.RequestID]
			if !strings.HasPrefix(p, "[INST] Pick as many lines") {
				t.Fatalf("%s: the server got %q, want the sonnet prompt rendered", r.RequestID, p)
			}
			// No /tokenize: the built-in tokenizer counts the rendered
			// prompt, which fits --sonnet-input-len.
			if n := tokenizer.Count(p); r.InputTokens != n || n > 120 {
				t.Errorf("%s: %d input tokens, the rendered prompt counts %d (most 120)", r.RequestID, r.InputTokens, n)
			}
		}
		if !hasNote(out.Notes, "Sonnet sizing: by the prompts' length formatted with the server's chat template (POST /apply-template), as vLLM does but approximately: the lines and formatted prompts are counted by the built-in tokenizer's (the server has no /tokenize)") {
			t.Errorf("notes %q", out.Notes)
		}
	})
}

// On the simulator, whose template is "<|user|>\n…\n<|assistant|>\n" and
// whose /tokenize counts text with the built-in tokenizer, a sonnet prompt
// has the lines vLLM's rule gives it, (input len − the formatted
// instruction's count) / a line's mean count, and its recorded length is
// the formatted prompt's count, at most --sonnet-input-len: sent formatted
// to a completions endpoint, and bare to a chat endpoint, whose template
// makes the same prompt.
func TestSonnetSizedByTheServersTemplate(t *testing.T) {
	s, _ := simtest.Serve(t, sim.Options{Seed: 1})
	var got bodies
	ts := httptest.NewServer(got.wrap(s))
	t.Cleanup(ts.Close)
	path := filepath.Join("..", "workload", "testdata", "sonnet_small.txt")
	format := func(p string) string { return "<|user|>\n" + p + "\n<|assistant|>\n" }
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	total := 0
	for _, l := range lines {
		total += tokenizer.Count(l)
	}
	avg := float64(total) / float64(len(lines))
	const inputLen = 120
	base := workload.SonnetInstruction
	wantLines := int(math.RoundToEven(float64(inputLen-tokenizer.Count(format(base))) / avg))
	if bare := int(math.RoundToEven(float64(inputLen-tokenizer.Count(base)) / avg)); wantLines >= bare {
		t.Fatalf("the case does not tell the sizings apart: %d lines formatted, %d bare", wantLines, bare)
	}
	for _, backendName := range []string{"openai", "openai-chat"} {
		t.Run(backendName, func(t *testing.T) {
			cfg := templateConfig(t, ts.URL, backendName, workload.DatasetSonnet, path)
			cfg.Usage = backend.UsageNone // the records' lengths are goodput's count
			out, err := Run(t.Context(), cfg, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			recs, _, _ := readRecords(t, out.RecordsPath)
			if len(recs) != 4 || out.Result.Counts.Failed != 0 {
				t.Fatalf("%d records, %+v", len(recs), out.Result.Counts)
			}
			for _, r := range recs {
				bare := got.prompts[r.RequestID]
				if backendName == "openai" {
					if !strings.HasPrefix(bare, "<|user|>\n") || !strings.HasSuffix(bare, "\n<|assistant|>\n") {
						t.Fatalf("%s: the server got %q, want it formatted", r.RequestID, bare)
					}
					bare = strings.TrimSuffix(strings.TrimPrefix(bare, "<|user|>\n"), "\n<|assistant|>\n")
				}
				if !strings.HasPrefix(bare, base) {
					t.Fatalf("%s: %q is not a sonnet prompt", r.RequestID, bare)
				}
				if n := strings.Count(bare, "\n") - 1; n != wantLines {
					t.Errorf("%s: %d poem lines, want %d", r.RequestID, n, wantLines)
				}
				if want := tokenizer.Count(format(bare)); r.InputTokens != want || want > inputLen {
					t.Errorf("%s: %d input tokens, want the formatted prompt's %d, at most %d", r.RequestID, r.InputTokens, want, inputLen)
				}
			}
			if !hasNote(out.Notes, "Sonnet sizing: by the prompts' length formatted with the server's chat template (POST /tokenize with messages, then /detokenize), exactly as vLLM does") {
				t.Errorf("notes %q", out.Notes)
			}
		})
	}
}

// vLLM's MLPerf sampler checks its length bounds (prompt ≤ 1024 tokens,
// prompt + output ≤ 2048) on the rendered prompt's count: a row that fits
// bare but not rendered is left out, with a note, and a run none of whose
// rows fit once rendered stops before sending anything.
func TestMLPerfBoundsOnTheRenderedPrompt(t *testing.T) {
	// A question that fits bare, a few tokens under the bound, and not
	// once the template's markers are around it.
	q := "Summarise the following notes."
	for tokenizer.Count(q) < 1018 {
		q += " word"
	}
	if n := tokenizer.Count(q); n > 1024 {
		t.Fatalf("the long question has %d tokens", n)
	}
	row := func(question string) string {
		b, _ := json.Marshal(map[string]string{"system_prompt": "", "question": question, "output": "A short answer of a few words here."})
		return string(b)
	}
	short := "What is the capital of France? Answer in one word, please."
	for _, tt := range []struct {
		name string
		rows []string
	}{{"one of two fits", []string{row(short), row(q)}}, {"none fits", []string{row(q)}}} {
		t.Run(tt.name, func(t *testing.T) {
			ts, got := fakeCompletions(t, true, 0)
			path := filepath.Join(t.TempDir(), "mlperf.jsonl")
			if err := os.WriteFile(path, []byte(strings.Join(tt.rows, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := templateConfig(t, ts.URL, "openai", workload.DatasetHF, path)
			cfg.Workload.HF.Name, cfg.Model = "mgoin/mlperf-inference-llama2-data", "m"
			out, err := Run(t.Context(), cfg, nil, false)
			if len(tt.rows) == 1 {
				if err == nil || !strings.Contains(err.Error(), "every one of the 1 prompts is outside vLLM's length bounds once rendered") || len(got.raw) != 0 {
					t.Fatalf("err = %v, %d requests sent; want a refusal before any", err, len(got.raw))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			recs, _, _ := readRecords(t, out.RecordsPath)
			want := "[INST] <<SYS>>\n\n<</SYS>>\n\n" + short + " [/INST]"
			for _, r := range recs {
				if p := got.prompts[r.RequestID]; p != want {
					t.Fatalf("%s: the server got %.80q…, want only the short row's prompt", r.RequestID, p)
				}
			}
			if len(recs) != 4 || !hasNote(out.Notes, "Chat template: 1 of 2 prompts left out, outside vLLM's length bounds once rendered") {
				t.Errorf("%d records, notes %q", len(recs), out.Notes)
			}
		})
	}
}
