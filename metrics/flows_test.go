package metrics

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/workedexample"
	"github.com/goodput-dev/goodput/record"
)

// SessionLines prints res as the sessions worked example prints its
// figures; tests compare it with the example's expected output.
func sessionLines(res *Result) []string {
	w := res.Window.Seconds
	ses, g := res.Sessions, res.Sessions.Goodput
	lines := []string{
		fmt.Sprintf("throughput      = %d/%.2fs = %.2f tok/s", res.Tokens.Output, w, res.Throughput.OutputTokensPerSecond),
		fmt.Sprintf("goodput         = %d/%.2fs = %.2f tok/s", res.Goodput.GoodOutputTokens, w, res.Goodput.OutputTokensPerSecond),
		fmt.Sprintf("session goodput = %d/%.2fs = %.2f tok/s (%d of %d sessions good)", g.GoodOutputTokens, w, g.OutputTokensPerSecond, g.Good, ses.Count),
		fmt.Sprintf("session duration p50=%.2fs max=%.2fs mean=%.4fs", ses.Duration.Median, ses.Duration.Max, ses.Duration.Mean),
	}
	for _, t := range ses.TTFTByTurn {
		lines = append(lines, fmt.Sprintf("TTFT turn %d  p50=%.2fs mean=%.4fs", t.Turn, t.TTFT.Median, t.TTFT.Mean))
	}
	return lines
}

func taskLines(res *Result) []string {
	w := res.Window.Seconds
	tk, g := res.Tasks, res.Tasks.Goodput
	return []string{
		fmt.Sprintf("throughput   = %d/%.2fs = %.2f tok/s", res.Tokens.Output, w, res.Throughput.OutputTokensPerSecond),
		fmt.Sprintf("goodput      = %d/%.2fs = %.2f tok/s", res.Goodput.GoodOutputTokens, w, res.Goodput.OutputTokensPerSecond),
		fmt.Sprintf("task goodput = %d/%.2fs = %.2f tok/s (%d of %d tasks good)", g.GoodOutputTokens, w, g.OutputTokensPerSecond, g.Good, tk.Count),
		fmt.Sprintf("task completion p50=%.2fs max=%.2fs mean=%.4fs", tk.Completion.Median, tk.Completion.Max, tk.Completion.Mean),
	}
}

func readExample(t *testing.T, name string) workedexample.Example {
	t.Helper()
	ex, err := workedexample.Read("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// TestSessionsWorkedExample reproduces testdata/sessions_worked_example.txt
// exactly, with either percentile method (three sessions, three values a
// turn: the median is the middle one either way).
func TestSessionsWorkedExample(t *testing.T) {
	ex := readExample(t, "sessions_worked_example.txt")
	for _, m := range []Method{Linear, NearestRank} {
		res := summarize(t, Options{Method: m, Good: seedSLO, SLO: "ttft<=500ms,tpot<=50ms"}, ex.Records()...)
		if got := sessionLines(res); !slices.Equal(got, ex.Expected) {
			t.Errorf("%v: got\n%q\nwant\n%q", m, got, ex.Expected)
		}
		s := res.Sessions
		if s.Requests != 7 || s.Failed != 0 || s.OutputTokens != 19 || s.Goodput.Attainment != 1.0/3 {
			t.Errorf("%v: %d turns, %d failed, %d tokens, attainment %v; want 7, 0, 19, 1/3", m, s.Requests, s.Failed, s.OutputTokens, s.Goodput.Attainment)
		}
		checkNear(t, "sessions per second", s.Goodput.PerSecond, 1/1.2)
	}
}

// TestTasksWorkedExample reproduces testdata/tasks_worked_example.txt.
func TestTasksWorkedExample(t *testing.T) {
	ex := readExample(t, "tasks_worked_example.txt")
	res := summarize(t, Options{Good: seedSLO, SLO: "ttft<=500ms,tpot<=50ms"}, ex.Records()...)
	if got := taskLines(res); !slices.Equal(got, ex.Expected) {
		t.Errorf("got\n%q\nwant\n%q", got, ex.Expected)
	}
	if res.Sessions != nil {
		t.Errorf("agent calls counted as sessions: %+v", res.Sessions)
	}
	if tk := res.Tasks; tk.Requests != 7 || tk.Goodput.Attainment != 2.0/3 {
		t.Errorf("%d calls, attainment %v; want 7, 2/3", tk.Requests, tk.Goodput.Attainment)
	}
}

// TestFlowSpansByName: Distribution answers the names gates read the
// sessions' durations and the tasks' completion times by, empty for a run
// without them.
func TestFlowSpansByName(t *testing.T) {
	sessions := summarize(t, Options{}, readExample(t, "sessions_worked_example.txt").Records()...)
	tasks := summarize(t, Options{}, readExample(t, "tasks_worked_example.txt").Records()...)
	for _, tc := range []struct {
		name string
		res  *Result
		m    Metric
		want *Distribution // nil: an empty distribution
	}{
		{"sessions' durations", sessions, MetricSessionDuration, &sessions.Sessions.Duration},
		{"tasks' completion times", tasks, MetricTaskCompletion, &tasks.Tasks.Completion},
		// A run of calls has no sessions, a run of turns no tasks.
		{"no sessions", tasks, MetricSessionDuration, nil},
		{"no tasks", sessions, MetricTaskCompletion, nil},
	} {
		d := tc.res.Distribution(tc.m)
		switch {
		case d == nil:
			t.Errorf("%s: nil", tc.name)
		case tc.want != nil && (d != tc.want || d.Count != 3):
			t.Errorf("%s: %+v, want the result's own, of 3 flows", tc.name, d)
		case tc.want == nil && d.Count != 0:
			t.Errorf("%s: %+v, want an empty distribution", tc.name, d)
		}
	}
	if slices.Contains(Metrics(), MetricSessionDuration) || slices.Contains(Metrics(), MetricTaskCompletion) {
		t.Error("the flows' spans are listed among the per-request metrics")
	}
}

// TestFlowsListsEachSession: the sessions worked example's three
// sessions, each with the span, tokens and verdict the example works out,
// in order of their first turn; the tasks example's three tasks beside
// none; and nothing after Close.
func TestFlowsListsEachSession(t *testing.T) {
	ex := readExample(t, "sessions_worked_example.txt")
	s := NewSummary(Options{Good: seedSLO})
	for _, r := range ex.Records() {
		s.Add(r)
	}
	sessions, tasks := s.Flows()
	want := []Flow{
		// A: 0 to 1.02 s, 3 + 4 tokens, both turns good
		{ID: "A", Start: 0, Span: 1020 * time.Millisecond, Requests: 2, OutputTokens: 7, Good: true},
		// B: 0.1 to 1.08 s; its first turn's TTFT of 0.6 s broke it
		{ID: "B", Start: 100e6, Span: 980 * time.Millisecond, Requests: 2, OutputTokens: 5},
		// C: 0.2 to 1.2 s; its last turn's TPOT of 0.2 s broke it
		{ID: "C", Start: 200e6, Span: 1000 * time.Millisecond, Requests: 3, OutputTokens: 7},
	}
	if !slices.Equal(sessions, want) || tasks != nil {
		t.Errorf("sessions %+v tasks %+v; want %+v and none", sessions, tasks, want)
	}
	s.Close()
	if sessions, _ := s.Flows(); sessions != nil {
		t.Errorf("after Close: %+v", sessions)
	}

	ex = readExample(t, "tasks_worked_example.txt")
	s = NewSummary(Options{Good: seedSLO})
	for _, r := range ex.Records() {
		s.Add(r)
	}
	sessions, tasks = s.Flows()
	var good []string
	for _, f := range tasks {
		if f.Good {
			good = append(good, f.ID)
		}
	}
	// T1 0–1.07 s, T2 0.05–1.01 s, T3 0.3–0.44 s: T2's plan was late.
	if sessions != nil || len(tasks) != 3 || tasks[1].Span != 960*time.Millisecond || !slices.Equal(good, []string{"T1", "T3"}) {
		t.Errorf("sessions %+v tasks %+v", sessions, tasks)
	}
	// Without an SLO no flow is good.
	s = NewSummary(Options{})
	for _, r := range ex.Records() {
		s.Add(r)
	}
	if _, tasks := s.Flows(); slices.ContainsFunc(tasks, func(f Flow) bool { return f.Good }) {
		t.Errorf("a task is good without an SLO: %+v", tasks)
	}
}

func TestFlowsFailuresAndInterrupts(t *testing.T) {
	ok := func(session string, s float64, at ...float64) *record.Record {
		r := streamed(s, at...)
		r.Session = session
		return r
	}
	failed := ok("B", 0, 100)
	failed.Chunks, failed.OutputTokens, failed.Error = nil, 0, record.ErrHTTP
	canceled := ok("C", 0, 100)
	canceled.Chunks, canceled.OutputTokens, canceled.Error = nil, 0, record.ErrCanceled
	warm := ok("W", 0, 50, 60)
	warm.Warmup = true
	res := summarize(t, Options{Good: seedSLO}, ok("A", 0, 100, 120), ok("B", 200, 300), failed, canceled, ok("C", 0, 10), warm)
	s := res.Sessions
	// W is warm-up: not a session of the run. B failed once, C was cut
	// by the interrupt: neither is good, and C is outside attainment.
	if s.Count != 3 || s.Failed != 2 || s.Canceled != 1 || s.Goodput.Good != 1 || s.Judged() != 2 || s.Goodput.Attainment != 0.5 {
		t.Errorf("sessions %+v goodput %+v", s.FlowCounts, *s.Goodput)
	}
	// Without an SLO there is no session goodput, and the rest stays.
	res = summarize(t, Options{}, ok("A", 0, 100, 120))
	if res.Sessions.Goodput != nil || res.Sessions.Count != 1 || res.Sessions.Duration.Max != 0.12 {
		t.Errorf("without an SLO: %+v", res.Sessions)
	}
	// A run without sessions says nothing of them.
	if res := summarize(t, Options{}, streamed(0, 10)); res.Sessions != nil || res.Tasks != nil || res.Endpoints != nil {
		t.Errorf("plain requests: sessions %v tasks %v endpoints %v", res.Sessions, res.Tasks, res.Endpoints)
	}
}

func TestEndpointsBreakdown(t *testing.T) {
	at := func(ep string, r *record.Record) *record.Record { r.Endpoint = ep; return r }
	recs := []*record.Record{
		at("http://a", streamed(0, 200, 250, 300)),
		at("http://b", streamed(100, 700, 740)),
		at("http://a", streamed(100, 150, 160)),
	}
	s := NewSummary(Options{Good: seedSLO})
	for _, r := range recs {
		s.Add(r)
	}
	live := s.Snapshot()
	res := s.Close()
	for _, r := range []*Result{live, res} {
		if len(r.Endpoints) != 2 || r.Endpoints[0].Endpoint != "http://a" || r.Endpoints[1].Endpoint != "http://b" {
			t.Fatalf("endpoints %+v", r.Endpoints)
		}
		a, b := r.Endpoints[0].Result, r.Endpoints[1].Result
		// a: two good requests of 3 and 2 tokens over its own window 0–0.3 s;
		// b: one request, TTFT 0.6 s, not good, window 0.1–0.74 s.
		if a.Counts.Total != 2 || a.Tokens.Output != 5 || a.Goodput.GoodRequests != 2 || b.Counts.Total != 1 || b.Goodput.GoodRequests != 0 {
			t.Errorf("a %+v %+v; b %+v %+v", a.Counts, *a.Goodput, b.Counts, *b.Goodput)
		}
		checkNear(t, "a's window", a.Window.Seconds, 0.3)
		checkNear(t, "b's TTFT", b.Latency.TTFT.Max, 0.6)
		if a.Endpoints != nil {
			t.Error("an endpoint's result breaks itself down again")
		}
		// The total is the whole run's.
		if r.Counts.Total != 3 || r.Tokens.Output != 7 {
			t.Errorf("total %+v", r.Counts)
		}
	}
}
