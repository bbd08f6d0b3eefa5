package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// drainLimit bounds what is read after a Receiver declined more, so that
// the connection can be reused without waiting on a server that keeps
// sending.
const drainLimit = 64 << 10

// maxEmptyReads is how many (0, nil) Reads in a row count as a stuck body
// rather than a slow one.
const maxEmptyReads = 100

// netHTTP is the transport of net/http: a Client whose connections come
// from a pool that dials ahead, and a goroutine per response reading its
// body, as net/http reads.
type netHTTP struct {
	o      Options
	client *http.Client
	dialer *net.Dialer

	// fresh sends retries: client's transport with keep-alives off, so a
	// retry never lands on another stale pooled connection. Built on the
	// first retry.
	freshOnce sync.Once
	fresh     *http.Client

	pools *pools[net.Conn]
}

func newNetHTTP(o Options) *netHTTP {
	h := &netHTTP{o: o, dialer: &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		pools: newPools[net.Conn](o)}
	t := newHTTPTransport(o, h.dialContext)
	t.DialTLSContext = h.dialTLSContext // see tlsahead.go
	// A redirect comes back as the answer, as the event loop gives it:
	// followed, its hop would count in the request's latencies unseen.
	h.client = &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return h
}

// newHTTPTransport returns the http.Transport of a benchmark: connections
// kept and reused across requests unless o.NoKeepAlive, responses not
// decompressed (a decompressor would delay bytes and blur arrival times),
// and HTTP/2 when a TLS server offers it.
func newHTTPTransport(o Options, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Transport {
	conns := max(o.Conns, 1)
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dial,
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
	return t
}

// NewClient returns an http.Client of the benchmark's settings (see
// newHTTPTransport), dialling as a plain client does: for the requests
// around a run (readiness, model discovery, tokenizing, scraping).
func NewClient(o Options) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{Transport: newHTTPTransport(o, sniffDial(d.DialContext))}
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

// poolFor returns the pool of connections to addr.
func (h *netHTTP) poolFor(network, addr string) *pool[net.Conn] {
	return h.pools.get(network+" "+addr, func(spare int) *pool[net.Conn] {
		dial := func(ctx context.Context) (net.Conn, error) {
			c, err := h.dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &sniffConn{Conn: c}, nil
		}
		return newPool(dial, idleAlive, func(c net.Conn) { c.Close() }, h.o.Cold, spare, h.o.Conns)
	})
}

// dialContext is the http.Transport's dialer: a connection from the pool.
func (h *netHTTP) dialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, _, err := h.poolFor(network, addr).get(ctx)
	return c, err
}

// Warm opens n connections to req's server (see Transport).
//
// A request sent through a proxy goes to the proxy's address: net/http
// dials it through dialContext, so the connections warmed are the
// proxy's. (To an https:// server net/http then sends CONNECT and shakes
// hands on each when it is due.)
func (h *netHTTP) Warm(ctx context.Context, req *http.Request, n int) error {
	if proxy, err := h.client.Transport.(*http.Transport).Proxy(req); err != nil {
		return err
	} else if proxy != nil {
		return h.pools.warm(ctx, h.poolFor("tcp", hostPort(&http.Request{URL: proxy})), n)
	}
	if strings.EqualFold(req.URL.Scheme, "https") {
		return h.pools.warm(ctx, h.tlsPoolFor("tcp", hostPort(req)), n)
	}
	return h.pools.warm(ctx, h.poolFor("tcp", hostPort(req)), n)
}

// Ahead keeps n spare connections, at least the default (see Transport).
func (h *netHTTP) Ahead(n int) { h.pools.ahead(n) }

// Stats returns the counts so far.
func (h *netHTTP) Stats() Stats {
	s := Stats{Kind: NetHTTP, DialAhead: !h.o.Cold}
	h.pools.stats(&s)
	return s
}

// Close closes idle connections and stops the diallers.
func (h *netHTTP) Close() error {
	h.pools.close(false)
	h.client.CloseIdleConnections()
	if h.fresh != nil {
		h.fresh.CloseIdleConnections()
	}
	return nil
}

// Do sends req through net/http and reads the body with one timestamp
// after each Read that returned bytes (see Transport).
//
// A request that fails on a reused connection before any response byte
// arrived is sent once more, on a new connection: servers and gateways
// close kept-alive connections (an idle timeout, a limit of requests per
// connection, or, as llama.cpp's server does, after every streamed
// response although it says Keep-Alive), and a POST that races such a
// close fails with "EOF" or a reset the server never saw. A request that
// got any response byte, timed out or was cancelled is never sent again.
func (h *netHTTP) Do(ctx context.Context, req *http.Request, now func() int64, r Receiver) (Exchange, error) {
	var ex Exchange
	var conn atomic.Pointer[sniffConn] // the connection the request went out on
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) {
			c := i.Conn
			if tc, ok := c.(*tls.Conn); ok {
				c = tc.NetConn()
			}
			if c, ok := c.(*sniffConn); ok {
				conn.Store(c)
			}
		},
	}))
	resp, err := h.send(ctx, req, &ex)
	if err != nil {
		if c := conn.Load(); c != nil {
			if first := c.notHTTP(); first != nil {
				err = &NotHTTPError{Begins: first, Err: err}
			}
		}
		return ex, err
	}
	body := resp.Body
	if body == nil {
		body = http.NoBody
	}
	defer body.Close()
	r.Header(resp)
	empty := 0
	for {
		room := r.Buffer()
		if len(room) == 0 {
			r.End(nil, now())
			return ex, nil
		}
		n, err := body.Read(room)
		if n < 0 || n > len(room) {
			r.End(fmt.Errorf("reader returned an invalid count %d", n), now())
			return ex, nil
		}
		if n > 0 {
			empty = 0
			if !r.Filled(n, now()) {
				if d, ok := r.(Drainer); ok && d.Drain() {
					_, _ = io.CopyN(io.Discard, body, drainLimit)
				}
				r.End(nil, 0)
				return ex, nil
			}
		}
		switch {
		case err != nil:
			r.End(err, now())
			return ex, nil
		case n == 0:
			if empty++; empty >= maxEmptyReads {
				r.End(io.ErrNoProgress, now())
				return ex, nil
			}
		}
	}
}

// send sends req, and once more on a new connection when it failed on a
// reused one before any response byte (see Do).
func (h *netHTTP) send(ctx context.Context, req *http.Request, ex *Exchange) (*http.Response, error) {
	var reused, answered atomic.Bool // set by the transport's goroutines
	trace := &httptrace.ClientTrace{
		GotConn:              func(i httptrace.GotConnInfo) { reused.Store(i.Reused) },
		GotFirstResponseByte: func() { answered.Store(true) },
	}
	first := req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	resp, err := h.client.Do(first)
	if err == nil || !reused.Load() || answered.Load() || ctx.Err() != nil ||
		!resetBeforeAnswer(err) || req.GetBody == nil {
		return resp, err
	}
	body, gerr := req.GetBody()
	if gerr != nil {
		return nil, err
	}
	again := req.Clone(req.Context())
	again.Body = body
	ex.Retried = true
	resp, rerr := h.freshClient().Do(again)
	return resp, keepFirst(err, rerr)
}

// RetryRefusedError is a request that failed on a reused connection before
// any response byte and whose retry could not even connect: a server that
// took the request and went away (killed, restarting). It unwraps to the
// first failure, the one the request met, so that it counts as a reset and
// not as a refused connection: the request did reach a server.
type RetryRefusedError struct {
	First error // how the request failed on the reused connection
	Retry error // why the new connection could not be made
}

func (e *RetryRefusedError) Error() string {
	return fmt.Sprintf("%v; sent again on a new connection, which failed: %v", e.First, e.Retry)
}

func (e *RetryRefusedError) Unwrap() error { return e.First }

// keepFirst returns the error of a retried request: retry's, unless the
// retry could not connect, when first is what the request met.
func keepFirst(first, retry error) error {
	var op *net.OpError
	if retry != nil && (errors.Is(retry, syscall.ECONNREFUSED) || errors.As(retry, &op) && op.Op == "dial") {
		return &RetryRefusedError{First: first, Retry: retry}
	}
	return retry
}

// freshClient returns the client for retries: the client with
// keep-alives off.
func (h *netHTTP) freshClient() *http.Client {
	h.freshOnce.Do(func() {
		t := h.client.Transport.(*http.Transport).Clone()
		t.DisableKeepAlives = true
		c := *h.client
		c.Transport = t
		h.fresh = &c
	})
	return h.fresh
}

// resetBeforeAnswer reports whether err is what a request meets on a
// connection the server had closed: the connection reset or closed before
// any answer. Such a request was not seen, and may be sent again. Dial
// failures, timeouts and cancellations are not.
func resetBeforeAnswer(err error) bool {
	var op *net.OpError
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &op) && op.Op == "dial",
		errors.As(err, &ne) && ne.Timeout():
		return false
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return true
	}
	// net/http does not export this one; a POST on a kept-alive
	// connection that the server closed fails with it.
	return strings.Contains(err.Error(), "server closed idle connection")
}

// NotHTTPError is a request whose server answered with bytes that cannot
// begin an HTTP response, whatever error the exchange then ended with.
type NotHTTPError struct {
	Begins []byte // the first bytes the server sent
	Err    error  // how the exchange failed
}

func (e *NotHTTPError) Error() string {
	return fmt.Sprintf("the server's answer is not HTTP: it begins %q (%v)", e.Begins, e.Err)
}

func (e *NotHTTPError) Unwrap() error { return e.Err }

var _ Transport = (*netHTTP)(nil)
