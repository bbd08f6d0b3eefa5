package load

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// sleeper is a Doer whose "server" takes a fixed time per request and emits
// one token halfway.
type sleeper struct {
	d        time.Duration
	inFlight atomic.Int64
	maxSeen  atomic.Int64
}

func (s *sleeper) Do(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
	rec.Sent = now()
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for {
		m := s.maxSeen.Load()
		if n <= m || s.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	select {
	case <-time.After(s.d / 2):
		rec.Chunks = append(rec.Chunks, record.Chunk{At: now(), Tokens: 1})
	case <-ctx.Done():
		rec.Error, rec.End = record.ErrCanceled, now()
		return
	}
	select {
	case <-time.After(s.d / 2):
		rec.End = now()
		rec.OutputTokens = 1
	case <-ctx.Done():
		rec.Error, rec.End = record.ErrCanceled, now()
	}
}

// virtualTime is Plan.FineWait for runs inside a synctest bubble, whose
// clock moves only while every goroutine waits: the kernel's timer knows
// nothing of it, and fine waits would only cost real time.
const virtualTime = -1

func collect(t *testing.T, ctx context.Context, p Plan, d Doer) (Result, []*record.Record) {
	t.Helper()
	out := make(chan *record.Record)
	var recs []*record.Record
	done := make(chan struct{})
	go func() {
		for r := range out {
			recs = append(recs, r)
		}
		close(done)
	}()
	res, err := Run(ctx, p, d, out)
	close(out)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	return res, recs
}

func TestOpenLoopSendsOnSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		offs := []time.Duration{0, 10 * time.Millisecond, 10 * time.Millisecond, 250 * time.Millisecond}
		// A server slower than the gaps: open loop must not wait for it.
		_, recs := collect(t, t.Context(), Plan{Offsets: offs, FineWait: virtualTime}, &sleeper{d: time.Second})
		if len(recs) != 4 {
			t.Fatalf("%d records", len(recs))
		}
		for _, r := range recs {
			want := int64(offs[r.Seq])
			if r.Scheduled != want || r.Sent != want {
				t.Errorf("seq %d: scheduled %d sent %d, want both %d", r.Seq, r.Scheduled, r.Sent, want)
			}
			if r.End != want+int64(time.Second) {
				t.Errorf("seq %d: end %d", r.Seq, r.End)
			}
		}
	})
}

func TestOpenLoopCapCountsClientQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Four requests at t=0 through one slot of a 100 ms server: they
		// queue in the client, 0, 100, 200, 300 ms.
		offs := make([]time.Duration, 4)
		_, recs := collect(t, t.Context(), Plan{Offsets: offs, Concurrency: 1, FineWait: virtualTime}, &sleeper{d: 100 * time.Millisecond})
		var queues []int64
		for _, r := range recs {
			if r.Scheduled != 0 {
				t.Errorf("seq %d scheduled at %d", r.Seq, r.Scheduled)
			}
			queues = append(queues, r.Sent-r.Scheduled)
		}
		want := []int64{0, 100e6, 200e6, 300e6}
		for i := range want {
			if queues[i] != want[i] {
				t.Errorf("client queues = %v, want %v", queues, want)
				break
			}
		}
	})
}

func TestClosedLoopKeepsExactlyNInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sleeper{d: 50 * time.Millisecond}
		var mu sync.Mutex
		var samples []int64
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var sampler sync.WaitGroup
		sampler.Add(1)
		go func() { // sample in-flight count between request boundaries
			defer sampler.Done()
			// Half a millisecond off the 50 ms grid: never sample at the
			// instant one request ends and the next begins.
			time.Sleep(500 * time.Microsecond)
			for ctx.Err() == nil {
				time.Sleep(7 * time.Millisecond)
				mu.Lock()
				samples = append(samples, s.inFlight.Load())
				mu.Unlock()
			}
		}()
		res, recs := collect(t, t.Context(), Plan{Concurrency: 8, Duration: time.Second, FineWait: virtualTime}, s)
		cancel()
		sampler.Wait()
		if s.maxSeen.Load() != 8 {
			t.Errorf("max in flight = %d, want 8", s.maxSeen.Load())
		}
		mu.Lock()
		for i, n := range samples[:len(samples)-10] { // all but the drain at the end
			if n != 8 {
				t.Fatalf("sample %d: %d in flight, want 8", i, n)
			}
		}
		mu.Unlock()
		// 8 workers × 1 s / 50 ms = 160 requests, the next due exactly at
		// the previous one's end.
		if len(recs) != 160 || res.Sent != 160 {
			t.Errorf("%d records, %d sent", len(recs), res.Sent)
		}
		ends := map[int64]int{}
		for _, r := range recs {
			ends[r.End]++
		}
		for _, r := range recs {
			if r.Scheduled != 0 && ends[r.Scheduled] == 0 {
				t.Errorf("seq %d scheduled at %d, when no slot freed", r.Seq, r.Scheduled)
			}
			if r.Sent != r.Scheduled {
				t.Errorf("seq %d: closed loop sent %d after scheduled %d", r.Seq, r.Sent, r.Scheduled)
			}
		}
	})
}

func TestWarmupsAreMarked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		offs := []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}
		_, recs := collect(t, t.Context(), Plan{Offsets: offs, Warmups: 1, WarmupTime: 2500 * time.Millisecond, FineWait: virtualTime}, &sleeper{d: time.Millisecond})
		for _, r := range recs {
			if want := r.Seq <= 2; r.Warmup != want {
				t.Errorf("seq %d warm-up %v, want %v", r.Seq, r.Warmup, want)
			}
		}
	})
}

func TestInterruptDrainsThenCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		offs := []time.Duration{0, 0, 500 * time.Millisecond, 10 * time.Second}
		go func() {
			time.Sleep(time.Second)
			cancel()
		}()
		// Interrupted at 1 s with a 3 s grace: 5 s requests in flight are
		// cancelled at 4 s; the one due at 10 s is never sent.
		res, recs := collect(t, ctx, Plan{Offsets: offs, Grace: 3 * time.Second, FineWait: virtualTime}, &sleeper{d: 5 * time.Second})
		if !res.Interrupted || res.Sent != 3 {
			t.Fatalf("interrupted %v sent %d", res.Interrupted, res.Sent)
		}
		if len(recs) != 3 {
			t.Fatalf("%d records, want the 3 sent", len(recs))
		}
		for _, r := range recs {
			if r.Error != record.ErrCanceled || r.End != int64(4*time.Second) {
				t.Errorf("seq %d: %q at %d", r.Seq, r.Error, r.End)
			}
		}
	})
}

func TestPlanValidate(t *testing.T) {
	tests := []struct {
		name string
		p    Plan
		want string
	}{
		{"empty", Plan{}, "nothing to run"},                                                 // no load at all
		{"closed without limit", Plan{Concurrency: 4}, "needs --num-prompts or --duration"}, // would run forever
		{"negative concurrency", Plan{Concurrency: -1, Count: 1}, "must be ≥ 0"},
		{"backwards", Plan{Offsets: []time.Duration{2, 1}}, "back in time at request 1"},
		{"seqs", Plan{Offsets: []time.Duration{1}, Seqs: []int64{1, 2}}, "2 sequence numbers for 1 offsets"},
		{"warm-up", Plan{Offsets: []time.Duration{1}, Warmups: -1}, "warm-up"},
	}
	for _, tc := range tests {
		err := tc.p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := (&Plan{Offsets: []time.Duration{0, 0, 1}}).Validate(); err != nil {
		t.Errorf("valid plan: %v", err)
	}
}

func TestFutureEpochWaitsAndCountsFromIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now().Add(2 * time.Second)
		// A parsed timestamp has no monotonic reading; the run must still
		// count from it exactly.
		start = start.Round(0)
		offs := []time.Duration{0, 100 * time.Millisecond}
		res, recs := collect(t, t.Context(), Plan{Offsets: offs, Epoch: start, FineWait: virtualTime}, &sleeper{d: 10 * time.Millisecond})
		if !res.Epoch.Equal(start) || len(recs) != 2 {
			t.Fatalf("epoch %v, want %v; %d records", res.Epoch, start, len(recs))
		}
		for _, r := range recs {
			if want := int64(offs[r.Seq]); r.Sent != want {
				t.Errorf("seq %d sent at %d, want %d from the agreed start", r.Seq, r.Sent, want)
			}
		}
		if time.Since(start) < 100*time.Millisecond {
			t.Errorf("returned before the schedule ran")
		}
	})
}

func TestInterruptedBeforeTheEpoch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		res, recs := collect(t, ctx, Plan{Offsets: []time.Duration{0}, Epoch: time.Now().Add(time.Hour), FineWait: virtualTime}, &sleeper{d: time.Millisecond})
		if !res.Interrupted || len(recs) != 0 || res.Sent != 0 {
			t.Errorf("interrupted %v, %d records, %d sent", res.Interrupted, len(recs), res.Sent)
		}
	})
}

// The open loop's lag grows when the generator falls behind a schedule,
// but a burst of requests due at one moment is judged by how fast it goes
// out, request after request, not by its length.
func TestBurstLag(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	tests := []struct {
		name            string
		due, sent, want []time.Duration
	}{
		{"behind a schedule: lag accumulates",
			[]time.Duration{0, ms(1), ms(2), ms(3)}, []time.Duration{ms(0.5), ms(2), ms(3.5), ms(5)},
			[]time.Duration{ms(0.5), ms(1), ms(1.5), ms(2)}},
		{"a burst: each from the previous dispatch",
			[]time.Duration{0, 0, 0, 0}, []time.Duration{ms(0.2), ms(0.21), ms(0.23), ms(1.23)},
			[]time.Duration{ms(0.2), ms(0.01), ms(0.02), ms(1)}},
		{"a late burst after a request: its first from its moment",
			[]time.Duration{0, ms(5), ms(5)}, []time.Duration{0, ms(8), ms(8.01)},
			[]time.Duration{0, ms(3), ms(0.01)}},
	}
	for _, tt := range tests {
		var b burstLag
		for i := range tt.due {
			if got := b.of(tt.due[i], tt.sent[i]); got != tt.want[i] {
				t.Errorf("%s: request %d due %v sent %v: lag %v, want %v", tt.name, i, tt.due[i], tt.sent[i], got, tt.want[i])
			}
		}
	}
}
