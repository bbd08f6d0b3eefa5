package history

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestServerVersion: each engine's way of saying its version is read, the
// first that answers wins, and a server that says nothing has none.
func TestServerVersion(t *testing.T) {
	for _, tc := range []struct {
		name   string
		routes map[string]string // path → JSON body
		base   string            // appended to the server's URL
		want   string
	}{
		{"vLLM", map[string]string{"/version": `{"version":"0.9.1"}`}, "", "0.9.1 (/version)"},
		{"a base URL ending in /v1", map[string]string{"/version": `{"version":"0.9.1"}`}, "/v1", "0.9.1 (/version)"},
		{"TGI", map[string]string{"/info": `{"model_id":"m","version":"3.0.2"}`}, "", "3.0.2 (/info)"},
		{"llama.cpp", map[string]string{"/props": `{"build_info":"b6001-abc"}`}, "", "b6001-abc (/props)"},
		{"SGLang's server info", map[string]string{"/get_server_info": `{"version":"0.4.9"}`}, "", "0.4.9 (/get_server_info)"},
		{"the first wins", map[string]string{"/version": `{"version":"1"}`, "/info": `{"version":"2"}`}, "", "1 (/version)"},
		{"not JSON", map[string]string{"/version": `0.9.1`}, "", ""},
		{"a number, not a string", map[string]string{"/version": `{"version":9}`}, "", ""},
		{"nothing", nil, "", ""},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, ok := tc.routes[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(body))
		}))
		got := ServerVersion(t.Context(), srv.Client(), srv.URL+tc.base)
		srv.Close()
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if v := ServerVersion(t.Context(), nil, ""); v != "" {
		t.Errorf("no URL: %q", v)
	}
	// A long answer is cut.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"version":"` + strings.Repeat("x", 1000) + `"}`))
	}))
	defer srv.Close()
	if v := ServerVersion(t.Context(), srv.Client(), srv.URL); len(v) != 200+len(" (/version)") {
		t.Errorf("a 1000-character version came back %d long", len(v))
	}
}
