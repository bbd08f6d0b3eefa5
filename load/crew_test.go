package load

import (
	"context"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// A send through either transport grows a new goroutine's stack, and a
// goroutine whose stack growStack grew sends without growing it further.
// A stack that grows is copied to a new place, so a local variable's
// address before and after a call says whether the call grew it.
func TestASendFitsTheGrownStack(t *testing.T) {
	srv, _ := dialCounter(time.Millisecond)
	defer srv.Close()
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		const n = 50
		d := oneTokenDoer(newTransport(t, kind, srv.URL, ClientOptions{Conns: n}), srv.URL)
		if err := d.Warm(t.Context(), n); err != nil {
			t.Fatal(err)
		}
		// A collection shrinks a stack that waits using a quarter of it,
		// which would move it too.
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		// moved returns how many of n goroutines that each ran grow, then
		// a send, had their stack moved by the send.
		moved := func(grow bool) int {
			var wg sync.WaitGroup
			var mu sync.Mutex
			count := 0
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if grow {
						growStack()
					}
					var here byte
					before := uintptr(unsafe.Pointer(&here))
					rec := &record.Record{Seq: int64(i)}
					d.Do(context.Background(), int64(i), rec, func() int64 { return 0 })
					if !rec.OK() {
						t.Errorf("request %d: %s %s", i, rec.Error, rec.Msg)
					}
					if uintptr(unsafe.Pointer(&here)) != before {
						mu.Lock()
						count++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			return count
		}
		// Nearly every one: the runtime sizes new goroutines' stacks from
		// the stack use it measured at a collection, and one that ends as
		// the test starts can start a few of them large enough (49 of 50
		// moved in a CI run on a busy machine).
		if m := moved(false); m < n*9/10 {
			t.Errorf("%d of %d sends from a new goroutine moved its stack, want nearly every one: growStack would be no use", m, n)
		}
		if m := moved(true); m != 0 {
			t.Errorf("%d of %d sends after growStack moved the stack, want none", m, n)
		}
	})
}

// crewWaiting counts the goroutines of crews that wait to be set going,
// from every goroutine's stack.
func crewWaiting() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	waiting := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "load.HireFirst.func") && strings.Contains(g, "chan receive") {
			waiting++
		}
	}
	return waiting
}

// Run starts the goroutines its start sends from before the epoch, and
// they are all waiting by then: a closed loop's workers, a capped open
// loop's senders, one per request of an uncapped open loop's start-up
// burst. While Run waits for an epoch 300 ms away, they wait; once it
// returns, none is left.
func TestTheStartsGoroutinesWaitBeforeTheEpoch(t *testing.T) {
	plans := []struct {
		name string
		plan Plan
		want int
	}{
		{"closed loop of 40", Plan{Concurrency: 40, Count: 80}, 40},
		{"open loop capped at 30", Plan{Offsets: make([]time.Duration, 50), Concurrency: 30}, 30},
		{"open loop, a burst of 50", Plan{Offsets: append(make([]time.Duration, 50), time.Millisecond)}, 50},
	}
	for _, tt := range plans {
		tt.plan.Epoch = time.Now().Add(300 * time.Millisecond)
		do := DoerFunc(func(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
			rec.Sent = now()
			rec.End = rec.Sent
		})
		out := make(chan *record.Record, 200)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if _, err := Run(t.Context(), tt.plan, do, out); err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(150 * time.Millisecond)
		if got := crewWaiting(); got != tt.want {
			t.Errorf("%s: %d goroutines wait for the epoch, want %d", tt.name, got, tt.want)
		}
		<-done
		close(out)
		n := 0
		for r := range out {
			if r.Sent < 0 {
				t.Errorf("%s: request %d sent before the epoch", tt.name, r.Seq)
			}
			n++
		}
		if n != len(tt.plan.Offsets) && n != tt.plan.Count {
			t.Errorf("%s: %d records", tt.name, n)
		}
		if got := crewWaiting(); got != 0 {
			t.Errorf("%s: %d goroutines of the start left after Run", tt.name, got)
		}
	}
}

// An interrupted wait for the epoch ends the goroutines of the start: Run
// returns, sends nothing and leaves none behind.
func TestTheStartsGoroutinesEndWhenTheWaitIsInterrupted(t *testing.T) {
	for _, plan := range []Plan{
		{Concurrency: 40, Count: 80},
		{Offsets: make([]time.Duration, 50), Concurrency: 30},
		{Offsets: make([]time.Duration, 50)},
	} {
		plan.Epoch = time.Now().Add(time.Hour)
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		sent := atomic.Int64{}
		do := DoerFunc(func(ctx context.Context, seq int64, rec *record.Record, now func() int64) { sent.Add(1) })
		out := make(chan *record.Record, 200)
		res, err := Run(ctx, plan, do, out)
		cancel()
		if err != nil || !res.Interrupted || sent.Load() != 0 || len(out) != 0 {
			t.Errorf("%+v: err %v, interrupted %v, %d sent, %d records", plan, err, res.Interrupted, sent.Load(), len(out))
		}
		if got := crewWaiting(); got != 0 {
			t.Errorf("%+v: %d goroutines of the start left after Run", plan, got)
		}
	}
}

// A crew hired before the epoch is chosen is the one Run sends from: no
// other is started, and all of it has gone once Run returns. One hired
// for another start, or taken by a run already, is not used: Run hires
// its own and sends every request. Dismiss ends a crew no run took.
func TestACrewHiredFirstIsTheOneRunSendsFrom(t *testing.T) {
	do := DoerFunc(func(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
		rec.Sent = now()
		rec.End = rec.Sent
	})
	run := func(p Plan) int {
		t.Helper()
		out := make(chan *record.Record, 200)
		if _, err := Run(t.Context(), p, do, out); err != nil {
			t.Fatal(err)
		}
		return len(out)
	}
	p := Plan{Concurrency: 40, Count: 80}
	p.Crew = HireFirst(p)
	if got := crewWaiting(); got != 40 {
		t.Fatalf("HireFirst: %d goroutines wait, want 40", got)
	}
	p.Epoch = time.Now().Add(200 * time.Millisecond)
	counted := make(chan int, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		counted <- crewWaiting()
	}()
	if n := run(p); n != 80 {
		t.Errorf("%d records, want 80", n)
	}
	if got := <-counted; got != 40 {
		t.Errorf("while Run waited for its epoch, %d goroutines waited, want the crew's 40 and no more", got)
	}
	if got := crewWaiting(); got != 0 {
		t.Errorf("%d goroutines wait after Run", got)
	}
	// Taken already: Run hires anew.
	p.Epoch = time.Time{}
	if n := run(p); n != 80 {
		t.Errorf("with a crew taken by an earlier run: %d records, want 80", n)
	}
	// Hired for another start: dismissed, and Run hires its own.
	p.Crew = HireFirst(Plan{Concurrency: 10, Count: 10})
	if n := run(p); n != 80 {
		t.Errorf("with a crew of another size: %d records, want 80", n)
	}
	if got := crewWaiting(); got != 0 {
		t.Errorf("%d goroutines wait after Run", got)
	}
	c := HireFirst(p)
	c.Dismiss()
	c.Dismiss()
	if got := crewWaiting(); got != 0 {
		t.Errorf("%d goroutines wait after Dismiss", got)
	}
}
