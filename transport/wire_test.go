package transport

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// appendRequest writes what Request.Write writes, byte for byte: for the
// requests a benchmark sends on its own path, and for any other through
// Request.Write.
func TestAppendRequestIsRequestWrite(t *testing.T) {
	body := `{"model":"m","prompt":"hi","max_tokens":16,"stream":true}`
	tests := []struct {
		name   string
		url    string
		body   string
		header http.Header
		host   string
		close  bool
	}{
		// A benchmark's request: the adapter's headers.
		{"completions", "http://127.0.0.1:8000/v1/completions", body,
			http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"}, "Accept-Encoding": {"identity"}}, "", false},
		{"with close", "http://127.0.0.1:8000/v1/completions", body, http.Header{"Content-Type": {"application/json"}}, "", true},
		{"query string", "http://localhost:9/v1/x?api-version=2024-10-21&a=b%20c", body, nil, "", false},
		{"no body", "http://h:1/generate", "", nil, "", false},
		{"user agent set", "http://h:1/x", body, http.Header{"User-Agent": {"mine/1.0"}}, "", false},
		{"user agent emptied", "http://h:1/x", body, http.Header{"User-Agent": {""}}, "", false},
		{"newlines in values", "http://h:1/x", body, http.Header{"X-A": {"one\r\ntwo", " padded "}, "Authorization": {"Bearer k"}}, "", false},
		{"host override", "http://10.0.0.1:80/x", body, nil, "api.example.com", false},
		{"IPv6 host", "http://[::1]:8000/x", body, nil, "", false},
		// Others take Request.Write's own path.
		{"non-ASCII host", "http://127.0.0.1/x", body, nil, "bücher.example", false},
		{"a Connection header", "http://h:1/x", body, http.Header{"Connection": {"keep-alive"}}, "", false},
		{"a large body", "http://h:1/x", strings.Repeat("x", 1<<20), nil, "", false},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodPost, tt.url, strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range tt.header {
			req.Header[k] = vs
		}
		req.Host = tt.host
		var got bytes.Buffer
		if err := appendRequest(&got, req, tt.close); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		ref := req.Clone(req.Context())
		ref.Body, _ = req.GetBody()
		ref.Close = tt.close
		var want bytes.Buffer
		if err := ref.Write(&want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got.Bytes()[:min(got.Len(), 400)], want.Bytes()[:min(want.Len(), 400)])
		}
		// The request can be written again, for a retry.
		var again bytes.Buffer
		if err := appendRequest(&again, req, tt.close); err != nil || !bytes.Equal(again.Bytes(), got.Bytes()) {
			t.Errorf("%s: written again: %v, equal %v", tt.name, err, bytes.Equal(again.Bytes(), got.Bytes()))
		}
	}
}
