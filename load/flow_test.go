package load

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// testFlows runs flows that all have graph g; request j of any flow takes
// took[j] and emits one token halfway, or fails at once when fail[j].
type testFlows struct {
	g    Graph
	took []time.Duration
	fail map[int]bool

	mu    sync.Mutex // guards order
	order []string   // "f/j start" and "f/j end", in the order Do saw them
}

func (t *testFlows) Start(f int64) Flow { return &testFlow{t: t, f: f} }

type testFlow struct {
	t *testFlows
	f int64
}

func (tf *testFlow) Graph() Graph {
	g := Graph{Nodes: slices.Clone(tf.t.g.Nodes)}
	for j := range g.Nodes {
		g.Nodes[j].Seq = tf.f*100 + int64(j)
	}
	return g
}

func (tf *testFlow) note(j int, what string) {
	tf.t.mu.Lock()
	tf.t.order = append(tf.t.order, strings.Join([]string{itoa(tf.f), itoa(int64(j)), what}, " "))
	tf.t.mu.Unlock()
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func (tf *testFlow) Do(ctx context.Context, j int, rec *record.Record, now func() int64) {
	tf.note(j, "start")
	defer tf.note(j, "end")
	rec.Sent = now()
	rec.Turn = j + 1
	if tf.t.fail[j] {
		rec.Error, rec.End = record.ErrHTTP, now()
		return
	}
	d := tf.t.took[j]
	select {
	case <-time.After(d / 2):
	case <-ctx.Done():
		rec.Error, rec.End = record.ErrCanceled, now()
		return
	}
	rec.Chunks = append(rec.Chunks, record.Chunk{At: now(), Tokens: 1})
	select {
	case <-time.After(d - d/2):
		rec.OutputTokens, rec.End = 1, now()
	case <-ctx.Done():
		rec.Error, rec.End = record.ErrCanceled, now()
	}
}

// runFlows runs p and returns the records sorted by sequence number.
func runFlows(t *testing.T, ctx context.Context, p Plan, fl Flows) (Result, []*record.Record) {
	t.Helper()
	p.FineWait = virtualTime
	out := make(chan *record.Record)
	var recs []*record.Record
	got := make(chan struct{})
	go func() {
		for r := range out {
			recs = append(recs, r)
		}
		close(got)
	}()
	res, err := RunFlows(ctx, p, fl, out)
	close(out)
	<-got
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(recs, func(a, b int) bool { return recs[a].Seq < recs[b].Seq })
	return res, recs
}

const ms = time.Millisecond

// chain is a three-turn session: each turn waits for the one before plus
// a think time.
func chain(think1, think2 time.Duration) Graph {
	return Graph{Nodes: []Node{
		{},
		{After: []Edge{{From: 0, Wait: think1}}},
		{After: []Edge{{From: 1, Wait: think2}}},
	}}
}

func TestFlowTurnWaitsForThePreviousEndPlusThinkTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := &testFlows{g: chain(2*time.Second, 500*ms), took: []time.Duration{100 * ms, 300 * ms, 40 * ms}}
		res, recs := runFlows(t, t.Context(), Plan{Offsets: []time.Duration{0}}, fl)
		if len(recs) != 3 || res.Sent != 3 {
			t.Fatalf("%d records, %d sent; want 3", len(recs), res.Sent)
		}
		// turn 1 at 0, ends at 100 ms; turn 2 due 100 ms + 2 s; ends 300 ms
		// later; turn 3 due 500 ms after that.
		wantS := []time.Duration{0, 2100 * ms, 2900 * ms}
		wantEnd := []time.Duration{100 * ms, 2400 * ms, 2940 * ms}
		for k, r := range recs {
			if time.Duration(r.Scheduled) != wantS[k] || r.Sent != r.Scheduled || time.Duration(r.End) != wantEnd[k] {
				t.Errorf("turn %d: s %v t0 %v te %v; want s = t0 = %v, te %v", k+1,
					time.Duration(r.Scheduled), time.Duration(r.Sent), time.Duration(r.End), wantS[k], wantEnd[k])
			}
		}
	})
}

func TestFlowFanOutAndJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// plan → (a, b) after a 2 s tool; join waits for a + 0.5 s and
		// b + 0.1 s.
		g := Graph{Nodes: []Node{
			{},
			{After: []Edge{{From: 0, Wait: 2 * time.Second}}},
			{After: []Edge{{From: 0, Wait: 2 * time.Second}}},
			{After: []Edge{{From: 1, Wait: 500 * ms}, {From: 2, Wait: 100 * ms}}},
		}}
		fl := &testFlows{g: g, took: []time.Duration{1 * time.Second, 1 * time.Second, 3 * time.Second, 200 * ms}}
		_, recs := runFlows(t, t.Context(), Plan{Offsets: []time.Duration{time.Second}}, fl)
		if len(recs) != 4 {
			t.Fatalf("%d records", len(recs))
		}
		// plan 1–2 s; a and b both due at 4 s (in parallel); a ends at 5 s,
		// b at 7 s; join due at max(5.5, 7.1) = 7.1 s.
		want := []time.Duration{time.Second, 4 * time.Second, 4 * time.Second, 7100 * ms}
		for j, r := range recs {
			if time.Duration(r.Scheduled) != want[j] || r.Sent != r.Scheduled {
				t.Errorf("call %d: s %v t0 %v; want both %v", j, time.Duration(r.Scheduled), time.Duration(r.Sent), want[j])
			}
		}
	})
}

func TestFlowDoesARequestOnlyAfterWhatItWaitsFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := Graph{Nodes: []Node{
			{},
			{After: []Edge{{From: 0}}},
			{After: []Edge{{From: 0}}},
			{After: []Edge{{From: 1}, {From: 2}}},
		}}
		fl := &testFlows{g: g, took: []time.Duration{10 * ms, 30 * ms, 20 * ms, 10 * ms}}
		runFlows(t, t.Context(), Plan{Offsets: []time.Duration{0}}, fl)
		pos := map[string]int{}
		for i, e := range fl.order {
			pos[e] = i
		}
		for _, before := range [][2]string{{"0 0 end", "0 1 start"}, {"0 0 end", "0 2 start"}, {"0 1 end", "0 3 start"}, {"0 2 end", "0 3 start"}} {
			if pos[before[0]] > pos[before[1]] {
				t.Errorf("%q came after %q: %v", before[0], before[1], fl.order)
			}
		}
		if pos["0 2 end"] > pos["0 1 end"] {
			t.Errorf("the two branches did not run at once: %v", fl.order)
		}
	})
}

func TestFlowsWaitingForASlotShowClientQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two one-turn flows arrive 100 ms apart; one slot; each takes 1 s.
		fl := &testFlows{g: Graph{Nodes: []Node{{}}}, took: []time.Duration{time.Second}}
		_, recs := runFlows(t, t.Context(), Plan{Offsets: []time.Duration{0, 100 * ms}, Concurrency: 1}, fl)
		if len(recs) != 2 {
			t.Fatalf("%d records", len(recs))
		}
		second := recs[1]
		if time.Duration(second.Scheduled) != 100*ms || time.Duration(second.Sent) != time.Second {
			t.Errorf("second flow: s %v t0 %v; want s 100ms (its arrival), t0 1s (the slot)", time.Duration(second.Scheduled), time.Duration(second.Sent))
		}
	})
}

func TestFlowsClosedLoopOfUsers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Two users, three two-turn flows: the third starts when the first
		// user's flow ended.
		fl := &testFlows{g: chain(time.Second, 0), took: []time.Duration{100 * ms, 100 * ms, 100 * ms}}
		fl.g.Nodes = fl.g.Nodes[:2]
		res, recs := runFlows(t, t.Context(), Plan{Concurrency: 2, Count: 3}, fl)
		if len(recs) != 6 || res.Sent != 6 {
			t.Fatalf("%d records, %d sent; want 6", len(recs), res.Sent)
		}
		firsts := []time.Duration{}
		for _, r := range recs {
			if r.Turn == 1 {
				firsts = append(firsts, time.Duration(r.Scheduled))
			}
		}
		slices.Sort(firsts)
		// Each flow: 100 ms + 1 s + 100 ms = 1.2 s.
		if want := []time.Duration{0, 0, 1200 * ms}; !slices.Equal(firsts, want) {
			t.Errorf("flows start at %v, want %v", firsts, want)
		}
	})
}

func TestFlowGoesOnAfterAFailedRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := &testFlows{g: chain(time.Second, time.Second), took: []time.Duration{100 * ms, 100 * ms, 100 * ms}, fail: map[int]bool{0: true}}
		_, recs := runFlows(t, t.Context(), Plan{Offsets: []time.Duration{0}}, fl)
		if len(recs) != 3 {
			t.Fatalf("%d records; a failed turn must not end its session", len(recs))
		}
		if recs[0].OK() || time.Duration(recs[1].Scheduled) != time.Second {
			t.Errorf("turn 1 ok=%v; turn 2 due %v, want 1s (the failure's end plus the think time)", recs[0].OK(), time.Duration(recs[1].Scheduled))
		}
	})
}

func TestFlowInterruptedDuringAThinkTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel) // during the 10 s think time
		fl := &testFlows{g: chain(10*time.Second, 0), took: []time.Duration{100 * ms, 100 * ms, 100 * ms}}
		res, recs := runFlows(t, ctx, Plan{Offsets: []time.Duration{0}}, fl)
		if len(recs) != 1 || !res.Interrupted || res.Sent != 1 {
			t.Errorf("%d records, %d sent, interrupted %v; want 1, 1, true", len(recs), res.Sent, res.Interrupted)
		}
	})
}

func TestFlowWarmupMarksWholeFlows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fl := &testFlows{g: chain(0, 0), took: []time.Duration{10 * ms, 10 * ms, 10 * ms}}
		_, recs := runFlows(t, t.Context(), Plan{Offsets: []time.Duration{0, time.Second}, Warmups: 1}, fl)
		for _, r := range recs {
			if want := r.Seq < 100; r.Warmup != want {
				t.Errorf("request %d: warm-up %v, want %v", r.Seq, r.Warmup, want)
			}
		}
	})
}

func TestGraphValidate(t *testing.T) {
	tests := []struct {
		name string
		g    Graph
		want string // "" for valid
	}{
		// a chain
		{"chain", chain(time.Second, 0), ""},
		// an empty graph sends nothing, and is valid
		{"empty", Graph{}, ""},
		// waiting for itself would never start
		{"self", Graph{Nodes: []Node{{After: []Edge{{From: 0}}}}}, "does not come before it"},
		// a later node: the order is not one a flow can run
		{"forward", Graph{Nodes: []Node{{After: []Edge{{From: 1}}}, {}}}, "does not come before it"},
		// outside the graph
		{"negative index", Graph{Nodes: []Node{{}, {After: []Edge{{From: -1}}}}}, "does not come before it"},
		// time does not run backwards
		{"negative wait", Graph{Nodes: []Node{{}, {After: []Edge{{From: 0, Wait: -1}}}}}, "negative"},
		{"negative delay", Graph{Nodes: []Node{{Delay: -time.Second}}}, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.g.Validate()
			if tt.want == "" && err != nil {
				t.Errorf("unexpected error %v", err)
			}
			if tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}
