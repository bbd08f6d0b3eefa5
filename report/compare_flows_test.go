package report

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// flowKeys are the rows of sessions Compare gives intervals.
var flowKeys = []string{"session_goodput", "session_duration_p50", "session_duration_p99"}

func compareRuns(t *testing.T, runs ...*Run) *Comparison {
	t.Helper()
	c, err := Compare(runs, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCompareSessionsWorkedExample: the sessions worked example against
// itself carries the example's figures, and no difference.
func TestCompareSessionsWorkedExample(t *testing.T) {
	a := exampleRun(t, "sessions_worked_example.txt", true, nil)
	b := exampleRun(t, "sessions_worked_example.txt", true, nil)
	c := compareRuns(t, a, b)
	for _, tc := range []struct {
		key  string
		want float64
	}{
		{"sessions", 3},
		{"session_goodput", 7 / 1.2},    // A's 7 tokens over W = 1.20 s
		{"session_attainment", 1.0 / 3}, // A alone
		{"session_duration_p50", 1.00},  // of 0.98, 1.00 and 1.02 s
		{"session_duration_p99", 1.0196},
	} {
		r := c.Row(tc.key)
		if r == nil {
			t.Fatalf("no row %s", tc.key)
		}
		for i, v := range r.Values {
			if math.Abs(v-tc.want) > 1e-9 {
				t.Errorf("%s of run %d: %v, want %v", tc.key, i, v, tc.want)
			}
		}
	}
	for _, k := range flowKeys {
		if d := c.Row(k).Diffs[1]; !d.HasCI || d.Abs != 0 || d.Lo != 0 || d.Hi != 0 || d.Verdict != Noise {
			t.Errorf("%s: %+v, want a zero difference in a zero interval: noise", k, d)
		}
	}
	if c.Row("tasks") != nil || len(c.Warnings) != 0 {
		t.Errorf("task rows %v, warnings %+v", c.Row("tasks"), c.Warnings)
	}
	var out bytes.Buffer
	if err := WriteCompareText(&out, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"session goodput (tok/s)", "5.8", "session duration p99 (ms)", "1019.60", "resample whole sessions"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCompareTasksWorkedExample: the tasks worked example's figures, with
// intervals from whole tasks.
func TestCompareTasksWorkedExample(t *testing.T) {
	a := exampleRun(t, "tasks_worked_example.txt", true, nil)
	c := compareRuns(t, a, exampleRun(t, "tasks_worked_example.txt", true, nil))
	// T1 and T3 good, 15 tokens over 1.07 s; completions 0.14, 0.96, 1.07 s.
	for key, want := range map[string]float64{"tasks": 3, "task_goodput": 15 / 1.07, "task_attainment": 2.0 / 3, "task_completion_p50": 0.96} {
		if r := c.Row(key); r == nil || math.Abs(r.Values[1]-want) > 1e-9 {
			t.Errorf("%s: %v, want %v", key, r, want)
		}
	}
	if d := c.Row("task_goodput").Diffs[1]; !d.HasCI || d.Verdict != Noise {
		t.Errorf("task goodput against itself: %+v", d)
	}
	if c.Row("sessions") != nil {
		t.Error("agent calls compared as sessions")
	}
}

// TestCompareSessionsKnownDifference: the same sessions served 50 ms
// slower to every first token take 4 × 50 ms longer each and all miss
// the SLO's 100 ms TTFT at turn 4: both differences are real. Sessions
// whose own luck is drawn with another seed differ by noise only.
func TestCompareSessionsKnownDifference(t *testing.T) {
	s := mustSLO(t, "ttft<=100ms,tpot<=20ms")
	run := func(slower time.Duration, seed uint64) *Run {
		rng := rand.New(rand.NewPCG(seed, 5))
		offsets := make([]int, 40)
		for i := range offsets {
			offsets[i] = rng.IntN(45)
		}
		h, recs := sessionsRecords(t, 4, slower, func(i int) int { return offsets[i] })
		return build(h, recs, RunOptions{SLO: s})
	}
	base := run(0, 1)
	c := compareRuns(t, base, run(50*time.Millisecond, 1), run(0, 2))
	if d := c.Row("session_duration_p99").Diffs[1]; math.Abs(d.Abs-0.2) > 1e-9 || !d.HasCI || d.Lo <= 0 || d.Verdict != Worse {
		t.Errorf("slower: session duration p99 %+v, want 200 ms worse beyond the noise", d)
	}
	if r := c.Row("session_goodput"); r.Values[1] != 0 || r.Values[0] < 100 || r.Diffs[1].Verdict != Worse {
		t.Errorf("slower: session goodput %v, %+v; want worse, down to 0", r.Values, r.Diffs[1])
	}
	changed := 0
	for _, k := range flowKeys {
		d := c.Row(k).Diffs[2]
		if d.Abs != 0 {
			changed++
		}
		if d.Verdict != Noise {
			t.Errorf("another seed: %s %+v, want noise", k, d)
		}
	}
	if changed < 2 {
		t.Errorf("only %d of %d figures changed with the seed: too alike to test anything", changed, len(flowKeys))
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %+v", c.Warnings)
	}
}

// TestCompareSessionsNotComparable: a run of sessions against one of
// plain requests, either way round, and runs whose sessions have
// different numbers of turns, each say so; the side without sessions
// has n/a and no interval.
func TestCompareSessionsNotComparable(t *testing.T) {
	sessions := sessionsRun(t)
	plain := richRun(t)
	for _, tc := range []struct {
		name string
		runs []*Run
		na   int // the run without sessions
		want string
	}{
		{"baseline has sessions", []*Run{sessions, plain}, 1, "the baseline replayed sessions but run B did not: its session figures are n/a, not comparable"},
		{"run has sessions", []*Run{plain, sessions}, 0, "run B replayed sessions but the baseline did not: the baseline's session figures are n/a, not comparable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := compareRuns(t, tc.runs...)
			var texts []string
			for _, w := range c.Warnings {
				if w.Kind == WarnFlows {
					texts = append(texts, w.Text)
				}
			}
			if len(texts) != 1 || texts[0] != tc.want {
				t.Errorf("warnings %q, want %q", texts, tc.want)
			}
			for _, k := range append([]string{"sessions"}, flowKeys...) {
				r := c.Row(k)
				if r == nil || !math.IsNaN(r.Values[tc.na]) || math.IsNaN(r.Values[1-tc.na]) || r.Diffs[1].HasCI || r.Diffs[1].Verdict != "" {
					t.Errorf("%s: %+v", k, r)
				}
			}
		})
	}
	h, recs := sessionsRecords(t, 3, 0, func(i int) int { return (i * 7) % 45 })
	c := compareRuns(t, sessions, build(h, recs, RunOptions{SLO: mustSLO(t, "ttft<=100ms,tpot<=20ms")}))
	want := "turns per session differ: 4.00 in the baseline, 3.00 in run B; session duration and session goodput depend on them"
	if len(c.Warnings) == 0 || c.Warnings[len(c.Warnings)-1].Text != want {
		t.Errorf("warnings %+v, want %q", c.Warnings, want)
	}
	// Plain runs have no rows of sessions.
	if c := compareRuns(t, plain, richRun(t)); c.Row("sessions") != nil || c.Row("session_goodput") != nil {
		t.Error("plain runs compared with session rows")
	}
}
