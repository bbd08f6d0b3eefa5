package transport

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// pool keeps idle connections to one server and dials new ones ahead of
// need: Warm fills it before a run; during the run a dialler goroutine
// keeps at least spare idle, so that a request due now takes one at once.
// A request that finds none dials itself, late, and is counted. C is the
// transport's connection type.
//
// Idle connections are handed out oldest first: each stays in use, so
// none idles long enough for a server's keep-alive timeout, and a
// connection just given back, which a server that closes after every
// response is about to close, is taken last. Oldest first is also the
// order in which the server accepted them, as long as they were dialled
// one at a time: a server with a fixed number of workers, each holding
// one connection until its request comes or its idle timeout ends
// (llama.cpp's), serves its queue in that order, and a connection handed
// out after one dialled later but accepted earlier waits behind it, for
// the idle timeout (seconds), while that one idles. Dials therefore run
// one at a time while they are quick (the last took under orderedDial: a
// server nearby, where one takes tens of microseconds); a server whose
// dials take longer is dialled in parallel, in no guaranteed order.
type pool[C comparable] struct {
	dial  func(ctx context.Context) (C, error)
	alive func(C) bool // false: the server closed it while idle
	drop  func(C)      // closes a connection not handed out
	cold  bool         // no dialling ahead

	mu       sync.Mutex // guards the fields below
	idle     []C        // oldest first
	spare    int        // idle connections the dialler keeps, at least
	maxIdle  int        // idle connections kept at most: more are closed
	dialling int        // dials under way by the dialler
	closed   bool
	started  bool          // the dialler runs
	wake     chan struct{} // tells the dialler to look again; capacity 1
	stopped  chan struct{} // closed when the dialler has returned
	stop     context.CancelFunc
	lastErr  error // the dialler's last failure, for Warm

	warmed, ahead, late, dead atomic.Int64
	lateWait                  atomic.Int64 // ns
	slow                      atomic.Bool  // the last dial took orderedDial or more
}

// maxParallelDials bounds the dials one pool runs at once, so that a large
// Warm does not flood the server's accept queue.
const maxParallelDials = 32

// orderedDial is the dial time below which a pool dials one connection at
// a time, so that the server accepts them in the order they are handed
// out (see pool). A variable only so that a test of that order can hold
// on a machine too busy to dial in 2 ms.
var orderedDial = 2 * time.Millisecond

// dialTimed dials, noting a slow dial.
func (p *pool[C]) dialTimed(ctx context.Context) (C, error) {
	start := time.Now()
	c, err := p.dial(ctx)
	if err == nil {
		p.slow.Store(time.Since(start) >= orderedDial)
	}
	return c, err
}

// parallel is how many dials the pool runs at once.
func (p *pool[C]) parallel() int {
	if p.slow.Load() {
		return maxParallelDials
	}
	return 1
}

// newPool returns a pool that keeps at most maxIdle connections idle
// (more while Warm or the spares ask for more).
func newPool[C comparable](dial func(context.Context) (C, error), alive func(C) bool, drop func(C), cold bool, spare, maxIdle int) *pool[C] {
	return &pool[C]{dial: dial, alive: alive, drop: drop, cold: cold, spare: spare, maxIdle: max(maxIdle, spare),
		wake: make(chan struct{}, 1), stopped: make(chan struct{})}
}

// get returns an idle connection (pooled true) or, when none is, one it
// dials now (pooled false), counted as late.
func (p *pool[C]) get(ctx context.Context) (c C, pooled bool, err error) {
	var zero C
	for {
		p.mu.Lock()
		if len(p.idle) == 0 {
			p.mu.Unlock()
			break
		}
		c = p.idle[0]
		p.idle[0] = zero
		p.idle = p.idle[1:]
		// The dialler is told only when the spares run short: a burst of
		// requests taking connections it need not replace costs no
		// wake-ups.
		short := p.started && len(p.idle)+p.dialling < p.spare
		p.mu.Unlock()
		if short {
			p.poke()
		}
		if p.alive(c) {
			return c, true, nil
		}
		p.dead.Add(1)
		p.drop(c)
	}
	p.poke()
	start := time.Now()
	c, err = p.dial(ctx)
	if err != nil {
		return zero, false, err
	}
	p.late.Add(1)
	p.lateWait.Add(int64(time.Since(start)))
	return c, false, nil
}

// put gives back a connection that may serve another request; one more
// than the pool keeps is closed.
func (p *pool[C]) put(c C) {
	p.mu.Lock()
	if p.closed || len(p.idle) >= p.maxIdle {
		p.mu.Unlock()
		p.drop(c)
		return
	}
	p.idle = append(p.idle, c)
	p.mu.Unlock()
}

// remove takes c out of the idle list, if it is there, because the server
// closed it; it reports whether it was there.
func (p *pool[C]) remove(c C) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.idle {
		if x == c {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			p.dead.Add(1)
			p.poke()
			return true
		}
	}
	return false
}

// warm dials until n connections are idle, up to maxParallelDials at once,
// or ctx ends. It fails only if no dial succeeded. A cold pool dials
// nothing ahead.
func (p *pool[C]) warm(ctx context.Context, n int) error {
	if p.cold {
		return nil
	}
	p.mu.Lock()
	need := n - len(p.idle)
	p.maxIdle = max(p.maxIdle, n)
	p.mu.Unlock()
	if need <= 0 {
		return nil
	}
	var wg sync.WaitGroup
	var mu sync.Mutex // guards first and opened
	var first error
	opened := 0
	sem := make(chan struct{}, maxParallelDials)
	for range need {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		dial := func() {
			defer func() { <-sem; wg.Done() }()
			c, err := p.dialTimed(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
				}
				return
			}
			opened++
			p.warmed.Add(1)
			p.put(c)
		}
		if p.parallel() == 1 {
			dial() // in order: see pool
		} else {
			go dial()
		}
	}
	wg.Wait()
	if opened == 0 && first != nil {
		return first
	}
	return ctx.Err()
}

// setSpare sets how many idle connections the dialler keeps and starts it
// on first use. A cold pool keeps none.
func (p *pool[C]) setSpare(n int) {
	if p.cold {
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.spare = max(n, 0)
	p.maxIdle = max(p.maxIdle, p.spare)
	if !p.started {
		p.started = true
		ctx, stop := context.WithCancel(context.Background())
		p.stop = stop
		go p.dialler(ctx)
	}
	p.mu.Unlock()
	p.poke()
}

// poke tells the dialler to look at the pool again.
func (p *pool[C]) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// dialler keeps spare connections idle until the pool closes. It waits on
// its channel between rounds: while nothing is taken it costs nothing.
func (p *pool[C]) dialler(ctx context.Context) {
	defer close(p.stopped)
	results := make(chan error, maxParallelDials)
	for {
		p.mu.Lock()
		for !p.closed && p.dialling < p.parallel() && len(p.idle)+p.dialling < p.spare {
			p.dialling++
			go func() {
				c, err := p.dialTimed(ctx)
				if err == nil {
					p.ahead.Add(1)
					p.put(c)
				}
				results <- err
			}()
		}
		closed := p.closed
		p.mu.Unlock()
		if closed {
			p.drain(results)
			return
		}
		select {
		case <-p.wake:
		case err := <-results:
			p.mu.Lock()
			p.dialling--
			p.lastErr = err
			failing := err != nil
			p.mu.Unlock()
			if failing {
				// A server that refuses connections is not dialled in a
				// tight loop: requests dial it themselves meanwhile.
				select {
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
				}
			}
		case <-ctx.Done():
		}
	}
}

// drain waits for the dials under way once the pool has closed.
func (p *pool[C]) drain(results chan error) {
	for {
		p.mu.Lock()
		n := p.dialling
		p.dialling = 0
		p.mu.Unlock()
		if n == 0 {
			return
		}
		for range n {
			<-results
		}
	}
}

// close drops every idle connection and stops the dialler. Connections
// given back later are dropped.
func (p *pool[C]) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	idle := p.idle
	p.idle = nil
	started := p.started
	p.mu.Unlock()
	if started {
		p.stop()
		p.poke()
		<-p.stopped
	}
	for _, c := range idle {
		p.drop(c)
	}
	// Connections a dial finished after close put back: put drops them.
}

// stats fills the pool's counts into s.
func (p *pool[C]) stats(s *Stats) {
	s.Warmed += p.warmed.Load()
	s.Ahead += p.ahead.Load()
	s.Late += p.late.Load()
	s.LateWait += time.Duration(p.lateWait.Load())
	s.Dead += p.dead.Load()
}

// errClosed is the error of a request sent through a closed transport.
var errClosed = errors.New("transport: closed")

// idle is what a peek at an idle connection found.
type idle int

const (
	idleQuiet   idle = iota // open, nothing to read
	idlePending             // open, with bytes nobody asked for
	idleClosed              // closed by the server, or failing
)
