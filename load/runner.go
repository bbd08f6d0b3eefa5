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

// Result summarises how the run itself went.
type Result struct {
	Epoch       time.Time // wall-clock time of the run epoch
	Sent        int64     // requests handed to the Doer
	Interrupted bool      // the context was cancelled before the plan finished
	End         int64     // ns from the epoch when the run stopped

	// Lag holds, per request, how late the generator dispatched it: the time
	// from its scheduled moment to the moment a goroutine started sending
	// it (before any wait for a concurrency slot); in a burst of requests
	// due at one moment, from the previous one's dispatch (see burstLag).
	// In a closed loop, the time from the previous response's end. Large
	// values mean the generator, not the server, limited the run.
	Lag []time.Duration
	// TimerLag holds how late a probe that sleeps 10 ms at a time woke up,
	// sampled through the run: a measure of the process's own scheduling
	// health (CPU starvation, GC pauses). It waits as the open loop does
	// (Plan.FineWait), so timer resolution is not counted as lateness.
	TimerLag []time.Duration
}

// Run executes the plan, sending each finished record to out. It returns
// when every request it started has finished and been delivered. It does not
// close out: the caller owns it. Records are freshly allocated; receivers
// may keep them.
func Run(ctx context.Context, p Plan, do Doer, out chan<- *record.Record) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	if p.Grace <= 0 {
		p.Grace = 3 * time.Second
	}
	if p.FineWait == 0 {
		p.FineWait = DefaultFineWait
	}
	wait := finesleep.NewWaiter(p.FineWait)
	defer wait.Close()
	epoch, err := waitEpoch(ctx, p.Epoch, wait)
	if err != nil {
		return Result{Epoch: epoch, Interrupted: true}, nil
	}
	r := &runner{plan: p, do: do, out: out, epoch: epoch, wait: wait}
	r.reqCtx, r.cancelReqs = context.WithCancel(context.WithoutCancel(ctx))
	defer r.cancelReqs()

	// After an interruption, in-flight requests get Grace to finish.
	stopGrace := context.AfterFunc(ctx, func() {
		t := time.NewTimer(p.Grace)
		defer t.Stop()
		select {
		case <-t.C:
			r.cancelReqs()
		case <-r.reqCtx.Done():
		}
	})
	defer stopGrace()

	probeCtx, stopProbe := context.WithCancel(ctx)
	probeDone := make(chan []time.Duration, 1)
	go func() { probeDone <- probeTimers(probeCtx, 10*time.Millisecond, p.FineWait) }()

	if len(p.Offsets) > 0 {
		r.open(ctx)
	} else {
		r.closed(ctx)
	}
	r.wg.Wait()
	stopProbe()
	return Result{Epoch: r.epoch, Sent: r.sent, Interrupted: ctx.Err() != nil, End: r.now(),
		Lag: r.lag.all(), TimerLag: <-probeDone}, nil
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
}

// now returns ns since the epoch from the monotonic clock.
func (r *runner) now() int64 { return int64(time.Since(r.epoch)) }

func (r *runner) warm(i int, sched time.Duration) bool {
	return i < r.plan.Warmups || sched < r.plan.WarmupTime
}

// open sends request i at epoch + Offsets[i], each on its own goroutine.
func (r *runner) open(ctx context.Context) {
	var slots chan struct{}
	if r.plan.Concurrency > 0 {
		slots = make(chan struct{}, r.plan.Concurrency)
	}
	var lag burstLag
	since := func() time.Duration { return time.Duration(r.now()) }
	for i, off := range r.plan.Offsets {
		if !r.wait.Until(ctx, off, since) {
			return
		}
		r.lag.add(lag.of(off, time.Duration(r.now())))
		seq := int64(i)
		if r.plan.Seqs != nil {
			seq = r.plan.Seqs[i]
		}
		rec := &record.Record{Seq: seq, Scheduled: int64(off), Warmup: r.warm(i, off)}
		r.sent++
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			if slots != nil {
				// Waiting here is client queue: it delays Sent, not Scheduled.
				select {
				case slots <- struct{}{}:
					defer func() { <-slots }()
				case <-r.reqCtx.Done():
					rec.Sent, rec.End = r.now(), r.now()
					rec.Error, rec.Msg = record.ErrCanceled, "interrupted while waiting for a concurrency slot"
					r.deliver(rec)
					return
				}
			}
			r.do.Do(r.reqCtx, rec.Seq, rec, r.now)
			r.deliver(rec)
		}()
	}
}

// closed keeps Concurrency workers busy. A worker's next request is scheduled
// at the moment its previous one finished.
func (r *runner) closed(ctx context.Context) {
	var mu sync.Mutex // guards next
	next := 0
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil || (r.plan.Count > 0 && next >= r.plan.Count) ||
			(r.plan.Duration > 0 && time.Duration(r.now()) >= r.plan.Duration) {
			return 0, false
		}
		next++
		return next - 1, true
	}
	var workers sync.WaitGroup
	for range r.plan.Concurrency {
		workers.Add(1)
		go func() {
			defer workers.Done()
			sched := r.now()
			for {
				i, ok := take()
				if !ok {
					return
				}
				stride := max(r.plan.SeqStride, 1)
				rec := &record.Record{Seq: r.plan.FirstSeq + int64(i)*stride, Scheduled: sched, Warmup: r.warm(i, time.Duration(sched))}
				r.lag.add(time.Duration(r.now() - sched))
				r.do.Do(r.reqCtx, rec.Seq, rec, r.now)
				// The slot freed when the response ended; the next request
				// is due then, however long delivery takes.
				sched = r.now()
				if rec.End != 0 {
					sched = rec.End
				}
				r.deliver(rec)
			}
		}()
	}
	workers.Wait()
	r.sent = int64(next)
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
