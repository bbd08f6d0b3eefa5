package load

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// encodeCounter is the event loop, counting how requests reach it.
type encodeCounter struct {
	transport.Transport
	enc                  transport.Encoder
	encoded, sent, plain atomic.Int64
}

func (c *encodeCounter) Encode(req *http.Request) (*transport.Encoded, error) {
	c.encoded.Add(1)
	return c.enc.Encode(req)
}

func (c *encodeCounter) Send(ctx context.Context, e *transport.Encoded, now func() int64, r transport.Receiver) (transport.Exchange, error) {
	c.sent.Add(1)
	return c.enc.Send(ctx, e, now, r)
}

func (c *encodeCounter) Do(ctx context.Context, req *http.Request, now func() int64, r transport.Receiver) (transport.Exchange, error) {
	c.plain.Add(1)
	return c.Transport.Do(ctx, req, now, r)
}

// A request prepared ahead is encoded for the wire then too, when the
// transport can and its body is small, and sent as encoded; one built when
// due, one with a large body, or one sent to another endpoint than it was
// built for goes out through Do.
func TestPreparedRequestsGoOutEncoded(t *testing.T) {
	srv, _ := dialCounter(0)
	defer srv.Close()
	other, _ := dialCounter(0)
	defer other.Close()
	tr := newTransport(t, transport.EventLoop, srv.URL, ClientOptions{Conns: 4})
	c := &encodeCounter{Transport: tr, enc: tr.(transport.Encoder)}
	a, _ := backend.Lookup("openai")
	prompt := func(seq int64) string {
		if seq == 1 {
			return strings.Repeat("p", encodeAhead+1)
		}
		return "x"
	}
	h := &HTTP{Transport: c, Adapter: a, BaseURL: srv.URL,
		Request: func(seq int64) (backend.Request, int) {
			return backend.Request{Prompt: prompt(seq), MaxTokens: 1}, 1
		}}
	epoch := time.Now()
	now := func() int64 { return int64(time.Since(epoch)) }
	send := func(seq int64) {
		t.Helper()
		rec := &record.Record{Seq: seq}
		h.Do(context.Background(), seq, rec, now)
		if !rec.OK() || rec.OutputTokens != 1 {
			t.Fatalf("request %d: %s %s, %d tokens", seq, rec.Error, rec.Msg, rec.OutputTokens)
		}
	}
	h.Prepare(0)
	h.Prepare(1)
	send(0) // prepared, small: encoded
	send(1) // prepared, large body
	send(2) // not prepared
	if e, s, p := c.encoded.Load(), c.sent.Load(), c.plain.Load(); e != 1 || s != 1 || p != 2 {
		t.Errorf("encoded %d, sent encoded %d, through Do %d; want 1, 1, 2", e, s, p)
	}

	router, err := NewRouter([]string{srv.URL, other.URL}, BalanceRoundRobin)
	if err != nil {
		t.Fatal(err)
	}
	h.Router = router
	h.Prepare(3)
	h.Prepare(4)
	send(3)
	send(4) // to the second endpoint: built for the first
	if e, s, p := c.encoded.Load(), c.sent.Load(), c.plain.Load(); e != 3 || s != 2 || p != 3 {
		t.Errorf("with a router: encoded %d, sent encoded %d, through Do %d; want 3, 2, 3", e, s, p)
	}
}
