package sim

import (
	"sync/atomic"
	"time"
)

// stream is the hand-off between the engine loop and one HTTP response.
//
// The engine publishes progress with one atomic store per token and, once a
// step's tokens are all published, wakes every running stream with a single
// broadcast (Server.broadcast) rather than one channel send per stream:
// with thousands of streams, per-stream sends would make the hand-off, and
// so the emission of a step's tokens, take milliseconds. A stream that has
// no token yet waits on its own first channel instead, so that requests
// still queued are not woken by every step.
type stream struct {
	progress atomic.Uint64 // tokens | doneBit | finish code << finishShift
	first    chan struct{} // closed with the first published progress
	started  bool          // engine-owned: first is closed
	// length and stopped are the reply's planned length and whether it
	// ends by itself ("stop"), written by the engine before it publishes
	// the first progress: a reader that has seen progress sees them.
	length  int
	stopped bool
}

// Layout of stream.progress.
const (
	doneBit     = 1 << 32
	finishShift = 33
)

// finishCodes encodes finish reasons in stream.progress; index 0 is none.
var finishCodes = [...]string{"", finishStop, finishLength}

func newStream() *stream { return &stream{first: make(chan struct{})} }

// emit runs on the engine goroutine and never blocks it.
func (st *stream) emit(q *seq, _ time.Duration) {
	if !st.started {
		st.length, st.stopped = q.target, q.finish == finishStop
	}
	v := uint64(q.generated)
	if q.state == stateFinished {
		v |= doneBit
		for code, f := range finishCodes {
			if f == q.finish && code > 0 {
				v |= uint64(code) << finishShift
			}
		}
	}
	st.progress.Store(v)
	if !st.started {
		st.started = true
		close(st.first)
	}
}

// load returns the published progress.
func (st *stream) load() (tokens int, done bool, finish string) {
	v := st.progress.Load()
	return int(uint32(v)), v&doneBit != 0, finishCodes[(v>>finishShift)&3]
}

// currentTick returns the channel the next broadcast will close.
func (s *Server) currentTick() <-chan struct{} { return *s.tick.Load() }

// broadcast wakes every stream waiting for the step just published.
func (s *Server) broadcast() {
	next := make(chan struct{})
	close(*s.tick.Swap(&next))
}
