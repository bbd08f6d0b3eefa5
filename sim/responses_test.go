package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/tokenizer"
)

// responsesEvents checks the SSE framing of a streamed /v1/responses answer
// (every event named by an "event:" line that its data's "type" repeats,
// sequence numbers counting from 0, no [DONE]) and returns the events'
// names and decoded data.
func responsesEvents(t *testing.T, res streamResult) ([]string, []map[string]any) {
	t.Helper()
	if res.status != 200 || res.readErr != nil {
		t.Fatalf("status %d, read error %v: %s", res.status, res.readErr, res.body)
	}
	var names []string
	var data []map[string]any
	for i, e := range res.events {
		var m map[string]any
		if err := json.Unmarshal(e.data, &m); err != nil {
			t.Fatalf("event %d (%s): data %q: %v", i, e.name, e.data, err)
		}
		if e.name == "" || m["type"] != e.name {
			t.Errorf("event %d: event line %q, data type %v; want the same name", i, e.name, m["type"])
		}
		if num(m["sequence_number"]) != i {
			t.Errorf("event %d (%s): sequence_number %v", i, e.name, m["sequence_number"])
		}
		names = append(names, e.name)
		data = append(data, m)
	}
	return names, data
}

// wantEvents is the event sequence of a streamed reply of think reasoning
// tokens and then answer tokens, as vLLM sends it.
func wantEvents(think, answer int) []string {
	out := []string{"response.created", "response.in_progress"}
	if think > 0 {
		out = append(out, "response.output_item.added")
		for range think {
			out = append(out, "response.reasoning_text.delta")
		}
		out = append(out, "response.reasoning_text.done", "response.output_item.done")
	}
	if answer > 0 {
		out = append(out, "response.output_item.added", "response.content_part.added")
		for range answer {
			out = append(out, "response.output_text.delta")
		}
		out = append(out, "response.output_text.done", "response.content_part.done", "response.output_item.done")
	}
	return append(out, "response.completed")
}

// deltas concatenates the deltas of the events named name.
func deltas(names []string, data []map[string]any, name string) string {
	var b strings.Builder
	for i, n := range names {
		if n == name {
			b.WriteString(data[i]["delta"].(string))
		}
	}
	return b.String()
}

var respID = regexp.MustCompile(`^resp_[0-9a-f]{32}$`)

func TestResponsesStreamWireFormat(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t), ServedModelName: "sim-model", Seed: 7})
	body := `{"model":"sim-model","input":"Hello there","instructions":"Be brief.","max_output_tokens":5,
		"ignore_eos":true,"stream":true,"store":false,"temperature":0.7,"top_p":0.9,"top_k":20,"seed":11}`
	res, err := postStream(context.Background(), ts.Client(), ts.URL+"/v1/responses", body)
	if err != nil {
		t.Fatal(err)
	}
	names, data := responsesEvents(t, res)
	if want := wantEvents(0, 5); !slices.Equal(names, want) {
		t.Fatalf("events\n%v\nwant\n%v", names, want)
	}

	created := data[0]["response"]
	id, _ := path(created, "id").(string)
	if !respID.MatchString(id) || path(created, "object") != "response" || path(created, "status") != "in_progress" ||
		path(created, "model") != "sim-model" || num(path(created, "created_at")) < 1 {
		t.Errorf("response.created carries %v", created)
	}
	msgID := "msg_" + strings.TrimPrefix(id, "resp_")
	added := data[2]["item"]
	if path(added, "id") != msgID || path(added, "type") != "message" || path(added, "role") != "assistant" ||
		path(added, "status") != "in_progress" || len(path(added, "content").([]any)) != 0 {
		t.Errorf("output_item.added carries %v, want an empty assistant message %s", added, msgID)
	}
	if part := data[3]["part"]; path(part, "type") != "output_text" || path(part, "text") != "" || data[3]["item_id"] != msgID {
		t.Errorf("content_part.added %v", data[3])
	}
	for i := 4; i < 9; i++ {
		if data[i]["item_id"] != msgID || num(data[i]["output_index"]) != 0 || num(data[i]["content_index"]) != 0 || data[i]["delta"] == "" {
			t.Errorf("delta %d: %v", i-3, data[i])
		}
	}

	// One token per delta; every done event carries their concatenation.
	text := deltas(names, data, "response.output_text.delta")
	if n := tokenizer.Count(text); n != 5 {
		t.Errorf("streamed text %q is %d tokens, want 5", text, n)
	}
	done := data[len(data)-1]["response"]
	for _, got := range []any{
		data[9]["text"],
		path(data[10], "part", "text"),
		path(data[11], "item", "content", 0, "text"),
		path(done, "output", 0, "content", 0, "text"),
	} {
		if got != text {
			t.Errorf("done text %q, want the deltas' %q", got, text)
		}
	}
	if path(data[11], "item", "status") != "completed" || path(data[11], "item", "id") != msgID {
		t.Errorf("output_item.done %v", data[11])
	}

	// Stopped at max_output_tokens: incomplete, as vLLM reports it.
	if path(done, "id") != id || path(done, "status") != "incomplete" || path(done, "incomplete_details", "reason") != "max_output_tokens" {
		t.Errorf("response.completed carries status %v, details %v", path(done, "status"), path(done, "incomplete_details"))
	}
	prompt := tokenizer.Count("<|system|>\nBe brief.\n<|user|>\nHello there\n<|assistant|>\n")
	u := path(done, "usage")
	if num(path(u, "input_tokens")) != prompt || num(path(u, "output_tokens")) != 5 || num(path(u, "total_tokens")) != prompt+5 ||
		num(path(u, "input_tokens_details", "cached_tokens")) != 0 || path(u, "output_tokens_details") != nil {
		t.Errorf("usage %v, want %d + 5 tokens", u, prompt)
	}
}

// A reply that ends by itself completes; one cut off at max_output_tokens
// (or by ignore_eos running to it) is incomplete, streamed or not.
func TestResponsesStatus(t *testing.T) {
	// With a mean output length of 1, every answer wants to end at once.
	_, ts := startServer(t, Options{Profile: fastProfile(t), OutputLenMean: 1})
	tests := []struct {
		name       string
		extra      string
		wantTokens int
		wantStatus string
	}{
		{"natural end", `"max_output_tokens":50`, 1, "completed"},
		{"min_tokens", `"max_output_tokens":50,"min_tokens":10`, 10, "completed"},
		{"ignore_eos", `"max_output_tokens":50,"ignore_eos":true`, 50, "incomplete"},
		{"min equals max", `"max_output_tokens":5,"min_tokens":5`, 5, "incomplete"},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			body := fmt.Sprintf(`{"input":"x",%s,"stream":%v}`, tt.extra, stream)
			var resp map[string]any
			if stream {
				res, err := postStream(context.Background(), ts.Client(), ts.URL+"/v1/responses", body)
				if err != nil {
					t.Fatal(err)
				}
				names, data := responsesEvents(t, res)
				if want := wantEvents(0, tt.wantTokens); !slices.Equal(names, want) {
					t.Errorf("%s, streamed: %d events, want %d", tt.name, len(names), len(want))
					continue
				}
				resp = data[len(data)-1]["response"].(map[string]any)
			} else if code := postJSON(t, ts.URL+"/v1/responses", body, &resp); code != 200 {
				t.Fatalf("%s: status %d %v", tt.name, code, resp)
			}
			n, status := num(path(resp, "usage", "output_tokens")), path(resp, "status")
			if n != tt.wantTokens || status != tt.wantStatus {
				t.Errorf("%s, stream %v: %d tokens, status %v; want %d, %s", tt.name, stream, n, status, tt.wantTokens, tt.wantStatus)
			}
			details, _ := resp["incomplete_details"].(map[string]any)
			if (tt.wantStatus == "incomplete") != (details != nil) || (details != nil && details["reason"] != "max_output_tokens") {
				t.Errorf("%s, stream %v: incomplete_details %v", tt.name, stream, resp["incomplete_details"])
			}
		}
	}
}

// Without max_output_tokens, or with null, a reply may run to the end of
// the context, as chat's does.
func TestResponsesDefaultMaxOutputTokens(t *testing.T) {
	const maxModelLen = 200
	_, ts := startServer(t, Options{Profile: fastProfile(t), MaxModelLen: maxModelLen})
	prompt := tokenizer.Count("<|user|>\nx\n<|assistant|>\n")
	for _, body := range []string{`{"input":"x","ignore_eos":true}`, `{"input":"x","ignore_eos":true,"max_output_tokens":null}`} {
		var out map[string]any
		if code := postJSON(t, ts.URL+"/v1/responses", body, &out); code != 200 {
			t.Fatalf("%s: status %d %v", body, code, out)
		}
		if n := num(path(out, "usage", "output_tokens")); n != maxModelLen-prompt || path(out, "status") != "incomplete" {
			t.Errorf("%s: %d tokens, status %v; want %d, incomplete", body, n, path(out, "status"), maxModelLen-prompt)
		}
	}
}

// A Responses input is the chat conversation it stands for: the same turns
// make the same prompt as on /v1/chat/completions.
func TestResponsesInputIsAChatPrompt(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t)})
	tests := []struct {
		name, input, chat string // JSON: the request's fields, the equivalent chat messages
	}{
		{"a string is a user message",
			`"input":"Hi"`,
			`[{"role":"user","content":"Hi"}]`},
		{"instructions come first as a system message",
			`"input":"Hi","instructions":"Be brief."`,
			`[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]`},
		{"empty instructions add nothing",
			`"input":"Hi","instructions":""`,
			`[{"role":"user","content":"Hi"}]`},
		{"message items with string content",
			`"input":[{"role":"developer","content":"Answer in French."},{"role":"user","content":"Hi"}]`,
			`[{"role":"developer","content":"Answer in French."},{"role":"user","content":"Hi"}]`},
		{"typed items with text parts, an earlier answer replayed",
			`"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Hi, "},{"type":"input_text","text":"you"}]},
				{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello."}]},
				{"role":"user","content":"More?"}]`,
			`[{"role":"user","content":"Hi, you"},{"role":"assistant","content":"Hello."},{"role":"user","content":"More?"}]`},
		{"instructions before system items",
			`"input":[{"role":"system","content":"Be kind."},{"role":"user","content":"Hi"}],"instructions":"Be brief."`,
			`[{"role":"system","content":"Be brief."},{"role":"system","content":"Be kind."},{"role":"user","content":"Hi"}]`},
	}
	for _, tt := range tests {
		var resp, chat map[string]any
		if code := postJSON(t, ts.URL+"/v1/responses", `{"max_output_tokens":1,`+tt.input+`}`, &resp); code != 200 {
			t.Fatalf("%s: status %d %v", tt.name, code, resp)
		}
		if code := postJSON(t, ts.URL+"/v1/chat/completions", `{"max_tokens":1,"messages":`+tt.chat+`}`, &chat); code != 200 {
			t.Fatalf("%s: chat status %d %v", tt.name, code, chat)
		}
		got, want := num(path(resp, "usage", "input_tokens")), num(path(chat, "usage", "prompt_tokens"))
		if got != want || got < 1 {
			t.Errorf("%s: %d input tokens, chat counts %d", tt.name, got, want)
		}
	}
}

func TestResponsesBadRequests(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t), MaxModelLen: 100})
	tests := []struct {
		name, body string
		wantStatus int
		wantMsg    string
	}{
		{"input a number", `{"input":42}`, 400, "input must be a string or a list of message items"},
		{"input an object", `{"input":{"role":"user"}}`, 400, "input must be a string or a list of message items"},
		{"no input", `{"max_output_tokens":3}`, 400, "input is required"},
		{"null input", `{"input":null}`, 400, "input is required"},
		{"empty list", `{"input":[]}`, 400, "input must not be empty"},
		{"item without role", `{"input":[{"role":"user","content":"a"},{"content":"b"}]}`, 400, "input[1]: role is required"},
		{"item not an object", `{"input":["hi"]}`, 400, "input[0]: want a message item"},
		{"role not a string", `{"input":[{"role":5,"content":"a"}]}`, 400, "input[0]: role: want a string, got number"},
		{"unknown role", `{"input":[{"role":"tool","content":"a"}]}`, 400, `input[0]: unknown role "tool"`},
		{"not a message", `{"input":[{"type":"function_call_output","call_id":"c","output":"x"}]}`, 400, `input[0]: only message items are supported, got type "function_call_output"`},
		{"no content", `{"input":[{"role":"user"}]}`, 400, "input[0]: content is required"},
		{"content a number", `{"input":[{"role":"user","content":5}]}`, 400, "input[0]: content must be a string or a list of input_text or output_text parts"},
		{"image part", `{"input":[{"role":"user","content":[{"type":"input_image","image_url":"x"}]}]}`, 400, `input[0]: content[0]: only text parts (input_text, output_text) are supported, got type "input_image"`},
		{"part without text", `{"input":[{"role":"user","content":[{"type":"input_text"}]}]}`, 400, "input[0]: content[0]: text is required"},
		{"instructions not a string", `{"input":"a","instructions":5}`, 400, `field "instructions" at byte`},
		{"max_output_tokens a string", `{"input":"a","max_output_tokens":"ten"}`, 400, `field "max_output_tokens" at byte`},
		{"max_output_tokens zero", `{"input":"a","max_output_tokens":0}`, 400, "max_output_tokens must be at least 1, got 0"},
		{"stream not a bool", `{"input":"a","stream":"yes"}`, 400, `field "stream" at byte`},
		{"over max model len", `{"input":"a","max_output_tokens":100}`, 400, "maximum context length is 100 tokens"},
		{"min above max", `{"input":"a","max_output_tokens":2,"min_tokens":3}`, 400, "min_tokens must be less than or equal to max_tokens=2"},
		{"malformed JSON", `{"input":"a",`, 400, "the JSON ends early"},
		{"unknown model", `{"model":"gpt-4","input":"a"}`, 404, "the model `gpt-4` does not exist"},
	}
	for _, tt := range tests {
		resp, err := http.Post(ts.URL+"/v1/responses", "application/json", strings.NewReader(tt.body))
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
		if resp.StatusCode != tt.wantStatus || e.Error.Code != tt.wantStatus || e.Error.Type != errorType(tt.wantStatus) ||
			!strings.Contains(e.Error.Message, tt.wantMsg) {
			t.Errorf("%s: %d %+v; want %d with %q", tt.name, resp.StatusCode, e.Error, tt.wantStatus, tt.wantMsg)
		}
	}
	resp, err := http.Get(ts.URL + "/v1/responses")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
		t.Errorf("GET /v1/responses: status %d, Allow %q; want 405, POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestResponsesWholeAnswer(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t), ServedModelName: "sim-model"})
	var out map[string]any
	if code := postJSON(t, ts.URL+"/v1/responses", `{"input":[{"role":"user","content":"Hi"}],"max_output_tokens":4,"ignore_eos":true}`, &out); code != 200 {
		t.Fatalf("status %d %v", code, out)
	}
	id, _ := out["id"].(string)
	if !respID.MatchString(id) || out["object"] != "response" || out["model"] != "sim-model" || out["status"] != "incomplete" ||
		path(out, "incomplete_details", "reason") != "max_output_tokens" {
		t.Errorf("response %v", out)
	}
	items, _ := out["output"].([]any)
	if len(items) != 1 {
		t.Fatalf("output %v, want one message", out["output"])
	}
	msg := items[0]
	if path(msg, "type") != "message" || path(msg, "role") != "assistant" || path(msg, "status") != "completed" ||
		path(msg, "id") != "msg_"+strings.TrimPrefix(id, "resp_") || path(msg, "content", 0, "type") != "output_text" {
		t.Errorf("message %v", msg)
	}
	if n := tokenizer.Count(path(msg, "content", 0, "text").(string)); n != 4 {
		t.Errorf("text %q is %d tokens, want 4", path(msg, "content", 0, "text"), n)
	}
	prompt := tokenizer.Count("<|user|>\nHi\n<|assistant|>\n")
	if u := out["usage"]; num(path(u, "input_tokens")) != prompt || num(path(u, "output_tokens")) != 4 || num(path(u, "total_tokens")) != prompt+4 {
		t.Errorf("usage %v, want %d + 4", u, prompt)
	}
}

// A reasoning model's thinking streams first as a reasoning item, its
// answer after it as a message, and the usage counts the thinking.
func TestResponsesReasoning(t *testing.T) {
	url := reasoningServer(t, Reasoning{Min: 3, Max: 3})
	body := `{"input":"think, then answer","max_output_tokens":8,"ignore_eos":true,"stream":true}`
	res, err := postStream(context.Background(), http.DefaultClient, url+"/v1/responses", body)
	if err != nil {
		t.Fatal(err)
	}
	names, data := responsesEvents(t, res)
	if want := wantEvents(3, 5); !slices.Equal(names, want) {
		t.Fatalf("events\n%v\nwant\n%v", names, want)
	}
	id := path(data[0], "response", "id").(string)
	rsID, msgID := "rs_"+strings.TrimPrefix(id, "resp_"), "msg_"+strings.TrimPrefix(id, "resp_")
	if it := data[2]["item"]; path(it, "type") != "reasoning" || path(it, "id") != rsID || num(data[2]["output_index"]) != 0 {
		t.Errorf("first item added: %v", data[2])
	}
	for i := 3; i < 6; i++ {
		if data[i]["item_id"] != rsID || data[i]["delta"] == "" {
			t.Errorf("reasoning delta %v", data[i])
		}
	}
	thought, text := deltas(names, data, "response.reasoning_text.delta"), deltas(names, data, "response.output_text.delta")
	if tokenizer.Count(thought) != 3 || tokenizer.Count(text) != 5 {
		t.Errorf("thought %q, answer %q; want 3 and 5 tokens", thought, text)
	}
	if data[6]["text"] != thought || path(data[7], "item", "content", 0, "text") != thought || path(data[7], "item", "status") != "completed" {
		t.Errorf("reasoning done events %v, %v; want the thought %q", data[6], data[7], thought)
	}
	if it := data[8]["item"]; path(it, "type") != "message" || path(it, "id") != msgID || num(data[8]["output_index"]) != 1 {
		t.Errorf("second item added: %v", data[8])
	}
	if num(data[10]["output_index"]) != 1 || data[10]["item_id"] != msgID {
		t.Errorf("first answer delta %v", data[10])
	}
	done := data[len(data)-1]["response"]
	if path(done, "output", 0, "type") != "reasoning" || path(done, "output", 0, "content", 0, "text") != thought ||
		path(done, "output", 1, "type") != "message" || path(done, "output", 1, "content", 0, "text") != text {
		t.Errorf("completed output %v", path(done, "output"))
	}
	if u := path(done, "usage"); num(path(u, "output_tokens")) != 8 || num(path(u, "output_tokens_details", "reasoning_tokens")) != 3 {
		t.Errorf("usage %v, want 8 tokens of which 3 reasoning", u)
	}

	// Not streamed: the same items in the one response.
	var out map[string]any
	if code := postJSON(t, url+"/v1/responses", `{"input":"hi","max_output_tokens":8,"ignore_eos":true}`, &out); code != 200 {
		t.Fatalf("status %d %v", code, out)
	}
	if tokenizer.Count(fmt.Sprint(path(out, "output", 0, "content", 0, "text"))) != 3 || path(out, "output", 1, "type") != "message" ||
		num(path(out, "usage", "output_tokens_details", "reasoning_tokens")) != 3 {
		t.Errorf("whole answer %v", out)
	}
}

// A reply cut off while still thinking has no answer item at all.
func TestResponsesCutOffWhileThinking(t *testing.T) {
	url := reasoningServer(t, Reasoning{Min: 500, Max: 500})
	res, err := postStream(context.Background(), http.DefaultClient, url+"/v1/responses",
		`{"input":"think long","max_output_tokens":6,"ignore_eos":true,"stream":true}`)
	if err != nil {
		t.Fatal(err)
	}
	names, data := responsesEvents(t, res)
	if want := wantEvents(6, 0); !slices.Equal(names, want) {
		t.Fatalf("events\n%v\nwant\n%v", names, want)
	}
	done := data[len(data)-1]["response"]
	if out := path(done, "output").([]any); len(out) != 1 || path(done, "status") != "incomplete" ||
		num(path(done, "usage", "output_tokens_details", "reasoning_tokens")) != 6 {
		t.Errorf("completed response %v, want one reasoning item of 6 tokens, incomplete", done)
	}
}

// Requests on /v1/responses are the engine's like any others: /metrics
// counts them.
func TestResponsesCountInMetrics(t *testing.T) {
	_, ts := startServer(t, Options{Profile: fastProfile(t)})
	for _, stream := range []string{"false", "true"} {
		body := `{"input":"Hi","max_output_tokens":7,"ignore_eos":true,"stream":` + stream + `}`
		if _, err := postStream(context.Background(), ts.Client(), ts.URL+"/v1/responses", body); err != nil {
			t.Fatal(err)
		}
	}
	fams := parseMetrics(t, ts.URL)
	prompt := float64(tokenizer.Count("<|user|>\nHi\n<|assistant|>\n"))
	if got := metricValue(t, fams, "vllm:request_success_total", "finished_reason", "length"); got != 2 {
		t.Errorf("request_success_total{length} = %v, want 2", got)
	}
	if got := metricValue(t, fams, "vllm:generation_tokens_total"); got != 14 {
		t.Errorf("generation_tokens_total = %v, want 14", got)
	}
	if got := metricValue(t, fams, "vllm:prompt_tokens_total"); got != 2*prompt {
		t.Errorf("prompt_tokens_total = %v, want %v", got, 2*prompt)
	}
}

func TestResponsesFaults(t *testing.T) {
	const body = `{"input":"hello","max_output_tokens":20,"ignore_eos":true,"stream":true}`

	t.Run("error-rate", func(t *testing.T) {
		url, c := faultServer(t, "error-rate=1")
		res, err := postStream(context.Background(), c, url+"/v1/responses", body)
		if err != nil {
			t.Fatal(err)
		}
		var e errorBody
		if err := json.Unmarshal(res.body, &e); err != nil || res.status != 500 || e.Error.Type != "InternalServerError" {
			t.Errorf("status %d body %s; want a 500 error object", res.status, res.body)
		}
	})

	t.Run("malformed", func(t *testing.T) {
		url, c := faultServer(t, "malformed-rate=1")
		res, err := postStream(context.Background(), c, url+"/v1/responses", body)
		if err != nil {
			t.Fatal(err)
		}
		// Exactly one delta is cut off; the stream still completes, and its
		// sequence number is missing from the rest.
		bad, last := 0, ""
		for _, e := range res.events {
			var v map[string]any
			if json.Unmarshal(e.data, &v) != nil {
				bad++
				if e.name != "response.output_text.delta" {
					t.Errorf("malformed event %q, want a delta", e.name)
				}
			}
			last = e.name
		}
		if want := len(wantEvents(0, 20)); bad != 1 || len(res.events) != want || last != "response.completed" {
			t.Errorf("%d malformed of %d events ending in %s; want 1 of %d ending in response.completed", bad, len(res.events), last, want)
		}
	})

	t.Run("disconnect", func(t *testing.T) {
		url, c := faultServer(t, "disconnect-rate=1")
		res, err := postStream(context.Background(), c, url+"/v1/responses", body)
		if err != nil {
			t.Fatal(err)
		}
		if res.status != 200 || !errors.Is(res.readErr, io.ErrUnexpectedEOF) || len(res.events) >= len(wantEvents(0, 20)) {
			t.Errorf("status %d, %d events, read error %v; want a stream cut short", res.status, len(res.events), res.readErr)
		}
		for _, e := range res.events {
			if e.name == "response.completed" {
				t.Error("a dropped stream sent response.completed")
			}
		}
	})

	t.Run("shutdown", func(t *testing.T) {
		s, err := New(Options{Profile: fastProfile(t)})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		url := httptestServer(t, s)
		got := make(chan streamResult, 1)
		go func() {
			res, _ := postStream(context.Background(), http.DefaultClient, url+"/v1/responses",
				`{"input":"a","max_output_tokens":20000,"ignore_eos":true,"stream":true}`)
			got <- res
		}()
		time.Sleep(50 * time.Millisecond)
		s.Close()
		select {
		case res := <-got:
			last := res.events[len(res.events)-1]
			var e map[string]any
			if err := json.Unmarshal(last.data, &e); err != nil || last.name != "error" || e["type"] != "error" ||
				e["code"] != "ServiceUnavailableError" || e["message"] != "the server is shutting down" {
				t.Errorf("last event %s: %s; want the error event", last.name, last.data)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("stream still open 10 s after Close")
		}
	})
}
