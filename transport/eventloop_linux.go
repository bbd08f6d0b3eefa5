//go:build linux

package transport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// eventLoopBuilt says whether this system has the event loop.
const eventLoopBuilt = true

// eventLoop is the transport of plain-text HTTP/1.1 over event loops (see
// loop): a request's goroutine writes the request on a pooled connection
// and waits; the loop reads the response and hands it to the Receiver.
type eventLoop struct {
	o      Options
	dialer *net.Dialer
	loops  []*loop
	next   atomic.Uint32 // the loop the next connection joins
	late   Delays        // kernel arrival to read, every loop's reads

	pools *pools[*conn]
}

// loopsFor returns how many event loops serve a process with procs Go
// processors: one per processor, up to 8. A loop reads its connections
// one after the other, so a burst of tokens due at once (every stream of a
// batch decoded together) waits for one core; a loop per processor reads
// it on all of them. Measured side by side on 2 cores (BenchmarkLoops and
// BenchmarkTimingPrecision, BENCHMARKS.md), one loop costs 5-20 % less CPU
// per paced token at 64 and 256 streams, but two cut a bulk burst's read
// delay by about a fifth and the p99 error at 5,000 streams by about
// half: timestamps come first.
func loopsFor(procs int) int { return max(1, min(procs, 8)) }

func newEventLoop(o Options) (Transport, error) {
	t := &eventLoop{o: o, dialer: &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second},
		pools: newPools[*conn](o)}
	n := o.Loops
	if n <= 0 {
		n = loopsFor(runtime.GOMAXPROCS(0))
	}
	for range n {
		l, err := newLoop(&t.late)
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("event loop: %w", err)
		}
		t.loops = append(t.loops, l)
	}
	return t, nil
}

// poolFor returns the pool of connections to addr, nil once closed.
func (t *eventLoop) poolFor(addr string) *pool[*conn] {
	return t.pools.get(addr, func(spare int) *pool[*conn] {
		p := newPool(nil, connIdle, dropConn, t.o.Cold, spare, t.o.Conns)
		p.dial = func(ctx context.Context) (*conn, error) { return t.dial(ctx, addr, p) }
		return p
	})
}

// connIdle reports whether a pooled connection can be handed out: idle,
// or one whose server spoke first, which answers its request at once.
func connIdle(c *conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == stIdle || c.state == stSpoke
}

func dropConn(c *conn) {
	c.mu.Lock()
	c.closeLocked()
	c.unlock(false)
}

// dial opens a connection to addr with Go's dialer (its resolver, its
// timeouts, its errors), takes the socket from the runtime's poller and
// puts it in a loop's set. p is where it goes back after a response; nil
// closes it after one.
func (t *eventLoop) dial(ctx context.Context, addr string, p *pool[*conn]) (*conn, error) {
	nc, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		nc.Close()
		return nil, fmt.Errorf("dial %s: not a TCP connection", addr)
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		tc.Close()
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := raw.Control(func(f uintptr) { fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		tc.Close()
		return nil, err
	}
	laddr, raddr := tc.LocalAddr(), tc.RemoteAddr()
	// Closing Go's connection takes its descriptor out of the runtime's
	// poller; the socket lives on in the duplicate, non-blocking as Go
	// made it.
	tc.Close()
	if derr != nil {
		return nil, os.NewSyscallError("fcntl", derr)
	}
	// The kernel's receive time of each read's bytes, to measure how long
	// they waited for the loop (Stats.ReadDelay).
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	c := &conn{fd: fd, p: p, laddr: laddr, raddr: raddr, state: stIdle}
	c.sinkFn = c.sink
	c.l = t.loops[int(t.next.Add(1))%len(t.loops)]
	if err := c.l.add(c); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return c, nil
}

// Do sends req on a pooled connection and waits for its response (see
// Transport). A request that fails on a pooled connection before any
// response byte, as one that meets a server's close of a kept-alive
// connection does, is sent once more on a new connection, which closes
// after it.
func (t *eventLoop) Do(ctx context.Context, req *http.Request, now func() int64, r Receiver) (Exchange, error) {
	if err := ctx.Err(); err != nil {
		return Exchange{}, urlError(req, err)
	}
	keep, err := t.carries(req)
	if err != nil {
		return Exchange{}, err
	}
	wire, err := serialize(req, !keep)
	if err != nil {
		return Exchange{}, urlError(req, err)
	}
	defer releaseWire(wire)
	return t.exchange(ctx, req, hostPort(req), wire.Bytes(), keep, now, r)
}

// carries says whether the event loop can carry req, and whether req's
// connection may carry another request after it.
func (t *eventLoop) carries(req *http.Request) (keep bool, err error) {
	if !strings.EqualFold(req.URL.Scheme, "http") {
		return false, urlError(req, fmt.Errorf("the event loop speaks plain-text HTTP/1.1, not %s://", req.URL.Scheme))
	}
	return !t.o.NoKeepAlive && !req.Close, nil
}

// Encode puts req in its wire form (see Encoder).
func (t *eventLoop) Encode(req *http.Request) (*Encoded, error) {
	keep, err := t.carries(req)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := appendRequest(&buf, req, !keep); err != nil {
		return nil, urlError(req, err)
	}
	return &Encoded{Req: req, wire: buf.Bytes(), addr: hostPort(req), keep: keep, by: t}, nil
}

// Send sends e as Do sends its request (see Encoder).
func (t *eventLoop) Send(ctx context.Context, e *Encoded, now func() int64, r Receiver) (Exchange, error) {
	if e.by != t {
		return Exchange{}, urlError(e.Req, errors.New("the request was encoded by another transport"))
	}
	if err := ctx.Err(); err != nil {
		return Exchange{}, urlError(e.Req, err)
	}
	return t.exchange(ctx, e.Req, e.addr, e.wire, e.keep, now, r)
}

// exchange sends req, as wire, and pushes its response to r: on a pooled
// connection, and once more on a new one when that failed before any
// answer byte (see Transport).
func (t *eventLoop) exchange(ctx context.Context, req *http.Request, addr string, wire []byte, keep bool, now func() int64, r Receiver) (Exchange, error) {
	var ex Exchange
	p := t.poolFor(addr)
	if p == nil {
		return ex, urlError(req, errClosed)
	}
	c, pooled, err := p.get(ctx)
	if err != nil {
		return ex, urlError(req, err)
	}
	answered, err := c.exchange(ctx, req, wire, now, r, keep)
	if err != nil && ctx.Err() != nil {
		err = ctx.Err() // the exchange failed because its context ended
	}
	if err == nil || !pooled || answered || ctx.Err() != nil || !resetBeforeAnswer(err) || (req.Body != nil && req.Body != http.NoBody && req.GetBody == nil) {
		if err != nil {
			err = urlError(req, err)
		}
		return ex, err
	}
	again, serr := serialize(req, true)
	if serr != nil {
		return ex, urlError(req, err)
	}
	defer releaseWire(again)
	ex.Retried = true
	first := urlError(req, err)
	c, err = t.dial(ctx, addr, nil)
	if err != nil {
		return ex, keepFirst(first, urlError(req, err))
	}
	if _, err = c.exchange(ctx, req, again.Bytes(), now, r, false); err != nil {
		err = urlError(req, err)
	}
	return ex, err
}

// urlError wraps err as net/http's client does; an answer that was not
// HTTP stays a NotHTTPError outside.
func urlError(req *http.Request, err error) error {
	m := req.Method
	if m == "" {
		m = http.MethodGet
	}
	op := m[:1] + strings.ToLower(m[1:])
	if nh := (*NotHTTPError)(nil); errors.As(err, &nh) {
		return &NotHTTPError{Begins: nh.Begins, Err: &url.Error{Op: op, URL: req.URL.String(), Err: nh.Err}}
	}
	return &url.Error{Op: op, URL: req.URL.String(), Err: err}
}

// wirePool holds buffers for requests on the wire.
var wirePool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// serialize writes req as net/http's client would send it, with
// "Connection: close" when close is set (see appendRequest).
func serialize(req *http.Request, close bool) (*bytes.Buffer, error) {
	buf := wirePool.Get().(*bytes.Buffer)
	buf.Reset()
	if err := appendRequest(buf, req, close); err != nil {
		releaseWire(buf)
		return nil, err
	}
	return buf, nil
}

// releaseWire returns a request buffer; a huge one is left to the
// collector, so one large prompt does not pin its memory.
func releaseWire(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		wirePool.Put(b)
	}
}

// Warm opens n connections to req's server (see Transport).
func (t *eventLoop) Warm(ctx context.Context, req *http.Request, n int) error {
	p := t.poolFor(hostPort(req))
	if p == nil {
		return errClosed
	}
	return t.pools.warm(ctx, p, n)
}

// Ahead keeps n spare connections, at least the default (see Transport).
func (t *eventLoop) Ahead(n int) { t.pools.ahead(n) }

// Stats returns the counts so far.
func (t *eventLoop) Stats() Stats {
	s := Stats{Kind: EventLoop, DialAhead: !t.o.Cold, ReadDelay: &t.late}
	t.pools.stats(&s)
	return s
}

// Close closes every connection, failing the exchanges still under way,
// and stops the loops.
func (t *eventLoop) Close() error {
	if !t.pools.close(true) {
		return nil
	}
	for _, l := range t.loops {
		for _, c := range l.all() {
			dropConn(c)
		}
		l.stop()
	}
	return nil
}

var _ Transport = (*eventLoop)(nil)
