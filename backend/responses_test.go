package backend

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// respEvent frames one Responses stream event as vLLM writes it: an event
// line, then the data with its fields in the order of OpenAI's types
// (alphabetical, so "type" comes last).
func respEvent(typ, fields string) string {
	if fields != "" {
		fields += ","
	}
	return "event: " + typ + "\ndata: {" + fields + `"sequence_number":0,"type":"` + typ + `"}` + "\n\n"
}

func respDelta(typ, text string) string {
	return respEvent(typ, `"content_index":0,"delta":"`+text+`","item_id":"msg_1","output_index":0`)
}

// respPreamble is what a stream sends before its first token: none of it
// is output.
var respPreamble = respEvent("response.created", `"response":{"id":"resp_1","object":"response","status":"in_progress"}`) +
	respEvent("response.in_progress", `"response":{"id":"resp_1","object":"response","status":"in_progress"}`) +
	respEvent("response.output_item.added", `"item":{"id":"rs_1","type":"reasoning"},"output_index":0`)

func respCompletedEvent(status, extra string, in, out, reasoning int) string {
	return respEvent("response.completed", `"response":{"id":"resp_1","object":"response","output":[{"content":[{"text":"Rayleigh scattering.","type":"output_text"}],"type":"message"}],"status":"`+status+`"`+extra+
		`,"usage":{"input_tokens":`+itoa(in)+`,"input_tokens_details":{"cached_tokens":3},"output_tokens":`+itoa(out)+`,"output_tokens_details":{"reasoning_tokens":`+itoa(reasoning)+`},"total_tokens":`+itoa(in+out)+`}}`)
}

// A Responses stream as vLLM sends it, read a piece per Read so that each
// event's time is its piece's: the clock reads 1 at the first Read.
func TestResponsesStreamTimesAndCounts(t *testing.T) {
	a := mustLookup(t, "openai-responses").WithText()
	pieces := []string{
		respPreamble,       // 1: nothing measured
		": keep-alive\n\n", // 2: a comment is no token
		respDelta(respReasoningDelta, "The user "),                           // 3: the first token: reasoning
		respDelta(respReasoningDelta, "asks."),                               // 4
		respEvent("response.reasoning_text.done", `"text":"The user asks."`), // 5
		respDelta(respTextDelta, "Rayleigh"),                                 // 6: the answer
		respDelta(respTextDelta, ` scattering.\u2028`),                       // 7
		respEvent("response.output_text.done", `"text":"Rayleigh scattering."`) + // 8: the .done events repeat the text
			respEvent("response.content_part.done", `"part":{"text":"Rayleigh scattering.","type":"output_text"}`),
		respCompletedEvent("incomplete", `,"incomplete_details":{"reason":"max_output_tokens"}`, 17, 8, 3), // 9: the end, at the limit
	}
	rec := &record.Record{}
	st := a.read(&scriptReader{pieces: pieces}, "text/event-stream", counter(), rec)
	if !rec.OK() {
		t.Fatalf("failed: %s: %s", rec.Error, rec.Msg)
	}
	var at []int64
	for _, c := range rec.Chunks {
		at = append(at, c.At)
	}
	// Four token events; the server's 8 tokens spread over them, its 3
	// reasoning tokens over the two reasoning ones.
	if want := []int64{3, 4, 6, 7}; !reflect.DeepEqual(at, want) {
		t.Errorf("chunk times %v, want %v", at, want)
	}
	if got, want := tokens(rec), []int32{1, 2, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("chunk tokens %v, want %v", got, want)
	}
	if got, want := flags(rec), []bool{true, true, false, false}; !reflect.DeepEqual(got, want) {
		t.Errorf("reasoning chunks %v, want %v", got, want)
	}
	// The end is the response.completed event, not the last token.
	if rec.End != 9 || rec.Finish != "length" || rec.OutputTokens != 8 || rec.InputTokens != 17 ||
		rec.CachedTokens != 3 || !rec.CacheReported || rec.ReasoningTokens != 3 || rec.ReasoningSource != record.SourceUsage {
		t.Errorf("record %+v", rec)
	}
	if rec.Text != "Rayleigh scattering.\u2028" {
		t.Errorf("text %q: want the answer's deltas, not the reasoning or the repeats", rec.Text)
	}
	if st.UsageTokens != 8 || st.Chunks != 4 {
		t.Errorf("stats %+v", st)
	}
	if err := rec.Check(); err != nil {
		t.Errorf("the record is impossible: %v", err)
	}
	whole := strings.Join(pieces, "")
	for how, r := range splits([]byte(whole)) {
		got, _ := readAll(a, r())
		if !sameButTimes(got, rec) {
			t.Fatalf("%s: record %+v; piece by piece %+v", how, got, rec)
		}
	}
}

// Streams captured from llama.cpp's server (see testdata/README.md).
func TestResponsesRealLlamaCpp(t *testing.T) {
	tests := []struct {
		file   string
		whole  bool
		tokens []int32
		out    int
		input  int
		cached int
	}{
		// Three deltas, then the end-of-sequence token that the usage
		// counts (4) and no event streams: it is a chunk at the first
		// event after the last delta.
		{"real_llamacpp_responses_eos.sse", false, []int32{1, 1, 1, 1}, 4, 33, 32},
		// Stopped at max_output_tokens 5; llama.cpp says "completed".
		{"real_llamacpp_responses_limit.sse", false, []int32{1, 1, 1, 1, 1}, 5, 33, 32},
		// The same request not streamed: one chunk of the five tokens.
		{"real_llamacpp_responses_whole.json", true, []int32{5}, 5, 33, 32},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			a := mustLookup(t, "openai-responses")
			if tt.whole {
				if a, err = a.WithoutStreaming(); err != nil {
					t.Fatal(err)
				}
			}
			rec, st := readAll(a, strings.NewReader(string(b)))
			if !rec.OK() {
				t.Fatalf("failed: %s: %s", rec.Error, rec.Msg)
			}
			if got := tokens(rec); !reflect.DeepEqual(got, tt.tokens) {
				t.Errorf("chunk tokens %v, want %v", got, tt.tokens)
			}
			if rec.OutputTokens != tt.out || rec.TokenSource != record.SourceUsage || rec.InputTokens != tt.input ||
				rec.CachedTokens != tt.cached || rec.Finish != "stop" || st.UsageTokens != tt.out {
				t.Errorf("record %+v, stats %+v", rec, st)
			}
			if err := rec.Check(); err != nil {
				t.Errorf("the record is impossible: %v", err)
			}
		})
	}
}

// How Responses streams fail, and the ones that look odd but succeed.
func TestResponsesStreamEnds(t *testing.T) {
	delta := respDelta(respTextDelta, "ok")
	completed := respCompletedEvent("completed", "", 5, 1, 0)
	tests := []struct {
		name   string
		body   string
		kind   record.ErrorKind
		msg    string // in the record's message
		finish string
	}{
		{"an error event before any token", respPreamble + "event: error\ndata: {\"code\":\"invalid_request\",\"message\":\"boom\",\"param\":null,\"type\":\"error\"}\n\n",
			record.ErrStream, "boom (code invalid_request)", ""},
		{"an error object mid-stream, with a status code", respPreamble + delta + "event: error\ndata: {\"error\": {\"message\": \"boom\", \"code\": 500}}\n\n",
			record.ErrHTTP, "boom (code 500)", ""},
		{"an error without its event line", delta + `data: {"type":"error","code":"429","message":"slow down"}` + "\n\n",
			record.ErrRateLimited, "slow down (code 429)", ""},
		{"response.failed", respPreamble + delta + respEvent("response.failed", `"response":{"error":{"code":"server_error","message":"the engine died"},"id":"resp_1","status":"failed"}`),
			record.ErrHTTP, "the engine died (code server_error)", ""},
		{"cut after a token, before response.completed", respPreamble + delta,
			record.ErrTruncated, "without response.completed", ""},
		{"the spec's own response.incomplete event", delta + respEvent("response.incomplete", `"response":{"incomplete_details":{"reason":"max_output_tokens"},"status":"incomplete","usage":{"input_tokens":5,"output_tokens":1}}`),
			record.ErrNone, "", "length"},
		{"an incomplete answer for another reason", delta + respEvent("response.completed", `"response":{"incomplete_details":{"reason":"content_filter"},"status":"incomplete"}`),
			record.ErrNone, "", "content_filter"},
		{"data lines without event lines (a proxy)", `data: {"type":"response.output_text.delta","delta":"ok"}` + "\n\n" + `data: {"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":5,"output_tokens":1}}}` + "\n\n",
			record.ErrNone, "", "stop"},
		{"[DONE] after the end (other servers send it)", delta + completed + "data: [DONE]\n\n",
			record.ErrNone, "", "stop"},
		{"an empty data line", "data:\n\n" + delta + completed,
			record.ErrNone, "", "stop"},
		{"one event's data over two lines", "event: response.output_text.delta\ndata: {\"type\": \"response.output_text.delta\",\ndata:  \"delta\": \"ok\"}\n\n" + completed,
			record.ErrNone, "", "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, _ := readAll(mustLookup(t, "openai-responses"), strings.NewReader(tt.body))
			if rec.Error != tt.kind || !strings.Contains(rec.Msg, tt.msg) || rec.Finish != tt.finish {
				t.Fatalf("error %q %q finish %q, want %q containing %q, finish %q", rec.Error, rec.Msg, rec.Finish, tt.kind, tt.msg, tt.finish)
			}
			if tt.kind == record.ErrNone && (len(rec.Chunks) != 1 || rec.OutputTokens != 1) {
				t.Errorf("chunks %v, output %d: want the one token", rec.Chunks, rec.OutputTokens)
			}
		})
	}
}

// What a Responses request sends: vLLM's client's body, and the flags the
// API has no field for are refused rather than dropped.
func TestResponsesRequestBody(t *testing.T) {
	a := mustLookup(t, "openai-responses")
	body := func(req *Request) (string, map[string]any, error) {
		hr, err := a.BuildRequest(context.Background(), "http://127.0.0.1:8000", "", req)
		if err != nil {
			return "", nil, err
		}
		b, _ := io.ReadAll(hr.Body)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return hr.URL.String(), m, nil
	}
	temp, topK, rep := 0.7, 20, 1.05
	url, got, err := body(&Request{Model: "served-alias", Prompt: "Why is the sky blue?", MaxTokens: 16, IgnoreEOS: true,
		Sampling: Sampling{Temperature: &temp, TopK: &topK, RepetitionPenalty: &rep}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"model": "served-alias", "input": "Why is the sky blue?", "max_output_tokens": 16.0, "stream": true, "store": false,
		"ignore_eos": true, "temperature": 0.7, "top_k": 20.0, "repetition_penalty": 1.05}
	if url != "http://127.0.0.1:8000/v1/responses" || !reflect.DeepEqual(got, want) {
		t.Errorf("POST %s %v, want /v1/responses %v", url, got, want)
	}
	_, got, err = body(&Request{Messages: []Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{map[string]any{"role": "system", "content": "Be brief."}, map[string]any{"role": "user", "content": "Hi"}}; !reflect.DeepEqual(got["input"], want) {
		t.Errorf("input %v, want the messages as input items %v", got["input"], want)
	}
	minP := 0.1
	for _, tt := range []struct {
		req  Request
		want string
	}{
		{Request{Prompt: "x", Sampling: Sampling{MinP: &minP}}, "--min-p is not supported by openai-responses"},
		{Request{Prompt: "x", MinTokens: 4}, "min tokens (--min-tokens) is not supported by openai-responses"},
		{Request{PromptTokenIDs: []int{1, 2}}, "prompt token ids need a completions endpoint"},
	} {
		if _, _, err := body(&tt.req); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.req, err, tt.want)
		}
	}
	if !a.Chat() || mustLookup(t, "openai").Chat() {
		t.Error("the Responses API takes a conversation, completions a prompt")
	}
}

// Which events are output, and of which kind: every delta with text, the
// thinking under response.reasoning; nothing else.
func TestResponsesOutputKinds(t *testing.T) {
	completed := respCompletedEvent("completed", "", 5, 0, 0)
	tests := []struct {
		event     string
		chunks    int
		reasoning bool
	}{
		{respDelta(respTextDelta, "a"), 1, false},
		{respDelta("response.refusal.delta", "I can't"), 1, false},
		{respEvent("response.function_call_arguments.delta", `"delta":"{\"city\":","item_id":"fc_1"`), 1, false},
		{respDelta("response.reasoning_text.delta", "hm"), 1, true},
		{respDelta("response.reasoning_summary_text.delta", "the user wants"), 1, true},
		// a kind of output this reader has not heard of is output still
		{respDelta("response.audio.transcript.delta", "hi"), 1, false},
		// none of these is a token
		{respDelta(respTextDelta, ""), 0, false},
		{respEvent("response.output_text.done", `"text":"a"`), 0, false},
		{respEvent("response.output_item.added", `"item":{"type":"function_call"}`), 0, false},
		{respEvent("response.output_text.annotation.added", `"annotation":{"type":"url_citation"}`), 0, false},
	}
	for _, tt := range tests {
		rec, _ := readAll(mustLookup(t, "openai-responses"), strings.NewReader(tt.event+completed))
		if !rec.OK() || len(rec.Chunks) != tt.chunks || tt.chunks == 1 && rec.Chunks[0].Reasoning != tt.reasoning {
			t.Errorf("%s: %s %s, chunks %+v; want %d, reasoning %v", strings.TrimSpace(tt.event), rec.Error, rec.Msg, rec.Chunks, tt.chunks, tt.reasoning)
		}
	}
}

// Decoding a delta allocates nothing, whatever the length of its type.
func TestResponsesDeltaAllocatesNothing(t *testing.T) {
	var d decoder
	var ev event
	for _, p := range []string{
		`{"content_index":0,"delta":"Rayleigh","item_id":"msg_1","output_index":0,"sequence_number":4,"type":"response.output_text.delta"}`,
		`{"delta":"{\"a\":","item_id":"fc_1","output_index":0,"sequence_number":4,"type":"response.function_call_arguments.delta"}`,
	} {
		b := []byte(p)
		if n := testing.AllocsPerRun(100, func() { ev.reset(); _ = decodeResponses(&d, b, &ev) }); n != 0 {
			t.Errorf("%.0f allocations a token: %s", n, p)
		}
	}
}
