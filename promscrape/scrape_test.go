package promscrape

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestScrape(t *testing.T) {
	var accept string
	body := "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\"} 3\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		accept = r.Header.Get("Accept")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()

	before := time.Now()
	s, err := Scrape(context.Background(), srv.Client(), srv.URL+"/metrics")
	if err != nil {
		t.Fatal(err)
	}
	if s.Engine != VLLM || s.Gauges[Running] != 3 {
		t.Errorf("snapshot = %+v, want vLLM with 3 running", s)
	}
	if s.At.Before(before) || s.At.After(time.Now()) {
		t.Errorf("At = %v, want a time during the scrape", s.At)
	}
	// The classic text format is asked for, so that negotiating servers do
	// not answer OpenMetrics.
	if !strings.HasPrefix(accept, "text/plain;version=0.0.4") {
		t.Errorf("Accept = %q, want the text format first", accept)
	}
}

// TestScrapeOptions checks that a Scraper's model filter and clock reach the
// snapshot.
func TestScrapeOptions(t *testing.T) {
	srv := serveFile(t, "vllm.prom")
	s := Scraper{URL: srv.URL, Client: srv.Client(), Model: qwen, Now: func() time.Time { return at(7) }}
	snap, err := s.Scrape(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := snap.Counter(PromptTokens); got != 500 {
		t.Errorf("Qwen prompt tokens = %v, want 500", got)
	}
	if !snap.At.Equal(at(7)) {
		t.Errorf("At = %v, want the injected clock's %v", snap.At, at(7))
	}
}

// A server that guards /metrics with its API key (llama-server
// --api-key) is scraped with the Header given; without it, or with a
// wrong key, the failure says so.
func TestScrapeSendsTheHeader(t *testing.T) {
	body := "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\"} 3\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, `{"error":{"message":"Invalid API Key"}}`, http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	for _, tc := range []struct {
		key, want string
	}{
		{"Bearer k", ""},
		{"", "the server guards /metrics: give it the API key"},
		{"Bearer x", "the server refused the API key sent"},
	} {
		s := Scraper{URL: srv.URL + "/metrics", Client: srv.Client()}
		if tc.key != "" {
			s.Header = http.Header{"Authorization": {tc.key}}
		}
		snap, err := s.Scrape(context.Background())
		switch {
		case tc.want == "" && (err != nil || snap.Gauges[Running] != 3):
			t.Errorf("key %q: %v, %+v", tc.key, err, snap)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "401")):
			t.Errorf("key %q: %v, want a 401 that says %q", tc.key, err, tc.want)
		}
	}
}

func TestScrapeFailures(t *testing.T) {
	tests := []struct {
		name     string
		url      func(t *testing.T) string
		scraper  Scraper // URL is filled in
		wantKind FailureKind
		wantMsg  string // the error must contain this, and the URL
		wantIs   error
	}{
		// Nothing listens: connection refused.
		{"down", func(t *testing.T) string { return downURL(t) }, Scraper{}, FailDown, "server down", nil},
		// The server holds the request past the timeout.
		{"slow", func(t *testing.T) string { return serveSlow(t).URL }, Scraper{Timeout: 100 * time.Millisecond},
			FailTimeout, "no complete response within 100ms", context.DeadlineExceeded},
		// A body that is not an exposition: the error names the line.
		{"garbage", func(t *testing.T) string { return serveText(t, "{\"error\": \"not metrics\"}\n").URL }, Scraper{},
			FailMalformed, "line 1", nil},
		// 10 MB streamed without a length: cut at the 8 MiB limit.
		{"too large streamed", func(t *testing.T) string { return serveHuge(t).URL }, Scraper{},
			FailTooLarge, "more than the 8 MiB limit", ErrTooLarge},
		// 10 MB announced: refused before reading.
		{"too large announced", func(t *testing.T) string { return serveHugeAnnounced(t).URL }, Scraper{},
			FailTooLarge, "10000000 bytes announced, over the 8 MiB limit", ErrTooLarge},
		// A smaller limit applies the same way.
		{"custom limit", func(t *testing.T) string { return serveFile(t, "vllm.prom").URL }, Scraper{MaxBytes: 1024},
			FailTooLarge, "the 1 KiB limit", ErrTooLarge},
		// An error status.
		{"status", func(t *testing.T) string { return serveStatus(t, http.StatusServiceUnavailable).URL }, Scraper{},
			FailStatus, `http status 503 Service Unavailable: "engine not ready"`, nil},
		// An error status with no body: the status alone.
		{"status without body", func(t *testing.T) string {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }))
			t.Cleanup(srv.Close)
			return srv.URL + "/metrics"
		}, Scraper{}, FailStatus, "http status 404 Not Found", nil},
		// Not a URL at all: nothing is sent.
		{"bad url", func(*testing.T) string { return "localhost/metrics" }, Scraper{},
			FailOther, "scheme must be http or https", nil},
		// An engine that does not exist: nothing is sent either.
		{"bad engine", func(t *testing.T) string { return serveFile(t, "vllm.prom").URL }, Scraper{Engine: "triton"},
			FailOther, `unknown engine "triton"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.scraper
			s.URL = tt.url(t)
			_, err := s.Scrape(context.Background())
			var se *ScrapeError
			if !errors.As(err, &se) {
				t.Fatalf("error = %v, want a *ScrapeError", err)
			}
			if se.Kind != tt.wantKind {
				t.Errorf("kind = %q, want %q (error %v)", se.Kind, tt.wantKind, err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.wantMsg) || !strings.Contains(msg, s.URL) {
				t.Errorf("error = %q, want it to name %q and contain %q", msg, s.URL, tt.wantMsg)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error = %v, want it to wrap %v", err, tt.wantIs)
			}
		})
	}
}

// TestScrapeCanceled checks that a caller's cancellation is told apart from
// a server that is slow.
func TestScrapeCanceled(t *testing.T) {
	srv := serveSlow(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := (&Scraper{URL: srv.URL, Timeout: 10 * time.Second}).Scrape(ctx)
	var se *ScrapeError
	if !errors.As(err, &se) || se.Kind != FailCanceled {
		t.Fatalf("error = %v, want kind %q", err, FailCanceled)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		s    Scraper
		want string // "" means valid
	}{
		{"minimal", Scraper{URL: "http://127.0.0.1:8000/metrics"}, ""},
		{"https with engine", Scraper{URL: "https://vllm.internal/metrics", Engine: VLLM}, ""},
		{"no scheme", Scraper{URL: "localhost:8000"}, "scheme must be http or https"},
		{"other scheme", Scraper{URL: "ftp://host/metrics"}, "scheme must be http or https"},
		{"no host", Scraper{URL: "http:///metrics"}, "no host"},
		{"unparsable", Scraper{URL: "http://[::1"}, `metrics url "http://[::1"`},
		{"empty", Scraper{}, "scheme must be http or https"},
		{"unknown engine", Scraper{URL: "http://h/metrics", Engine: "ollama"}, `unknown engine "ollama"`},
		{"negative interval", Scraper{URL: "http://h/metrics", Interval: -time.Second}, "interval -1s is negative"},
		{"negative timeout", Scraper{URL: "http://h/metrics", Timeout: -1}, "timeout -1ns is negative"},
		{"negative limit", Scraper{URL: "http://h/metrics", MaxBytes: -5}, "size limit -5 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{8 << 20, "8 MiB"},
		{1 << 10, "1 KiB"},
		{1536, "1536 bytes"}, // 1.5 KiB: not a whole unit
		{(1 << 20) + 1024, "1025 KiB"},
		{0, "0 bytes"},
		{1, "1 bytes"},
	}
	for _, tt := range tests {
		if got := byteSize(tt.n); got != tt.want {
			t.Errorf("byteSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
