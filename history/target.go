package history

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// versionProbes are where servers say which version they are, tried in
// order, with the JSON key that holds it: vLLM's and SGLang's /version,
// TGI's /info, llama.cpp's /props and SGLang's /get_server_info.
var versionProbes = []struct{ path, key string }{
	{"/version", "version"},
	{"/info", "version"},
	{"/props", "build_info"},
	{"/get_server_info", "version"},
}

// probeTimeout bounds each probe: a server that does not answer at once
// has no version endpoint worth waiting for.
const probeTimeout = 2 * time.Second

// ServerVersion asks the server at baseURL (with or without a trailing
// /v1) for its version and returns what the first endpoint that answers
// says, followed by the endpoint in parentheses ("0.9.1 (/version)"),
// or "" when none does. It never fails: a version is a nicety of the
// history, not a condition of a run. client nil means http.DefaultClient.
func ServerVersion(ctx context.Context, client *http.Client, baseURL string) string {
	if baseURL == "" {
		return ""
	}
	if client == nil {
		client = http.DefaultClient
	}
	base := strings.TrimSuffix(strings.TrimSuffix(baseURL, "/"), "/v1")
	for _, p := range versionProbes {
		if v := probe(ctx, client, base+p.path, p.key); v != "" {
			return v + " (" + p.path + ")"
		}
	}
	return ""
}

func probe(ctx context.Context, client *http.Client, url, key string) string {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return ""
	}
	resp, err := client.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return ""
	}
	var m map[string]any
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m) != nil {
		return ""
	}
	v, _ := m[key].(string)
	v = strings.TrimSpace(v)
	if len(v) > 200 {
		v = v[:200]
	}
	return v
}
