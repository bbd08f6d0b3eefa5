package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/tokenizer"
)

func TestCompletionsStreamWireFormat(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t), ServedModelName: "sim-model"})
	prompt := "The quick brown fox jumps over the lazy dog"
	body := fmt.Sprintf(`{"model":"sim-model","prompt":%q,"max_tokens":7,"stream":true,
		"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`, prompt)
	res, err := postStream(context.Background(), ts.Client(), ts.URL+"/v1/completions", body)
	if err != nil {
		t.Fatal(err)
	}
	if res.status != 200 || !res.done() || res.readErr != nil {
		t.Fatalf("status %d, [DONE] %v, read error %v", res.status, res.done(), res.readErr)
	}
	chunks := res.chunks(t)
	if len(chunks) != 8 { // 7 content chunks and the usage chunk
		t.Fatalf("%d chunks, want 8", len(chunks))
	}
	promptTokens := tokenizer.Count(prompt)
	id := path(chunks[0], "id").(string)
	var text strings.Builder
	for i, c := range chunks[:7] {
		if path(c, "id") != id || !strings.HasPrefix(id, "cmpl-") || len(id) != 37 {
			t.Errorf("chunk %d id %v, want the same cmpl- id of 32 hex digits", i, path(c, "id"))
		}
		if path(c, "object") != "text_completion" || path(c, "model") != "sim-model" || num(path(c, "created")) < 1 {
			t.Errorf("chunk %d object %v model %v created %v", i, path(c, "object"), path(c, "model"), path(c, "created"))
		}
		choice := path(c, "choices", 0).(map[string]any)
		wantFinish := any(nil)
		if i == 6 {
			wantFinish = "length"
		}
		if choice["finish_reason"] != wantFinish || num(choice["index"]) != 0 || choice["logprobs"] != nil {
			t.Errorf("chunk %d choice %v, want finish_reason %v", i, choice, wantFinish)
		}
		if _, ok := choice["stop_reason"]; !ok {
			t.Errorf("chunk %d lacks stop_reason", i)
		}
		// Continuous usage: the running count on every chunk.
		if got := num(path(c, "usage", "completion_tokens")); got != i+1 {
			t.Errorf("chunk %d completion_tokens %d, want %d", i, got, i+1)
		}
		if num(path(c, "usage", "prompt_tokens")) != promptTokens || num(path(c, "usage", "total_tokens")) != promptTokens+i+1 {
			t.Errorf("chunk %d usage %v, want %d prompt tokens", i, path(c, "usage"), promptTokens)
		}
		text.WriteString(choice["text"].(string))
	}
	// One token per chunk, and the text counts as many tokens as usage says.
	if n := tokenizer.Count(text.String()); n != 7 {
		t.Errorf("streamed text %q is %d tokens, want 7", text.String(), n)
	}
	last := chunks[7]
	if choices, ok := last["choices"].([]any); !ok || len(choices) != 0 {
		t.Errorf("usage chunk choices = %v, want []", last["choices"])
	}
	if num(path(last, "usage", "completion_tokens")) != 7 || num(path(last, "usage", "total_tokens")) != promptTokens+7 {
		t.Errorf("final usage %v", path(last, "usage"))
	}
	// As vLLM: continuous_usage_stats without include_usage asks for
	// nothing, neither a count on every chunk nor a final one.
	body = fmt.Sprintf(`{"model":"sim-model","prompt":%q,"max_tokens":3,"stream":true,"stream_options":{"continuous_usage_stats":true}}`, prompt)
	if res, err = postStream(context.Background(), ts.Client(), ts.URL+"/v1/completions", body); err != nil {
		t.Fatal(err)
	}
	chunks = res.chunks(t)
	if len(chunks) != 3 {
		t.Fatalf("%d chunks, want the 3 tokens' and no usage chunk", len(chunks))
	}
	for i, c := range chunks {
		if u, ok := c["usage"]; ok && u != nil {
			t.Errorf("chunk %d carries usage %v, which was not asked for", i, u)
		}
	}
}

func TestChatStreamWireFormat(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t)})
	body := `{"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Hi"}]}],
		"max_completion_tokens":3,"stream":true}`
	res, err := postStream(context.Background(), ts.Client(), ts.URL+"/v1/chat/completions", body)
	if err != nil {
		t.Fatal(err)
	}
	chunks := res.chunks(t)
	if !res.done() || len(chunks) != 4 {
		t.Fatalf("%d chunks, [DONE] %v; want role chunk + 3 content chunks and [DONE]", len(chunks), res.done())
	}
	role := path(chunks[0], "choices", 0, "delta")
	if path(role, "role") != "assistant" || path(role, "content") != "" || path(chunks[0], "choices", 0, "finish_reason") != nil {
		t.Errorf("first chunk delta %v, want role-only", role)
	}
	for i, c := range chunks {
		if path(c, "object") != "chat.completion.chunk" || !strings.HasPrefix(path(c, "id").(string), "chatcmpl-") {
			t.Errorf("chunk %d object %v id %v", i, path(c, "object"), path(c, "id"))
		}
		if _, ok := c["usage"]; ok {
			t.Errorf("chunk %d carries usage without stream_options", i)
		}
		if i == 0 {
			continue
		}
		delta := path(c, "choices", 0, "delta").(map[string]any)
		if _, ok := delta["role"]; ok || delta["content"] == "" {
			t.Errorf("chunk %d delta %v: want content only", i, delta)
		}
		want := any(nil)
		if i == 3 {
			want = "length"
		}
		if got := path(c, "choices", 0, "finish_reason"); got != want {
			t.Errorf("chunk %d finish_reason %v, want %v", i, got, want)
		}
	}
}

func TestNonStreamingResponses(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t)})
	var comp map[string]any
	if code := postJSON(t, ts.URL+"/v1/completions", `{"prompt":[5,6,7],"max_tokens":4}`, &comp); code != 200 {
		t.Fatalf("completions status %d: %v", code, comp)
	}
	if path(comp, "object") != "text_completion" || path(comp, "choices", 0, "finish_reason") != "length" {
		t.Errorf("completion %v", comp)
	}
	if u := path(comp, "usage"); num(path(u, "prompt_tokens")) != 3 || num(path(u, "completion_tokens")) != 4 || num(path(u, "total_tokens")) != 7 {
		t.Errorf("usage %v, want 3 + 4 = 7", u)
	}
	if n := tokenizer.Count(path(comp, "choices", 0, "text").(string)); n != 4 {
		t.Errorf("text is %d tokens, want 4", n)
	}

	var chat map[string]any
	if code := postJSON(t, ts.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"Hi"}],"max_tokens":2}`, &chat); code != 200 {
		t.Fatalf("chat status %d: %v", code, chat)
	}
	msg := path(chat, "choices", 0, "message")
	if path(chat, "object") != "chat.completion" || path(msg, "role") != "assistant" || path(msg, "content") == "" {
		t.Errorf("chat completion %v", chat)
	}
	// The template adds markup around each message, so the prompt counts
	// more tokens than its words.
	wantPrompt := tokenizer.Count("<|user|>\nHi\n<|assistant|>\n")
	if num(path(chat, "usage", "prompt_tokens")) != wantPrompt {
		t.Errorf("chat prompt_tokens %v, want %d", path(chat, "usage", "prompt_tokens"), wantPrompt)
	}
}

func TestPromptForms(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t)})
	tests := []struct {
		name       string
		prompt     string // JSON
		wantStatus int
		wantTokens int
	}{
		{"string", `"Hello world"`, 200, tokenizer.Count("Hello world")},
		{"token ids", `[10, 20, 30, 40]`, 200, 4},
		{"one string in a list", `["Hello world"]`, 200, tokenizer.Count("Hello world")},
		{"one id list in a list", `[[1, 2]]`, 200, 2},
		{"batch of strings", `["a", "b"]`, 400, 0},
		{"batch of id lists", `[[1], [2]]`, 400, 0},
		{"empty string", `""`, 400, 0},
		{"empty list", `[]`, 400, 0},
		{"null", `null`, 400, 0},
		{"number", `42`, 400, 0},
		{"negative id", `[1, -5]`, 400, 0},
		// Qwen2.5-0.5B has 151,936 ids, past the synthetic tokenizer's
		// 32,000.
		{"id of the model's, past the synthetic tokenizer's", `[32000, 100000]`, 200, 2},
		{"id beyond the vocabulary", `[151936]`, 400, 0},
		{"fractional id", `[1.5]`, 400, 0},
	}
	for _, tt := range tests {
		var out map[string]any
		code := postJSON(t, ts.URL+"/v1/completions", `{"max_tokens":1,"prompt":`+tt.prompt+`}`, &out)
		if code != tt.wantStatus {
			t.Errorf("%s: status %d (%v), want %d", tt.name, code, out, tt.wantStatus)
			continue
		}
		if code == 200 && num(path(out, "usage", "prompt_tokens")) != tt.wantTokens {
			t.Errorf("%s: prompt_tokens %v, want %d", tt.name, path(out, "usage", "prompt_tokens"), tt.wantTokens)
		}
	}
}

// Token ids are checked against the served model's vocabulary: a
// Llama-3.1-8B prompt may hold any id below 128,256, as from Llama 3's
// tokenizer, on every endpoint that takes ids.
func TestTokenIDsOfTheModelsVocabulary(t *testing.T) {
	p := fastProfile(t)
	p.Model = mustModel(t, "Llama-3.1-8B")
	_, ts := startServer(t, Options{Profile: p})
	var out map[string]any
	if code := postJSON(t, ts.URL+"/v1/completions", `{"prompt":[100000,5],"max_tokens":3}`, &out); code != 200 ||
		num(path(out, "usage", "prompt_tokens")) != 2 || num(path(out, "usage", "completion_tokens")) != 3 {
		t.Errorf("id 100000: status %d %v; want 200 with 2 prompt tokens", code, out)
	}
	const refusal = "token id 128256 at position 1 is out of vocabulary (valid ids are 0 to 128255)"
	for _, tt := range []struct{ endpoint, body string }{
		{"/v1/completions", `{"prompt":[100000,128256],"max_tokens":3}`},
		{"/tokenize", `{"prompt":[100000,128256]}`},
		{"/detokenize", `{"tokens":[100000,128256]}`},
	} {
		out = nil
		if code := postJSON(t, ts.URL+tt.endpoint, tt.body, &out); code != 400 || !strings.Contains(fmt.Sprint(out), refusal) {
			t.Errorf("%s: status %d %v; want 400 saying %q", tt.endpoint, code, out, refusal)
		}
	}
	out = nil
	if code := postJSON(t, ts.URL+"/tokenize", `{"prompt":[128255]}`, &out); code != 200 || num(path(out, "count")) != 1 {
		t.Errorf("/tokenize of the last id: status %d %v", code, out)
	}
}

func TestLengthControls(t *testing.T) {
	// With a mean output length of 1 every answer wants to end at once:
	// min_tokens holds it back, ignore_eos runs it to max_tokens.
	_, ts := startServer(t, Options{Profile: fastProfile(t), OutputLenMean: 1})
	tests := []struct {
		name       string
		extra      string
		wantTokens int
		wantFinish string
	}{
		{"natural end", `"max_tokens":50`, 1, "stop"},
		{"min_tokens", `"max_tokens":50,"min_tokens":10`, 10, "stop"},
		{"ignore_eos", `"max_tokens":50,"ignore_eos":true`, 50, "length"},
		{"min equals max", `"max_tokens":5,"min_tokens":5`, 5, "length"},
	}
	for _, tt := range tests {
		var out map[string]any
		if code := postJSON(t, ts.URL+"/v1/completions", `{"prompt":"x",`+tt.extra+`}`, &out); code != 200 {
			t.Fatalf("%s: status %d %v", tt.name, code, out)
		}
		if n, f := num(path(out, "usage", "completion_tokens")), path(out, "choices", 0, "finish_reason"); n != tt.wantTokens || f != tt.wantFinish {
			t.Errorf("%s: %d tokens, finish %v; want %d, %s", tt.name, n, f, tt.wantTokens, tt.wantFinish)
		}
	}
}

// Without max_tokens, completions stop at 16 tokens, as vLLM's
// CompletionRequest defaults max_tokens to 16, and chat runs to the end of
// the context, as vLLM's chat request leaves it unset; a max_tokens of null
// asks for the end of the context on completions too. ignore_eos makes
// every answer run to its limit: with a context of 200 tokens and the
// prompt "x", that is 200 − tokens("x").
func TestDefaultMaxTokens(t *testing.T) {
	const maxModelLen = 200
	_, ts := startServer(t, Options{Profile: fastProfile(t), MaxModelLen: maxModelLen})
	chatPrompt := tokenizer.Count("<|user|>\nx\n<|assistant|>\n")
	tests := []struct {
		name, endpoint, body string
		wantTokens           int
	}{
		{"completions", "/v1/completions", `{"prompt":"x","ignore_eos":true}`, 16},
		{"completions, null", "/v1/completions", `{"prompt":"x","ignore_eos":true,"max_tokens":null}`, maxModelLen - tokenizer.Count("x")},
		{"completions, given", "/v1/completions", `{"prompt":"x","ignore_eos":true,"max_tokens":40}`, 40},
		{"chat", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"ignore_eos":true}`, maxModelLen - chatPrompt},
		{"chat, given", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"ignore_eos":true,"max_completion_tokens":40}`, 40},
	}
	for _, tt := range tests {
		var out map[string]any
		if code := postJSON(t, ts.URL+tt.endpoint, tt.body, &out); code != 200 {
			t.Fatalf("%s: status %d %v", tt.name, code, out)
		}
		if n, f := num(path(out, "usage", "completion_tokens")), path(out, "choices", 0, "finish_reason"); n != tt.wantTokens || f != "length" {
			t.Errorf("%s: %d tokens, finish %v; want %d, length", tt.name, n, f, tt.wantTokens)
		}
	}
	// The default is a limit like any other: min_tokens may not pass it.
	var out map[string]any
	if code := postJSON(t, ts.URL+"/v1/completions", `{"prompt":"x","min_tokens":20}`, &out); code != 400 ||
		!strings.Contains(fmt.Sprint(out), "min_tokens must be less than or equal to max_tokens=16, got 20") {
		t.Errorf("min_tokens above the default: status %d %v", code, out)
	}
}

func TestBadRequests(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t), MaxBodyBytes: 1 << 10, MaxModelLen: 100})
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantMsg                  string
	}{
		{"malformed JSON", "POST", "/v1/completions", `{"prompt": "a",`, 400, "the JSON ends early"},
		{"syntax error", "POST", "/v1/completions", `{"prompt" "a"}`, 400, "malformed JSON at byte"},
		{"empty body", "POST", "/v1/completions", ``, 400, "it is empty"},
		{"not an object", "POST", "/v1/completions", `[1]`, 400, "want a JSON object"},
		{"trailing data", "POST", "/v1/completions", `{"prompt":"a"} {}`, 400, "unexpected data after the JSON object"},
		{"wrong field type", "POST", "/v1/completions", `{"prompt":"a","max_tokens":"ten"}`, 400, `field "max_tokens" at byte`},
		{"max_tokens zero", "POST", "/v1/completions", `{"prompt":"a","max_tokens":0}`, 400, "max_tokens must be at least 1, got 0"},
		{"max_tokens negative", "POST", "/v1/completions", `{"prompt":"a","max_tokens":-3}`, 400, "max_tokens must be at least 1, got -3"},
		{"max_tokens overflows int", "POST", "/v1/completions", `{"prompt":"a","max_tokens":99999999999999999999}`, 400, `field "max_tokens"`},
		{"n above 1", "POST", "/v1/completions", `{"prompt":"a","n":2}`, 400, "n must be 1"},
		// Never answered at a length a model would not stop at.
		{"stop string", "POST", "/v1/completions", `{"prompt":"a","stop":["the"]}`, 400, "stop strings are not simulated"},
		{"stop, one string", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"stop":"\n"}`, 400, "stop strings are not simulated"},
		{"stream_options without stream", "POST", "/v1/completions", `{"prompt":"a","stream_options":{"include_usage":true}}`, 400, "stream_options can only be defined when stream is true"},
		{"missing prompt", "POST", "/v1/completions", `{"max_tokens":3}`, 400, "prompt is required"},
		{"over max model len", "POST", "/v1/completions", `{"prompt":"a","max_tokens":100}`, 400, "maximum context length is 100 tokens"},
		{"min above max", "POST", "/v1/completions", `{"prompt":"a","max_tokens":2,"min_tokens":3}`, 400, "min_tokens must be less than or equal to max_tokens=2"},
		{"unknown model", "POST", "/v1/completions", `{"model":"gpt-4","prompt":"a"}`, 404, "the model `gpt-4` does not exist"},
		{"no messages", "POST", "/v1/chat/completions", `{"messages":[]}`, 400, "messages must not be empty"},
		{"unknown role", "POST", "/v1/chat/completions", `{"messages":[{"role":"robot","content":"x"}]}`, 400, `messages[0]: unknown role "robot"`},
		{"image part", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}`, 400, `content[0]: only text parts are supported, got type "image_url"`},
		{"content a number", "POST", "/v1/chat/completions", `{"messages":[{"role":"user","content":5}]}`, 400, "content must be a string or a list of text parts"},
		{"wrong method", "GET", "/v1/completions", ``, 405, "method GET not allowed on /v1/completions: use POST"},
		{"unknown path", "POST", "/v2/things", `{}`, 404, "no such endpoint: POST /v2/things"},
		{"body too large", "POST", "/v1/completions", `{"prompt":"` + strings.Repeat("a", 2000) + `"}`, 413, "request body is larger than 1024 bytes"},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest(tt.method, ts.URL+tt.path, strings.NewReader(tt.body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var e errorBody
		err = json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if err != nil {
			t.Errorf("%s: error body is not JSON: %v", tt.name, err)
			continue
		}
		if resp.StatusCode != tt.wantStatus || e.Error.Code != tt.wantStatus || !strings.Contains(e.Error.Message, tt.wantMsg) {
			t.Errorf("%s: %d %+v; want %d with %q", tt.name, resp.StatusCode, e.Error, tt.wantStatus, tt.wantMsg)
		}
		if e.Error.Type != errorType(tt.wantStatus) {
			t.Errorf("%s: error type %q, want %q", tt.name, e.Error.Type, errorType(tt.wantStatus))
		}
	}
}

func TestAPIKey(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t), APIKey: "sk-test"})
	tests := []struct {
		name, path, auth string
		wantStatus       int
	}{
		{"no key", "/v1/models", "", 401},
		{"wrong key", "/v1/models", "Bearer sk-wrong", 401},
		{"not a bearer token", "/v1/models", "sk-test", 401},
		{"right key", "/v1/models", "Bearer sk-test", 200},
		{"health needs no key", "/health", "", 200},
		{"metrics need no key", "/metrics", "", 200},
	}
	for _, tt := range tests {
		req, _ := http.NewRequest("GET", ts.URL+tt.path, nil)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tt.wantStatus {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.wantStatus)
		}
		if tt.wantStatus == 401 && string(body) != `{"error":"Unauthorized"}` {
			t.Errorf("%s: body %s, want vLLM's {\"error\":\"Unauthorized\"}", tt.name, body)
		}
	}
}

func TestModelsHealthTokenize(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t), MaxModelLen: 4096})
	var models map[string]any
	getJSON(t, ts.URL+"/v1/models", &models)
	if path(models, "object") != "list" || path(models, "data", 0, "id") != "Qwen2.5-0.5B" ||
		path(models, "data", 0, "object") != "model" || num(path(models, "data", 0, "max_model_len")) != 4096 {
		t.Errorf("/v1/models = %v", models)
	}
	resp, err := http.Get(ts.URL + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("/health: %v %v", resp.StatusCode, err)
	}
	resp.Body.Close()

	var tok map[string]any
	if code := postJSON(t, ts.URL+"/tokenize", `{"model":"Qwen2.5-0.5B","prompt":"Hello world"}`, &tok); code != 200 {
		t.Fatalf("/tokenize status %d", code)
	}
	want := tokenizer.Encode("Hello world")
	if num(tok["count"]) != len(want) || num(tok["max_model_len"]) != 4096 || len(tok["tokens"].([]any)) != len(want) {
		t.Errorf("/tokenize = %v, want %d tokens %v", tok, len(want), want)
	}
	var chatTok map[string]any
	postJSON(t, ts.URL+"/tokenize", `{"messages":[{"role":"user","content":"Hi"}]}`, &chatTok)
	if num(chatTok["count"]) != tokenizer.Count("<|user|>\nHi\n<|assistant|>\n") {
		t.Errorf("/tokenize with messages counted %v", chatTok["count"])
	}
	ids, _ := json.Marshal(want)
	var detok map[string]any
	if code := postJSON(t, ts.URL+"/detokenize", `{"tokens":`+string(ids)+`}`, &detok); code != 200 || detok["prompt"] != "Hello world" {
		t.Errorf("/detokenize = %d %v, want Hello world", code, detok)
	}
	for _, bad := range []struct{ path, body string }{
		{"/tokenize", `{"prompt":""}`},
		{"/tokenize", `{"prompt":"a","messages":[{"role":"user","content":"b"}]}`},
		{"/detokenize", `{"tokens":[-1]}`},
		{"/detokenize", `{"tokens":"abc"}`},
	} {
		if code := postJSON(t, ts.URL+bad.path, bad.body, nil); code != 400 {
			t.Errorf("%s %s: status %d, want 400", bad.path, bad.body, code)
		}
	}
}

func TestClientDisconnectAbortsAndFreesTheCache(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t)})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/completions",
		strings.NewReader(`{"prompt":"`+strings.Repeat("word ", 500)+`","max_tokens":20000,"ignore_eos":true,"stream":true}`))
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if _, err := resp.Body.Read(buf); err != nil { // the stream has started
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		text := scrape(t, ts.URL)
		if strings.Contains(text, `vllm:request_success_total{engine="0",finished_reason="abort",model_name="Qwen2.5-0.5B"} 1`) &&
			strings.Contains(text, `vllm:num_requests_running{engine="0",model_name="Qwen2.5-0.5B"} 0`) &&
			strings.Contains(text, `vllm:kv_cache_usage_perc{engine="0",model_name="Qwen2.5-0.5B"} 0`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the aborted request still holds the engine:\n%s", grepLines(text, "running", "kv_cache", "success"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServerLifecycle(t *testing.T) {
	s, err := New(Options{Profile: fastProfile(t)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptestServer(t, s)
	if code := postJSON(t, ts+"/v1/completions", `{"prompt":"a","max_tokens":1}`, nil); code != 503 {
		t.Errorf("before Start: status %d, want 503", code)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err == nil {
		t.Error("second Start succeeded")
	}
	// A long stream is open when the server closes: it ends with an error
	// event instead of hanging.
	got := make(chan streamResult, 1)
	go func() {
		res, _ := postStream(context.Background(), http.DefaultClient, ts+"/v1/completions",
			`{"prompt":"a","max_tokens":20000,"ignore_eos":true,"stream":true}`)
		got <- res
	}()
	time.Sleep(50 * time.Millisecond)
	s.Close()
	s.Close() // idempotent
	select {
	case res := <-got:
		last := string(res.events[len(res.events)-1].data)
		if !strings.Contains(last, `"error"`) || !strings.Contains(last, "shutting down") {
			t.Errorf("last event after Close = %s, want an error object", last)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stream still open 10 s after Close")
	}
	if code := postJSON(t, ts+"/v1/completions", `{"prompt":"a","max_tokens":1}`, nil); code != 503 {
		t.Errorf("after Close: status %d, want 503", code)
	}
	if err := s.Start(context.Background()); err == nil {
		t.Error("Start after Close succeeded")
	}
}

func TestContextCancelStopsTheEngine(t *testing.T) {
	s, err := New(Options{Profile: fastProfile(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		t.Fatal("engine loop still running 10 s after its context ended")
	}
	ts := httptestServer(t, s)
	if code := postJSON(t, ts+"/v1/completions", `{"prompt":"a","max_tokens":1}`, nil); code != 503 {
		t.Errorf("after cancel: status %d, want 503", code)
	}
}

// A "stop" that asks for nothing is no stop string: clients that always
// send the key (null, "" or []) are answered.
func TestHasStop(t *testing.T) {
	for raw, want := range map[string]bool{
		``: false, `null`: false, `""`: false, `[]`: false, `[""]`: false,
		`"the"`: true, `["a","b"]`: true, `["", "x"]`: true, `5`: true,
	} {
		if got := hasStop(json.RawMessage(raw)); got != want {
			t.Errorf("hasStop(%s) = %v, want %v", raw, got, want)
		}
	}
}

// Answers carry vLLM's id for a client's X-Request-Id, so that client
// records and server answers join on it; without one, ids differ between
// requests and between servers of different seeds. Each answer is
// stamped with its own time.
func TestAnswerIDsAndTimes(t *testing.T) {
	idOf := func(url, header string) (string, float64) {
		req, _ := http.NewRequest("POST", url+"/v1/completions", strings.NewReader(`{"prompt":"a","max_tokens":1}`))
		if header != "" {
			req.Header.Set("X-Request-Id", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return path(out, "id").(string), path(out, "created").(float64)
	}
	_, one := startServer(t, Options{Profile: fastProfile(t), Seed: 1})
	_, two := startServer(t, Options{Profile: fastProfile(t), Seed: 2})
	if id, _ := idOf(one.URL, "bench-7f3a-12"); id != "cmpl-bench-7f3a-12" {
		t.Errorf("id %q, want cmpl- and the X-Request-Id", id)
	}
	seen := map[string]bool{}
	for range 3 {
		for _, ts := range []string{one.URL, two.URL} {
			id, created := idOf(ts, "")
			if seen[id] || float64(time.Now().Unix())-created > 5 {
				t.Errorf("id %s seen before, or created %v not now", id, created)
			}
			seen[id] = true
		}
	}
}
