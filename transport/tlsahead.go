package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"
)

// An https:// server's connections are made ready ahead in full: the pool
// dials them and runs the TLS handshake, so that a request taken from it
// pays neither the connect nor the handshake (a round trip, and the
// server's signature: a millisecond or more of its CPU each, which a
// start-up burst of hundreds would otherwise queue inside the first
// wave's TTFT). net/http takes them through its DialTLSContext hook and
// speaks HTTP/2 on those that negotiated it. Warm opens as many as over
// HTTP/1.1, although HTTP/2 multiplexes: a burst's requests go out before
// net/http knows a connection to be HTTP/2's, and each that found none
// idle would dial when due.

// settleWait bounds how long a new TLS 1.3 connection is watched for what
// servers send after the handshake (session tickets): a connection with
// unread bytes would look, idle, like one the server had written to or
// closed.
const (
	minSettle = 200 * time.Microsecond
	maxSettle = 20 * time.Millisecond
)

// errUnasked is a pooled TLS connection's state when the server sent it
// application data before any request.
var errUnasked = errors.New("the server sent data before any request")

// tlsPoolFor returns the pool of TLS connections to addr.
func (h *netHTTP) tlsPoolFor(network, addr string) *pool[net.Conn] {
	return h.pools.get("tls "+network+" "+addr, func(spare int) *pool[net.Conn] {
		dial := func(ctx context.Context) (net.Conn, error) {
			return h.dialTLS(ctx, network, addr)
		}
		return newPool(dial, tlsIdleAlive, func(c net.Conn) { c.Close() }, h.o.Cold, spare, h.o.Conns)
	})
}

// dialTLSContext is the http.Transport's dialer of https:// connections
// not sent through a proxy: one from the pool, past its handshake.
func (h *netHTTP) dialTLSContext(ctx context.Context, network, addr string) (net.Conn, error) {
	p := h.tlsPoolFor(network, addr)
	if p == nil {
		return nil, errClosed
	}
	c, _, err := p.get(ctx)
	return c, err
}

// dialTLS connects to addr and runs the TLS handshake, offering HTTP/2
// and HTTP/1.1 as net/http's own dialling would, then settles the
// connection (see settle).
func (h *netHTTP) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	raw, err := h.dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{ServerName: host, NextProtos: []string{"h2", "http/1.1"}, InsecureSkipVerify: h.o.Insecure}
	c := tls.Client(&sniffConn{Conn: raw}, cfg)
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second) // net/http's TLSHandshakeTimeout
	defer cancel()
	start := time.Now()
	if err := c.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, err
	}
	if err := settle(c, min(max(time.Since(start), minSettle), maxSettle)); err != nil {
		c.Close()
		return nil, fmt.Errorf("tls connection to %s: %w", addr, err)
	}
	return c, nil
}

// settle reads what a TLS 1.3 server sends after the handshake, waiting
// up to wait for it: crypto/tls consumes session tickets and key updates
// inside Read, which then finds no application data and times out. Any
// data, a close or an alert instead is an error. TLS 1.2 sends nothing
// after its handshake, and an HTTP/2 server sends its SETTINGS at once,
// which are HTTP/2's to read: neither is settled.
func settle(c *tls.Conn, wait time.Duration) error {
	if st := c.ConnectionState(); st.Version < tls.VersionTLS13 || st.NegotiatedProtocol == "h2" {
		return nil
	}
	if err := c.SetReadDeadline(time.Now().Add(wait)); err != nil {
		return err
	}
	var one [1]byte
	n, err := c.Read(one[:])
	if derr := c.SetReadDeadline(time.Time{}); derr != nil {
		return derr
	}
	var ne net.Error
	switch {
	case n > 0:
		return errUnasked
	case errors.As(err, &ne) && ne.Timeout():
		return nil
	case err == nil:
		return errUnasked
	}
	return err
}

// tlsIdleAlive reports whether an idle TLS connection is still open and
// holds nothing but what a server may send unasked after the handshake,
// which it then reads (see settle): over HTTP/2, the server's SETTINGS
// and pings, left for HTTP/2 to read.
func tlsIdleAlive(c net.Conn) bool {
	tc, ok := c.(*tls.Conn)
	if !ok {
		return idleAlive(c)
	}
	switch idleState(tc.NetConn()) {
	case idleQuiet:
		return true
	case idlePending:
		if tc.ConnectionState().NegotiatedProtocol == "h2" {
			return true
		}
		return settle(tc, minSettle) == nil
	}
	return false
}
