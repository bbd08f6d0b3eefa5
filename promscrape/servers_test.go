package promscrape

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The misbehaving servers the scraper must survive. Each is started on
// 127.0.0.1 by httptest and closed when the test ends.

// serveFile answers with a fixture from testdata.
func serveFile(t testing.TB, name string) *httptest.Server {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return serveText(t, string(body))
}

// serveText answers every request with text, as a server's /metrics does.
func serveText(t testing.TB, text string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write([]byte(text))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// downURL returns the URL of a server that has already gone away.
func downURL(t testing.TB) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL + "/metrics"
	srv.Close()
	return u
}

// serveSlow answers only after the client gave up, or after a few seconds
// so that the test always ends.
func serveSlow(t testing.TB) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// tenMB is the size of the oversized answers: above the 8 MiB default.
const tenMB = 10_000_000

// serveHuge streams 10 MB of valid comment lines without announcing the
// length, so only counting the bytes read can stop it.
func serveHuge(t testing.TB) *httptest.Server {
	t.Helper()
	line := "# " + strings.Repeat("x", 97) + "\n" // 100 bytes
	chunk := []byte(strings.Repeat(line, 1000))   // 100 kB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for sent := 0; sent < tenMB; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the client stopped reading
			}
			if sent == 0 {
				w.(http.Flusher).Flush() // commit to chunked encoding: no Content-Length
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// serveHugeAnnounced announces 10 MB in Content-Length before sending it.
func serveHugeAnnounced(t testing.TB) *httptest.Server {
	t.Helper()
	chunk := []byte(strings.Repeat("# padding\n", 10_000)) // 100 kB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(tenMB))
		for sent := 0; sent < tenMB; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// serveStatus answers every request with an error status.
func serveStatus(t testing.TB, code int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "engine not ready", code)
	}))
	t.Cleanup(srv.Close)
	return srv
}
