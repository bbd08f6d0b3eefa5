package load

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// peakGoroutines is a Doer that takes d per request and notes the most
// goroutines the process had while a request was in flight.
type peakGoroutines struct {
	d    time.Duration
	peak atomic.Int64
}

func (p *peakGoroutines) Do(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
	rec.Sent = now()
	time.Sleep(p.d)
	for n := int64(runtime.NumGoroutine()); ; {
		m := p.peak.Load()
		if n <= m || p.peak.CompareAndSwap(m, n) {
			break
		}
	}
	rec.End = now()
}

// An open loop with a cap holds its waiting requests in a queue, not in a
// goroutine each: 20,000 requests due at once through 4 slots need a
// handful of goroutines, and still queue in order.
func TestOpenLoopCapBoundsGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := &peakGoroutines{d: time.Millisecond}
		offs := make([]time.Duration, 20_000)
		res, recs := collect(t, t.Context(), Plan{Offsets: offs, Concurrency: 4, FineWait: virtualTime}, d)
		if len(recs) != 20_000 || res.Sent != 20_000 {
			t.Fatalf("%d records, %d sent", len(recs), res.Sent)
		}
		if p := d.peak.Load(); p > 100 {
			t.Errorf("%d goroutines for 4 slots", p)
		}
		// First come, first served: request i leaves in round i/4.
		for _, r := range recs {
			if want := r.Seq / 4 * int64(time.Millisecond); r.Sent != want {
				t.Fatalf("seq %d sent at %d, want %d", r.Seq, r.Sent, want)
			}
		}
	})
}

// A closed loop never starts more workers than it has requests: a cap of
// math.MaxInt with two requests is two workers, at once.
func TestClosedLoopWorkersBoundedByCount(t *testing.T) {
	done := make(chan struct{})
	d := &peakGoroutines{}
	var recs []*record.Record
	go func() {
		defer close(done)
		_, recs = collect(t, t.Context(), Plan{Concurrency: math.MaxInt, Count: 2, FineWait: virtualTime}, d)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a guard against a hang, far above the microseconds it takes
		t.Fatal("a closed loop of two requests under a huge cap did not finish")
	}
	if len(recs) != 2 || d.peak.Load() > 100 {
		t.Errorf("%d records, %d goroutines", len(recs), d.peak.Load())
	}
}

// The number of workers a plan needs is what can ever be in flight.
func TestPlanWorkers(t *testing.T) {
	tests := []struct {
		name string
		p    Plan
		want int
	}{
		{"closed, count below the cap", Plan{Concurrency: 100_000_000, Count: 2}, 2},
		{"closed, cap below the count", Plan{Concurrency: 8, Count: 1000}, 8},
		{"closed, duration only: the cap", Plan{Concurrency: 8, Duration: time.Second}, 8},
		{"closed, duration and count", Plan{Concurrency: 8, Count: 3, Duration: time.Second}, 3},
		{"open with a cap above its requests", Plan{Offsets: make([]time.Duration, 5), Concurrency: 1 << 40}, 5},
		{"open with a cap", Plan{Offsets: make([]time.Duration, 50), Concurrency: 4}, 4},
		{"open without a cap: one per request", Plan{Offsets: make([]time.Duration, 50)}, 0},
	}
	for _, tc := range tests {
		if got := tc.p.workers(); got != tc.want {
			t.Errorf("%s: workers() = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// slowStart is a Doer whose requests take build time before they can
// leave: the first one much more (a tokenizer built on first use). As a
// Preparer it does that work in Prepare instead, and notes the order.
type slowStart struct {
	mu       sync.Mutex // guards the fields below
	started  bool       // a build has begun: the slow first one is taken
	built    map[int64]bool
	prepared []int64
	early    []int64 // seqs whose Do came before their Prepare
	prepare  bool    // act as a Preparer
}

func (s *slowStart) build(seq int64) {
	s.mu.Lock()
	first := !s.started
	s.started = true
	done := s.built[seq]
	s.mu.Unlock()
	if done {
		return
	}
	if first {
		time.Sleep(40 * time.Millisecond)
	} else {
		time.Sleep(100 * time.Microsecond)
	}
	s.mu.Lock()
	s.built[seq] = true
	s.mu.Unlock()
}

func (s *slowStart) Do(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
	s.mu.Lock()
	ready := s.built[seq]
	if !ready && s.prepare {
		s.early = append(s.early, seq)
	}
	s.mu.Unlock()
	if !ready {
		s.build(seq)
	}
	rec.Sent = now()
	time.Sleep(5 * time.Millisecond)
	rec.End = now()
}

// preparer is slowStart seen as a Preparer.
type preparer struct{ *slowStart }

func (p preparer) Prepare(seq int64) {
	p.mu.Lock()
	done := p.built[seq]
	if !done {
		p.prepared = append(p.prepared, seq)
	}
	p.mu.Unlock()
	if !done {
		p.build(seq)
	}
}

var _ Preparer = preparer{}

// A Doer whose requests take building has them built before their
// scheduled time: the first ones before the epoch, the rest ahead of the
// schedule. No request leaves late, however slow the first build.
func TestPreparedRequestsLeaveOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		offs := []time.Duration{0, 0, 0, 0, 0, 0, 0, 0, 10 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}
		for _, p := range []Plan{
			{Offsets: offs, FineWait: virtualTime},                 // open loop
			{Offsets: offs, Concurrency: 4, FineWait: virtualTime}, // open loop with a cap
			{Concurrency: 4, Count: 11, FineWait: virtualTime},     // closed loop
		} {
			s := &slowStart{built: map[int64]bool{}, prepare: true}
			res, recs := collect(t, t.Context(), p, preparer{s})
			if len(recs) != len(offs) {
				t.Fatalf("%d records", len(recs))
			}
			if len(s.early) > 0 {
				t.Errorf("plan %+v: requests %v were sent before they were prepared", p, s.early)
			}
			for i, seq := range s.prepared {
				if seq != int64(i) {
					t.Fatalf("prepared in the order %v, want the schedule's", s.prepared)
				}
			}
			for _, r := range recs {
				want := r.Scheduled
				if p.Concurrency > 0 && p.Offsets != nil {
					want = max(r.Scheduled, r.Seq/4*int64(5*time.Millisecond))
				}
				if r.Sent != want {
					t.Errorf("plan %+v: seq %d scheduled %d, sent %d, want %d", p, r.Seq, r.Scheduled, r.Sent, want)
				}
			}
			if res.StartLag != 0 {
				t.Errorf("start lag %v with every request prepared", res.StartLag)
			}
		}
	})
}

// A request that leaves late because the Doer builds it first is late to
// the self-check too: the lag counts to the moment it was sent, and the
// start of the run is watched on its own, where p99 cannot hide a few.
func TestLagCountsBuildTimeAndTheStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		offs := make([]time.Duration, 400)
		for i := range offs {
			offs[i] = time.Duration(i) * 10 * time.Millisecond
		}
		s := &slowStart{built: map[int64]bool{}}
		res, recs := collect(t, t.Context(), Plan{Offsets: offs, FineWait: virtualTime}, s)
		if len(recs) != 400 || len(res.Lag) != 400 {
			t.Fatalf("%d records, %d lags", len(recs), len(res.Lag))
		}
		if res.Lag[0] != 40*time.Millisecond || res.Lag[1] != 100*time.Microsecond {
			t.Errorf("lags of the first requests %v, want 40ms and 100µs, their build times", res.Lag[:2])
		}
		if res.StartLag != 40*time.Millisecond {
			t.Errorf("start lag %v, want 40ms", res.StartLag)
		}
	})
}

// orderLog is a Preparer and Doer that notes, in order, each request's
// build (its first Prepare), each look (a later Prepare, which finds it
// built) and each send.
type orderLog struct {
	mu     sync.Mutex // guards events and built
	events []string
	built  map[int64]bool
}

func (o *orderLog) note(e string) {
	o.mu.Lock()
	o.events = append(o.events, e)
	o.mu.Unlock()
}

func (o *orderLog) Prepare(seq int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.built == nil {
		o.built = map[int64]bool{}
	}
	if o.built[seq] {
		o.events = append(o.events, fmt.Sprint("look ", seq))
		return
	}
	o.built[seq] = true
	o.events = append(o.events, fmt.Sprint("build ", seq))
}

func (o *orderLog) Do(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
	rec.Sent = now()
	o.note(fmt.Sprint("send ", seq))
	time.Sleep(time.Millisecond)
	rec.End = now()
}

// The start-up burst takes every request it needs at once, and Run then
// refills what it keeps ready. Building the refill then would take the CPU
// the burst's sends need: it is built before the epoch with the burst's
// own, and nothing more is built, or even looked at, until the burst is
// out.
func TestNothingIsBuiltDuringTheBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, p := range []Plan{
			{Concurrency: 20, Count: 80, FineWait: virtualTime},                                               // closed loop: 20 workers' first requests
			{Offsets: make([]time.Duration, 20), FineWait: virtualTime},                                       // open loop, all at once
			{Offsets: append(make([]time.Duration, 20), 5*time.Second, 5*time.Second), FineWait: virtualTime}, // a burst, then more
		} {
			o := &orderLog{}
			_, recs := collect(t, t.Context(), p, o)
			if len(recs) != p.total() {
				t.Fatalf("plan %+v: %d records", p, len(recs))
			}
			burst := p.burstSize()
			first := min(p.total(), p.prepareAhead()+min(burst, p.prepareAhead()))
			sends, built := 0, 0
			for _, e := range o.events {
				var seq int
				switch {
				case strings.HasPrefix(e, "send "):
					sends++
				case strings.HasPrefix(e, "look "):
					if sends > 0 && sends < burst {
						t.Fatalf("plan %+v: the builder looked at request %s after %d of the burst's %d sends: %v", p, strings.TrimPrefix(e, "look "), sends, burst, o.events)
					}
				case strings.HasPrefix(e, "build "):
					fmt.Sscan(strings.TrimPrefix(e, "build "), &seq)
					if seq != built {
						t.Fatalf("plan %+v: built out of order: %v", p, o.events)
					}
					built++
					if seq < first && sends > 0 {
						t.Fatalf("plan %+v: request %d built after the first send, want before the epoch: %v", p, seq, o.events)
					}
					if seq >= first && sends < burst {
						t.Fatalf("plan %+v: request %d built after %d of the burst's %d sends: %v", p, seq, sends, burst, o.events)
					}
				}
			}
			if built != p.total() || sends != p.total() {
				t.Errorf("plan %+v: %d built, %d sent, want %d", p, built, sends, p.total())
			}
		}
	})
}

// A burst larger than the requests prepared ahead is built as it goes:
// 3,000 workers, over the 2,048 built before the epoch, all get their
// first request.
func TestABurstLargerThanThePreparedOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := Plan{Concurrency: 3000, Count: 3000, FineWait: virtualTime}
		if p.burstSize() <= p.firstPrepared() {
			t.Fatalf("burst %d within the %d built first", p.burstSize(), p.firstPrepared())
		}
		_, recs := collect(t, t.Context(), p, &orderLog{})
		if len(recs) != 3000 {
			t.Fatalf("%d records", len(recs))
		}
	})
}
