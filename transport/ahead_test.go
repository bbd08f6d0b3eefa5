package transport_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/transport"
)

// countingServer is an httptest server that counts the connections it
// accepted and closed, and the requests it served; each request waits at
// the barrier, when one is set, until that many are in flight.
type countingServer struct {
	*httptest.Server
	opened, closed, reqs atomic.Int32

	mu      sync.Mutex // guards waiting
	waiting []chan struct{}
	barrier int
}

func newCountingServer(t *testing.T, barrier int, configure func(*http.Server)) *countingServer {
	t.Helper()
	s := &countingServer{barrier: barrier}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.reqs.Add(1)
		if s.barrier > 0 {
			s.await()
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, completionEvent("a", 1, "stop")+"data: [DONE]\n\n")
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.closed.Add(1)
		}
	}
	if configure != nil {
		configure(s.Config)
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

// await holds a request until barrier requests are in flight (or 5 s).
func (s *countingServer) await() {
	ch := make(chan struct{})
	s.mu.Lock()
	s.waiting = append(s.waiting, ch)
	if len(s.waiting) == s.barrier {
		for _, w := range s.waiting {
			close(w)
		}
		s.waiting = nil
	}
	s.mu.Unlock()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
	}
}

// eventually waits up to 5 s for cond, checking every millisecond.
func eventually(cond func() bool) bool {
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

func postTo(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/v1/completions", nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// Warm opens the connections a run's start needs and the spares beyond
// them, and sends nothing on them; the start's requests then take them,
// and nothing is dialled: not the requests, and not the dialler, since
// the spares are still idle. Cold, the same requests each dial when due,
// and say so.
func TestWarmOpensConnectionsFirst(t *testing.T) {
	const n = 8
	each(t, func(t *testing.T, kind transport.Kind) {
		for _, cold := range []bool{false, true} {
			srv := newCountingServer(t, n, nil)
			tr := newTransport(t, kind, srv.URL, transport.Options{Conns: n, Cold: cold})
			if err := tr.Warm(context.Background(), postTo(t, srv.URL), n); err != nil {
				t.Fatal(err)
			}
			warmed := int32(n + 2) // the default spares: max(2, n/16)
			if cold {
				warmed = 0
			}
			if !eventually(func() bool { return srv.opened.Load() == warmed }) || srv.reqs.Load() != 0 {
				t.Fatalf("cold %v: after Warm the server saw %d connections and %d requests, want %d and none", cold, srv.opened.Load(), srv.reqs.Load(), warmed)
			}
			exchangeAtOnce(t, tr, srv.URL, n)
			s := tr.Stats()
			if cold {
				if s.DialAhead || s.Warmed != 0 || s.Late != n || s.LateWait <= 0 || srv.opened.Load() != n {
					t.Errorf("cold: stats %+v, %d connections; want %d dialled when due", s, srv.opened.Load(), n)
				}
				continue
			}
			if !s.DialAhead || s.Warmed != n+2 || s.Ahead != 0 || s.Late != 0 || srv.opened.Load() != n+2 {
				t.Errorf("ahead: stats %+v, %d connections; want %d and 2 spares opened before, none after", s, srv.opened.Load(), n)
			}
		}
	})
}

// Ahead keeps spare connections dialled beyond those in use: raising it
// opens more, idle, with no request sent.
func TestAheadKeepsSpares(t *testing.T) {
	each(t, func(t *testing.T, kind transport.Kind) {
		srv := newCountingServer(t, 0, nil)
		tr := newTransport(t, kind, srv.URL, transport.Options{Conns: 4, Spare: 1})
		if err := tr.Warm(context.Background(), postTo(t, srv.URL), 1); err != nil {
			t.Fatal(err)
		}
		tr.Ahead(5)
		if !eventually(func() bool { return tr.Stats().Ahead == 3 }) {
			t.Fatalf("stats %+v: Ahead(5) after one warm connection and its spare should dial 3", tr.Stats())
		}
		if !eventually(func() bool { return srv.opened.Load() == 5 }) || srv.reqs.Load() != 0 {
			t.Errorf("server saw %d connections and %d requests, want 5 and none", srv.opened.Load(), srv.reqs.Load())
		}
	})
}

// A server that closes every connection after its response, although it
// says Keep-Alive (llama.cpp's does): with dialling ahead each request
// finds a fresh connection waiting, none dials when due, and none meets
// a closed one and needs sending again.
func TestDialAheadWhenTheServerClosesEveryConnection(t *testing.T) {
	stream := completionEvent("a", 1, "stop") + "data: [DONE]\n\n"
	answer := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: %d\r\n\r\n%s", len(stream), stream)
	const requests = 8
	each(t, func(t *testing.T, kind transport.Kind) {
		for _, cold := range []bool{false, true} {
			srv := newRawServer(t, func(int) (string, bool) { return answer, true })
			tr := newTransport(t, kind, srv.url(), transport.Options{Conns: 1, Spare: 2, Cold: cold})
			if err := tr.Warm(context.Background(), postTo(t, srv.url()), 1); err != nil {
				t.Fatal(err)
			}
			for i := range requests {
				if i > 0 {
					// Requests a while apart, as a paced run sends them:
					// time for the server's close to arrive and for a
					// spare to be dialled.
					time.Sleep(50 * time.Millisecond)
				}
				rec, ex := exchange(t, tr, context.Background(), srv.url(), "hi", clock(), nil)
				if !rec.OK() || (ex.Retried && !cold) {
					t.Errorf("cold %v, request %d: %s %s, retried %v", cold, i, rec.Error, rec.Msg, ex.Retried)
				}
			}
			s := tr.Stats()
			switch {
			case !cold && (s.Late != 0 || s.Warmed != 3 || s.Warmed+s.Ahead < requests):
				t.Errorf("ahead: stats %+v; want every request on a connection dialled before it", s)
			case cold && s.Late < requests:
				t.Errorf("cold: stats %+v; want every request to dial when due", s)
			}
			if srv.reqs.Load() != requests {
				t.Errorf("cold %v: the server read %d requests, want %d: none sent twice", cold, srv.reqs.Load(), requests)
			}
		}
	})
}

// An idle connection the server closes (its keep-alive timeout) is
// dropped, and the next request goes out on a live one, not sent twice.
func TestIdleConnectionsTheServerClosed(t *testing.T) {
	each(t, func(t *testing.T, kind transport.Kind) {
		// A connection that carries no request within 200 ms is closed:
		// long enough that the spare dialled for the closed ones is not
		// closed too just as the request takes it.
		srv := newCountingServer(t, 0, func(s *http.Server) { s.ReadHeaderTimeout = 200 * time.Millisecond })
		tr := newTransport(t, kind, srv.URL, transport.Options{Conns: 2, Spare: 1})
		if err := tr.Warm(context.Background(), postTo(t, srv.URL), 2); err != nil {
			t.Fatal(err)
		}
		// Warm opened the 2 and the spare.
		if !eventually(func() bool { return srv.closed.Load() >= 3 }) {
			t.Fatalf("the server closed %d of its 3 idle connections", srv.closed.Load())
		}
		// The server counts a close as it makes it; the client's socket
		// sees the FIN a moment later, which on a loaded machine can be
		// after the request below takes the connection. What is checked
		// is that a close already seen is never used.
		time.Sleep(20 * time.Millisecond)
		rec, ex := exchange(t, tr, context.Background(), srv.URL, "hi", clock(), nil)
		if !rec.OK() || ex.Retried {
			t.Errorf("%s %s, retried %v", rec.Error, rec.Msg, ex.Retried)
		}
		if s := tr.Stats(); s.Dead < 1 {
			t.Errorf("stats %+v: the closed connections should count as dead", s)
		}
	})
}
