package backend

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Adapter speaks one serving protocol: it builds the HTTP request for a
// Request and reads the streamed response into a record. Get one with
// Lookup. An Adapter is immutable and safe for concurrent use by any number
// of workers.
type Adapter struct {
	name        string
	endpoint    string
	usage       UsageMode
	maxField    MaxTokensField // openai-chat: the field of the output limit
	framing     framing
	contentType string // what a streaming response's Content-Type contains
	accept      string
	terminator  string // how the protocol ends a stream, for messages
	build       func(a *Adapter, req *Request) (map[string]any, error)
	decode      decodeFunc
	keepText    bool   // ReadStream keeps the answer text in the record
	whole       bool   // requests ask for one whole response, not a stream
	called      string // the --backend name it was looked up by (vllm for openai), for messages
}

// registry holds the adapters by --backend name.
var registry = map[string]Adapter{
	"openai": {
		name: "openai", endpoint: "/v1/completions", framing: framingSSE,
		contentType: "text/event-stream", accept: "text/event-stream",
		terminator: "data: [DONE] or a finish_reason",
		build:      buildCompletions, decode: decodeOpenAI,
	},
	"openai-chat": {
		name: "openai-chat", endpoint: "/v1/chat/completions", framing: framingSSE,
		contentType: "text/event-stream", accept: "text/event-stream",
		terminator: "data: [DONE] or a finish_reason",
		build:      buildChat, decode: decodeOpenAI,
	},
	"openai-responses": {
		name: "openai-responses", endpoint: "/v1/responses", framing: framingSSE,
		contentType: "text/event-stream", accept: "text/event-stream",
		terminator: "response.completed",
		build:      buildResponses, decode: decodeResponses,
	},
	"tgi": {
		name: "tgi", endpoint: "/generate_stream", framing: framingSSE,
		contentType: "text/event-stream", accept: "text/event-stream",
		terminator: "the final event (generated_text and details)",
		build:      buildTGI, decode: decodeTGI,
	},
	"llamacpp": {
		name: "llamacpp", endpoint: "/completion", framing: framingSSE,
		contentType: "text/event-stream", accept: "text/event-stream",
		terminator: `the final event ("stop": true)`,
		build:      buildLlamaCpp, decode: decodeLlamaCpp,
	},
	"ollama": {
		name: "ollama", endpoint: "/api/generate", framing: framingNDJSON,
		contentType: "ndjson", accept: "application/x-ndjson",
		terminator: `the final line ("done": true)`,
		build:      buildOllama, decode: decodeOllama,
	},
}

// aliases let vLLM's habits work: `vllm bench serve`'s vllm backend, and
// the sglang, lmdeploy, scalellm and llama.cpp backends of its earlier
// benchmark_serving.py, speak OpenAI completions (llama.cpp's among them:
// /v1/completions, not the native /completion of goodput's llamacpp).
var aliases = map[string]string{"vllm": "openai", "sglang": "openai", "lmdeploy": "openai", "scalellm": "openai", "llama.cpp": "openai"}

// Lookup returns the adapter for a --backend name: openai (completions),
// openai-chat, openai-responses, tgi, llamacpp or ollama; vllm, sglang,
// lmdeploy, scalellm and llama.cpp are accepted for openai. OpenAI-style
// adapters start in UsageContinuous mode.
func Lookup(name string) (*Adapter, error) {
	key := name
	if canon, ok := aliases[name]; ok {
		key = canon
	}
	a, ok := registry[key]
	if !ok {
		return nil, fmt.Errorf("unknown backend %q (want one of %s)", name, strings.Join(Names(), ", "))
	}
	a.called = name
	return &a, nil
}

// Names returns the adapters' names, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Name returns the adapter's --backend name.
func (a *Adapter) Name() string { return a.name }

// Endpoint returns the default endpoint path, used when BuildRequest is
// given an empty one.
func (a *Adapter) Endpoint() string { return a.endpoint }

// Usage returns the usage reports the adapter asks for (OpenAI-style
// protocols only; the others always report their counts).
func (a *Adapter) Usage() UsageMode { return a.usage }

// WithUsage returns a copy of the adapter that asks for usage reports as m
// says. Use UsageFinal or UsageNone for hosted APIs that reject
// continuous_usage_stats or stream_options (the request then fails with an
// HTTP 400); token counts get coarser (see UsageMode).
func (a *Adapter) WithUsage(m UsageMode) *Adapter {
	c := *a
	c.usage = m
	return &c
}

// MaxTokensField returns the field that carries a chat request's output
// limit (openai-chat only; the other protocols have one field each).
func (a *Adapter) MaxTokensField() MaxTokensField { return a.maxField }

// WithMaxTokensField returns a copy of the adapter whose chat requests
// carry their output limit in the field f names. It changes nothing for
// the other protocols.
func (a *Adapter) WithMaxTokensField(f MaxTokensField) *Adapter {
	c := *a
	c.maxField = f
	return &c
}

// WithText returns a copy of the adapter whose ReadStream keeps the answer
// text in record.Record.Text (the streamed content, reasoning left out; the
// final generated_text for TGI). It costs a copy of every answer, so only
// runs that report the texts should ask for it.
func (a *Adapter) WithText() *Adapter {
	c := *a
	c.keepText = true
	return &c
}

// WithoutStreaming returns a copy of the adapter whose requests ask for
// the whole answer in one response ("stream": false) and whose ReadStream
// reads that response as one event: the first token is then known only
// when the answer ends, so TTFT equals the end-to-end latency, and TPOT and
// ITL are not measured. The OpenAI-style protocols, llama.cpp and Ollama
// have such responses; TGI's /generate_stream has none, and is an error.
func (a *Adapter) WithoutStreaming() (*Adapter, error) {
	if a.name == "tgi" {
		return nil, fmt.Errorf("backend tgi: non-streaming requests are not supported (%s only streams)", a.endpoint)
	}
	c := *a
	c.whole, c.framing = true, framingWhole
	c.contentType, c.accept = "application/json", "application/json"
	c.terminator = "the end of the response"
	return &c, nil
}

// Chat reports whether the protocol takes a conversation (Messages) and
// applies the server's chat template to it: openai-chat and
// openai-responses. The others take a prompt as it is.
func (a *Adapter) Chat() bool { return a.name == "openai-chat" || a.name == "openai-responses" }

// Streaming reports whether requests ask for a streamed answer.
func (a *Adapter) Streaming() bool { return !a.whole }

// URL joins a base URL and an endpoint path (the adapter's default when
// empty) into the request URL. The base must be an absolute http or https
// URL; its query, if any, is kept. A base ending in /v1 (the OpenAI SDK
// convention) is accepted with endpoints that start with /v1/.
func (a *Adapter) URL(baseURL, endpoint string) (string, error) {
	if endpoint == "" {
		endpoint = a.endpoint
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", fmt.Errorf("base url %q: %w", baseURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("base url %q: want an http:// or https:// url", baseURL)
	}
	if u.Host == "" {
		return "", fmt.Errorf("base url %q: no host", baseURL)
	}
	ep, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("endpoint %q: %w", endpoint, err)
	}
	if ep.Scheme != "" || ep.Host != "" || ep.Fragment != "" {
		return "", fmt.Errorf("endpoint %q: want a path such as %s", endpoint, a.endpoint)
	}
	path := ep.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	base := strings.TrimSuffix(u.Path, "/")
	if strings.HasSuffix(base, "/v1") && strings.HasPrefix(path, "/v1/") {
		path = path[len("/v1"):]
	}
	u.Path, u.RawPath = base+path, ""
	if ep.RawQuery != "" {
		if u.RawQuery != "" {
			u.RawQuery += "&"
		}
		u.RawQuery += ep.RawQuery
	}
	u.Fragment = ""
	return u.String(), nil
}

// BuildRequest returns the POST request that asks the server to stream the
// completion req describes, to baseURL joined with endpoint (see URL). The
// body is JSON; req.Extra is merged into it last (see Request). The
// request asks for an uncompressed response, because a decompressor
// between the socket and the parser would delay bytes and blur arrival
// times. Errors name the adapter and the offending input; they are
// configuration errors, the same for every request with those settings.
func (a *Adapter) BuildRequest(ctx context.Context, baseURL, endpoint string, req *Request) (*http.Request, error) {
	target, err := a.URL(baseURL, endpoint)
	if err != nil {
		return nil, fmt.Errorf("backend %s: %w", a.name, err)
	}
	if err := req.validate(); err != nil {
		return nil, fmt.Errorf("backend %s: %w", a.name, err)
	}
	if len(req.Tools) > 0 && a.name != "openai-chat" {
		return nil, fmt.Errorf("backend %s: tools need the chat completions API (backend openai-chat), as vLLM sends them", a.name)
	}
	body, err := a.build(a, req)
	if err != nil {
		return nil, fmt.Errorf("backend %s: %w", a.name, err)
	}
	if err := a.applyOptions(req, body); err != nil {
		return nil, fmt.Errorf("backend %s: %w", a.name, err)
	}
	if a.whole {
		// stream_options is refused without streaming (vLLM answers 400).
		body["stream"] = false
		delete(body, "stream_options")
	}
	mergeExtra(body, req.Extra)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // prompts full of <|im_start|> stay readable
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("backend %s: encoding the request body: %w", a.name, err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(buf.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("backend %s: %s: %w", a.name, target, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", a.accept)
	hr.Header.Set("Accept-Encoding", "identity")
	for k, vs := range req.Headers {
		if http.CanonicalHeaderKey(k) == "Host" {
			// net/http sends req.Host, not a Host header.
			if len(vs) > 0 {
				hr.Host = vs[len(vs)-1]
			}
			continue
		}
		hr.Header.Del(k)
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	if req.RequestID != "" {
		hr.Header.Set("X-Request-Id", req.RequestID)
	}
	return hr, nil
}

// SendsIgnoreEOS reports whether the protocol carries ignore_eos: whether
// a request asking for it builds.
func (a *Adapter) SendsIgnoreEOS() bool {
	_, err := a.build(a, &Request{Model: "m", Prompt: "x", IgnoreEOS: true})
	return err == nil
}

// unsupported fails a request that sets an option the protocol lacks:
// silently dropping it would measure a different workload.
func unsupported(a *Adapter, option string, set bool) error {
	if !set {
		return nil
	}
	return fmt.Errorf("%s is not supported by %s (%s); send what the server accepts with --extra-body", option, a.name, a.endpoint)
}

// needsChat is the error for Messages sent through a protocol that has no
// chat endpoint.
func needsChat(a *Adapter) error {
	return fmt.Errorf("messages need a chat endpoint (backend openai-chat), not %s", a.name)
}

// idsOrTextPrompt returns the prompt for protocols that take token ids or
// text: the ids when given (sent as a list of ints), else the text. The
// caller rejects Messages first.
func idsOrTextPrompt(req *Request) (any, error) {
	switch {
	case len(req.PromptTokenIDs) > 0:
		return req.PromptTokenIDs, nil
	case req.Prompt != "":
		return req.Prompt, nil
	}
	return nil, errNoPrompt
}

// textPrompt returns the prompt text for protocols that take only text.
func textPrompt(a *Adapter, req *Request) (string, error) {
	switch {
	case len(req.Messages) > 0:
		return "", needsChat(a)
	case req.Prompt != "":
		return req.Prompt, nil
	case len(req.PromptTokenIDs) > 0:
		return "", fmt.Errorf("prompt token ids are not supported by %s (%s); it needs text", a.name, a.endpoint)
	}
	return "", errNoPrompt
}
