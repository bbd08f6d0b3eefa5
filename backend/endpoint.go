package backend

import (
	"cmp"
	"fmt"
	"net/url"
	"strings"
)

// apiPaths are the ends of the paths that name one protocol's API, most
// specific first, each with the backend that speaks it.
var apiPaths = []struct{ suffix, backend string }{
	{"/chat/completions", "openai-chat"},
	{"/completions", "openai"},
	{"/responses", "openai-responses"},
	{"/completion", "llamacpp"},
	{"/api/generate", "ollama"},
	{"/generate_stream", "tgi"},
}

// what says what each backend's requests carry, for the message of
// CheckEndpoint.
var what = map[string]string{
	"openai":           "completions requests (a prompt)",
	"openai-chat":      "chat requests (messages)",
	"openai-responses": "Responses API requests (input)",
	"llamacpp":         "llama.cpp's native /completion requests",
	"ollama":           "Ollama's /api/generate requests",
	"tgi":              "TGI's /generate_stream requests",
}

// CheckEndpoint refuses an endpoint whose path is another protocol's API
// (--backend openai with --endpoint /v1/chat/completions), where every
// request would be refused alike: the error names the backend that speaks
// it. A path that names no known API (a gateway's own) is taken, as is an
// empty one (the backend's default).
func (a *Adapter) CheckEndpoint(endpoint string) error {
	if endpoint == "" {
		return nil
	}
	path := endpoint
	if u, err := url.Parse(endpoint); err == nil {
		path = u.Path
	}
	owner, _ := apiOf(path)
	if owner == "" || owner == a.name {
		return nil
	}
	return fmt.Errorf("--endpoint %s is the API of --backend %s, which takes %s; --backend %s sends %s: give --backend %s, or leave --endpoint out for %s's own (%s)",
		endpoint, owner, what[owner], cmp.Or(a.called, a.name), what[a.name], owner, cmp.Or(a.called, a.name), a.endpoint)
}

// apiOf returns the backend whose API path ends path, and that end, or
// "" when path names no API.
func apiOf(path string) (backend, suffix string) {
	path = strings.TrimSuffix(path, "/")
	for _, p := range apiPaths {
		if strings.HasSuffix(path, p.suffix) {
			return p.backend, p.suffix
		}
	}
	return "", ""
}

// APIPath returns the end of path that names a protocol's API
// ("/v1/chat/completions" of "/proxy/v1/chat/completions", with the "/v1"
// before it where there is one), "" when it names none: a base URL that
// ends in one has had its endpoint written into it.
func APIPath(path string) string {
	_, suffix := apiOf(path)
	if suffix != "" && strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(path, "/"), suffix), "/v1") {
		return "/v1" + suffix
	}
	return suffix
}
