//go:build unix

package canned

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"syscall"
	"time"
)

// firstBuffer is the size of a connection's read buffer when it is
// accepted: a benchmark's request fits it, and it grows for one that
// does not.
const firstBuffer = 8 << 10

// Limits on what the server reads of one request.
const (
	maxHead = 1 << 20
	maxBody = 64 << 20
)

// request is what the server needs of one HTTP/1.1 request. Its slices
// alias the connection's buffer and are valid until the next read.
type request struct {
	method, path []byte
	key          string // the value of the key header; "" when absent
	body         []byte
	arrived      int64 // wall-clock ns its last bytes arrived
}

// errUnsupported is a request the server does not read: a chunked body,
// or a head it cannot parse. The connection ends after it.
var errUnsupported = errors.New("canned: unsupported request")

// requestReader reads one connection's requests into a buffer of its own
// and parses only what the server needs, allocating nothing per request
// but the key: the server's work per request is its read and a scan of
// the head, so that a start-up burst measures the client's sends more
// than the server's reading of them (net/http's reader allocated a dozen
// objects a request, and its first read on a connection faulted in the
// pages of a fresh buffer, on the cores the client shares). The buffer's
// pages are faulted in when the connection is accepted.
type requestReader struct {
	rc        syscall.RawConn
	keyHeader []byte
	buf       []byte
	r, w      int   // buf[r:w] is read and not yet consumed
	last      int64 // arrival of the last bytes read, wall-clock ns
	oob       [64]byte
}

func newRequestReader(rc syscall.RawConn, keyHeader string) *requestReader {
	buf := make([]byte, firstBuffer)
	for i := range buf {
		buf[i] = 1 // fault its pages in now, not in the first request's read
	}
	return &requestReader{rc: rc, keyHeader: []byte(keyHeader), buf: buf}
}

// next reads the next request: io.EOF when the client closed between
// requests, errUnsupported for one the server does not take.
func (q *requestReader) next() (request, error) {
	var req request
	end := -1
	for {
		if end = bytes.Index(q.buf[q.r:q.w], []byte("\r\n\r\n")); end >= 0 {
			break
		}
		if q.w-q.r >= maxHead {
			return req, errUnsupported
		}
		if err := q.fill(); err != nil {
			if err == io.EOF && q.w > q.r {
				err = io.ErrUnexpectedEOF
			}
			return req, err
		}
	}
	head := q.buf[q.r : q.r+end]
	line, rest, _ := bytes.Cut(head, []byte("\r\n"))
	method, line, ok1 := bytes.Cut(line, []byte(" "))
	path, _, ok2 := bytes.Cut(line, []byte(" "))
	if !ok1 || !ok2 {
		return req, errUnsupported
	}
	if i := bytes.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	length := 0
	for len(rest) > 0 {
		var h []byte
		h, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return req, errUnsupported
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.Atoi(string(value))
			if err != nil || n < 0 || n > maxBody {
				return req, errUnsupported
			}
			length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			if !bytes.EqualFold(value, []byte("identity")) {
				return req, errUnsupported
			}
		case bytes.EqualFold(name, q.keyHeader):
			req.key = string(value)
		}
	}
	// The request starts at q.r, which fill keeps at its start when it
	// moves or grows the buffer: offsets from it, not slices, survive the
	// body's reading.
	lm, lp, body := len(method), len(path), end+4
	for q.w-q.r-body < length {
		if err := q.fill(); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return req, err
		}
	}
	at := q.buf[q.r:]
	req.method, req.path = at[:lm], at[lm+1:lm+1+lp]
	req.body = at[body : body+length]
	req.arrived = q.last
	q.r += body + length
	return req, nil
}

// fill reads more of the connection into the buffer, first moving what
// is unconsumed to its start, or growing it when that is full. It waits
// in the runtime's poller for bytes.
func (q *requestReader) fill() error {
	if q.r == q.w {
		q.r, q.w = 0, 0
	}
	if q.w == len(q.buf) {
		if q.r > 0 {
			q.w = copy(q.buf, q.buf[q.r:q.w])
			q.r = 0
		} else {
			q.buf = append(q.buf, make([]byte, len(q.buf))...)
		}
	}
	var n int
	var err error
	rerr := q.rc.Read(func(fd uintptr) bool {
		var stamp int64
		n, stamp, err = recvStamped(int(fd), q.buf[q.w:], q.oob[:])
		if err == syscall.EAGAIN {
			return false
		}
		if stamp == 0 {
			stamp = time.Now().UnixNano()
		}
		q.last = stamp
		return true
	})
	if rerr != nil {
		return rerr
	}
	if err != nil {
		return err
	}
	if n == 0 {
		return io.EOF
	}
	q.w += n
	return nil
}
