package transport_test

import (
	"context"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// newWireServer answers each request with one completion token, but
// closes without answering a request that asks to keep its connection
// when hangUp is set; requests returns every request's bytes as they
// arrived.
func newWireServer(t *testing.T, hangUp bool) (srv *rawServer, requests func() [][]byte) {
	t.Helper()
	body := completionEvent("a", 1, "stop") + "data: [DONE]\n\n"
	answer := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
		strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\n\r\n"
	var mu sync.Mutex // guards got
	var got [][]byte
	srv = newRequestServer(t, func(_ int, req *http.Request) (string, bool) {
		b, _ := httputil.DumpRequest(req, true)
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
		if hangUp && !req.Close {
			return "", true
		}
		return answer, false
	})
	return srv, func() [][]byte {
		mu.Lock()
		defer mu.Unlock()
		return append([][]byte(nil), got...)
	}
}

// A request the event loop encoded ahead is sent as Do sends it: the
// server reads the same bytes, and the answer reads into the same record;
// and when the pooled connection it went out on is closed before any
// answer, it is sent once more, on a new connection, as Do's is.
func TestEncodedRequestsGoOutAsDoSendsThem(t *testing.T) {
	a, _ := backend.Lookup("openai")
	for _, hangUp := range []bool{false, true} {
		srv, requests := newWireServer(t, hangUp)
		tr := newTransport(t, transport.EventLoop, srv.url(), transport.Options{Conns: 1})
		enc, ok := tr.(transport.Encoder)
		if !ok {
			t.Fatal("the event loop is no Encoder")
		}
		build := func() *http.Request {
			req, err := a.BuildRequest(context.Background(), srv.url(), "", &backend.Request{Model: "m", Prompt: "hello", MaxTokens: 4,
				Headers: http.Header{"X-Test": {"yes"}}, RequestID: "r-1"})
			if err != nil {
				t.Fatal(err)
			}
			return req
		}
		var recs [2]*record.Record
		var exs [2]transport.Exchange
		for i := range recs {
			if err := tr.Warm(context.Background(), build(), 1); err != nil {
				t.Fatal(err)
			}
			recs[i] = &record.Record{}
			var err error
			if i == 0 {
				exs[i], err = tr.Do(context.Background(), build(), clock(), a.NewReader(recs[i]))
			} else {
				e, eerr := enc.Encode(build())
				if eerr != nil {
					t.Fatal(eerr)
				}
				exs[i], err = enc.Send(context.Background(), e, clock(), a.NewReader(recs[i]))
			}
			if err != nil || !recs[i].OK() || recs[i].OutputTokens != 1 || exs[i].Retried != hangUp {
				t.Fatalf("hang-up %v, request %d (encoded: %v): %v, record %s %s, %d tokens, retried %v", hangUp, i, i == 1, err, recs[i].Error, recs[i].Msg, recs[i].OutputTokens, exs[i].Retried)
			}
		}
		got := requests()
		want := 2
		if hangUp {
			want = 4 // each sent twice
		}
		if len(got) != want {
			t.Fatalf("hang-up %v: the server read %d requests, want %d", hangUp, len(got), want)
		}
		half := want / 2
		for i := range half {
			if string(got[i]) != string(got[half+i]) {
				t.Errorf("hang-up %v: Do sent\n%s\nand the encoded request\n%s", hangUp, got[i], got[half+i])
			}
		}
	}
}

// A request encoded by one transport is not sent by another.
func TestEncodedRequestsStayWithTheirTransport(t *testing.T) {
	srv, requests := newWireServer(t, false)
	one := newTransport(t, transport.EventLoop, srv.url(), transport.Options{Conns: 1}).(transport.Encoder)
	other := newTransport(t, transport.EventLoop, srv.url(), transport.Options{Conns: 1}).(transport.Encoder)
	req, _ := http.NewRequest(http.MethodPost, srv.url()+"/v1/completions", strings.NewReader("{}"))
	e, err := one.Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Send(context.Background(), e, clock(), nil); err == nil || !strings.Contains(err.Error(), "another transport") {
		t.Errorf("sent by another transport: %v", err)
	}
	if n := len(requests()); n != 0 {
		t.Errorf("the server read %d requests", n)
	}
}
