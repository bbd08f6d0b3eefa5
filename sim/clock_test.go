package sim

import (
	"context"
	"sync"
	"testing"
	"time"
)

// lateClock is a fake Clock that never sleeps: each timed Sleep jumps to
// its deadline plus a fixed lateness, as a real timer that always fires
// late would. Sleeping forever (an idle engine) waits for a wake-up.
type lateClock struct {
	late time.Duration

	mu  sync.Mutex // guards now
	now time.Duration
}

func (c *lateClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *lateClock) Sleep(ctx context.Context, t time.Duration, wake <-chan struct{}) {
	if t == forever {
		select {
		case <-wake:
		case <-ctx.Done():
		}
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t > c.now {
		c.now = t + c.late
	}
}

// advance moves the clock on by d, as work that takes time would.
func (c *lateClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	c.mu.Unlock()
}

// tokenTimes is a sink that records when each token was emitted. With a
// clock, each emit costs cost on it.
type tokenTimes struct {
	clk   *lateClock
	cost  time.Duration
	mu    sync.Mutex // guards times
	times []time.Duration
	done  chan struct{}
}

func (tt *tokenTimes) emit(q *seq, at time.Duration) {
	if tt.clk != nil {
		tt.clk.advance(tt.cost)
	}
	tt.mu.Lock()
	tt.times = append(tt.times, at)
	tt.mu.Unlock()
	if q.state == stateFinished {
		close(tt.done)
	}
}

func TestWallLoopKeepsAbsoluteDeadlines(t *testing.T) {
	const tokens = 40
	virtual, err := RunVirtual(Options{}, []VirtualRequest{{PromptTokens: 300, MaxTokens: tokens, IgnoreEOS: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := virtual[0].Chunks
	tests := []struct {
		name   string
		late   time.Duration
		cost   time.Duration // of publishing a token
		resync bool
	}{
		// Every wake-up 300 µs late and publishing 40 µs: the schedule
		// stays on the modelled step ends, exactly as in virtual time,
		// instead of drifting 340 µs per step.
		{"small lateness", 300 * time.Microsecond, 40 * time.Microsecond, false},
		// Later than resyncAfter: the loop gives the lost time up and
		// schedules each step from where the clock actually is.
		{"beyond resync", 2 * resyncAfter, 0, true},
	}
	for _, tt := range tests {
		clk := &lateClock{late: tt.late}
		s, err := New(Options{Clock: clk})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		sink := &tokenTimes{clk: clk, cost: tt.cost, done: make(chan struct{})}
		if !s.submit(&seq{id: 1, promptLen: 300, maxTokens: tokens, ignoreEOS: true, sink: sink}) {
			t.Fatal("submit refused")
		}
		select {
		case <-sink.done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: request did not finish", tt.name)
		}
		s.Close()
		// The fake clock stands still while the loop wakes streams, so the
		// hand-off is exactly as late as the publication.
		late := tt.late + tt.cost
		if timing := s.StepTiming(); timing.Steps != tokens || timing.P50 != late || timing.Max != late ||
			timing.HandOffP50 != late || timing.HandOffMax != late {
			t.Errorf("%s: step timing %+v, want %d steps, each %v late", tt.name, timing, tokens, late)
		}
		got := sink.times
		if len(got) != tokens {
			t.Fatalf("%s: %d tokens emitted, want %d", tt.name, len(got), tokens)
		}
		if got[0] != time.Duration(want[0].At) {
			t.Errorf("%s: first token at %v, want %v as in virtual time", tt.name, got[0], time.Duration(want[0].At))
		}
		if !tt.resync {
			for i := range tokens {
				if got[i] != time.Duration(want[i].At) {
					t.Errorf("%s: token %d emitted at %v, want %v as in virtual time", tt.name, i, got[i], time.Duration(want[i].At))
					break
				}
			}
			continue
		}
		// The first gap also absorbs the lateness of the sleep before the
		// first step; from then on each step costs its modelled time plus
		// the lateness, since the loop resynchronises every step.
		for i := 2; i < tokens; i++ {
			gap, wantGap := got[i]-got[i-1], time.Duration(want[i].At-want[i-1].At)+tt.late
			if gap != wantGap {
				t.Errorf("%s: token %d came %v after the previous, want %v", tt.name, i, gap, wantGap)
				break
			}
		}
	}
}
