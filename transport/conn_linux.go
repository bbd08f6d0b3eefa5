//go:build linux

package transport

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// connState is where a connection of the event loop is in its life.
type connState uint8

const (
	stIdle  connState = iota // in its pool, or on its way there
	stBusy                   // a request's exchange is under way
	stDrain                  // the Receiver is done; the rest of the body is read for reuse
	stDead                   // closed
	// stSpoke is a connection whose server sent bytes before any request,
	// now closed: an HTTP server never speaks first, so a request that
	// takes it fails at once with what the server said (early).
	stSpoke
)

// conn is one connection of the event loop: a non-blocking socket in a
// loop's set, and the exchange under way on it. The loop's goroutine reads
// it and drives its parser; the goroutine of the request that uses it
// writes the request and, if its context ends first, aborts the exchange.
// Both do so holding mu, so the Receiver is never called by two at once.
type conn struct {
	fd           int
	l            *loop
	p            *pool[*conn] // where it goes back after a response; nil: closed after one
	laddr, raddr net.Addr
	slot, gen    int32 // its place in the loop's table

	mu       sync.Mutex // guards the fields below
	state    connState
	used     bool   // it has carried a request
	early    []byte // what the server sent before any request (stSpoke)
	pending  []byte // request bytes not yet written; the socket's buffer was full
	writeErr error  // why the request could not be written in full

	// The exchange under way.
	r          Receiver  // nil once it has ended or the Receiver declined more
	rt         ReadTimer // r, when it is one
	now        func() int64
	done       chan error // gets the outcome once: nil after r.End, else why no response came
	sig        outcome    // the outcome, to be sent on its channel once mu is released
	parser     respParser
	headerDone bool
	answered   bool   // a response byte came
	keep       bool   // the connection may serve another request after this one
	drained    int    // body bytes discarded after the Receiver declined more
	at         int64  // when this read's bytes arrived (see arrival)
	readAt     int64  // when this read returned: the time End is given
	room       []byte // the Receiver's buffer this read fills
	filled     int
	sinkFn     func([]byte) // c.sink, bound once
}

// outcome is an exchange's outcome on its way to the request's goroutine.
type outcome struct {
	ch  chan error
	err error
}

// send delivers the outcome, if there is one; its channel has room.
func (o outcome) send() {
	if o.ch != nil {
		o.ch <- o.err
	}
}

// unlock releases mu and then delivers the outcome decided under it: a
// connection the response left idle is back in its pool (back) before
// its request learns that the exchange is over, so that the request's
// next one finds it there. It reports whether it delivered one.
func (c *conn) unlock(back bool) bool {
	o := c.sig
	c.sig = outcome{}
	c.mu.Unlock()
	if back {
		c.p.put(c)
	}
	o.send()
	return o.ch != nil
}

// ready handles the loop's events for c. It reports whether an exchange
// ended, its request's goroutine woken.
func (c *conn) ready(events uint32) bool {
	c.mu.Lock()
	back := false
	if c.state != stDead && events&unix.EPOLLOUT != 0 && len(c.pending) > 0 {
		c.flushLocked()
	}
	if c.state != stDead && events&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLERR|unix.EPOLLRDHUP) != 0 {
		back = c.readLocked()
	}
	return c.unlock(back)
}

// readLocked reads c once and handles what came. It reports whether c is
// now idle and should go back to its pool.
func (c *conn) readLocked() bool {
	n, stamp, errno := c.l.recv(c.fd)
	var wall int64
	if stamp != 0 {
		wall = time.Now().UnixNano()
	}
	var at int64
	if c.now != nil {
		at = c.now()
	}
	switch {
	case n > 0:
		if c.state == stIdle && !c.used {
			// The server spoke first: whoever takes the connection gets
			// its words as the answer.
			c.early = bytes.Clone(c.l.buf[:min(n, 512)])
			c.closeLocked()
			c.state = stSpoke
			return false
		}
		if c.state == stIdle {
			// Bytes nobody asked for (a server's idle-timeout answer):
			// the connection cannot carry another request.
			c.deadIdleLocked()
			return false
		}
		c.readAt = at
		if stamp != 0 {
			at = c.arrival(at, stamp, wall)
		}
		return c.feedLocked(c.l.buf[:n], at)
	case n == 0:
		c.eofLocked(at)
		return false
	case errno == unix.EAGAIN || errno == unix.EINTR:
		return false
	}
	err := &net.OpError{Op: "read", Net: "tcp", Source: c.laddr, Addr: c.raddr, Err: os.NewSyscallError("read", errno)}
	if c.state == stIdle {
		c.deadIdleLocked()
		return false
	}
	c.brokenLocked(err, at)
	return false
}

// arrival returns when the bytes of a read at at (the exchange's clock)
// arrived: at less how long they waited in the socket, from the kernel's
// receive stamp of the read's last bytes (wall-clock ns) to the wall
// clock after the read. So a token's time is when it reached this
// machine, not when the loop got to it: a burst of tokens read one after
// the other keeps each one's own time. It is never before the exchange
// began or the read before; a wait the wall clock makes impossible (set
// meanwhile) leaves at as it is. The stamp is on the wall clock, so a step
// of it while the bytes waited moves their time by the step (a slew, as
// NTP makes, by a few parts per million of the wait).
func (c *conn) arrival(at, stamp, wall int64) int64 {
	c.l.noteDelay(stamp, wall)
	wait := wall - stamp
	if wait <= 0 || wait >= int64(time.Minute) {
		return at
	}
	return max(at-wait, c.at)
}

// feedLocked hands bytes read at at to the exchange.
func (c *conn) feedLocked(b []byte, at int64) bool {
	c.at = at
	c.answered = true
	if !c.headerDone {
		resp, rest, err := c.parser.header(b)
		if err != nil {
			c.failLocked(err)
			return false
		}
		if resp == nil {
			return false
		}
		c.headerDone = true
		if resp.Close {
			c.keep = false
		}
		if c.r != nil {
			c.r.Header(resp)
		}
		b = rest
	}
	c.room, c.filled = nil, 0
	rest, err := c.parser.body(b, c.sinkFn)
	c.flushRoomLocked()
	if err != nil {
		c.brokenLocked(err, at)
		return false
	}
	if !c.parser.ended {
		if c.state == stDrain && !c.keep {
			c.closeLocked() // nothing more is wanted of it
		}
		return false
	}
	if len(rest) > 0 {
		c.keep = false // bytes beyond the response: the stream is out of step
	}
	return c.endedLocked()
}

// sink takes decoded body data: into the Receiver's buffer, or, once it
// declined more, counted and discarded.
func (c *conn) sink(data []byte) {
	for len(data) > 0 {
		if c.r == nil {
			if c.drained += len(data); c.drained > drainLimit {
				c.keep = false
			}
			return
		}
		if c.filled == len(c.room) {
			c.flushRoomLocked()
			if c.r == nil {
				continue
			}
			c.room, c.filled = c.r.Buffer(), 0
			if len(c.room) == 0 {
				c.declineLocked()
				continue
			}
		}
		k := copy(c.room[c.filled:], data)
		c.filled += k
		data = data[k:]
	}
}

// flushRoomLocked tells the Receiver what this read put in its buffer.
func (c *conn) flushRoomLocked() {
	if c.r != nil && c.filled > 0 {
		if c.rt != nil {
			c.rt.ReadAt(c.readAt)
		}
		more := c.r.Filled(c.filled, c.at)
		c.room, c.filled = nil, 0
		if !more {
			c.declineLocked()
		}
	}
}

// declineLocked ends the exchange for its request when the Receiver wants
// no more: the rest of the body is read and dropped, to reuse the
// connection, when the Receiver says it is worth it.
func (c *conn) declineLocked() {
	r := c.r
	c.r = nil
	drain := false
	if d, ok := r.(Drainer); ok {
		drain = d.Drain()
	}
	r.End(nil, c.readAt)
	c.state = stDrain
	if !drain {
		c.keep = false
	}
	c.signal(nil)
}

// endedLocked concludes a response whose body is complete, and reports
// whether the connection goes back to its pool.
func (c *conn) endedLocked() bool {
	if r := c.r; r != nil {
		c.r = nil
		r.End(io.EOF, c.readAt)
		c.signal(nil)
	}
	if !c.keep || c.p == nil || c.drained > drainLimit {
		c.closeLocked()
		return false
	}
	c.state = stIdle
	c.now, c.rt, c.headerDone, c.drained, c.room, c.filled = nil, nil, false, 0, nil, 0
	c.parser.reset(nil)
	return true
}

// eofLocked handles the server's close.
func (c *conn) eofLocked(at int64) {
	switch c.state {
	case stIdle:
		c.deadIdleLocked()
		return
	case stBusy, stDrain:
		err := c.parser.eof(c.headerDone)
		switch {
		case !c.headerDone:
			c.failLocked(err)
		case err == nil:
			c.keep = false
			c.at, c.readAt = at, at
			c.endedLocked()
		default:
			c.brokenLocked(err, at)
		}
	}
	c.closeLocked()
}

// brokenLocked ends the exchange on a failure: the Receiver's End after
// the header, the request's error before it.
func (c *conn) brokenLocked(err error, at int64) {
	if !c.headerDone {
		c.failLocked(err)
		return
	}
	if r := c.r; r != nil {
		c.r = nil
		r.End(err, at)
		c.signal(nil)
	}
	c.closeLocked()
}

// failLocked ends an exchange that got no response with err, and closes
// the connection. When the request could not be written and no answer
// came, the write's error is the one reported.
func (c *conn) failLocked(err error) {
	if c.writeErr != nil && !c.answered {
		err = c.writeErr
	}
	c.r = nil
	c.signal(err)
	c.closeLocked()
}

// signal decides the exchange's outcome, once; unlock hands it to the
// request. A request not fully written by then never will be.
func (c *conn) signal(err error) {
	if c.done == nil {
		return
	}
	c.sig = outcome{c.done, err}
	c.done = nil
	if len(c.pending) > 0 {
		c.pending = nil
		c.keep = false
		_ = c.l.watchWrites(c, false)
	}
}

// deadIdleLocked drops an idle connection the server closed.
func (c *conn) deadIdleLocked() {
	if c.p != nil {
		c.p.remove(c)
	}
	c.closeLocked()
}

// closeLocked closes the socket; an exchange still open is failed.
func (c *conn) closeLocked() {
	if c.state == stDead || c.state == stSpoke {
		return
	}
	if c.done != nil {
		c.abortLocked(errClosed)
	}
	c.state = stDead
	c.pending = nil
	c.l.remove(c)
	unix.Close(c.fd)
}

// abortLocked ends the exchange under way with err: the Receiver's End
// when its header came, the request's error otherwise.
func (c *conn) abortLocked(err error) {
	if c.done == nil {
		return
	}
	if r := c.r; r != nil && c.headerDone {
		c.r = nil
		at := c.at
		if c.now != nil {
			at = c.now()
		}
		r.End(err, at)
		c.signal(nil)
		return
	}
	c.r = nil
	c.signal(err)
}

// writeLocked writes what it can of b now and leaves the rest to the
// loop, which writes it as the socket's buffer drains. A failed write
// (the server closed or reset) is kept in writeErr: whatever the server
// answered before is still read, and decides the outcome.
func (c *conn) writeLocked(b []byte) error {
	for len(b) > 0 {
		n, e := rawWrite(c.fd, b)
		switch e {
		case 0:
			b = b[n:]
		case unix.EINTR:
		case unix.EAGAIN:
			c.pending = b
			return c.l.watchWrites(c, true)
		default:
			c.writeErr = &net.OpError{Op: "write", Net: "tcp", Source: c.laddr, Addr: c.raddr, Err: os.NewSyscallError("write", e)}
			c.keep = false
			return nil
		}
	}
	return nil
}

// flushLocked writes pending request bytes once the socket takes more.
func (c *conn) flushLocked() {
	for len(c.pending) > 0 {
		n, e := rawWrite(c.fd, c.pending)
		switch e {
		case 0:
			c.pending = c.pending[n:]
		case unix.EINTR:
		case unix.EAGAIN:
			return
		default:
			// The server closed or reset: what it answered, if anything,
			// is still to be read, and decides the outcome.
			c.writeErr = &net.OpError{Op: "write", Net: "tcp", Source: c.laddr, Addr: c.raddr, Err: os.NewSyscallError("write", e)}
			c.pending = nil
			c.keep = false
			_ = c.l.watchWrites(c, false)
			return
		}
	}
	c.pending = nil
	_ = c.l.watchWrites(c, false)
}

// exchange sends the request bytes wire on c and waits until the response
// has been handed to r (nil) or failed before its header came (the error),
// or ctx ends, which aborts it; answered says whether any response byte
// came. keep says whether c may serve another request after this one.
func (c *conn) exchange(ctx context.Context, req *http.Request, wire []byte, now func() int64, r Receiver, keep bool) (answered bool, err error) {
	c.mu.Lock()
	switch c.state {
	case stIdle:
	case stSpoke:
		early := c.early
		c.mu.Unlock()
		if !couldBeHTTP(early) {
			return true, &NotHTTPError{Begins: bytes.Clone(early[:min(len(early), 5)]),
				Err: fmt.Errorf("malformed HTTP response %q", firstLine(early))}
		}
		return false, io.EOF
	default:
		// Taken from the pool just as its server closed it: as if the
		// request had met the close.
		c.mu.Unlock()
		return false, io.EOF
	}
	done := make(chan error, 1)
	c.state, c.r, c.now, c.done, c.keep, c.used = stBusy, r, now, done, keep, true
	c.rt, _ = r.(ReadTimer)
	c.headerDone, c.answered, c.drained, c.room, c.filled, c.writeErr = false, false, 0, nil, 0, nil
	c.at = now() // no read of the exchange is timed before it began
	c.readAt = c.at
	c.parser.reset(req)
	if err := c.writeLocked(wire); err != nil {
		c.failLocked(err)
	}
	c.unlock(false)
	select {
	case err = <-done:
	case <-ctx.Done():
		c.mu.Lock()
		if c.done == done {
			c.abortLocked(ctx.Err())
			c.closeLocked()
		}
		c.unlock(false)
		err = <-done
	}
	c.mu.Lock()
	answered = c.answered
	c.mu.Unlock()
	return answered, err
}
