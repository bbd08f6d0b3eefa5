package load

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// maxCrew bounds how many goroutines a crew holds for an uncapped open
// loop's start-up burst; the rest of a larger burst start when sent.
const maxCrew = 4096

// Crew is the goroutines a run's start sends from, started before its
// epoch, each with its stack grown and waiting for its job: a closed
// loop's workers; an open loop's senders when it has a cap; without one,
// a goroutine for each request of its start-up burst (up to maxCrew).
// Started when the burst is due, the goroutines would first be created
// and their stacks grown by the burst's own sends, on the cores those
// sends need (BENCHMARKS.md, "The start's goroutines before the epoch").
//
// Run hires its own crew before it waits for the epoch. Starting
// thousands of goroutines takes tens of milliseconds, so a caller that
// fixes p.Epoch calls HireFirst before choosing it, as it calls
// PrepareFirst and WarmFirst, and passes the crew in p.Crew.
type Crew struct {
	n     int
	start chan struct{} // closed to set the crew going
	job   func()        // what each runs, set before start is closed
	once  sync.Once     // closes start
	taken atomic.Bool   // a run took it: no other may
	ready sync.WaitGroup
	done  sync.WaitGroup
}

// crewSize is how many goroutines p's start sends from (see Crew); 0 when
// it needs none of its own.
func (p *Plan) crewSize() int {
	switch {
	case len(p.Offsets) == 0, p.workers() > 0:
		return p.workers()
	case p.burstSize() > 1:
		return min(p.burstSize(), maxCrew)
	}
	return 0
}

// HireFirst runs a garbage collection and starts the crew of p (see
// Crew), returning once all of it waits. Run takes it from p.Crew; a
// caller that does not run p after all must Dismiss it.
func HireFirst(p Plan) *Crew {
	// What building the first requests left for the collector is
	// collected now, rather than by a collection that starts while the
	// burst goes out and takes its CPU; and before the goroutines start,
	// since a collection shrinks a stack that waits using a quarter of
	// it, as theirs will.
	runtime.GC()
	n := p.crewSize()
	c := &Crew{n: n, start: make(chan struct{})}
	c.ready.Add(n)
	c.done.Add(n)
	for range n {
		go func() {
			defer c.done.Done()
			growStack()
			c.ready.Done()
			<-c.start
			if c.job != nil {
				c.job()
			}
		}()
	}
	c.ready.Wait()
	return c
}

// release sets every member going with job (nil: to end at once).
func (c *Crew) release(job func()) {
	c.once.Do(func() {
		c.job = job
		close(c.start)
	})
}

// wait returns once every member has finished its job.
func (c *Crew) wait() { c.done.Wait() }

// Dismiss ends a crew that no run took, and waits for it. It does nothing
// to one a run took, or to nil.
func (c *Crew) Dismiss() {
	if c == nil || !c.taken.CompareAndSwap(false, true) {
		return
	}
	c.release(nil)
	c.wait()
}

// hire takes the crew of r's plan, from Plan.Crew when it was hired for
// a plan of the same start, else a new one, and readies what it will be
// given to do: a closed loop's workers call work, an open loop's senders
// serve its queue, an uncapped burst's members take one request each
// from theirs. ctx is the run's.
func (r *runner) hire(ctx context.Context) {
	p := &r.plan
	c := p.Crew
	if c == nil || c.n != p.crewSize() || !c.taken.CompareAndSwap(false, true) {
		c.Dismiss() // hired for another start; nothing when nil or taken
		c = HireFirst(*p)
		c.taken.Store(true)
	}
	r.crew = c
	switch {
	case len(p.Offsets) == 0:
		r.job = func() { r.work(ctx) }
	case p.workers() > 0:
		r.queue = make(chan queued, len(p.Offsets))
		r.job = func() { r.serve(ctx, r.queue) }
	case c.n > 0:
		r.queue = make(chan queued, c.n)
		r.job = func() {
			if q, ok := <-r.queue; ok {
				r.sendQueued(ctx, q)
			}
		}
	}
}

// dismiss ends the crew without a run: the context it was given has
// ended, so that each member finds nothing to send.
func (r *runner) dismiss() {
	if r.queue != nil {
		close(r.queue)
	}
	r.crew.release(r.job)
	r.crew.wait()
}

// stackFrame is the frame growStack needs: a send through either
// transport grows a goroutine's stack from its first 8 KiB to 16 KiB
// (TestASendFitsTheGrownStack), and a frame of this size grows it there.
const stackFrame = 10 << 10

// growStack grows the calling goroutine's stack to what a send needs, and
// touches its pages, so that the send does not copy it to a larger one.
//
//go:noinline
func growStack() byte {
	var pad [stackFrame]byte
	return touchPages(pad[:])
}

// touchPages writes a byte of every page of b.
//
//go:noinline
func touchPages(b []byte) byte {
	for i := 0; i < len(b); i += 1024 {
		b[i] = byte(i)
	}
	return b[len(b)-1]
}
