package backend

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// events joins SSE events (or NDJSON lines, with sep "\n") into a body.
func events(sep string, evs ...string) string { return strings.Join(evs, sep) + sep }

// What a server sends when it fails a request after answering 200, and
// what goodput records of it: the server's message, and the kind that the
// HTTP status the error names gets (a code, or a type that stands for
// one), the kind the same failure gets when the server answers it with
// that status. Chunks before the error count as they always do, and the
// request fails. Each body goes through a real HTTP server and client.
func TestInStreamErrorKinds(t *testing.T) {
	const (
		// vLLM's chat chunks with continuous usage: a role chunk of
		// usage 0, then text.
		vllmRole = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":5,"completion_tokens":0}}`
		vllmText = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"It was"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":7,"completion_tokens":2}}`
		// SGLang's: a role chunk without usage, then text.
		sglangRole = `data: {"id":"a1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}`
		sglangText = `data: {"id":"a1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":null,"content":"Once"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":5,"total_tokens":6,"completion_tokens":1}}`
		// llama.cpp's /v1 chat chunk, without usage until the end.
		llamaText = `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"One"}}],"created":1,"id":"chatcmpl-x","model":"m","system_fingerprint":"b1","object":"chat.completion.chunk"}`
		// TGI's /v1/chat/completions chunk (its SSE has no space after
		// the colon).
		tgiChat = `data:{"object":"chat.completion.chunk","id":"","created":1,"model":"m","system_fingerprint":"3.0.0-native","choices":[{"index":0,"delta":{"role":"assistant","content":"The"},"logprobs":null,"finish_reason":null}],"usage":null}`
		tgiText = `data:{"id":"","object":"text_completion","created":1,"model":"m","system_fingerprint":"3.0.0-native","choices":[{"index":0,"text":"The","logprobs":null,"finish_reason":""}]}`
		tgiTok  = `data:{"index":1,"token":{"id":450,"text":"The","logprob":-0.4,"special":false},"generated_text":null,"details":null}`
		done    = "data: [DONE]"
	)
	sse := func(evs ...string) string { return events("\n\n", evs...) }
	tests := []struct {
		name    string
		backend string
		body    string
		kind    record.ErrorKind
		msg     string
		tokens  []int32 // per chunk
		output  int
	}{
		// vLLM (serving.py's create_streaming_error_response, Python's
		// json.dumps spacing): the status is its code.
		{"vLLM: a request refused after the role chunk", "openai-chat",
			sse(vllmRole, `data: {"error": {"message": "max_tokens is too large: 4096.", "type": "BadRequestError", "param": "max_tokens", "code": 400}}`, done),
			record.ErrHTTP, "BadRequestError: max_tokens is too large: 4096. (code 400)", nil, 0},
		{"vLLM: the engine fails mid-answer; its two tokens stay counted", "openai-chat",
			sse(vllmRole, vllmText, `data: {"error": {"message": "Internal server error", "type": "InternalServerError", "param": null, "code": 500}}`, done),
			record.ErrHTTP, "InternalServerError: Internal server error (code 500)", []int32{2}, 2},
		{"vLLM before 0.10: the error object says object: error too", "openai",
			sse(`data: {"error": {"object": "error", "message": "prompt too long", "type": "BadRequestError", "param": null, "code": 400}}`, done),
			record.ErrHTTP, "BadRequestError: prompt too long (code 400)", nil, 0},
		// SGLang (serving_base.py): the same shape, object: error inside.
		{"SGLang: a request too long for the context", "openai-chat",
			sse(sglangRole, `data: {"error": {"object": "error", "message": "input is longer than the context (4096 tokens)", "type": "BadRequestError", "param": null, "code": 400}}`, done),
			record.ErrHTTP, "BadRequestError: input is longer than the context (4096 tokens) (code 400)", nil, 0},
		{"SGLang: a failure after a token", "openai-chat",
			sse(sglangRole, sglangText, `data: {"error": {"object": "error", "message": "scheduler died", "type": "InternalServerError", "param": null, "code": 500}}`, done),
			record.ErrHTTP, "InternalServerError: scheduler died (code 500)", []int32{1}, 1},
		// llama.cpp's server (format_error_response): code and type.
		{"llama.cpp: the prompt exceeds the context", "openai-chat",
			sse(`data: {"error":{"code":400,"message":"the request exceeds the available context size","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}`, done),
			record.ErrHTTP, "exceed_context_size_error: the request exceeds the available context size (code 400)", nil, 0},
		{"llama.cpp: a server error after a token", "openai-chat",
			sse(llamaText, `data: {"error":{"code":500,"message":"failed to decode the batch","type":"server_error"}}`, done),
			record.ErrHTTP, "server_error: failed to decode the batch (code 500)", []int32{1}, 1},
		{"llama.cpp: the model is still loading", "openai-chat",
			sse(`data: {"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`, done),
			record.ErrUnavailable, "unavailable_error: Loading model (code 503)", nil, 0},
		{"older llama.cpp: an error field, then [DONE]", "openai-chat",
			sse(llamaText, `error: {"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}`, done),
			record.ErrHTTP, "exceed_context_size_error: the request exceeds the available context size, try increasing it (code 400)", []int32{1}, 1},
		{"older llama.cpp's /completion: an error field, and no more", "llamacpp",
			sse(`error: {"code":503,"message":"Loading model","type":"unavailable_error"}`),
			record.ErrUnavailable, "unavailable_error: Loading model (code 503)", nil, 0},
		{"llama.cpp's /completion: the same error object", "llamacpp",
			sse(`data: {"content":"One","tokens":[3874],"stop":false}`, `data: {"error":{"code":500,"message":"failed to decode the batch","type":"server_error"}}`),
			record.ErrHTTP, "server_error: failed to decode the batch (code 500)", []int32{1}, 1},
		// OpenAI's own API: a type, and no code.
		{"OpenAI: a server error names only its type", "openai-chat",
			sse(`data: {"error": {"message": "the server had an error", "type": "server_error"}}`),
			record.ErrHTTP, "server_error: the server had an error", nil, 0},
		// TGI's OpenAI-compatible endpoints send its own error shape, the
		// error a string beside its error_type.
		{"TGI /v1/chat/completions: a validation error after a token", "openai-chat",
			sse(tgiChat, `data:{"error":"Input validation error: `+"`inputs`"+` tokens + `+"`max_new_tokens`"+` must be <= 4096","error_type":"validation"}`, done),
			record.ErrHTTP, "validation: Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096", []int32{1}, 1},
		{"TGI /v1/chat/completions: overloaded before any token", "openai-chat",
			sse(`data:{"error":"Model is overloaded","error_type":"overloaded"}`, done),
			record.ErrRateLimited, "overloaded: Model is overloaded", nil, 0},
		{"TGI /v1/completions: a template error", "openai",
			sse(`data:{"error":"Template error: template not found","error_type":"template_error"}`, done),
			record.ErrHTTP, "template_error: Template error: template not found", nil, 0},
		{"TGI /v1/completions: a failure while generating, 424 elsewhere", "openai",
			sse(tgiText, `data:{"error":"Request failed during generation: Server error: CUDA OOM","error_type":"generation"}`, done),
			record.ErrHTTP, "generation: Request failed during generation: Server error: CUDA OOM", []int32{1}, 1},
		// TGI's OpenAI-style error event (its PR 2668) gives the status
		// as http_status_code.
		{"TGI: an OpenAI-style error event with http_status_code", "openai-chat",
			sse(tgiChat, `data:{"error":{"message":"Input validation error: prompt too long","http_status_code":422}}`, done),
			record.ErrHTTP, "Input validation error: prompt too long (code 422)", []int32{1}, 1},
		// TGI's native /generate_stream, the same types.
		{"TGI /generate_stream: overloaded", "tgi",
			sse(`data:{"error":"Model is overloaded","error_type":"overloaded"}`),
			record.ErrRateLimited, "overloaded: Model is overloaded", nil, 0},
		{"TGI /generate_stream: a failure after a token", "tgi",
			sse(tgiTok, `data:{"error":"Request failed during generation: Server error: CUDA OOM","error_type":"generation"}`),
			record.ErrHTTP, "generation: Request failed during generation: Server error: CUDA OOM", []int32{1}, 1},
		{"TGI /generate_stream: the stream ended before its last token, 500 elsewhere", "tgi",
			sse(tgiTok, `data:{"error":"Incomplete generation","error_type":"incomplete_generation"}`),
			record.ErrHTTP, "incomplete_generation: Incomplete generation", []int32{1}, 1},
		{"TGI's shape with an error_type of no known status", "tgi",
			sse(`data:{"error":"something odd","error_type":"unknown_error"}`),
			record.ErrStream, "unknown_error: something odd", nil, 0},
		// Ollama's /api/generate: an error string, no status.
		{"Ollama: an error line names no status", "ollama",
			events("\n", `{"model":"m","created_at":"2025-01-01T00:00:00Z","response":"Hi","done":false}`, `{"error":"an error was encountered while running the model"}`),
			record.ErrStream, "an error was encountered while running the model", []int32{1}, 1},
		// Ollama's /v1 api_error stands for any status but 400 and 404.
		{"a type that stands for no one status", "openai-chat",
			sse(`data: {"error":{"message":"model runner stopped","type":"api_error","param":null,"code":null}}`),
			record.ErrStream, "api_error: model runner stopped", nil, 0},
		// An SSE event named error reads alike.
		{"an event named error, with an error object", "openai-chat",
			sse(llamaText, "event: error\ndata: {\"error\":{\"message\":\"too many requests\",\"type\":\"requests\",\"code\":429}}"),
			record.ErrRateLimited, "requests: too many requests (code 429)", []int32{1}, 1},
		{"an event named error, with text", "openai-chat",
			sse("event: error\ndata: upstream went away"),
			record.ErrStream, "upstream went away", nil, 0},
		// Codes that are no HTTP error status, and the sad shapes.
		{"a status given as a string", "openai",
			sse(`data: {"error":{"message":"slow down","code":"429"}}`),
			record.ErrRateLimited, "slow down (code 429)", nil, 0},
		{"a code that is a word", "openai",
			sse(`data: {"error":{"message":"context_length_exceeded","code":"context_length_exceeded"}}`),
			record.ErrStream, "context_length_exceeded (code context_length_exceeded)", nil, 0},
		{"a code of 200 is no error status", "openai",
			sse(`data: {"error":{"message":"odd","code":200}}`),
			record.ErrStream, "odd (code 200)", nil, 0},
		{"a code past 599", "openai",
			sse(`data: {"error":{"message":"odd","code":600}}`),
			record.ErrStream, "odd (code 600)", nil, 0},
		{"a negative code", "openai",
			sse(`data: {"error":{"message":"odd","code":-400}}`),
			record.ErrStream, "odd (code -400)", nil, 0},
		{"an unknown type", "openai",
			sse(`data: {"error":{"message":"odd","type":"weird_error"}}`),
			record.ErrStream, "weird_error: odd", nil, 0},
		{"an empty error object", "openai",
			sse(`data: {"error":{}}`),
			record.ErrStream, "server reported an error without a message", nil, 0},
		{"an error that is a number", "openai",
			sse(`data: {"error":500}`),
			record.ErrStream, "server reported an error: 500", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustLookup(t, tt.backend)
			ctype := "text/event-stream"
			if tt.backend == "ollama" {
				ctype = "application/x-ndjson"
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != a.Endpoint() {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", ctype)
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			rec, _ := postTo(t, a, srv.Client(), ctx, srv.URL, counter())
			if rec.Status != http.StatusOK || rec.Error != tt.kind || rec.Msg != tt.msg {
				t.Errorf("status %d, error %q %q;\nwant 200, %q %q", rec.Status, rec.Error, rec.Msg, tt.kind, tt.msg)
			}
			if got := tokens(rec); !reflect.DeepEqual(got, tt.tokens) || rec.OutputTokens != tt.output || rec.OK() {
				t.Errorf("chunk tokens %v, output %d, ok %v; want %v, %d, a failure", got, rec.OutputTokens, rec.OK(), tt.tokens, tt.output)
			}
			if rec.End == 0 {
				t.Error("end not set")
			}
		})
	}
}
