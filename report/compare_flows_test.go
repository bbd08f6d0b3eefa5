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
var flowKeys = []string{"session_goodput", "session_attainment", "session_duration_p50", "session_duration_p99"}

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
	// Seven requests a run: too few to tell runs apart, and said so; no
	// other difference between a run and itself.
	if c.Row("tasks") != nil || len(c.Warnings) != 1 || c.Warnings[0].Kind != WarnFewRequests {
		t.Errorf("task rows %v, warnings %+v; want only %s", c.Row("tasks"), c.Warnings, WarnFewRequests)
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
	if r := c.Row("session_attainment"); r.Values[1] != 0 || r.Values[0] < 0.5 || r.Diffs[1].Verdict != Worse {
		t.Errorf("slower: session attainment %v, %+v; want worse, down to 0", r.Values, r.Diffs[1])
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

// flowRuns are runs of 40 four-turn sessions (tasks of four calls, when
// tasks), with the SLO of sessionsRun: each first token slower by
// slower, each session's own luck drawn with seed.
func flowRuns(t *testing.T, tasks bool) func(slower time.Duration, seed uint64) *Run {
	s := mustSLO(t, "ttft<=100ms,tpot<=20ms")
	return func(slower time.Duration, seed uint64) *Run {
		rng := rand.New(rand.NewPCG(seed, 5))
		offsets := make([]int, 40)
		for i := range offsets {
			offsets[i] = rng.IntN(45)
		}
		h, recs := sessionsRecords(t, 4, slower, func(i int) int { return offsets[i] })
		if tasks {
			for i := range recs {
				recs[i].Task, recs[i].Session, recs[i].Turn = recs[i].Session, "", 0
			}
		}
		return build(h, recs, RunOptions{SLO: s})
	}
}

// TestCompareFlowGates: regression gates on the sessions' and tasks'
// goodput, attainment and span are judged as their rows are. Against a
// copy 50 ms slower to every first token (every session then misses the
// SLO at its last turn, and lasts 4 × 50 ms longer) each fails, the
// interval wholly on the worse side; against sessions whose own luck was
// drawn with another seed each passes, the difference inside the noise,
// though its point estimate alone would fail it.
func TestCompareFlowGates(t *testing.T) {
	for _, tasks := range []bool{false, true} {
		unit, span := "session", "session_duration"
		if tasks {
			unit, span = "task", "task_completion"
		}
		mk := flowRuns(t, tasks)
		// The seeds whose point estimates worsen: seed 3 loses 10 % of
		// the good sessions (21 of 204 tok/s), seed 2 adds 2 and 4 ms to
		// the span's p99 and p50.
		runs := []*Run{mk(0, 1), mk(50*time.Millisecond, 1), mk(0, 2), mk(0, 3)}
		tests := []struct {
			gate  string
			noisy int     // the run whose difference is noise
			delta float64 // slower − baseline, for the slower run
			unit  string  // of the interval, as the gate's line writes it
		}{
			{"regression(" + unit + "_goodput)<=5%", 3, -1, "tok/s"}, // all 204 tok/s lost: -100 %
			{"regression(" + unit + "_attainment)<=5%", 3, -1, "pp"}, // 92.5 % of sessions good, then none
			{"regression(p99 " + span + ")<=0%", 2, 0.2, "ms"},       // +4 × 50 ms
			{"regression(median(" + span + "))<=0%", 2, 0.2, "ms"},
		}
		var gates []RegressionGate
		for _, tc := range tests {
			g, err := ParseRegressionGate(tc.gate)
			if err != nil {
				t.Fatal(err)
			}
			gates = append(gates, g)
		}
		for _, point := range []bool{false, true} {
			c, err := Compare(runs, CompareOptions{Regressions: gates, PointEstimate: point})
			if err != nil {
				t.Fatal(err)
			}
			if c.Pass {
				t.Errorf("point %v: a comparison with a slower run passed", point)
			}
			for i, tc := range tests {
				slower := c.Regressions[i] // run B, the first of each gate's three
				if slower.Run != 1 || slower.Pass || !slower.HasCI || slower.Verdict != Worse || slower.Judged != map[bool]string{false: JudgedInterval, true: JudgedPoint}[point] {
					t.Errorf("%s, slower, point %v: %s (%+v); want a worse interval failing the gate", tc.gate, point, slower, slower)
				}
				if want := "] " + tc.unit + ", worse: fail"; !strings.HasSuffix(slower.String(), want) {
					t.Errorf("%s, slower: %q, want it to end %q", tc.gate, slower, want)
				}
				if d := slower.Measured - slower.Base; tc.delta == -1 && (slower.Measured != 0 || slower.Regression != 1) || tc.delta > 0 && math.Abs(d-tc.delta) > 1e-9 {
					t.Errorf("%s, slower: %v → %v (%+.1f %%)", tc.gate, slower.Base, slower.Measured, 100*slower.Regression)
				}
				noisy := c.Regressions[2*len(tests)+i]
				if tc.noisy == 2 {
					noisy = c.Regressions[len(tests)+i]
				}
				if noisy.Run != tc.noisy || noisy.Verdict != Noise || noisy.Regression <= max(gates[i].Limit, 0) {
					t.Fatalf("%s, run %d: %s; the test needs a worsening beyond the limit inside the noise", tc.gate, noisy.Run, noisy)
				}
				// Noise passes, unless the gate asks for point estimates.
				if noisy.Pass == point || !point && !strings.Contains(noisy.Note, "judged on the point estimate it would fail") {
					t.Errorf("%s, noise, point %v: %s", tc.gate, point, noisy)
				}
			}
		}
	}
}

// TestCompareFlowGateWithoutFlows: a gate on sessions or tasks fails on a
// run without them, or without an SLO to judge them by, and says which
// and why, naming the gate.
func TestCompareFlowGateWithoutFlows(t *testing.T) {
	sessions, plain := sessionsRun(t), richRun(t)
	h, recs := sessionsRecords(t, 4, 0, func(i int) int { return i % 10 })
	unjudged := build(h, recs, RunOptions{})
	for _, tc := range []struct {
		name string
		gate string
		runs []*Run
		want string // the gate's line in the output
	}{
		{"the run has no sessions", "regression(session_goodput)<=5%", []*Run{sessions, plain},
			"B against A: regression(session_goodput)<=5%: fail: session_goodput reads a run's sessions and this run has none (replay some with --multi-turn or --dataset-name sessions)"},
		{"the baseline has no sessions", "regression(p99 session_duration)<=10%", []*Run{plain, sessions},
			"B against A: regression(p99(session_duration))<=10%: fail: baseline: session_duration reads a run's sessions and this run has none (replay some with --multi-turn or --dataset-name sessions)"},
		{"sessions are no tasks", "regression(task_attainment)<=1%", []*Run{sessions, sessions},
			"B against A: regression(task_attainment)<=1%: fail: baseline: task_attainment reads a run's agent tasks and this run has none (replay some with --dataset-name agent)"},
		{"no SLO judged the sessions", "regression(session_attainment)<=1%", []*Run{unjudged, unjudged},
			"B against A: regression(session_attainment)<=1%: fail: baseline: session_attainment needs a per-request SLO (--slo or --goodput; not --slo none)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ParseRegressionGate(tc.gate)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Compare(tc.runs, CompareOptions{Resamples: 100, Regressions: []RegressionGate{g}})
			if err != nil {
				t.Fatal(err)
			}
			if r := c.Regressions[0]; r.Pass || c.Pass || r.Problem == "" || r.HasCI {
				t.Errorf("%+v, want a failed gate with its problem", r)
			}
			var b bytes.Buffer
			if err := WriteCompareText(&b, c); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "  - "+tc.want+"\n") {
				t.Errorf("the text lacks %q:\n%s", tc.want, b.String())
			}
		})
	}
}
