package bench

import (
	"net/http"
	"testing"
)

// The API key goes with the scrapes of the server the requests go to, and
// to no other host: a --metrics-url elsewhere (a Prometheus, a sidecar)
// must not be handed it.
func TestScrapeHeaderKeepsTheKeyOnItsServer(t *testing.T) {
	auth := http.Header{"Authorization": {"Bearer k"}, "X-Other": {"v"}}
	for _, tc := range []struct {
		murl, base string
		headers    http.Header
		want       string
	}{
		{"http://gpu:8000/metrics", "http://gpu:8000", auth, "Bearer k"},
		{"http://gpu:8000/metrics", "http://gpu:8000/v1", auth, "Bearer k"},
		{"http://prom:9090/metrics", "http://gpu:8000", auth, ""},
		{"http://gpu:9100/metrics", "http://gpu:8000", auth, ""},
		{"https://gpu:8000/metrics", "http://gpu:8000", auth, ""},
		{"http://gpu:8000/metrics", "http://gpu:8000", http.Header{"X-Other": {"v"}}, ""},
	} {
		h := scrapeHeader(tc.murl, tc.base, tc.headers)
		if got := h.Get("Authorization"); got != tc.want || h.Get("X-Other") != "" {
			t.Errorf("scrape %s for %s: %v, want Authorization %q alone", tc.murl, tc.base, h, tc.want)
		}
	}
}
