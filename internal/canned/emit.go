//go:build unix

package canned

import (
	"container/heap"
	"sync"
	"syscall"
	"time"

	"github.com/goodput-dev/goodput/internal/finesleep"
)

// stream is one response under way.
type stream struct {
	key       string
	fd        int // the connection's socket, non-blocking
	tokens    int
	chat      bool
	ttft, itl time.Duration
	arrived   int64 // wall-clock ns

	next    int    // tokens written
	due     int64  // wall-clock ns the next write is due
	pending []byte // the part of a write the socket did not take
	flushed []int64
	index   int       // in the heap
	done    chan bool // true once finished, false if the client went away
}

// emitter writes every stream's tokens from one goroutine, on their
// deadlines.
type emitter struct {
	finished func(Stream)

	mu      sync.Mutex // guards adds and stopped
	adds    []*stream
	stopped bool
	wake    chan struct{} // capacity 1: streams were added, or stop
	exited  chan struct{}
}

// slack is how far ahead of its deadline a token is written when the
// writer is awake anyway: less than the timer's own precision.
const slack = 50 * time.Microsecond

// retry is how soon a write the socket did not take whole is tried again.
const retry = time.Millisecond

func newEmitter(finished func(Stream)) *emitter {
	e := &emitter{finished: finished, wake: make(chan struct{}, 1), exited: make(chan struct{})}
	go e.run()
	return e
}

func (e *emitter) add(st *stream) {
	e.mu.Lock()
	e.adds = append(e.adds, st)
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// stop ends the writer; streams under way end as if their client left.
func (e *emitter) stop() {
	e.mu.Lock()
	e.stopped = true
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
	<-e.exited
}

func (e *emitter) run() {
	defer close(e.exited)
	var h byDue
	fine := finesleep.New()
	defer fine.Close()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	buf := make([]byte, 0, 64<<10)
	for {
		e.mu.Lock()
		adds, stopped := e.adds, e.stopped
		e.adds = nil
		e.mu.Unlock()
		if stopped {
			for _, st := range h {
				st.done <- false
			}
			for _, st := range adds {
				st.done <- false
			}
			return
		}
		for _, st := range adds {
			st.due = st.arrived + int64(st.ttft)
			heap.Push(&h, st)
		}
		if len(h) == 0 {
			<-e.wake
			continue
		}
		wait := time.Duration(h[0].due - time.Now().UnixNano())
		if wait > time.Millisecond {
			// A Go timer for all but the last millisecond, which a new
			// stream can cut short...
			timer.Reset(wait - time.Millisecond)
			select {
			case <-timer.C:
			case <-e.wake:
				timer.Stop()
			}
			continue
		}
		// ...and the kernel's high-resolution timer for the rest.
		fine.For(wait - slack)
		now := time.Now().UnixNano()
		for len(h) > 0 && h[0].due <= now+int64(slack) {
			st := h[0]
			switch buf = e.write(st, buf[:0], now); {
			case st.next < 0: // the client went away
				heap.Pop(&h)
				st.done <- false
			case st.next == st.tokens && len(st.pending) == 0:
				heap.Pop(&h)
				e.finished(Stream{Key: st.key, Arrived: st.arrived, Flushed: st.flushed})
				st.done <- true
			default:
				heap.Fix(&h, 0)
			}
			now = time.Now().UnixNano()
		}
	}
}

// write writes st's due bytes: what the socket did not take last time,
// else its next token (every remaining one at once when ITL is 0). It
// sets st's next deadline; st.next is -1 once the client is gone.
func (e *emitter) write(st *stream, buf []byte, now int64) []byte {
	if len(st.pending) > 0 {
		n, err := syscall.Write(st.fd, st.pending)
		if gone(err) {
			st.next = -1
			return buf
		}
		st.pending = st.pending[max(n, 0):]
		if len(st.pending) > 0 {
			st.due = now + int64(retry)
			return buf
		}
		st.flushed = append(st.flushed, time.Now().UnixNano())
		st.due = st.nextDue()
		return buf
	}
	k := st.next + 1
	last := k
	if st.itl == 0 {
		last = st.tokens
	}
	if st.next == 0 {
		buf = append(buf, streamHead...)
	}
	for ; k <= last; k++ {
		buf = event(buf, st.chat, k, st.tokens)
	}
	written := last - st.next
	st.next = last
	n, err := syscall.Write(st.fd, buf)
	if gone(err) {
		st.next = -1
		return buf
	}
	if n = max(n, 0); n < len(buf) {
		st.pending = append([]byte(nil), buf[n:]...)
		st.due = now + int64(retry)
		return buf
	}
	at := time.Now().UnixNano()
	for range written {
		st.flushed = append(st.flushed, at)
	}
	st.due = st.nextDue()
	return buf
}

// nextDue is the deadline of st's next token: absolute, from the
// request's arrival, so that a late write does not push the rest.
func (st *stream) nextDue() int64 {
	return st.arrived + int64(st.ttft) + int64(st.next)*int64(st.itl)
}

// gone reports whether a write's error means the client left.
func gone(err error) bool {
	return err != nil && err != syscall.EAGAIN && err != syscall.EINTR
}

// byDue is a min-heap of streams by deadline.
type byDue []*stream

func (h byDue) Len() int           { return len(h) }
func (h byDue) Less(i, j int) bool { return h[i].due < h[j].due }
func (h byDue) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *byDue) Push(x any) {
	st := x.(*stream)
	st.index = len(*h)
	*h = append(*h, st)
}
func (h *byDue) Pop() any {
	old := *h
	st := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return st
}
