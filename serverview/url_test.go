package serverview

import (
	"net/url"
	"strings"
	"testing"
)

func TestDefaultMetricsURL(t *testing.T) {
	tests := []struct {
		in, want string
		err      string // fragment of the error; empty when none is expected
	}{
		// vLLM's usual base URL: /v1 gives way to /metrics.
		{"http://gpu-7:8000/v1", "http://gpu-7:8000/metrics", ""},
		// A trailing slash after /v1 changes nothing.
		{"http://gpu-7:8000/v1/", "http://gpu-7:8000/metrics", ""},
		// No path at all.
		{"http://127.0.0.1:8000", "http://127.0.0.1:8000/metrics", ""},
		// Just a slash.
		{"https://api.example.com/", "https://api.example.com/metrics", ""},
		// Already the metrics URL: kept as it is.
		{"http://h:9090/metrics", "http://h:9090/metrics", ""},
		// A gateway prefix is kept.
		{"http://gw/llama/v1", "http://gw/llama/metrics", ""},
		// Query and fragment are dropped.
		{"http://h:8000/v1?key=x#top", "http://h:8000/metrics", ""},
		// No scheme: taken as http.
		{"localhost:8000", "http://localhost:8000/metrics", ""},
		// Surrounding spaces from a pasted URL.
		{"  http://h:8000/v1 \n", "http://h:8000/metrics", ""},
		// /v1 only goes when it is the last segment.
		{"http://h/v1/completions", "http://h/v1/completions/metrics", ""},
		// Empty.
		{"", "", "server url is empty"},
		// Only spaces.
		{"   ", "", "server url is empty"},
		// A scheme that is not HTTP.
		{"ftp://h/v1", "", `scheme "ftp" is not http or https`},
		// No host.
		{"http:///v1", "", "no host"},
		// Not a URL at all.
		{"http://h:port/", "", `server url "http://h:port/"`},
	}
	for _, tt := range tests {
		got, err := DefaultMetricsURL(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("DefaultMetricsURL(%q) = %q, %v; want error containing %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("DefaultMetricsURL(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// FuzzDefaultMetricsURL checks that any input gives either an error or an
// absolute http(s) URL whose path ends in /metrics, and that the result is
// a fixed point.
func FuzzDefaultMetricsURL(f *testing.F) {
	for _, s := range []string{"http://gpu-7:8000/v1", "localhost:8000", "http://h:9090/metrics", "", "ftp://x", "http://[::1]:8000/v1/", "http://h/%zz", "https://u:p@h/a/v1?x#y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := DefaultMetricsURL(in)
		if err != nil {
			return
		}
		u, perr := url.Parse(got)
		if perr != nil {
			t.Fatalf("DefaultMetricsURL(%q) = %q, which does not parse: %v", in, got, perr)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !strings.HasSuffix(u.Path, "/metrics") {
			t.Fatalf("DefaultMetricsURL(%q) = %q: not an absolute http(s) /metrics URL", in, got)
		}
		again, err := DefaultMetricsURL(got)
		if err != nil || again != got {
			t.Fatalf("DefaultMetricsURL(%q) = %q, %v; want it unchanged", got, again, err)
		}
	})
}
