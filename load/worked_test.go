package load

import (
	"context"
	"slices"
	"sort"
	"testing"
	"testing/synctest"
	"time"

	"github.com/goodput-dev/goodput/internal/workedexample"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// exampleFlows runs the flows of a worked example: flow i is the example's
// i-th session or task; its requests answer with the example's tokens, at
// the same offsets from when they were sent.
type exampleFlows struct {
	flows [][]workedexample.Request
}

func newExampleFlows(ex workedexample.Example) (*exampleFlows, []time.Duration) {
	e := &exampleFlows{}
	var arrivals []time.Duration
	index := map[string]int{}
	for _, q := range ex.Requests {
		i, ok := index[q.Flow]
		if !ok {
			i = len(e.flows)
			index[q.Flow] = i
			e.flows = append(e.flows, nil)
			arrivals = append(arrivals, q.Scheduled)
		}
		e.flows[i] = append(e.flows[i], q)
	}
	return e, arrivals
}

func (e *exampleFlows) Start(f int64) Flow { return exampleFlow(e.flows[f]) }

type exampleFlow []workedexample.Request

// Graph: a turn waits for the turn before plus its think time; a call
// waits for each call it names plus that call's tool time.
func (ef exampleFlow) Graph() Graph {
	g := Graph{Nodes: make([]Node, len(ef))}
	at := map[string]int{}
	for j, q := range ef {
		g.Nodes[j].Seq = int64(j)
		switch {
		case q.Call != "":
			for _, a := range q.After {
				g.Nodes[j].After = append(g.Nodes[j].After, Edge{From: at[a], Wait: ef[at[a]].Wait})
			}
			at[q.Call] = j
		case j > 0:
			g.Nodes[j].After = []Edge{{From: j - 1, Wait: q.Wait}}
		}
	}
	return g
}

func (ef exampleFlow) Do(ctx context.Context, j int, rec *record.Record, now func() int64) {
	q := ef[j]
	rec.Sent = now()
	for _, tok := range q.Tokens {
		time.Sleep(time.Duration(rec.Sent) + tok - q.Scheduled - time.Duration(now()))
		rec.Chunks = append(rec.Chunks, record.Chunk{At: now(), Tokens: 1})
	}
	rec.End, rec.OutputTokens, rec.TokenSource, rec.Status = now(), len(q.Tokens), record.SourceChunks, 200
	if q.Call != "" {
		rec.Task, rec.Call = q.Flow, q.Call
	} else {
		rec.Session, rec.Turn = q.Flow, q.Turn
	}
}

// runExample runs a worked example's flows at its arrival times and checks
// that every request was scheduled exactly when the example says: at the
// end of what it waited for plus the think or tool time. It returns the
// summary of the records.
func runExample(t *testing.T, name string) (*metrics.Result, workedexample.Example) {
	t.Helper()
	ex, err := workedexample.Read("../metrics/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var res *metrics.Result
	synctest.Test(t, func(t *testing.T) {
		fl, arrivals := newExampleFlows(ex)
		_, recs := runFlows(t, t.Context(), Plan{Offsets: arrivals}, fl)
		if len(recs) != len(ex.Requests) {
			t.Fatalf("%d records for %d requests", len(recs), len(ex.Requests))
		}
		want := map[[2]string]time.Duration{}
		for _, q := range ex.Requests {
			want[[2]string{q.Flow, q.Call + string(rune('0'+q.Turn))}] = q.Scheduled
		}
		sum := metrics.NewSummary(metrics.Options{Good: func(q metrics.Request) bool {
			return q.TTFT <= 500*time.Millisecond && (!q.HasTPOT || q.TPOT <= 50*time.Millisecond)
		}})
		sort.Slice(recs, func(a, b int) bool { return recs[a].Scheduled < recs[b].Scheduled })
		for _, r := range recs {
			flow, call := r.Session+r.Task, r.Call+string(rune('0'+r.Turn))
			if s := time.Duration(r.Scheduled); s != want[[2]string{flow, call}] || r.Sent != r.Scheduled {
				t.Errorf("%s %s: scheduled %v, sent %v; the example schedules it at %v",
					flow, call, s, time.Duration(r.Sent), want[[2]string{flow, call}])
			}
			sum.Add(r)
		}
		res = sum.Close()
	})
	return res, ex
}

// TestSessionsWorkedExampleRuns: the runner schedules each turn of the
// sessions worked example when the previous reply ended plus its think
// time, and the summary of what it recorded prints the expected figures.
func TestSessionsWorkedExampleRuns(t *testing.T) {
	res, ex := runExample(t, "sessions_worked_example.txt")
	s, g := res.Sessions, res.Sessions.Goodput
	if s.Count != 3 || g.Good != 1 || g.GoodOutputTokens != 7 {
		t.Errorf("sessions %+v, goodput %+v; want 3 sessions, 1 good of 7 tokens", s.FlowCounts, *g)
	}
	if got := roundTo(res.Window.Seconds, 2); got != 1.2 {
		t.Errorf("window %v, want 1.20 s", res.Window.Seconds)
	}
	if !slices.Contains(ex.Expected, "session goodput = 7/1.20s = 5.83 tok/s (1 of 3 sessions good)") {
		t.Errorf("the example no longer expects the figures this test checks: %q", ex.Expected)
	}
}

// TestTasksWorkedExampleRuns: each call of the tasks worked example is
// scheduled when the latest of its dependencies ended plus that one's tool
// time, fan-outs in parallel.
func TestTasksWorkedExampleRuns(t *testing.T) {
	res, _ := runExample(t, "tasks_worked_example.txt")
	tk := res.Tasks
	if tk.Count != 3 || tk.Goodput.Good != 2 || tk.Goodput.GoodOutputTokens != 15 || roundTo(tk.Completion.Median, 2) != 0.96 {
		t.Errorf("tasks %+v, goodput %+v, completion p50 %v; want 3, 2 good of 15 tokens, 0.96 s", tk.FlowCounts, *tk.Goodput, tk.Completion.Median)
	}
}

func roundTo(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}
