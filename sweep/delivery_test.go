package sweep

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestDelivery(t *testing.T) {
	sample := func(requests int, reqs, errRate float64) Sample {
		s := synth(reqs, 1, 1)
		s.Requests, s.ErrorRate = requests, errRate
		return s
	}
	tests := []struct {
		name     string
		load     Load
		s        Sample
		ok       bool
		finished float64
		short    bool
	}{
		// The report's case: 300 requests offered at 32 req/s ended at
		// 23 req/s, 72 %; the slack is 3/√300 = 17.3 %, so below 82.7 %.
		{"short run absorbed", Rate(32), sample(300, 23, 0), true, 23, true},
		// 14.85 of 16 req/s is 92.8 %: a server keeping pace.
		{"keeps pace", Rate(16), sample(300, 14.85, 0), true, 14.85, false},
		// Just above the bound for 300 requests: 25 of 30 is 83.3 %.
		{"above the bound", Rate(30), sample(300, 25, 0), true, 25, false},
		// From 900 requests on the slack is 10 %: 88 % is short.
		{"long run, 88 %", Rate(10), sample(2000, 8.8, 0), true, 8.8, true},
		{"long run, 90 %", Rate(10), sample(2000, 9, 0), true, 9, false},
		// 25 requests: 3/√25 = 60 % slack; 50 % is short, 45 % is not
		// told from the noise of so few arrivals.
		{"few requests, 39 %", Rate(10), sample(25, 3.9, 0), true, 3.9, true},
		{"few requests, 45 %", Rate(10), sample(25, 4.5, 0), true, 4.5, false},
		// Failures ended too: 4.5 completed req/s with half failing is
		// 9 finished.
		{"failures count", Rate(10), sample(1000, 4.5, 0.5), true, 9, false},
		// Nothing to compare.
		{"concurrency", Concurrency(16), sample(300, 1, 0), false, 0, false},
		{"unbounded", Rate(math.Inf(1)), sample(300, 1, 0), false, 0, false},
		{"unknown throughput", Rate(10), sample(300, math.NaN(), 0), false, 0, false},
		{"no requests", Rate(10), sample(0, 0, 0), true, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPoint(tt.load, tt.s)
			if err != nil {
				t.Fatal(err)
			}
			d, ok := p.Delivery()
			if ok != tt.ok || d.Short != tt.short || !near(d.Finished, tt.finished, 1e-12) {
				t.Errorf("Delivery() = %+v, %v; want finished %v, short %v, ok %v", d, ok, tt.finished, tt.short, tt.ok)
			}
			if ok && d.Offered != tt.load.Value {
				t.Errorf("offered %v, want %v", d.Offered, tt.load.Value)
			}
		})
	}
}

// Repeats add up: two repeats of 50 requests are judged as 100, whose
// slack is 3/√100 = 30 %; 65 % of the rate is short, though one repeat of
// 50 (slack 42 %) would not be.
func TestDeliveryCountsRepeats(t *testing.T) {
	s := synth(6.5, 1, 1)
	s.Requests = 50
	one, _ := NewPoint(Rate(10), s)
	two, _ := NewPoint(Rate(10), s, s)
	if d, _ := one.Delivery(); d.Short || d.Requests != 50 {
		t.Errorf("one repeat: %+v, want 50 requests, not short", d)
	}
	if d, _ := two.Delivery(); !d.Short || d.Requests != 100 {
		t.Errorf("two repeats: %+v, want 100 requests, short", d)
	}
}

// A rate sweep whose server tops out at 24 req/s, every request meeting
// the SLO because each run is short: 40 req/s is short (24 of 40 is 60 %)
// and fails, so the operating point is 20 req/s. The control, a server
// that delivers every rate, keeps 40.
func TestOperatingPointShortRate(t *testing.T) {
	loads := []Load{Rate(5), Rate(10), Rate(20), Rate(40)}
	capped := curve(t, loads, func(r float64) float64 { return min(r, 24) }, always(1), always(1))
	s, err := Analyze(capped, Options{})
	if err != nil {
		t.Fatal(err)
	}
	op := s.Operating
	if !op.Found || op.Load != Rate(20) || op.FirstFailure != Rate(40) || !slices.Equal(op.Short, []Load{Rate(40)}) || op.Strays != nil {
		t.Fatalf("operating point %+v, want 20 req/s, failing at 40 req/s, which is short", op)
	}
	want := "the server did not keep pace with the offered rate at 40.0 req/s, so that load counts as failing although the attainment met the target"
	if op.Note != want {
		t.Errorf("note %q, want %q", op.Note, want)
	}
	if !strings.Contains(s.Verdict, "At an offered 20.0 req/s the server delivers 2,000 tok/s (20.0 req/s)") {
		t.Errorf("verdict: %s", s.Verdict)
	}
	if got := s.Marks(3); !slices.Equal(got, []string{"peak", "short"}) {
		t.Errorf("marks of 40 req/s %v, want [peak short]", got)
	}
	wantWarn := []string{
		"at an offered 40.0 req/s the server finished only 24.0 req/s (60 % of it): the requests arrived faster than they ended",
		"such a load met the SLO only because the run ended before the queue grew; it counts as failing (the table marks it short): give more --num-prompts or a --duration so that each point reaches steady state",
	}
	if got := s.ShortWarnings(); !slices.Equal(got, wantWarn) {
		t.Errorf("warnings\n%q\nwant\n%q", got, wantWarn)
	}

	var file strings.Builder
	if err := WriteJSON(&file, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(file.String(), `"short": [
      "request_rate=40"
    ]`) {
		t.Errorf("sweep file lacks the short loads:\n%s", file.String())
	}

	delivered := curve(t, loads, func(r float64) float64 { return r }, always(1), always(1))
	s, err = Analyze(delivered, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if op := s.Operating; !op.Found || op.Load != Rate(40) || op.Short != nil || s.ShortWarnings() != nil {
		t.Errorf("control: operating point %+v, warnings %q; want 40 req/s and none", op, s.ShortWarnings())
	}
}

// A short point that missed the target anyway fails on its attainment: it
// is marked, but not warned of.
func TestShortPointThatFailedAnyway(t *testing.T) {
	loads := []Load{Rate(10), Rate(40)}
	ps := curve(t, loads, func(r float64) float64 { return min(r, 24) }, always(1), func(r float64) float64 {
		return map[float64]float64{10: 1, 40: 0.04}[r]
	})
	s, err := Analyze(ps, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if op := s.Operating; op.Load != Rate(10) || op.Short != nil || op.Note != "" || s.ShortWarnings() != nil {
		t.Errorf("operating point %+v, warnings %q; want 10 req/s, no note, no warning", op, s.ShortWarnings())
	}
	if got := s.Marks(1); !slices.Equal(got, []string{"short"}) {
		t.Errorf("marks %v, want [short]", got)
	}
}

// The lowest load short: no operating point, and the note says why.
func TestOperatingPointLowestShort(t *testing.T) {
	ps := curve(t, []Load{Rate(40), Rate(80)}, always(20), always(1), always(1))
	op := OperatingPoint(ps, 0)
	want := "the lowest load, 40.0 req/s, was not delivered: it finished 20.0 req/s of the 40.0 offered (50 %); " +
		"the server did not keep pace with the offered rate at 40.0 req/s, 80.0 req/s, so those loads count as failing although the attainment met the target"
	if op.Found || op.FirstFailure != Rate(40) || op.Note != want {
		t.Errorf("operating point %+v\nnote %q\nwant %q", op, op.Note, want)
	}
}

// A search probe that meets the SLO but whose server did not keep pace
// fails. The server ends at most 25 req/s and every request meets the
// SLO: a probe passes while 25 ≥ 0.9 × rate, up to 27.8 req/s. Doubling
// passes 1 to 16 and 32 is short (78 %); bisection: 24 passes, 28 is short
// (89 %), 26 and 27 pass, and [27, 28] is within 5 % of 27.
func TestSearchShortRate(t *testing.T) {
	var probed []float64
	m := func(ctx context.Context, l Load) (Point, error) {
		probed = append(probed, l.Value)
		return Point{Load: l, Mean: synth(min(l.Value, 25), 1, 1)}, nil
	}
	r, err := Search{Mode: ModeRate}.Run(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := floats(probed), "1.00 2.00 4.00 8.00 16.0 32.0 24.0 28.0 26.0 27.0"; got != want {
		t.Errorf("probes %s, want %s", got, want)
	}
	if !r.Found || r.Low != 27 || r.High != 28 || !r.Converged {
		t.Errorf("[%v, %v] converged %v, want [27, 28] converged", r.Low, r.High, r.Converged)
	}
	want := "highest load meeting 90 % SLO attainment: 27.0 req/s (it fails at 28.0 req/s; within 3.7 %); " +
		"at 28.0 req/s the server did not keep pace: it finished 25.0 req/s of the 28.0 offered (89 %)"
	if got := r.String(); got != want {
		t.Errorf("String() = %q\nwant        %q", got, want)
	}

	// A custom test does not let a short probe pass either.
	probed = nil
	r, err = Search{Mode: ModeRate, Accept: func(Point) bool { return true }}.Run(context.Background(), m)
	if err != nil || r.Low != 27 || r.High != 28 {
		t.Errorf("with Accept: [%v, %v], %v; want [27, 28]", r.Low, r.High, err)
	}
}
