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
// loop's workers and the default spares (two here); an open loop's
// requests of its first second and a quarter more (within its cap), and
// as spares those of the AheadWindow after it, which its schedule knows.
// With them, no request of the run dials when due; cold, every connection
// is dialled by the request that needs it.
func TestRunOpensConnectionsBeforeTheStart(t *testing.T) {
	offs := make([]time.Duration, 12)
	for i := range offs {
		offs[i] = time.Duration(i) * 5 * time.Millisecond
	}
	// 150 requests over 1.5 s: the 100 of the first second and 25 more
	// are opened before the start, and the 10 of the next 100 ms as
	// spares. For a server whose idle connections hold its workers, only
	// the 10 of the first 100 ms and 3 more, and the 10 after them: the
	// spares dial the rest as they come due.
	long := make([]time.Duration, 150)
	for i := range long {
		long[i] = time.Duration(i) * 10 * time.Millisecond
	}
	lean := Plan{Offsets: long, IdleHoldsWorker: true}
	plans := []struct {
		name          string
		plan          Plan
		conns, spares int64 // opened before the start
	}{
		{"closed loop of 8", Plan{Concurrency: 8, Count: 24}, 8, 2},
		// 12 requests in the first 100 ms, each taking 30 ms: at most 7
		// are in flight, but the start cannot know it; none comes later.
		{"open loop", Plan{Offsets: offs}, 12, 0},
		{"open loop capped at 4", Plan{Offsets: offs, Concurrency: 4}, 4, 0},
		{"open loop longer than the window", Plan{Offsets: long}, 125, 10},
		{"open loop, idle connections hold the server's workers", lean, 13, 10},
	}
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		for _, p := range plans {
			for _, cold := range []bool{false, true} {
				srv, opened := dialCounter(30 * time.Millisecond)
				tr := newTransport(t, kind, srv.URL, ClientOptions{Conns: max(p.plan.Concurrency, len(p.plan.Offsets), 12), Cold: cold})
				d := oneTokenDoer(tr, srv.URL)
				out := make(chan *record.Record, max(p.plan.Count, len(p.plan.Offsets)))
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
				case !cold && (s.Warmed != p.conns+p.spares || s.Late != 0):
					t.Errorf("%s: %+v; want %d and %d spares opened before the start, none dialled when due", p.name, s, p.conns, p.spares)
				case !cold && p.plan.Concurrency > 0 && s.Dialled() > int64(2*p.plan.Concurrency):
					t.Errorf("%s: %+v; a cap of %d needs its own connections and as many spares, no more", p.name, s, p.plan.Concurrency)
				case cold && (s.Warmed != 0 || s.Ahead != 0 || s.Late == 0 || s.Late != opened.Load()):
					t.Errorf("%s, cold: %+v, server saw %d; want every connection dialled when due", p.name, s, opened.Load())
				}
				srv.Close()
			}
		}
	})
}

// A burst of an open loop (every request due at once) is given its
// connections before the start, so that it dials nothing while it goes
// out, and leaves no spares behind it: no request comes after it, so
// nothing is dialled, not as many again.
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
		if s.Warmed != n || s.Late != 0 {
			t.Errorf("%+v: want %d opened before the start, none dialled when due", s, n)
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
