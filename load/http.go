package load

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
)

// HTTP is a Doer that sends each request through a protocol adapter to a
// server and reads its stream. Set the fields, then use it from any number
// of goroutines.
type HTTP struct {
	Client   *http.Client
	Adapter  *backend.Adapter
	BaseURL  string
	Endpoint string // empty: the adapter's default
	// Request returns what to ask for request seq, and its prompt length in
	// tokens (recorded even when the server reports none).
	Request func(seq int64) (req backend.Request, inputTokens int)
	// Timeout bounds one request from send to end of stream; 0 means none.
	Timeout time.Duration
	// Router, when set, spreads the requests over several endpoints
	// instead of BaseURL, keeping a session's or task's requests together
	// by the id in the record (Session, else Task) when its policy says
	// so, and names each record's endpoint.
	Router *Router

	mu       sync.Mutex // guards prepared
	prepared map[int64]prepared

	// fresh sends retries: Client's transport with keep-alives off, so a
	// retry never lands on another stale pooled connection. Built on the
	// first retry.
	freshOnce sync.Once
	fresh     *http.Client

	retried  atomic.Int64 // requests sent a second time
	chunks   atomic.Int64 // token-bearing chunks read
	usage    atomic.Int64 // tokens the servers reported, where they did
	counted  atomic.Int64 // chunks of the responses that reported a count
	mismatch atomic.Int64 // responses whose reported count differs from their chunk count
}

var (
	_ Doer     = (*HTTP)(nil)
	_ Preparer = (*HTTP)(nil)
)

// prepared is what Request returned for a request not yet sent.
type prepared struct {
	req      backend.Request
	inTokens int
}

// Prepare calls Request for seq ahead of its send, so that Do need not;
// see Preparer.
func (h *HTTP) Prepare(seq int64) {
	h.mu.Lock()
	_, done := h.prepared[seq]
	h.mu.Unlock()
	if done {
		return
	}
	req, in := h.Request(seq)
	h.mu.Lock()
	if h.prepared == nil {
		h.prepared = map[int64]prepared{}
	}
	h.prepared[seq] = prepared{req, in}
	h.mu.Unlock()
}

// request returns what to send for seq: what Prepare built, or Request's
// answer now.
func (h *HTTP) request(seq int64) (backend.Request, int) {
	h.mu.Lock()
	p, ok := h.prepared[seq]
	delete(h.prepared, seq)
	h.mu.Unlock()
	if ok {
		return p.req, p.inTokens
	}
	return h.Request(seq)
}

// Do performs request seq; see Doer.
//
// A request that fails on a reused connection before any response byte
// arrived is sent once more, on a new connection, and rec.Retries counts it:
// servers and gateways close kept-alive connections (an idle timeout, a
// limit of requests per connection, or, as llama.cpp's server does, after
// every streamed response although it says Keep-Alive), and a POST that
// races such a close fails with "EOF" or a reset the server never saw.
// The record keeps the first attempt's Scheduled and Sent, so TTFT counts
// the retry's cost. A request that got any response byte, timed out or was
// cancelled is never sent again.
func (h *HTTP) Do(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
	req, inTokens := h.request(seq)
	rec.InputTokens = inTokens
	rec.RequestID = req.RequestID
	if h.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.Timeout)
		defer cancel()
	}
	base := h.BaseURL
	if h.Router != nil {
		key := rec.Session
		if key == "" {
			key = rec.Task
		}
		i := h.Router.Pick(key)
		defer h.Router.Done(i)
		base = h.Router.URL(i)
		rec.Endpoint = base
	}
	hreq, err := h.Adapter.BuildRequest(ctx, base, h.Endpoint, &req)
	if err != nil {
		rec.Sent = now()
		rec.End = rec.Sent
		rec.Error, rec.Msg = record.ErrOther, err.Error()
		return
	}
	var conn atomic.Pointer[sniffConn] // the connection the request went out on
	hreq = hreq.WithContext(httptrace.WithClientTrace(hreq.Context(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			if c, ok := i.Conn.(*sniffConn); ok {
				conn.Store(c)
			}
		},
	}))
	rec.Sent = now()
	resp, err := h.send(ctx, hreq, rec)
	if err != nil {
		backend.RecordError(rec, err, now())
		if c := conn.Load(); c != nil && (rec.Error == record.ErrReset || rec.Error == record.ErrOther || rec.Error == record.ErrProtocol) {
			if first := c.notHTTP(); first != nil {
				rec.Error, rec.Msg = record.ErrProtocol, fmt.Sprintf("the server's answer is not HTTP: it begins %q (%s)", first, rec.Msg)
			}
		}
		return
	}
	st := h.Adapter.ReadStream(resp, now, rec)
	if rec.InputTokens == 0 {
		rec.InputTokens = inTokens
	}
	h.chunks.Add(int64(st.Chunks))
	if st.UsageTokens >= 0 {
		h.usage.Add(int64(st.UsageTokens))
		h.counted.Add(int64(st.Chunks))
		if st.Discrepancy() != 0 {
			h.mismatch.Add(1)
		}
	}
}

// send sends hreq, and once more on a new connection when it failed on a
// reused one before any response byte (see Do).
func (h *HTTP) send(ctx context.Context, hreq *http.Request, rec *record.Record) (*http.Response, error) {
	var reused, answered atomic.Bool // set by the transport's goroutines
	trace := &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { reused.Store(i.Reused) },
		GotFirstResponseByte: func() { answered.Store(true) },
	}
	first := hreq.WithContext(httptrace.WithClientTrace(hreq.Context(), trace))
	resp, err := h.Client.Do(first)
	if err == nil || !reused.Load() || answered.Load() || ctx.Err() != nil ||
		backend.ClassifyError(err) != record.ErrReset || hreq.GetBody == nil {
		return resp, err
	}
	body, gerr := hreq.GetBody()
	if gerr != nil {
		return nil, err
	}
	again := hreq.Clone(hreq.Context())
	again.Body = body
	rec.Retries++
	h.retried.Add(1)
	return h.freshClient().Do(again)
}

// freshClient returns the client for retries: Client with keep-alives off
// where its transport is an *http.Transport, else Client itself with its
// idle connections closed first.
func (h *HTTP) freshClient() *http.Client {
	h.freshOnce.Do(func() {
		t, ok := h.Client.Transport.(*http.Transport)
		if !ok {
			return
		}
		t = t.Clone()
		t.DisableKeepAlives = true
		c := *h.Client
		c.Transport = t
		h.fresh = &c
	})
	if h.fresh == nil {
		h.Client.CloseIdleConnections()
		return h.Client
	}
	return h.fresh
}

// Retried returns how many requests were sent a second time.
func (h *HTTP) Retried() int64 { return h.retried.Load() }

// TokenCheck compares the servers' token counts with the chunks that arrived.
type TokenCheck struct {
	Chunks      int64 // token-bearing chunks read
	UsageTokens int64 // tokens reported by servers (responses with a count only)
	UsageChunks int64 // chunks of those responses
	Mismatched  int64 // responses whose count differs from their chunk count
}

// TokenCheck returns the totals so far.
func (h *HTTP) TokenCheck() TokenCheck {
	return TokenCheck{Chunks: h.chunks.Load(), UsageTokens: h.usage.Load(), UsageChunks: h.counted.Load(), Mismatched: h.mismatch.Load()}
}

// sniffDial wraps dial so that every connection is a sniffConn.
func sniffDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &sniffConn{Conn: c}, nil
	}
}

// ClientOptions shape the HTTP client of a benchmark.
type ClientOptions struct {
	// Conns is how many streams run at once (at least 1): as many idle
	// connections are kept for reuse.
	Conns int
	// Insecure skips TLS certificate verification (--insecure).
	Insecure bool
	// NoKeepAlive opens a new connection for every request and closes it
	// after (--keepalive=false): each request then also pays the connect,
	// and no request can meet a connection the server closed.
	NoKeepAlive bool
}

// NewClient returns an HTTP client for a benchmark: connections are kept
// and reused across requests unless o.NoKeepAlive, responses are not
// decompressed (a decompressor would delay bytes and blur arrival times),
// and HTTP/2 is used when a TLS server offers it.
func NewClient(o ClientOptions) *http.Client {
	conns := max(o.Conns, 1)
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           sniffDial((&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          conns,
		MaxIdleConnsPerHost:   conns,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		// A request fits in a few kB, and a larger body is copied through
		// the buffer anyway; reads get the larger buffer because a client
		// that falls behind then catches up many events per read. Per
		// connection that is 20 kB, 100 MB at 5,000 streams.
		WriteBufferSize:   4 << 10,
		ReadBufferSize:    16 << 10,
		DisableKeepAlives: o.NoKeepAlive,
	}
	if o.Insecure {
		t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	return &http.Client{Transport: t}
}
