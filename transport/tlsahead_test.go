package transport_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/transport"
)

// tlsServer is an httptest TLS server that counts its handshakes and the
// requests that came over HTTP/2.
type tlsServer struct {
	*httptest.Server
	handshakes, reqs, h2 atomic.Int32
}

func newTLSServer(t *testing.T, http2 bool, tickets bool) *tlsServer {
	t.Helper()
	s := &tlsServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.reqs.Add(1)
		if r.ProtoMajor == 2 {
			s.h2.Add(1)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, completionEvent("a", 1, "stop")+"data: [DONE]\n\n")
	}))
	s.EnableHTTP2 = http2
	s.TLS = &tls.Config{
		SessionTicketsDisabled: !tickets,
		VerifyConnection: func(tls.ConnectionState) error {
			s.handshakes.Add(1)
			return nil
		},
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// Against an https:// server, Warm opens connections past their TLS
// handshake: the start's requests then shake no hands, over HTTP/1.1 or
// HTTP/2. The session tickets a TLS 1.3 server sends after the handshake
// do not make an idle connection look like one the server wrote to or
// closed (which would throw every warmed connection away).
func TestTLSConnectionsAreReadyAhead(t *testing.T) {
	const n = 8
	for _, tt := range []struct {
		name           string
		http2, tickets bool
	}{{"http1.1", false, true}, {"http2", true, true}, {"no-tickets", false, false}} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTLSServer(t, tt.http2, tt.tickets)
			tr := newTransport(t, transport.NetHTTP, srv.URL, transport.Options{Conns: n, Insecure: true})
			if err := tr.Warm(context.Background(), postTo(t, srv.URL), n); err != nil {
				t.Fatal(err)
			}
			const warmed = n + 2 // and the default spares
			// The server counts a handshake when it has the client's last
			// message, a moment after the client's handshake returned.
			if !eventually(func() bool { return srv.handshakes.Load() == warmed }) || srv.reqs.Load() != 0 {
				t.Fatalf("after Warm: %d handshakes and %d requests, want %d and none", srv.handshakes.Load(), srv.reqs.Load(), warmed)
			}
			time.Sleep(20 * time.Millisecond) // whatever the server sends unasked has arrived
			exchangeAtOnce(t, tr, srv.URL, n)
			s := tr.Stats()
			if s.Late != 0 || s.Dead != 0 || s.Warmed != int64(warmed) {
				t.Errorf("after %d requests: stats %+v; want %d warmed, none late or dead", n, s, warmed)
			}
			// Each request took a warmed connection, or over HTTP/2 shared
			// one; the spares taken are dialled again, ahead.
			if !eventually(func() bool { return srv.handshakes.Load() == warmed+int32(tr.Stats().Ahead) }) {
				t.Errorf("after %d requests: %d handshakes; want the %d warmed and %d dialled ahead", n, srv.handshakes.Load(), warmed, tr.Stats().Ahead)
			}
			wantH2 := int32(0)
			if tt.http2 {
				wantH2 = n
			}
			if srv.reqs.Load() != n || srv.h2.Load() != wantH2 {
				t.Errorf("%d requests, %d of them over HTTP/2; want %d and %d", srv.reqs.Load(), srv.h2.Load(), n, wantH2)
			}
		})
	}
}

// A pooled TLS connection the server closed while it idled is found
// closed and replaced, not handed to a request.
func TestIdleTLSConnectionsTheServerClosed(t *testing.T) {
	srv := newTLSServer(t, false, true)
	tr := newTransport(t, transport.NetHTTP, srv.URL, transport.Options{Conns: 2, Spare: 1, Insecure: true})
	if err := tr.Warm(context.Background(), postTo(t, srv.URL), 2); err != nil {
		t.Fatal(err)
	}
	srv.CloseClientConnections()
	time.Sleep(20 * time.Millisecond)
	if rec, _ := exchange(t, tr, context.Background(), srv.URL, "hi", clock(), nil); !rec.OK() {
		t.Fatalf("%s %s", rec.Error, rec.Msg)
	}
	if s := tr.Stats(); s.Dead == 0 {
		t.Errorf("stats %+v: want the closed connections counted dead", s)
	}
}
