package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-dev/goodput/internal/finesleep"
	"github.com/goodput-dev/goodput/record"
)

// A flow is a unit of work whose requests depend on one another: the turns
// of a multi-turn session, each sent when the previous reply ended plus a
// think time, or the calls of an agent task, each sent when the calls it
// waits for ended plus their tool time. RunFlows runs flows: the flows
// arrive open- or closed-loop, as Plan says of requests, and each flow's
// requests follow its Graph.
//
// Coordinated omission stays impossible: a request's scheduled time is
// the instant its graph made it due (the flow's arrival for a first
// request; the end of what it waits for plus the wait for the others),
// never the moment a goroutine got to it, so a late sender shows as client
// queue and in TTFT.

// Graph is the shape of one flow: its requests, in an order in which every
// request comes after those it waits for.
type Graph struct {
	Nodes []Node
}

// Node is one request of a flow.
type Node struct {
	// Seq is the request's sequence number, unique in the run.
	Seq int64
	// After lists the requests of the flow this one waits for. It is due
	// when the last of them ends plus its Wait: max over After of (End +
	// Wait). A node with none is due when the flow starts, plus Delay.
	After []Edge
	Delay time.Duration
}

// Edge says a node waits for node From of the same flow, and then for
// Wait more: a user's think time, a tool's run time.
type Edge struct {
	From int // index in Graph.Nodes, below the waiting node's own
	Wait time.Duration
}

// Validate reports the first problem of g: an edge to itself, to a later
// node or outside the graph, or a negative wait or delay.
func (g Graph) Validate() error {
	for j, n := range g.Nodes {
		if n.Delay < 0 {
			return fmt.Errorf("request %d: delay %v is negative", j, n.Delay)
		}
		for _, e := range n.After {
			switch {
			case e.From < 0 || e.From >= j:
				return fmt.Errorf("request %d waits for request %d, which does not come before it", j, e.From)
			case e.Wait < 0:
				return fmt.Errorf("request %d: wait %v after request %d is negative", j, e.Wait, e.From)
			}
		}
	}
	return nil
}

// Flows starts the flows of a run.
type Flows interface {
	// Start returns flow number f (≥ 0), ready to run. RunFlows calls it
	// once per flow, when the flow starts, from any goroutine, and drops
	// the Flow when the flow's last request ended: per-flow state (a
	// conversation's history) lives in the Flow.
	Start(f int64) Flow
}

// Flow is one running flow.
type Flow interface {
	// Graph returns the flow's requests. It must be valid (Graph.Validate)
	// and not change while the flow runs.
	Graph() Graph
	// Do performs request j of the graph as Doer.Do performs a request:
	// it fills rec (Seq, Scheduled and Warmup are set) and takes Sent
	// with now. RunFlows calls Do for a request only after Do returned for
	// every request it waits for, and calls Do for the flow's independent
	// requests concurrently.
	Do(ctx context.Context, j int, rec *record.Record, now func() int64)
}

// waiterPool is how many fine waiters (each a kernel timer) the flows of
// a run share; a wait that finds none free uses Go's timer alone, late by
// up to a millisecond.
const waiterPool = 64

// RunFlows executes p, whose requests are flows: Offsets are the arrival
// times of flows (Seqs their flow numbers, when set), Concurrency caps the
// flows running at once, or, without Offsets, makes a closed loop of that
// many users, each starting its next flow when its last one's last request
// ended, until Count flows started or Duration elapsed. Warmups and
// WarmupTime mark whole flows as warm-up. Each finished request's record
// goes to out; RunFlows does not close out.
//
// A flow that arrives while Concurrency flows run waits for a slot; its
// first requests stay due at its arrival, so the wait shows as their
// client queue. A failed request does not stop its flow: what waits for
// it is sent when it ended, so a failing server does not lower the
// offered load. After an interruption no request is sent any more; those
// in flight get Grace to finish, and flows still waiting for a slot are
// not recorded.
//
// Result.Lag holds, per request in dispatch order, how late the generator
// made it: from the moment it was due (or its flow got a slot, if later)
// to its hand-over to Do, plus the time Do took to send it.
func RunFlows(ctx context.Context, p Plan, fl Flows, out chan<- *record.Record) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	if fl == nil {
		return Result{}, errors.New("no flows to run")
	}
	p.setDefaults()
	wait := finesleep.NewWaiter(p.FineWait)
	defer wait.Close()
	epoch, err := waitEpoch(ctx, p.Epoch, wait)
	if err != nil {
		return Result{Epoch: epoch, Interrupted: true}, nil
	}
	r := &flowRunner{plan: p, flows: fl, out: out, epoch: epoch, waiters: make(chan *finesleep.Waiter, waiterPool)}
	defer r.closeWaiters()
	var stop func()
	r.reqCtx, r.cancelReqs, stop = requestContext(ctx, p.Grace)
	defer stop()

	if len(p.Offsets) > 0 {
		r.open(ctx, wait)
	} else {
		r.closed(ctx)
	}
	r.flowsDone.Wait()
	r.nodes.Wait()
	res := Result{Epoch: r.epoch, Sent: r.sent.Load(), Interrupted: ctx.Err() != nil, End: r.now(),
		Lag: r.lag.all(), StartRequests: p.startRequests()}
	res.StartLag = res.startLag()
	return res, nil
}

type flowRunner struct {
	plan       Plan
	flows      Flows
	out        chan<- *record.Record
	epoch      time.Time
	reqCtx     context.Context
	cancelReqs context.CancelFunc
	flowsDone  sync.WaitGroup // the goroutines that run flows
	nodes      sync.WaitGroup // one per request, until its record is delivered
	waiters    chan *finesleep.Waiter
	made       atomic.Int64 // fine waiters made, at most waiterPool
	sent       atomic.Int64 // requests handed to Do
	dispatched atomic.Int64 // requests dispatched, the index of the next one's lag
	lag        lags
}

// now returns ns since the epoch from the monotonic clock.
func (r *flowRunner) now() int64 { return int64(time.Since(r.epoch)) }

func (r *flowRunner) warm(i int, arrival time.Duration) bool {
	return i < r.plan.Warmups || arrival < r.plan.WarmupTime
}

// open starts flow i at epoch + Offsets[i], on its own goroutine, or with
// a cap through a queue served by Concurrency runners.
func (r *flowRunner) open(ctx context.Context, wait *finesleep.Waiter) {
	var queue chan int // flow indices; the scheduler owns it and closes it
	if n := r.plan.workers(); n > 0 {
		queue = make(chan int, len(r.plan.Offsets))
		defer close(queue)
		for range n {
			r.flowsDone.Add(1)
			go func() {
				defer r.flowsDone.Done()
				for i := range queue {
					if ctx.Err() != nil {
						continue // interrupted while waiting for a slot: never started
					}
					off := r.plan.Offsets[i]
					r.run(ctx, r.plan.seq(i), int64(off), r.now(), r.warm(i, off))
				}
			}()
		}
	}
	since := func() time.Duration { return time.Duration(r.now()) }
	for i, off := range r.plan.Offsets {
		if !wait.Until(ctx, off, since) {
			return
		}
		if queue != nil {
			queue <- i // never blocks: it holds every flow
			continue
		}
		r.flowsDone.Add(1)
		go func() {
			defer r.flowsDone.Done()
			r.run(ctx, r.plan.seq(i), int64(off), int64(off), r.warm(i, off))
		}()
	}
}

// closed keeps Concurrency users busy, each starting its next flow when
// the last request of its previous one ended.
func (r *flowRunner) closed(ctx context.Context) {
	var next atomic.Int64
	take := func() (int, bool) {
		if ctx.Err() != nil || (r.plan.Duration > 0 && time.Duration(r.now()) >= r.plan.Duration) {
			return 0, false
		}
		i := int(next.Add(1) - 1)
		if r.plan.Count > 0 && i >= r.plan.Count {
			return 0, false
		}
		return i, true
	}
	for range r.plan.workers() {
		r.flowsDone.Add(1)
		go func() {
			defer r.flowsDone.Done()
			start := r.now()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if end := r.run(ctx, r.plan.seq(i), start, start, r.warm(i, time.Duration(start))); end > start {
					start = end
				} else {
					start = r.now()
				}
			}
		}()
	}
}

// done is what a finished request tells its flow.
type done struct {
	j    int
	end  int64 // te, ns from the epoch
	sent bool  // false: not sent, because the run was interrupted first
}

// run runs flow f, which started at start (ns from the epoch) and got its
// slot at ready, to its end, and returns the end of its last request (0
// when none was sent).
func (r *flowRunner) run(ctx context.Context, f, start, ready int64, warm bool) int64 {
	fl := r.flows.Start(f)
	g := fl.Graph()
	n := len(g.Nodes)
	if n == 0 {
		return 0
	}
	due := make([]int64, n)
	pending := make([]int, n)
	waiting := make([][]Edge, n) // waiting[j]: the nodes that wait for j, From set to the waiting node
	for j, nd := range g.Nodes {
		pending[j] = len(nd.After)
		if len(nd.After) == 0 {
			due[j] = start + int64(nd.Delay)
		}
		for _, e := range nd.After {
			waiting[e.From] = append(waiting[e.From], Edge{From: j, Wait: e.Wait})
		}
	}
	finished := make(chan done, n) // every node sends once: never blocks
	running := 0
	launch := func(j int, ready int64) {
		running++
		r.nodes.Add(1)
		go func() {
			defer r.nodes.Done()
			r.node(ctx, fl, j, g.Nodes[j].Seq, due[j], max(due[j], ready), warm, finished)
		}()
	}
	for j, nd := range g.Nodes {
		if len(nd.After) == 0 {
			launch(j, ready)
		}
	}
	var last int64
	for running > 0 {
		d := <-finished
		running--
		if !d.sent {
			continue // interrupted: what waits for it is never sent
		}
		last = max(last, d.end)
		for _, w := range waiting[d.j] {
			// Ends are ns from the epoch, never negative, so due starts
			// at 0 for a node that waits.
			due[w.From] = max(due[w.From], d.end+int64(w.Wait))
			if pending[w.From]--; pending[w.From] == 0 {
				launch(w.From, due[w.From])
			}
		}
	}
	return last
}

// node sends request j of fl when it is due, tells its flow on finished,
// then delivers its record. ready is when it could first have left: its
// due time, or later when its flow waited for a slot.
func (r *flowRunner) node(ctx context.Context, fl Flow, j int, seq, due, ready int64, warm bool, finished chan<- done) {
	w, pooled := r.waiter()
	ok := w.Until(ctx, time.Duration(due), func() time.Duration { return time.Duration(r.now()) })
	r.putWaiter(w, pooled)
	if !ok {
		finished <- done{j: j}
		return
	}
	i := int(r.dispatched.Add(1) - 1)
	handed := r.now()
	r.lag.set(i, time.Duration(max(0, handed-ready)))
	rec := &record.Record{Seq: seq, Scheduled: due, Warmup: warm}
	r.sent.Add(1)
	fl.Do(r.reqCtx, j, rec, r.now)
	if rec.Sent > handed {
		r.lag.add(i, time.Duration(rec.Sent-handed))
	}
	if rec.End == 0 {
		rec.End = r.now()
	}
	// What waits for this request may go at once, whatever delivery
	// takes; it reads the flow's state, never rec.
	finished <- done{j: j, end: rec.End, sent: true}
	// The consumer keeps reading until RunFlows returns: a measured
	// record is never lost.
	r.out <- rec
}

// waiter returns a fine waiter from the pool, or a new one while fewer
// than waiterPool exist (pooled true), or else one on Go's timer alone.
func (r *flowRunner) waiter() (w *finesleep.Waiter, pooled bool) {
	select {
	case w := <-r.waiters:
		return w, true
	default:
	}
	if r.made.Add(1) <= waiterPool {
		return finesleep.NewWaiter(r.plan.FineWait), true
	}
	return finesleep.NewWaiter(-1), false
}

// putWaiter returns a pooled w to the pool and closes any other.
func (r *flowRunner) putWaiter(w *finesleep.Waiter, pooled bool) {
	if pooled {
		r.waiters <- w // the pool holds every pooled waiter: never blocks
		return
	}
	w.Close()
}

// closeWaiters closes the pooled waiters once no flow runs.
func (r *flowRunner) closeWaiters() {
	for {
		select {
		case w := <-r.waiters:
			w.Close()
		default:
			return
		}
	}
}
