package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// Quiet tells a server that stopped sending from one that streams: while
// a request waits on a stream that went silent after its first event, the
// silence grows from that event; while tokens flow it stays under a
// tenth of a second and a little; with nothing waiting it is not reported.
func TestQuietTellsASilentServer(t *testing.T) {
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		release := make(chan struct{})
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			if r.URL.Query().Get("stall") == "" {
				for range 12 { // a token every 50 ms
					io.WriteString(w, `data: {"choices":[{"text":"a"}]}`+"\n\n")
					w.(http.Flusher).Flush()
					time.Sleep(50 * time.Millisecond)
				}
				io.WriteString(w, "data: [DONE]\n\n")
				return
			}
			io.WriteString(w, `data: {"choices":[{"text":"a"}]}`+"\n\n")
			w.(http.Flusher).Flush()
			select { // silent until told or given up on
			case <-release:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(ts.Close)
		t.Cleanup(func() { close(release) })
		a, err := backend.Lookup("openai")
		if err != nil {
			t.Fatal(err)
		}
		d := &HTTP{Transport: newTransport(t, kind, ts.URL, ClientOptions{Conns: 2}), Adapter: a, BaseURL: ts.URL, Timeout: 10 * time.Second,
			Request: func(int64) (backend.Request, int) { return backend.Request{Prompt: "x", MaxTokens: 12}, 1 }}
		if w, s := d.Quiet(); w != 0 || s != 0 {
			t.Fatalf("before any request: %d waiting, silent %v", w, s)
		}
		epoch := time.Now()
		now := func() int64 { return int64(time.Since(epoch)) }
		streaming := make(chan struct{})
		go func() {
			defer close(streaming)
			d.Do(context.Background(), 0, &record.Record{}, now)
		}()
		time.Sleep(300 * time.Millisecond)
		if w, s := d.Quiet(); w != 1 || s > 200*time.Millisecond {
			t.Errorf("while tokens flow: %d waiting, silent %v", w, s)
		}
		<-streaming

		d.Endpoint = "/v1/completions?stall=1"
		ctx, cancel := context.WithCancel(context.Background())
		stalled := make(chan struct{})
		go func() {
			defer close(stalled)
			d.Do(ctx, 1, &record.Record{}, now)
		}()
		time.Sleep(700 * time.Millisecond)
		w, s := d.Quiet()
		if w != 1 || s < 500*time.Millisecond || s > 5*time.Second {
			t.Errorf("after 0.7 s of a silent stream: %d waiting, silent %v", w, s)
		}
		cancel()
		<-stalled
		if w, s := d.Quiet(); w != 0 || s != 0 {
			t.Errorf("after the request ended: %d waiting, silent %v", w, s)
		}
	})
}
