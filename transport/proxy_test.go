package transport

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// discardReceiver reads a response to its end and keeps its error.
type discardReceiver struct {
	buf    [4096]byte
	status int
	err    error
}

func (r *discardReceiver) Header(resp *http.Response) { r.status = resp.StatusCode }
func (r *discardReceiver) Buffer() []byte             { return r.buf[:] }
func (r *discardReceiver) Filled(int, int64) bool     { return true }
func (r *discardReceiver) End(err error, _ int64) {
	if err != io.EOF {
		r.err = err
	}
}

// Through a proxy, the connections warmed are the proxy's, which net/http
// sends the requests on: none is dialled when due, and the server's
// address, which only the proxy can reach, is never dialled.
func TestWarmThroughAProxy(t *testing.T) {
	const n = 4
	var opened atomic.Int32
	proxy := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Host != "upstream.invalid" {
			http.Error(w, "not proxied: "+r.URL.String(), http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	proxy.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			opened.Add(1)
		}
	}
	proxy.Start()
	defer proxy.Close()
	proxyURL, _ := url.Parse(proxy.URL)

	h := newNetHTTP(Options{Conns: n})
	defer h.Close()
	h.client.Transport.(*http.Transport).Proxy = http.ProxyURL(proxyURL)
	req, _ := http.NewRequest(http.MethodPost, "http://upstream.invalid/v1/completions", nil)
	if err := h.Warm(context.Background(), req, n); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second) // the proxy counts as it accepts
	for opened.Load() < n+2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := opened.Load(); got != n+2 {
		t.Fatalf("after Warm the proxy saw %d connections, want %d", got, n+2)
	}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r discardReceiver
			req, _ := http.NewRequest(http.MethodPost, "http://upstream.invalid/v1/completions", nil)
			if _, err := h.Do(context.Background(), req, func() int64 { return 0 }, &r); err != nil || r.err != nil || r.status != http.StatusOK {
				t.Errorf("through the proxy: %v %v, status %d", err, r.err, r.status)
			}
		}()
	}
	wg.Wait()
	if s := h.Stats(); s.Late != 0 || s.Warmed != n+2 || opened.Load() != n+2 {
		t.Errorf("stats %+v, %d connections to the proxy; want %d warmed, none late", s, opened.Load(), n+2)
	}
}
