package sweep

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// fakeServer measures the synthetic server of server() without a network
// and records every load it was asked for.
type fakeServer struct {
	t     *testing.T
	calls []Load
	// failAt, if set, makes the measurement of that load fail.
	failAt Load
	// onCall runs before each measurement (to cancel a context, say).
	onCall func(n int)
}

func (f *fakeServer) measure(ctx context.Context, l Load) (Point, error) {
	f.calls = append(f.calls, l)
	if f.onCall != nil {
		f.onCall(len(f.calls))
	}
	if err := ctx.Err(); err != nil {
		return Point{}, err
	}
	if l == f.failAt {
		return Point{}, errors.New("connection refused")
	}
	if l.Mode == ModeRate {
		return rateServer(l), nil
	}
	return server(f.t, []Load{l})[0], nil
}

// rateServer is an open-loop server of capacity 8.5 req/s: latency is 2 s
// up to 6 req/s, then rises 4 s per extra req/s; an unbounded rate gets
// 8.5 req/s at 30 s. One request at a time achieves 0.5 req/s.
func rateServer(l Load) Point {
	var s Sample
	switch {
	case l.Mode == ModeConcurrency:
		s = synth(0.5, 2, 1)
	case l.Unbounded():
		s = synth(8.5, 30, 0)
	default:
		s = synth(min(l.Value, 8.5), 2+4*max(0, l.Value-6), 1)
	}
	return Point{Load: l, Mean: s}
}

func (f *fakeServer) called() string { return loadStrings(f.calls) }

func TestRunExplicitStopsEarly(t *testing.T) {
	f := &fakeServer{t: t}
	var seen []Load
	p := Plan{Mode: ModeConcurrency, Loads: serverLoads(), Stop: DefaultStopRule()}
	// Reverse the list: Run measures in increasing order regardless.
	for i, j := 0, len(p.Loads)-1; i < j; i, j = i+1, j-1 {
		p.Loads[i], p.Loads[j] = p.Loads[j], p.Loads[i]
	}
	points, err := Run(context.Background(), p, f.measure, func(pt Point) { seen = append(seen, pt.Load) })
	if err != nil {
		t.Fatal(err)
	}
	// The server saturates at 28: 64 delivers what 32 did at twice the
	// latency, so 128 is skipped.
	if got := f.called(); got != "1 2 4 8 16 24 32 64" {
		t.Fatalf("measured %s, want 1 2 4 8 16 24 32 64", got)
	}
	if loadStrings(seen) != f.called() || len(points) != 8 {
		t.Errorf("onPoint saw %s and Run returned %d points", loadStrings(seen), len(points))
	}
	if ok, why := Saturated(points, p.Stop, p.Options); !ok || !strings.Contains(why, "did not rise from 32 to 64") {
		t.Errorf("Saturated after the run = %v, %q", ok, why)
	}

	// Without a stop rule every load is measured.
	f2 := &fakeServer{t: t}
	p.Stop = StopRule{}
	if _, err := Run(context.Background(), p, f2.measure, nil); err != nil {
		t.Fatal(err)
	}
	if got := f2.called(); got != "1 2 4 8 16 24 32 64 128" {
		t.Errorf("without early stop measured %s", got)
	}
}

func TestRunAutoConcurrency(t *testing.T) {
	f := &fakeServer{t: t}
	p := autoPlan(ModeConcurrency)
	points, err := Run(context.Background(), p, f.measure, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Synchronous, saturation, then the grid up to 64 where it stops
	// (64 delivers what 32 did), then one load either side of the power
	// knee at 32: 23 and 45.
	if got := f.called(); got != "1 256 2 4 8 16 32 64 23 45" {
		t.Fatalf("measured %s", got)
	}
	if got := loadStrings(loadsOf(points)); got != "1 2 4 8 16 23 32 45 64 256" {
		t.Errorf("returned %s, want the same loads sorted", got)
	}
}

func loadsOf(ps []Point) []Load {
	out := make([]Load, len(ps))
	for i, p := range ps {
		out[i] = p.Load
	}
	return out
}

func TestRunAutoRate(t *testing.T) {
	f := &fakeServer{t: t}
	points, err := Run(context.Background(), autoPlan(ModeRate), f.measure, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The grid spans 0.5 to 8.5 req/s (see TestPlanStepsRate). Power
	// (100·r ÷ latency) is 291.5 at 5.83 (2 s), 247 at 4.94 and 137.7 at
	// 6.72 (4.88 s): the knee is 5.83, refined at √(4.94·5.83) = 5.37 and
	// √(5.83·6.72) = 6.26.
	want := "1 inf req/s 1.39 req/s 2.28 req/s 3.17 req/s 4.06 req/s 4.94 req/s 5.83 req/s 6.72 req/s 7.61 req/s 5.37 req/s 6.26 req/s"
	if got := f.called(); got != want {
		t.Fatalf("measured\n %s\nwant\n %s", got, want)
	}
	if len(points) != 12 || points[0].Load != Concurrency(1) || !points[11].Load.Unbounded() {
		t.Errorf("returned %s", loadStrings(loadsOf(points)))
	}
}

func TestRunRepeatsAndResume(t *testing.T) {
	p := autoPlan(ModeConcurrency)
	p.Repeats = 2
	p.Auto.Refine = 0
	// An earlier run measured 1 and 256 twice, and 2 once.
	f0 := &fakeServer{t: t}
	one, _ := f0.measure(context.Background(), Concurrency(1))
	flood, _ := f0.measure(context.Background(), Concurrency(256))
	two, _ := f0.measure(context.Background(), Concurrency(2))
	one, _ = Merge(one, one)
	flood, _ = Merge(flood, flood)
	p.Resume = []Point{one, flood, two}

	f := &fakeServer{t: t}
	var seen []Load
	points, err := Run(context.Background(), p, f.measure, func(pt Point) { seen = append(seen, pt.Load) })
	if err != nil {
		t.Fatal(err)
	}
	// 1 and 256 are done; 2 needs one more; 4 … 64 need two each.
	if got := f.called(); got != "2 4 4 8 8 16 16 32 32 64 64" {
		t.Fatalf("measured %s", got)
	}
	if got := loadStrings(seen); got != "2 4 8 16 32 64" {
		t.Errorf("onPoint saw %s, want only the loads measured now", got)
	}
	for _, pt := range points {
		if len(pt.Repeats) != 2 {
			t.Errorf("%s has %d repeats, want 2", pt.Load, len(pt.Repeats))
		}
	}
	// The plan's own view agrees: nothing left but what early stop skipped.
	p.Resume = points
	todo, _, err := p.Remaining()
	if err != nil {
		t.Fatal(err)
	}
	if loadStrings(todo) != "128" {
		t.Errorf("Remaining after the run = %s, want 128 (skipped by early stop)", loadStrings(todo))
	}
}

func TestRunErrors(t *testing.T) {
	p := Plan{Mode: ModeConcurrency, Loads: serverLoads()}

	// A failed measurement stops the run; the points before it are kept.
	f := &fakeServer{t: t, failAt: Concurrency(8)}
	points, err := Run(context.Background(), p, f.measure, nil)
	if err == nil || !strings.Contains(err.Error(), "measure concurrency=8 (measurement 1 of 1): connection refused") {
		t.Fatalf("error = %v", err)
	}
	if loadStrings(loadsOf(points)) != "1 2 4" {
		t.Errorf("points kept = %s, want 1 2 4", loadStrings(loadsOf(points)))
	}

	// Cancelling stops before the next load.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f = &fakeServer{t: t, onCall: func(n int) {
		if n == 3 {
			cancel()
		}
	}}
	points, err = Run(ctx, p, f.measure, nil)
	if !errors.Is(err, context.Canceled) || len(points) != 2 || len(f.calls) != 3 {
		t.Errorf("after cancel: %v, %d points, %d calls; want context.Canceled, 2, 3", err, len(points), len(f.calls))
	}

	if _, err := Run(context.Background(), p, nil, nil); err == nil {
		t.Error("Run without a measure function succeeded")
	}
	if _, err := Run(context.Background(), Plan{}, f.measure, nil); err == nil {
		t.Error("Run of the zero Plan succeeded")
	}
}

// A measurement that returns several repeats at once counts them all.
func TestRunMeasureReturnsRepeats(t *testing.T) {
	calls := 0
	measure := func(ctx context.Context, l Load) (Point, error) {
		calls++
		return NewPoint(Concurrency(99), synth(1, 1, 1), synth(3, 1, 1), synth(5, 1, 1)) // wrong load on purpose
	}
	p := Plan{Mode: ModeConcurrency, Loads: []Load{Concurrency(2)}, Repeats: 3}
	points, err := Run(context.Background(), p, measure, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || len(points) != 1 || points[0].Load != Concurrency(2) || points[0].Mean.RequestThroughput != 3 {
		t.Errorf("%d calls, points %+v; want one call, concurrency=2 with mean 3 req/s", calls, loadsOf(points))
	}
	if math.Abs(points[0].Spread.RequestThroughput-2) > 1e-12 {
		t.Errorf("spread %v, want 2", points[0].Spread.RequestThroughput)
	}
}
