package sweep

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func loadStrings(ls []Load) string {
	s := make([]string, len(ls))
	for i, l := range ls {
		s[i] = l.Short()
	}
	return strings.Join(s, " ")
}

func autoPlan(mode Mode) Plan {
	a := DefaultAuto(mode)
	return Plan{Mode: mode, Auto: &a, Stop: DefaultStopRule()}
}

func TestPlanValidate(t *testing.T) {
	ok := autoPlan(ModeConcurrency)
	mutate := func(f func(*Plan)) Plan {
		p := ok
		a := *ok.Auto
		p.Auto = &a
		f(&p)
		return p
	}
	p1, _ := NewPoint(Concurrency(1), synth(1, 1, 1))
	tests := []struct {
		name string
		p    Plan
		err  string
	}{
		{"default auto", ok, ""},
		{"default rate auto", autoPlan(ModeRate), ""},
		{"explicit", Plan{Mode: ModeConcurrency, Loads: []Load{Concurrency(1), Concurrency(4)}}, ""},
		// Sad paths, each naming the problem.
		{"no mode", Plan{Loads: []Load{Concurrency(1)}}, `sweep mode "": unknown`},
		{"nothing to run", Plan{Mode: ModeRate}, "no loads"},
		{"both", mutate(func(p *Plan) { p.Loads = []Load{Concurrency(2)} }), "both a list of loads and auto"},
		{"mixed modes", Plan{Mode: ModeConcurrency, Loads: []Load{Concurrency(1), Rate(2)}}, "load 2: request_rate=2 is not a concurrency load"},
		{"invalid load", Plan{Mode: ModeConcurrency, Loads: []Load{Concurrency(0)}}, "load 1: concurrency 0"},
		{"repeated load", Plan{Mode: ModeRate, Loads: []Load{Rate(1), Rate(1)}}, "load 2: request_rate=1 repeats load 1"},
		{"too many loads", Plan{Mode: ModeConcurrency, Loads: concurrencies(1, MaxPoints+1, 1)}, "1001 loads"},
		{"max 1", mutate(func(p *Plan) { p.Auto.Max = 1 }), "maximum concurrency 1"},
		{"max huge", mutate(func(p *Plan) { p.Auto.Max = MaxConcurrency + 1 }), "maximum concurrency 1048577"},
		{"negative points", mutate(func(p *Plan) { p.Auto.Points = -1 }), "-1 grid points"},
		{"bad spacing", mutate(func(p *Plan) { p.Auto.Spacing = "log" }), `spacing "log"`},
		{"negative refine", mutate(func(p *Plan) { p.Auto.Refine = -2 }), "-2 refinement points"},
		{"negative repeats", mutate(func(p *Plan) { p.Repeats = -1 }), "repeats -1"},
		{"too many repeats", mutate(func(p *Plan) { p.Repeats = MaxRepeats + 1 }), "repeats 101"},
		{"bad stop", mutate(func(p *Plan) { p.Stop.LoadFactor = 0.5 }), "load factor 0.5"},
		{"bad options", mutate(func(p *Plan) { p.Options.Target = 2 }), "attainment target 2"},
		{"duplicate resume", mutate(func(p *Plan) { p.Resume = []Point{p1, p1} }), "resume: point 2"},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		if (tt.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: Validate() = %v, want error containing %q", tt.name, err, tt.err)
		}
	}
	// Every problem is reported at once, not only the first.
	err := mutate(func(p *Plan) { p.Auto.Points = -1; p.Repeats = -1 }).Validate()
	if err == nil || !strings.Contains(err.Error(), "grid points") || !strings.Contains(err.Error(), "repeats") {
		t.Errorf("two problems reported as %v", err)
	}
}

func TestPlanStepsConcurrency(t *testing.T) {
	steps, err := autoPlan(ModeConcurrency).Steps()
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		phase    Phase
		loads    string
		resolved bool
	}{
		{PhaseSynchronous, "1", true},
		{PhaseSaturation, "256", true},
		// 256^(i/8) for i = 1..7.
		{PhaseGrid, "2 4 8 16 32 64 128", true},
		// Needs the grid's results.
		{PhaseRefine, "", false},
	}
	if len(steps) != len(want) {
		t.Fatalf("%d steps, want %d", len(steps), len(want))
	}
	for i, w := range want {
		s := steps[i]
		if s.Phase != w.phase || loadStrings(s.Loads) != w.loads || s.Resolved != w.resolved {
			t.Errorf("step %d = %s [%s] resolved %v; want %s [%s] %v", i+1, s.Phase, loadStrings(s.Loads), s.Resolved, w.phase, w.loads, w.resolved)
		}
	}
}

func TestPlanGridSpacing(t *testing.T) {
	tests := []struct {
		name string
		a    Auto
		want string
	}{
		// Linear from 1 to 100 in 4 steps: 1 + 99·i/5 = 20.8, 40.6, 60.4, 80.2.
		{"linear", Auto{Max: 100, Points: 4, Spacing: SpacingLinear}, "21 41 60 80"},
		// Geometric from 1 to 8 with 5 points: 8^(i/6) = 1.41, 2, 2.83, 4,
		// 5.66; rounding and dropping duplicates leaves 2 3 4 6 (1 is
		// the synchronous load).
		{"geometric rounds and dedupes", Auto{Max: 8, Points: 5, Spacing: SpacingGeometric}, "2 3 4 6"},
		// More points than integers between: each integer once.
		{"crowded", Auto{Max: 4, Points: 10, Spacing: SpacingLinear}, "2 3"},
		// No grid at all.
		{"none", Auto{Max: 4, Points: 0, Spacing: SpacingLinear}, ""},
	}
	for _, tt := range tests {
		a := tt.a
		steps, err := Plan{Mode: ModeConcurrency, Auto: &a}.Steps()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := loadStrings(steps[2].Loads); got != tt.want {
			t.Errorf("%s: grid %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestPlanStepsRate(t *testing.T) {
	p := autoPlan(ModeRate)
	steps, err := p.Steps()
	if err != nil {
		t.Fatal(err)
	}
	if loadStrings(steps[0].Loads) != "1" || steps[0].Loads[0].Mode != ModeConcurrency ||
		loadStrings(steps[1].Loads) != "inf req/s" {
		t.Fatalf("rate plan starts %v, %v; want concurrency 1 then an unbounded rate", steps[0].Loads, steps[1].Loads)
	}
	if steps[2].Resolved || steps[2].Loads != nil || !strings.Contains(steps[2].Note, "once both are measured") {
		t.Fatalf("grid before measuring = %+v, want pending", steps[2])
	}

	// With both bounds measured (0.5 and 8.5 req/s achieved), the grid is
	// 0.5 + 8·i/9 for i = 1..8, to three significant digits.
	sync, _ := NewPoint(Concurrency(1), synth(0.5, 2, 1))
	flood, _ := NewPoint(Rate(math.Inf(1)), synth(8.5, 40, 0))
	p.Resume = []Point{sync, flood}
	steps, err = p.Steps()
	if err != nil {
		t.Fatal(err)
	}
	want := "1.39 req/s 2.28 req/s 3.17 req/s 4.06 req/s 4.94 req/s 5.83 req/s 6.72 req/s 7.61 req/s"
	if !steps[2].Resolved || loadStrings(steps[2].Loads) != want {
		t.Fatalf("grid = %q (resolved %v), want %q", loadStrings(steps[2].Loads), steps[2].Resolved, want)
	}
	if steps[3].Resolved {
		t.Errorf("refinement resolved before the grid was measured")
	}

	// A flood that achieved no more than one request at a time leaves no
	// room for a grid, and says so.
	flat, _ := NewPoint(Rate(math.Inf(1)), synth(0.5, 40, 0))
	p.Resume = []Point{sync, flat}
	steps, _ = p.Steps()
	if !steps[2].Resolved || steps[2].Loads != nil || !strings.Contains(steps[2].Note, "no more than the synchronous") {
		t.Errorf("grid with no room = %+v", steps[2])
	}
}

func TestPlanRefine(t *testing.T) {
	p := autoPlan(ModeConcurrency)
	// The synthetic server saturates at 28: power peaks at 32 among the
	// grid, between 16 and 64. One refinement load goes in each gap, at
	// the geometric middle: √(16·32) = 22.6 → 23 and √(32·64) = 45.3 → 45.
	var loads []Load
	for _, c := range []int{1, 2, 4, 8, 16, 32, 64, 128, 256} {
		loads = append(loads, Concurrency(c))
	}
	p.Resume = server(t, loads)
	steps, err := p.Steps()
	if err != nil {
		t.Fatal(err)
	}
	r := steps[3]
	if !r.Resolved || loadStrings(r.Loads) != "23 45" || !strings.Contains(r.Note, "power knee at 32") {
		t.Fatalf("refine = %+v, want 23 and 45 around 32", r)
	}

	// Four refinement loads: two in each gap.
	p.Auto.Refine = 4
	steps, _ = p.Steps()
	// 16·2^(i/3) = 20.2, 25.4 and 32·2^(i/3) = 40.3, 50.8.
	if got := loadStrings(steps[3].Loads); got != "20 25 40 51" {
		t.Errorf("refine 4 = %q, want 20 25 40 51", got)
	}

	// No knee (power still rising at the top): nothing to refine.
	p.Resume = server(t, loads[:5])
	p.Auto.Max = 16
	p.Auto.Points = 3
	steps, _ = p.Steps()
	if !steps[3].Resolved || steps[3].Loads != nil || !strings.Contains(steps[3].Note, "no knee") {
		t.Errorf("refine without a knee = %+v", steps[3])
	}
}

func TestPlanRemainingAndPrint(t *testing.T) {
	p := Plan{Mode: ModeConcurrency, Loads: []Load{Concurrency(8), Concurrency(1), Concurrency(4)}, Repeats: 2, Stop: DefaultStopRule()}
	done, _ := NewPoint(Concurrency(1), synth(1, 1, 1), synth(1, 1, 1))
	half, _ := NewPoint(Concurrency(4), synth(1, 1, 1))
	p.Resume = []Point{done, half}
	todo, pending, err := p.Remaining()
	if err != nil {
		t.Fatal(err)
	}
	// 1 is complete; 4 lacks one of its two repeats; 8 has none.
	if loadStrings(todo) != "4 8" || pending != nil {
		t.Fatalf("Remaining = %v, %v; want 4 8 and nothing pending", todo, pending)
	}

	var b strings.Builder
	if err := p.Print(&b); err != nil {
		t.Fatal(err)
	}
	want := `sweep plan: concurrency, list, 2 measurements per load
  1. list         concurrency=1 (done), concurrency=4 (1 of 2 done), concurrency=8
                  3 concurrency loads in increasing order
early stop: when output throughput gains under 3 % for 2.0× the load while mean e2e rises, or when SLO attainment collapses below 5 %
`
	if b.String() != want {
		t.Errorf("Print:\n%s\nwant:\n%s", b.String(), want)
	}

	b.Reset()
	if err := autoPlan(ModeRate).Print(&b); err != nil {
		t.Fatal(err)
	}
	want = `sweep plan: request-rate, auto, 1 measurement per load
  1. synchronous  concurrency=1
  2. saturation   request_rate=inf
  3. grid         (pending) 8 request rates spaced linearly between the rates achieved by the synchronous and saturation loads, chosen once both are measured
  4. refine       (pending) 2 loads around the power knee, chosen once the grid is measured
early stop: when output throughput gains under 3 % for 2.0× the load while mean e2e rises, or when SLO attainment collapses below 5 %
`
	if b.String() != want {
		t.Errorf("Print:\n%s\nwant:\n%s", b.String(), want)
	}

	// An invalid plan prints nothing and says why.
	if err := (Plan{}).Print(&b); err == nil {
		t.Error("Print of the zero Plan succeeded")
	}
	p.Stop = StopRule{}
	if got := describeStop(p.Stop, Options{}); got != "off" {
		t.Errorf("describeStop(zero) = %q, want off", got)
	}
}

func TestRoundSigAndSpaced(t *testing.T) {
	for in, want := range map[float64]float64{4.3712: 4.37, 0.012345: 0.0123, 12345: 12300, 999.6: 1000, 0: 0} {
		if got := roundSig(in, 3); got != want {
			t.Errorf("roundSig(%v, 3) = %v, want %v", in, got, want)
		}
	}
	if got := spaced(1, 16, 3, SpacingGeometric); !slices.EqualFunc(got, []float64{2, 4, 8}, func(a, b float64) bool { return near(a, b, 1e-12) }) {
		t.Errorf("spaced geometric = %v, want 2 4 8", got)
	}
	if got := spaced(0, 4, 3, SpacingLinear); !slices.Equal(got, []float64{1, 2, 3}) {
		t.Errorf("spaced linear = %v, want 1 2 3", got)
	}
	if got := spaced(1, 2, 0, SpacingLinear); len(got) != 0 {
		t.Errorf("spaced with n = 0: %v", got)
	}
}
