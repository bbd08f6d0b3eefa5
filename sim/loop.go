package sim

import (
	"context"
	"io"
	"math"
	"time"
)

// resyncAfter bounds how far behind its schedule the wall-clock loop may
// fall (a suspended process, a debugger) before it gives the lost time up
// instead of running steps back to back to catch up.
const resyncAfter = time.Second

// forever is a sleep that only a wake-up or cancellation ends.
const forever = time.Duration(math.MaxInt64)

// loop runs the engine in wall-clock time until ctx is done.
//
// Steps follow absolute deadlines: a step that starts at t with modelled
// duration d ends at t+d, and the next step starts there, however late the
// loop woke up. Sleep jitter therefore never accumulates: a late wake-up
// makes the next sleep shorter. Each step's tokens are published and
// handed to their streams when its end has passed, and the lateness of
// both is recorded (StepTiming).
func (s *Server) loop(ctx context.Context) {
	defer s.stopped()
	clk := s.cfg.clock
	start := clk.Now()
	stuck := 0
	for ctx.Err() == nil {
		s.drain(start)
		if s.eng.idle() {
			clk.Sleep(ctx, forever, s.wake)
			start = max(start, clk.Now())
			continue
		}
		dur, ok := s.eng.step(start)
		if !ok {
			// Nothing is schedulable yet: sleep until the first waiting
			// request is ready, or until something new arrives.
			t, _ := s.eng.nextReady()
			if t <= start {
				// A step that only preempted; the next one admits. Twice in
				// a row means something is wrong: do not spin.
				if stuck++; stuck > 2 {
					clk.Sleep(ctx, clk.Now()+time.Millisecond, s.wake)
					start = max(start, clk.Now())
				}
				continue
			}
			clk.Sleep(ctx, t, s.wake)
			start = max(start, min(t, clk.Now()))
			continue
		}
		stuck = 0
		end := start + dur
		clk.Sleep(ctx, end, nil)
		if ctx.Err() != nil {
			return
		}
		for _, q := range s.eng.emitted {
			q.sink.emit(q, end)
		}
		late := clk.Now() - end
		if len(s.eng.emitted) > 0 {
			s.broadcast()
		}
		hand := clk.Now() - end
		s.lag.add(late, hand)
		s.waiting.Store(int64(s.eng.waiting.len()))
		start = end
		if hand > resyncAfter {
			start = clk.Now()
		}
	}
}

// drain applies prefix cache resets and moves new requests and aborts from
// the inbox into the engine. New
// requests go first, so that an abort of a request submitted in the same
// batch finds it.
func (s *Server) drain(now time.Duration) {
	s.mu.Lock()
	in, ab, resets := s.inbox, s.aborts, s.resets
	s.inbox, s.aborts, s.resets = nil, nil, 0
	s.mu.Unlock()
	// A reset comes before the requests drained with it: they were sent
	// after it was asked for, or at the same time.
	if resets > 0 {
		s.eng.kv.reset()
	}
	for _, q := range in {
		s.eng.enqueue(q)
	}
	for _, q := range ab {
		s.eng.abort(q, now)
	}
	s.waiting.Store(int64(s.eng.waiting.len()))
}

// stopped marks the server closed when the loop ends, so that open streams
// stop waiting for tokens that will never come.
func (s *Server) stopped() {
	if c, ok := s.cfg.clock.(io.Closer); ok {
		_ = c.Close()
	}
	s.mu.Lock()
	if s.state != serverClosed {
		s.state = serverClosed
		close(s.closing)
	}
	s.mu.Unlock()
	close(s.done)
}
