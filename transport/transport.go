// Package transport sends a benchmark's requests and reads their streamed
// answers, with the least work between the socket and the timestamp.
//
// A Transport sends one HTTP request and pushes the response, as it is
// read, to a Receiver: the status and header once, then the body bytes of
// each read with the time they were read, then the end. Everything above
// it (the protocol adapters that parse the stream, the records, the
// metrics) is the same whichever transport carries the bytes.
//
// Two transports implement it:
//
//   - the event loop (Linux, plain-text HTTP/1.1): non-blocking sockets in
//     an epoll set of its own, level-triggered, one read per readiness
//     event into the loop's buffer; the response is parsed in place and
//     the body handed to the Receiver from the loop, so a token costs one
//     read and no goroutine wake-up (see eventloop_linux.go). io_uring's
//     multishot receive was measured beside it and costs more per token
//     (BenchmarkReadFloor; BENCHMARKS.md, "io_uring");
//   - net/http, for TLS, HTTP/2, proxies and other systems: a reading
//     goroutine per response, as net/http reads.
//
// Both open connections before they are needed (Warm, before the run;
// Ahead, a pool of spares kept dialled during it), so that no request
// dials at its due time unless the pool ran dry, which Stats counts. Both
// send a request that failed on a pooled connection before any response
// byte once more, on a new connection.
package transport

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"time"
)

// Receiver takes one response as its transport reads it. The transport
// calls Header once, when the status line and header have arrived; then,
// for each read of body bytes, Buffer for where to put them and Filled with
// how many it put there and when they arrived (ns of the clock Do was
// given: the event loop takes the kernel's receive timestamp of the
// read's last bytes, net/http the time right after the read returned,
// before any parsing); then
// End once, with the time the read that ended the exchange returned (when
// the client learned of the end, not when its bytes arrived): when the
// body ended (io.EOF), failed (the error), or after the Receiver declined
// more, by an empty Buffer or a false Filled (any error, which it then
// ignores). Calls never overlap; they may come from another
// goroutine than Do's. backend.Reader is the Receiver of goodput's
// protocol adapters.
type Receiver interface {
	Header(resp *http.Response)
	Buffer() []byte
	Filled(n int, at int64) (more bool)
	End(err error, at int64)
}

// ReadTimer is implemented by a Receiver that wants, beside the arrival
// time Filled gives, the time each read returned: the event loop calls
// ReadAt with it before the read's Filled. backend.Reader ends its record
// there when the read brought the stream's terminator: the client's end
// of the stream is when it learned of it, which a closed loop's next
// request is due at.
type ReadTimer interface {
	ReadAt(t int64)
}

// Drainer is implemented by a Receiver that can say, once it declined
// more, whether the rest of the body is worth reading to its end so that
// the connection can be reused (a stream that ended on its terminator), or
// the connection should rather be closed (a stream that failed).
type Drainer interface {
	Drain() bool
}

// Exchange says how one request went on the wire.
type Exchange struct {
	// Retried is true when the request failed on a pooled connection
	// before any response byte and was sent again on a new one.
	Retried bool
}

// Transport sends requests. Do sends req and pushes its response to r.
// It returns a nil error once r.End has been called, or the error that
// kept any response from arriving (refused connection, reset before the
// first byte, timeout or cancellation of ctx); r is then never called.
// now is the clock of the timestamps handed to r. Do returns when the
// exchange is over, or promptly after ctx ends. A Transport is safe for
// concurrent use; Close it when done.
type Transport interface {
	Do(ctx context.Context, req *http.Request, now func() int64, r Receiver) (Exchange, error)
	// Warm opens connections until n are ready to req's server, and the
	// spares beyond them (see Options.Spare), or ctx ends; it sends
	// nothing. It returns the first dial error, if every attempt failed.
	Warm(ctx context.Context, req *http.Request, n int) error
	// Ahead sets how many spare connections to keep dialled, beyond
	// those in use, from now on: the requests due soon. It does nothing
	// for a transport with dialling ahead off.
	Ahead(n int)
	// Stats returns the counts so far.
	Stats() Stats
	// Close closes every idle connection and stops the transport's
	// goroutines. Requests still in flight end with errors.
	Close() error
}

// Encoder is implemented by a transport that sends a request as bytes it
// can make before the request is due (the event loop): Encode makes them,
// and Send sends them as Do sends the request, so that the send costs
// only its write. A run's start-up burst sends its requests encoded, so
// that no encoding takes the CPU its writes need (BENCHMARKS.md, "The
// start's goroutines before the epoch").
type Encoder interface {
	// Encode returns req in its wire form. req's body must be readable
	// again through GetBody (as http.NewRequest makes it of a
	// bytes.Reader) if the request is to be sent again after a pooled
	// connection failed; req must not change until its Send returns.
	Encode(req *http.Request) (*Encoded, error)
	// Send sends e, which Encode of this transport made, as Do sends its
	// request.
	Send(ctx context.Context, e *Encoded, now func() int64, r Receiver) (Exchange, error)
}

// Encoded is a request in the wire form an Encoder made.
type Encoded struct {
	Req  *http.Request // the request it is
	wire []byte
	addr string // host:port of the connection it goes on
	keep bool   // the connection may carry another request after it
	by   Transport
}

// Kind names a transport.
type Kind string

// The transports, as --transport names them.
const (
	// Auto chooses the event loop where it can carry the requests (Linux,
	// http:// without a proxy), net/http elsewhere.
	Auto      Kind = "auto"
	EventLoop Kind = "eventloop"
	NetHTTP   Kind = "net/http"
)

// ParseKind reads a --transport value.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case Auto, EventLoop, NetHTTP:
		return k, nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("--transport %q: want auto, eventloop or net/http", s)
}

// Options shape a transport.
type Options struct {
	Kind Kind // Auto when empty
	// Conns is how many requests may be in flight at once (at least 1):
	// as many idle connections are kept for reuse.
	Conns int
	// Insecure skips TLS certificate verification (--insecure).
	Insecure bool
	// NoKeepAlive opens a new connection for every request and closes it
	// after (--keepalive=false).
	NoKeepAlive bool
	// Cold turns dialling ahead off (--dial-ahead=false): each request
	// that finds no idle connection dials when it is due, as a client
	// without a pool does, and pays the connect inside its latency.
	Cold bool
	// Spare is how many connections to keep dialled beyond those in use
	// at least; 0 means max(2, Conns/16).
	Spare int
	// Loops is how many event loops read the responses (the event loop
	// only); 0 means one per Go processor, up to 8.
	Loops int
}

// spare returns o.Spare or its default.
func (o Options) spare() int {
	if o.Spare > 0 {
		return o.Spare
	}
	return max(2, o.Conns/16)
}

// New returns the transport o.Kind names for requests to baseURL. With
// Auto it is the event loop when the system has it and baseURL is plain
// http:// reached without a proxy, net/http otherwise. Asking for the
// event loop where it cannot carry the requests is an error that says
// why.
func New(baseURL string, o Options) (Transport, error) {
	o.Conns = max(o.Conns, 1)
	kind := o.Kind
	if kind == "" {
		kind = Auto
	}
	if kind == NetHTTP {
		return newNetHTTP(o), nil
	}
	why := eventLoopUnfit(baseURL)
	switch {
	case why == "":
		return newEventLoop(o)
	case kind == EventLoop:
		return nil, fmt.Errorf("--transport eventloop: %s", why)
	}
	return newNetHTTP(o), nil
}

// Check reports whether transport kind can carry requests to baseURL: an
// error, naming --transport, when the event loop is asked for where it
// cannot (see New).
func Check(kind Kind, baseURL string) error {
	if kind != EventLoop {
		return nil
	}
	if why := eventLoopUnfit(baseURL); why != "" {
		return fmt.Errorf("--transport eventloop: %s", why)
	}
	return nil
}

// eventLoopUnfit says why the event loop cannot carry requests to
// baseURL, or "" when it can.
func eventLoopUnfit(baseURL string) string {
	if !eventLoopBuilt {
		return fmt.Sprintf("the event loop is built for Linux only, not %s", runtime.GOOS)
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return fmt.Sprintf("base url %q: %v", baseURL, err)
	}
	if !strings.EqualFold(u.Scheme, "http") {
		return fmt.Sprintf("%s:// needs TLS, which only net/http speaks", u.Scheme)
	}
	req := &http.Request{URL: u}
	if p, err := http.ProxyFromEnvironment(req); err != nil || p != nil {
		return "the environment sends this URL through a proxy (HTTP_PROXY), which only net/http speaks"
	}
	return ""
}

// Stats counts what a transport did.
type Stats struct {
	Kind Kind // EventLoop or NetHTTP
	// DialAhead is true unless the transport was made Cold.
	DialAhead bool
	// Warmed connections were opened by Warm, before the run; Ahead ones
	// by the pool of spares during it.
	Warmed, Ahead int64
	// Late connections were dialled when a request was due and found
	// none idle; LateWait is the time those requests spent dialling.
	Late     int64
	LateWait time.Duration
	// Dead counts idle connections the server closed before they were
	// used, which were dropped (and replaced when dialling ahead).
	Dead int64
	// ReadDelay is how long response bytes waited in the kernel before
	// they were read, from the kernel's receive timestamps: the error
	// this client added to its timestamps. Nil where not measured (the
	// net/http transport, other systems).
	ReadDelay *Delays
}

// Dialled returns every connection opened.
func (s Stats) Dialled() int64 { return s.Warmed + s.Ahead + s.Late }

// hostPort returns the address req goes to: its URL's host with the
// scheme's port when it names none.
func hostPort(req *http.Request) string {
	host, port := req.URL.Hostname(), req.URL.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(req.URL.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(host, port)
}

// Kinds returns the transports this build has, the default first.
func Kinds() []Kind {
	if eventLoopBuilt {
		return []Kind{EventLoop, NetHTTP}
	}
	return []Kind{NetHTTP}
}
