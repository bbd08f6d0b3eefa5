package load

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// Run opens the connections the start needs before the epoch: a closed
// loop's workers, an open loop's first second of requests (within its
// cap), and the spares beyond them (two here). With them, no request of
// the run dials when due; cold, every connection is dialled by the
// request that needs it.
func TestRunOpensConnectionsBeforeTheStart(t *testing.T) {
	offs := make([]time.Duration, 12)
	for i := range offs {
		offs[i] = time.Duration(i) * 5 * time.Millisecond
	}
	plans := []struct {
		name  string
		plan  Plan
		conns int64 // opened before the start, less the spares
	}{
		{"closed loop of 8", Plan{Concurrency: 8, Count: 24}, 8},
		// 12 requests in the first second, each taking 30 ms: at most 7
		// are in flight, but the start cannot know it.
		{"open loop", Plan{Offsets: offs}, 12},
		{"open loop capped at 4", Plan{Offsets: offs, Concurrency: 4}, 4},
	}
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		for _, p := range plans {
			for _, cold := range []bool{false, true} {
				srv, opened := dialCounter(30 * time.Millisecond)
				tr := newTransport(t, kind, srv.URL, ClientOptions{Conns: max(p.plan.Concurrency, 12), Cold: cold})
				d := oneTokenDoer(tr, srv.URL)
				out := make(chan *record.Record, 64)
				if _, err := Run(t.Context(), p.plan, d, out); err != nil {
					t.Fatal(err)
				}
				close(out)
				for r := range out {
					if !r.OK() {
						t.Fatalf("%s: %s %s", p.name, r.Error, r.Msg)
					}
				}
				s := tr.Stats()
				switch {
				case !cold && (s.Warmed != p.conns+2 || s.Late != 0):
					t.Errorf("%s: %+v; want %d and 2 spares opened before the start, none dialled when due", p.name, s, p.conns)
				case cold && (s.Warmed != 0 || s.Ahead != 0 || s.Late == 0 || s.Late != opened.Load()):
					t.Errorf("%s, cold: %+v, server saw %d; want every connection dialled when due", p.name, s, opened.Load())
				}
				srv.Close()
			}
		}
	})
}

// A burst of an open loop (every request due at once) is given its
// connections and the spares beyond them before the start, so that it
// dials nothing while it goes out, and leaves no burst of spares behind
// it: once its requests have taken their connections, the spares of the
// default are still there and nothing is dialled, not as many again.
func TestABurstLeavesNoBurstOfSpares(t *testing.T) {
	const n = 40
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		srv, _ := dialCounter(50 * time.Millisecond)
		defer srv.Close()
		tr := newTransport(t, kind, srv.URL, ClientOptions{Conns: n})
		d := oneTokenDoer(tr, srv.URL)
		out := make(chan *record.Record, n)
		if _, err := Run(t.Context(), Plan{Offsets: make([]time.Duration, n)}, d, out); err != nil {
			t.Fatal(err)
		}
		close(out)
		for r := range out {
			if !r.OK() {
				t.Fatalf("%s %s", r.Error, r.Msg)
			}
		}
		s := tr.Stats()
		if s.Warmed != n+2 || s.Late != 0 {
			t.Errorf("%+v: want %d and 2 spares opened before the start, none dialled when due", s, n)
		}
		if s.Ahead != 0 {
			t.Errorf("%d connections dialled during the run for a burst of %d that had its own (%+v)", s.Ahead, n, s)
		}
	})
}

// dialCounter starts a server that answers every request with one token
// after wait, and counts the connections it accepts.
func dialCounter(wait time.Duration) (*httptest.Server, *atomic.Int64) {
	opened := &atomic.Int64{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		time.Sleep(wait)
		fmt.Fprint(w, `data: {"choices":[{"index":0,"text":" a","finish_reason":"length"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	return srv, opened
}

// oneTokenDoer sends every request for one token through tr to url.
func oneTokenDoer(tr transport.Transport, url string) *HTTP {
	a, _ := backend.Lookup("openai")
	return &HTTP{Transport: tr, Adapter: a, BaseURL: url,
		Request: func(int64) (backend.Request, int) { return backend.Request{Prompt: "x", MaxTokens: 1}, 1 }}
}
