// Package load runs a benchmark: it sends requests at their scheduled times
// (open loop) or keeps a fixed number in flight (closed loop), and turns each
// into a record.Record as it completes.
//
// Open loop means open loop: the scheduler never waits for a response. Each
// request gets its own goroutine at its scheduled time, so a slow server
// cannot lower the offered load. With a concurrency cap, a request waits for
// a free slot and the wait shows as client queue (Sent − Scheduled), never
// hidden, because TTFT counts from the scheduled time.
package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/internal/finesleep"
	"github.com/goodput-dev/goodput/record"
)

// Doer performs request number seq and fills rec: Sent (taken with now just
// before the request leaves), Chunks, End, token counts, status and any
// failure. Failures of the request are data in rec, never a Go error.
// ctx is cancelled when the run is interrupted and the grace period ends;
// Do must then return promptly, marking rec as record.ErrCanceled.
type Doer interface {
	Do(ctx context.Context, seq int64, rec *record.Record, now func() int64)
}

// Preparer is implemented by a Doer whose requests take work to build
// before they can leave: a prompt's text, which may first build a
// tokenizer. Run calls Prepare for every request in schedule order, from
// one goroutine, ahead of its scheduled time (the first ones before the
// epoch, each later one while earlier ones wait for theirs), and calls Do
// for a request only after its Prepare returned, so that building never
// delays a send. Prepare must do nothing for a request already prepared
// and not yet sent (see PrepareFirst), and be safe to call while Do runs
// for other requests. A Preparer too slow for the schedule shows as
// dispatch lag.
type Preparer interface {
	Prepare(seq int64)
}

// Warmer is implemented by a Doer that opens connections before requests
// need them. Run calls Warm before the epoch with as many as the plan can
// have in flight at its start (see WarmFirst), and, during an open loop,
// Ahead with the number of requests due within the next AheadWindow, so
// that connections are ready before those requests are due. Both must be
// safe to call while Do runs.
type Warmer interface {
	// Warm opens connections until n are ready, or ctx ends, sending no
	// request. Its error says that none could be opened; the run goes
	// on, and its requests record the failure.
	Warm(ctx context.Context, n int) error
	// Ahead keeps at least n spare connections open from now on.
	Ahead(n int)
}

// AheadWindow is how far ahead of the schedule an open loop asks a Warmer
// to keep connections: long enough for many dials, short enough that the
// spares match the load's rate.
const AheadWindow = 100 * time.Millisecond

// warmWindow is the stretch of an open loop's start whose requests get a
// connection before the epoch: by Little's Law no more of them can be in
// flight during it than arrive in it. Later ones are dialled ahead by the
// spares, which at a high rate would dial during the run what the start
// could have opened before it (5,000 streams started over 0.5 s: a
// dispatch lag p99 of 12 ms instead of 0.2-0.6 ms on two cores).
//
// Idle connections are not free for every server: one that gives each
// connection a worker of a fixed pool (llama.cpp's HTTP threads) holds a
// worker for every idle one until its keep-alive timeout, and any other
// client (a probe, a health check, a /metrics scrape, another user)
// queues behind them. A second's requests open and idle at the epoch
// made a one-token probe beside 40 requests a second wait 0.5-1.4 s for
// llama-server in half the runs, where it takes milliseconds; for such a
// server (Plan.IdleHoldsWorker) the start opens only what the spares then
// keep, its first AheadWindow.
const warmWindow = time.Second

// startWindow is the stretch of an open loop's start whose requests get
// a connection before the epoch (see warmWindow).
func (p *Plan) startWindow() time.Duration {
	if p.IdleHoldsWorker {
		return AheadWindow
	}
	return warmWindow
}

// DoerFunc adapts a function to the Doer interface.
type DoerFunc func(ctx context.Context, seq int64, rec *record.Record, now func() int64)

// Do calls f.
func (f DoerFunc) Do(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
	f(ctx, seq, rec, now)
}

// Plan says when requests go out. Exactly one of Offsets (open loop) and
// closed-loop Concurrency without Offsets describes the load.
type Plan struct {
	// Offsets are the scheduled send times of an open-loop run, relative to
	// the run start, in non-decreasing order. Request i has sequence number
	// Seqs[i] when Seqs is set (sharding), else i.
	Offsets []time.Duration
	Seqs    []int64

	// Concurrency caps requests in flight. Without Offsets it makes a closed
	// loop of N workers, each sending its next request when the previous
	// finishes, until Count requests were sent or Duration elapsed.
	Concurrency int
	Count       int
	Duration    time.Duration
	// Closed-loop request i has sequence number FirstSeq + i·SeqStride
	// (a shard of a sharded run); SeqStride 0 means 1.
	FirstSeq, SeqStride int64

	// Warmups marks the first Warmups requests, and WarmupTime every request
	// scheduled before that offset, as warm-up: sent and recorded, but
	// excluded from statistics.
	Warmups    int
	WarmupTime time.Duration

	// Grace is how long in-flight requests may finish after an interruption
	// before they are cancelled (default 3 s).
	Grace time.Duration

	// Crew is the goroutines HireFirst started for this plan's start; nil:
	// Run starts them itself, before it waits for the epoch.
	Crew *Crew

	// Epoch is the instant all offsets count from; zero means when Run is
	// called. A future Epoch makes Run wait for it, so the shards of one
	// schedule, started on several machines, send at the same global times.
	// Callers that write a run header before Run must put this instant in
	// it.
	Epoch time.Time

	// FineWait is how long before each open-loop send, and before a future
	// Epoch, Run stops waiting on a Go timer and waits on the kernel's
	// high-resolution timer instead (package finesleep). Go's timers wait in
	// the runtime's poller, which on Linux sleeps with millisecond
	// resolution: on an otherwise idle process a timer alone fires up to a
	// millisecond late, which would be dispatch lag. Zero means
	// DefaultFineWait; negative, Go timers only. Tests whose clock is
	// virtual (testing/synctest) want the latter: the kernel's timer knows
	// nothing of that clock, so each fine wait would only cost real time
	// before the Go timer ends it.
	FineWait time.Duration

	// IdleHoldsWorker says the server gives every open connection a
	// worker of a fixed pool, which an idle one holds (llama.cpp's HTTP
	// threads): there an open loop's start opens only the connections of
	// its first AheadWindow, not of its first warmWindow, and the spares
	// keep no more (see warmWindow).
	IdleHoldsWorker bool
}

// DefaultFineWait is Plan.FineWait's default: the resolution of Go's timers.
const DefaultFineWait = time.Millisecond

// Validate reports every problem of the plan.
func (p *Plan) Validate() error {
	var errs []error
	if p.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("--max-concurrency must be ≥ 0, got %d", p.Concurrency))
	}
	if len(p.Offsets) == 0 {
		if p.Concurrency == 0 {
			errs = append(errs, errors.New("nothing to run: give --request-rate or --max-concurrency"))
		}
		if p.Count <= 0 && p.Duration <= 0 {
			errs = append(errs, errors.New("a closed-loop run needs --num-prompts or --duration"))
		}
	}
	if p.Seqs != nil && len(p.Seqs) != len(p.Offsets) {
		errs = append(errs, fmt.Errorf("plan has %d sequence numbers for %d offsets", len(p.Seqs), len(p.Offsets)))
	}
	for i := 1; i < len(p.Offsets); i++ {
		if p.Offsets[i] < p.Offsets[i-1] {
			errs = append(errs, fmt.Errorf("schedule goes back in time at request %d", i))
			break
		}
	}
	if p.Warmups < 0 || p.WarmupTime < 0 {
		errs = append(errs, errors.New("warm-up count and time must be ≥ 0"))
	}
	return errors.Join(errs...)
}

// workers returns how many requests of p can ever be in flight at once,
// which is how many goroutines send them: a closed loop's cap, or its
// count when that is smaller; an open loop's cap, or its length when that
// is smaller. 0 means one per request (an open loop without a cap).
func (p *Plan) workers() int {
	switch {
	case len(p.Offsets) > 0 && p.Concurrency > 0:
		return min(p.Concurrency, len(p.Offsets))
	case len(p.Offsets) > 0:
		return 0
	case p.Count > 0:
		return min(p.Concurrency, p.Count)
	}
	return p.Concurrency
}

// total returns how many requests p sends, 0 when only a duration ends it.
func (p *Plan) total() int {
	if len(p.Offsets) > 0 {
		return len(p.Offsets)
	}
	return p.Count
}

// seq returns the sequence number of request i of p.
func (p *Plan) seq(i int) int64 {
	if len(p.Offsets) > 0 {
		if p.Seqs != nil {
			return p.Seqs[i]
		}
		return int64(i)
	}
	return p.FirstSeq + int64(i)*max(p.SeqStride, 1)
}

// prepareAhead is how many requests Run keeps prepared ahead of the one
// it sends next: enough for a burst of every worker at once, within
// bounds on the memory prepared prompts hold.
func (p *Plan) prepareAhead() int {
	// At least a start-up burst's requests, which are taken at once.
	n := p.workers()
	if n == 0 {
		n = 256
	}
	n = max(n, p.burstSize())
	n = min(max(n, 16), 1024)
	if t := p.total(); t > 0 {
		n = min(n, t)
	}
	return n
}

// burstSize is how many requests make the run's start-up burst, due at
// its first moment together: a closed loop's workers, an open loop's
// requests that share its first offset; 1 when there is none.
func (p *Plan) burstSize() int {
	if len(p.Offsets) == 0 {
		return max(p.workers(), 1)
	}
	n := 1
	for n < len(p.Offsets) && p.Offsets[n] == p.Offsets[0] {
		n++
	}
	return n
}

// startRequests is how many requests count as the start of a run for
// Result.StartLag: the first round of every worker, at least 16.
func (p *Plan) startRequests() int { return max(p.workers(), 16) }

// PrepareFirst prepares the requests p sends first, as many as Run keeps
// ready ahead, when do is a Preparer (and does nothing otherwise). Run does
// it too, before it waits for the epoch; a caller that fixes p.Epoch calls
// PrepareFirst before choosing it, so that the building does not make the
// first requests late.
func PrepareFirst(p Plan, do Doer) {
	pr, ok := do.(Preparer)
	if !ok {
		return
	}
	for i := range p.firstPrepared() {
		pr.Prepare(p.seq(i))
	}
}

// firstPrepared is how many requests PrepareFirst builds: those Run keeps
// ready ahead, and as many more as the start-up burst takes (up to as many
// again). The burst takes its requests at once, and Run then refills what
// it keeps ready; were the refill built then, it would take the CPU the
// burst's sends need.
func (p *Plan) firstPrepared() int {
	ahead := p.prepareAhead()
	n := ahead + min(p.burstSize(), ahead)
	if t := p.total(); t > 0 {
		n = min(n, t)
	}
	return n
}

// startConns returns how many connections the start of p needs: a closed
// loop's workers; for an open loop, the requests due in its startWindow,
// with a quarter more as headroom, within its cap.
func (p *Plan) startConns() int {
	if len(p.Offsets) == 0 {
		return p.workers()
	}
	n, window := 0, p.startWindow()
	for n < len(p.Offsets) && p.Offsets[n] < window {
		n++
	}
	n = min(n+(n+3)/4, len(p.Offsets))
	if p.Concurrency > 0 {
		n = min(n, p.Concurrency)
	}
	return max(n, 1)
}

// startSpares returns how many spare connections an open loop's start
// keeps beside those of startConns: one for each request due in the
// AheadWindow after its startWindow, which the spares then cover as the
// run goes on.
func (p *Plan) startSpares() int {
	n, window := 0, p.startWindow()
	for _, off := range p.Offsets {
		if off >= window && off < window+AheadWindow {
			n++
		}
	}
	if p.Concurrency > 0 {
		n = min(n, p.Concurrency)
	}
	return n
}

// WarmFirst opens the connections the start of p needs (see Warmer) when
// do is a Warmer, and returns its error; it does nothing otherwise. An
// open loop's spares are set first, from its schedule, so that the start
// opens no more than the run will keep. Run does it too, before it waits
// for the epoch; a caller that fixes p.Epoch calls WarmFirst before
// choosing it, so that the dials do not make the first requests late.
func WarmFirst(ctx context.Context, p Plan, do Doer) error {
	w, ok := do.(Warmer)
	if !ok {
		return nil
	}
	if len(p.Offsets) > 0 {
		w.Ahead(p.startSpares())
	}
	return w.Warm(ctx, p.startConns())
}

// Result summarises how the run itself went.
type Result struct {
	Epoch       time.Time // wall-clock time of the run epoch
	Sent        int64     // requests handed to the Doer
	Interrupted bool      // the context was cancelled before the plan finished
	End         int64     // ns from the epoch when the run stopped

	// Lag holds, per request in schedule order, how late the generator
	// itself made it: the time from its scheduled moment to its dispatch
	// to a sender (before any wait for a concurrency slot; in a burst of
	// requests due at one moment, from the previous one's dispatch, see
	// burstLag; in a closed loop, from the previous response's end), plus
	// the time the Doer then took to send it. The start-up burst's
	// requests count from the send before theirs instead (see Burst).
	// Large values mean the generator, not the server, limited the run.
	Lag []time.Duration
	// StartLag is the largest Lag of the run's first requests (the first
	// round of every worker, at least 16): a generator slow to start, such
	// as one building its first prompts late, shows here even when the
	// rest of the run hides it from the percentiles.
	StartLag time.Duration
	// StartRequests is how many requests make the run's start: the first
	// round of every worker, at least 16 (those StartLag covers).
	StartRequests int
	// WarmErr is why the connections of the start could not be opened
	// ahead (see Warmer); nil when they were, or the Doer does not.
	WarmErr error
	// Burst is the run's start-up burst: the requests due at its first
	// moment together (every worker's first request of a closed loop; an
	// open loop's requests sharing the first offset), and how long after
	// that moment the last of them left. Their Lag entries judge how fast
	// the burst went out: each is the time from the send before it (in
	// the order they were sent) to its own. Zero when the run starts with
	// one request.
	Burst Burst
}

// Burst is a start-up burst: Requests due at one moment, the last of them
// sent Drain after it.
type Burst struct {
	Requests int
	Drain    time.Duration
}

// Run executes the plan, sending each finished record to out. It returns
// when every request it started has finished and been delivered. It does not
// close out: the caller owns it. Records are freshly allocated; receivers
// may keep them.
func Run(ctx context.Context, p Plan, do Doer, out chan<- *record.Record) (Result, error) {
	if err := p.Validate(); err != nil {
		p.Crew.Dismiss()
		return Result{}, err
	}
	p.setDefaults()
	wait := finesleep.NewWaiter(p.FineWait)
	defer wait.Close()
	r := &runner{plan: p, do: do, out: out, wait: wait}
	if pr, ok := do.(Preparer); ok {
		// The first requests are built before the epoch, so that not
		// even the first burst waits for them.
		PrepareFirst(p, do)
		prepCtx, stopPreparing := context.WithCancel(ctx)
		r.ready = prepare(prepCtx, p, pr)
		defer func() {
			stopPreparing()
			<-r.ready.done // no Prepare runs once Run has returned
		}()
	}
	warmErr := WarmFirst(ctx, p, do)
	r.hire(ctx)
	epoch, err := waitEpoch(ctx, p.Epoch, wait)
	if err != nil {
		r.dismiss()
		return Result{Epoch: epoch, Interrupted: true}, nil
	}
	r.epoch = epoch
	var stop func()
	r.reqCtx, r.cancelReqs, stop = requestContext(ctx, p.Grace)
	defer stop()

	if len(p.Offsets) > 0 {
		r.open(ctx)
	} else {
		r.closed()
	}
	r.wg.Wait()
	r.crew.wait()
	// A burst's requests are as late as each was sent after the one
	// before it: how fast the burst went out, not its length.
	for _, g := range r.burst.gaps() {
		r.lag.set(g.i, g.gap)
	}
	res := Result{Epoch: r.epoch, Sent: r.sent, Interrupted: ctx.Err() != nil, End: r.now(),
		Lag: r.lag.all(), StartRequests: p.startRequests(), WarmErr: warmErr, Burst: r.burst.result()}
	res.StartLag = res.startLag()
	return res, nil
}

// setDefaults fills in the Grace and FineWait left zero.
func (p *Plan) setDefaults() {
	if p.Grace <= 0 {
		p.Grace = 3 * time.Second
	}
	if p.FineWait == 0 {
		p.FineWait = DefaultFineWait
	}
}

// requestContext returns the context requests are sent with: it outlives
// ctx by grace, so that after an interruption the requests in flight get
// grace to finish. cancel ends it at once; stop, which the caller must
// call when the run is over, ends it and its watch of ctx.
func requestContext(ctx context.Context, grace time.Duration) (reqCtx context.Context, cancel context.CancelFunc, stop func()) {
	reqCtx, cancel = context.WithCancel(context.WithoutCancel(ctx))
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-reqCtx.Done():
		}
	})
	return reqCtx, cancel, func() {
		stopGrace()
		cancel()
	}
}

// startLag returns the largest Lag of the run's first StartRequests.
func (r *Result) startLag() time.Duration {
	var m time.Duration
	for _, l := range r.Lag[:min(len(r.Lag), r.StartRequests)] {
		m = max(m, l)
	}
	return m
}

type runner struct {
	plan       Plan
	do         Doer
	out        chan<- *record.Record
	epoch      time.Time
	reqCtx     context.Context
	cancelReqs context.CancelFunc
	wg         sync.WaitGroup
	sent       int64             // written only by the scheduling goroutine
	wait       *finesleep.Waiter // used only by the scheduling goroutine
	lag        lags
	burst      burstWatch
	// ready hands out the requests prepared, in schedule order, when the
	// Doer is a Preparer; nil otherwise. Whoever takes request i takes the
	// i-th one first.
	ready *readyQueue

	// The goroutines of the start (see hire): released with job once the
	// epoch is known; queue feeds an open loop's senders (the capped
	// loop's, or, in an uncapped one, the crew that sends its start-up
	// burst), and is closed by the scheduler.
	crew  *Crew
	job   func()
	queue chan queued

	mu   sync.Mutex // guards next, and the order in which requests take their prepared token
	next int        // the closed loop's next request
}

// prepared waits until the next request in schedule order is prepared. It
// reports false if ctx ends first.
func (r *runner) prepared(ctx context.Context) bool {
	return r.ready == nil || r.ready.take(ctx)
}

// send hands request i to the Doer and adds the time the Doer took to send
// it to the request's lag; first says whether it is a closed loop's
// worker's first.
func (r *runner) send(i int, rec *record.Record, first bool) {
	handed := r.now()
	r.do.Do(r.reqCtx, rec.Seq, rec, r.now)
	if rec.Sent > handed {
		r.lag.add(i, time.Duration(rec.Sent-handed))
	}
	// A request of an open loop with a cap was free to leave once a
	// sender took it: its wait for a slot is client queue, not lag.
	var from int64
	if len(r.plan.Offsets) > 0 && r.plan.Concurrency > 0 {
		from = handed
	}
	r.burst.sent(i, from, rec.Sent, first)
}

// now returns ns since the epoch from the monotonic clock.
func (r *runner) now() int64 { return int64(time.Since(r.epoch)) }

func (r *runner) warm(i int, sched time.Duration) bool {
	return i < r.plan.Warmups || sched < r.plan.WarmupTime
}

// queued is an open-loop request waiting for a free sender.
type queued struct {
	i   int
	rec *record.Record
}

// serve sends the requests of queue until it is closed: an open loop's
// sender when it has a cap.
func (r *runner) serve(ctx context.Context, queue <-chan queued) {
	for q := range queue {
		r.sendQueued(ctx, q)
	}
}

// sendQueued sends q, or, when ctx ended while it waited for a sender,
// records it as never sent, and delivers it.
func (r *runner) sendQueued(ctx context.Context, q queued) {
	if ctx.Err() != nil {
		// Interrupted before it could leave: never sent.
		q.rec.Sent, q.rec.End = r.now(), r.now()
		q.rec.Error, q.rec.Msg = record.ErrCanceled, "interrupted while waiting for a concurrency slot"
	} else {
		// The wait in the queue is client queue: it delays Sent, not
		// Scheduled.
		r.send(q.i, q.rec, false)
	}
	r.deliver(q.rec)
}

// open sends request i at epoch + Offsets[i]: with a cap, through the
// queue its senders serve (as many as can ever be in flight), so that
// requests waiting for a slot cost a queue entry, not a goroutine each;
// without one, the start-up burst through the queue of its crew (see
// hire), and every later request on its own goroutine.
func (r *runner) open(ctx context.Context) {
	capped := r.plan.workers() > 0
	if r.queue != nil {
		// The scheduler owns queue and closes it when it stops.
		defer close(r.queue)
	}
	var lag burstLag
	since := func() time.Duration { return time.Duration(r.now()) }
	if n := r.plan.burstSize(); n > 1 {
		r.burst.begin(n, int64(r.plan.Offsets[0]), false)
	}
	r.crew.release(r.job)
	warmer, _ := r.do.(Warmer)
	// soon is the first request not due within AheadWindow; asked is what
	// Ahead was last told: a spare for each request due soon, this one
	// included although it takes an idle connection now, so that one is
	// dialled as it is taken and a request due a moment later finds one
	// (no more than can be in flight under a cap, and none for requests
	// the plan does not have). It is told of a fall too: spares already
	// dialled stay open, but a taken one is no longer replaced, so that a
	// burst does not leave as many spares again behind it.
	soon, asked := 0, -1
	for i, off := range r.plan.Offsets {
		if warmer != nil {
			for soon < len(r.plan.Offsets) && r.plan.Offsets[soon] <= off+AheadWindow {
				soon++
			}
			n := min(soon-i, len(r.plan.Offsets)-i-1)
			if capped {
				n = min(n, r.plan.workers())
			}
			if n != asked {
				warmer.Ahead(n)
				asked = n
			}
		}
		if !r.prepared(ctx) || !r.wait.Until(ctx, off, since) {
			return
		}
		r.lag.set(i, lag.of(off, time.Duration(r.now())))
		rec := &record.Record{Seq: r.plan.seq(i), Scheduled: int64(off), Warmup: r.warm(i, off)}
		r.sent++
		if capped || i < r.crew.n { // an uncapped loop's crew sends its burst
			r.queue <- queued{i, rec} // never blocks: it holds every request it is given
			continue
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.send(i, rec, false)
			r.deliver(rec)
		}()
	}
}

// closed keeps its workers busy (Concurrency, or Count when fewer: no more
// can ever be in flight), started by hire, and returns when they are
// done. A worker's next request is scheduled at the moment its previous
// one finished.
func (r *runner) closed() {
	// Every worker's first request is due at the epoch: together they are
	// the start-up burst (see Result.Burst).
	r.burst.begin(r.plan.workers(), 0, true)
	r.crew.release(r.job)
	r.crew.wait()
	r.sent = int64(r.next)
}

// take returns the index of the closed loop's next request, when the run
// is to send one, once it is prepared.
func (r *runner) take(ctx context.Context) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Err() != nil || (r.plan.Count > 0 && r.next >= r.plan.Count) ||
		(r.plan.Duration > 0 && time.Duration(r.now()) >= r.plan.Duration) {
		return 0, false
	}
	if !r.prepared(ctx) {
		return 0, false
	}
	r.next++
	return r.next - 1, true
}

// work is a closed loop's worker: it sends requests one after the other
// until take says no more.
func (r *runner) work(ctx context.Context) {
	var sched int64 // the epoch
	first := true
	for {
		i, ok := r.take(ctx)
		if !ok {
			return
		}
		rec := &record.Record{Seq: r.plan.seq(i), Scheduled: sched, Warmup: r.warm(i, time.Duration(sched))}
		r.lag.set(i, time.Duration(r.now()-sched))
		r.send(i, rec, first)
		first = false
		// The slot freed when the response ended; the next request is
		// due then, however long delivery takes.
		sched = r.now()
		if rec.End != 0 {
			sched = rec.End
		}
		r.deliver(rec)
	}
}

// deliver hands rec to the consumer. The consumer must keep reading until
// Run returns, so delivery never gives up: a measured record is never lost.
func (r *runner) deliver(rec *record.Record) {
	if rec.End == 0 {
		rec.End = r.now()
	}
	r.out <- rec
}

// waitEpoch waits until epoch (now when zero) and returns it with a
// monotonic clock reading, so that offsets measured from it are immune to
// wall-clock steps even when epoch came from a parsed timestamp. It returns
// ctx's error if ctx ends first.
func waitEpoch(ctx context.Context, epoch time.Time, w *finesleep.Waiter) (time.Time, error) {
	if epoch.IsZero() {
		return time.Now(), nil
	}
	if !w.Until(ctx, 0, func() time.Duration { return -time.Until(epoch) }) {
		return epoch, ctx.Err()
	}
	now := time.Now()
	return now.Add(epoch.Sub(now)), nil
}
