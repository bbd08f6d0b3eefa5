package load

import (
	"context"
	"runtime"
	"sync"
)

// maxCrew bounds how many goroutines hire starts for an uncapped open
// loop's start-up burst; the rest of a larger burst start when sent.
const maxCrew = 4096

// hire starts, before the epoch, the goroutines the run's start sends
// from, waiting for r.start: a closed loop's workers; an open loop's
// senders when it has a cap; without one, a goroutine for each request
// of its start-up burst (up to maxCrew). Each grows its stack before it
// waits. Started when the burst is due, the goroutines would first be
// created and their stacks grown by the burst's own sends, on the cores
// those sends need (BENCHMARKS.md, "The start's goroutines before the
// epoch").
func (r *runner) hire(ctx context.Context) {
	// What building the first requests left for the collector is
	// collected now, rather than by a collection that starts while the
	// burst goes out and takes its CPU; and before the goroutines start,
	// since a collection shrinks a stack that waits using a quarter of
	// it, as theirs will.
	runtime.GC()
	p := &r.plan
	r.start = make(chan struct{})
	switch {
	case len(p.Offsets) == 0:
		r.spawn(p.workers(), func() { r.work(ctx) })
	case p.workers() > 0:
		r.queue = make(chan queued, len(p.Offsets))
		r.spawn(p.workers(), func() { r.serve(ctx, r.queue) })
	case p.burstSize() > 1:
		r.crewed = min(p.burstSize(), maxCrew)
		r.queue = make(chan queued, r.crewed)
		r.spawn(r.crewed, func() {
			if q, ok := <-r.queue; ok {
				r.sendQueued(ctx, q)
			}
		})
	}
}

// spawn starts n goroutines that grow their stacks, wait for r.start and
// run job; it returns once all n wait.
func (r *runner) spawn(n int, job func()) {
	var waiting sync.WaitGroup
	waiting.Add(n)
	r.wg.Add(n)
	for range n {
		go func() {
			defer r.wg.Done()
			growStack()
			waiting.Done()
			<-r.start
			job()
		}()
	}
	waiting.Wait()
}

// dismiss ends the goroutines hire started without a run: the context
// they were given has ended, so that each finds nothing to send.
func (r *runner) dismiss() {
	if r.queue != nil {
		close(r.queue)
	}
	close(r.start)
	r.wg.Wait()
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
