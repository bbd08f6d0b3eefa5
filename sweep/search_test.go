package sweep

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/human"
)

// threshold returns a Measure whose attainment is 1 up to and including
// limit and 0 above, and a pointer to the loads probed.
func threshold(limit float64) (Measure, *[]float64) {
	var probed []float64
	return func(ctx context.Context, l Load) (Point, error) {
		probed = append(probed, l.Value)
		att := 0.0
		if l.Value <= limit {
			att = 1
		}
		return Point{Load: l, Mean: synth(l.Value, 1, att)}, nil
	}, &probed
}

func floats(vs []float64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = human.Number(v)
	}
	return strings.Join(s, " ")
}

func TestSearchKnownThresholds(t *testing.T) {
	tests := []struct {
		name      string
		s         Search
		limit     float64
		probes    string
		low, high float64
		converged bool
	}{
		// Doubling to 64 fails; bisection 48 F, 40 F, 36 P, 38 F, 37 P
		// ends on adjacent integers [37, 38] after 12 probes.
		{"concurrency 37", Search{Mode: ModeConcurrency}, 37,
			"1.00 2.00 4.00 8.00 16.0 32.0 64.0 48.0 40.0 36.0 38.0 37.0", 37, 38, true},
		// Rates: 8 fails, then 6 P, 7 P, 7.5 F, 7.25 P: the bracket
		// [7.25, 7.5] is within 5 % of 7.25 (0.25 ≤ 0.3625).
		{"rate 7.3", Search{Mode: ModeRate}, 7.3,
			"1.00 2.00 4.00 8.00 6.00 7.00 7.50 7.25", 7.25, 7.5, true},
		// Starting above the threshold halves down: 64 32 16 8 fail, 4
		// passes; 6 fails, 5 passes.
		{"from above", Search{Mode: ModeConcurrency, Start: 64}, 5,
			"64.0 32.0 16.0 8.00 4.00 6.00 5.00", 5, 6, true},
		// A tighter tolerance takes more probes: [7.25, 7.5] → 7.375 F,
		// 7.3125 F; then 0.0625 ≤ 0.01·7.25 = 0.0725.
		{"rate tolerance 1 %", Search{Mode: ModeRate, Tolerance: 0.01, MaxProbes: 20}, 7.3,
			"1.00 2.00 4.00 8.00 6.00 7.00 7.50 7.25 7.38 7.31", 7.25, 7.3125, true},
		// Too few probes: the bracket is still [32, 64] when they run out.
		{"probe limit", Search{Mode: ModeConcurrency, MaxProbes: 7}, 37,
			"1.00 2.00 4.00 8.00 16.0 32.0 64.0", 32, 64, false},
		// Too few probes even to bracket.
		{"open bracket", Search{Mode: ModeConcurrency, MaxProbes: 3}, 37,
			"1.00 2.00 4.00", 4, math.Inf(1), false},
		// Every probe passes up to the limit: doubling stops there.
		{"passes at the limit", Search{Mode: ModeConcurrency, Limit: 100}, 1e9,
			"1.00 2.00 4.00 8.00 16.0 32.0 64.0 100", 100, math.Inf(1), false},
		// Nothing passes, down to concurrency 1.
		{"nothing passes", Search{Mode: ModeConcurrency, Start: 4}, 0,
			"4.00 2.00 1.00", 0, 1, false},
		// Nothing passes, down to one request a minute.
		{"no rate passes", Search{Mode: ModeRate, Start: 0.1}, 0,
			"0.100 0.0500 0.0250", 0, 0.025, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, probed := threshold(tt.limit)
			r, err := tt.s.Run(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			if got := floats(*probed); got != tt.probes {
				t.Errorf("probed %s, want %s", got, tt.probes)
			}
			if r.Low != tt.low || r.High != tt.high || r.Converged != tt.converged || r.Found != (tt.low > 0) {
				t.Errorf("result [%v, %v] converged %v found %v; want [%v, %v] %v", r.Low, r.High, r.Converged, r.Found, tt.low, tt.high, tt.converged)
			}
			if len(r.Probes) != len(*probed) {
				t.Errorf("%d probes recorded, %d made", len(r.Probes), len(*probed))
			}
			if r.Found && r.Best.Load.Value != r.Low {
				t.Errorf("best probe %s, want the one at %v", r.Best.Load, r.Low)
			}
		})
	}
}

func TestSearchResultString(t *testing.T) {
	m, _ := threshold(7.3)
	r, _ := Search{Mode: ModeRate}.Run(context.Background(), m)
	// (7.5 − 7.25)/7.25 = 3.4 %.
	want := "highest load meeting 90 % SLO attainment: 7.25 req/s (it fails at 7.50 req/s; within 3.4 %)"
	if r.String() != want || !near(r.Uncertainty(), 0.25/7.25, 1e-12) {
		t.Errorf("String = %q (uncertainty %v), want %q", r.String(), r.Uncertainty(), want)
	}
	m, _ = threshold(37)
	r, _ = Search{Mode: ModeConcurrency, MaxProbes: 7}.Run(context.Background(), m)
	if !strings.HasSuffix(r.String(), "within 100 %), stopped by the probe limit before the tolerance") {
		t.Errorf("String = %q", r.String())
	}
	m, _ = threshold(0)
	r, _ = Search{Mode: ModeConcurrency}.Run(context.Background(), m)
	if r.String() != "no load met 90 % SLO attainment; the lowest probed, concurrency 1, failed" || !math.IsInf(r.Uncertainty(), 1) {
		t.Errorf("String = %q", r.String())
	}
	m, _ = threshold(1e9)
	r, _ = Search{Mode: ModeConcurrency, Limit: 8}.Run(context.Background(), m)
	if r.String() != "every probe met 90 % SLO attainment, up to concurrency 8; the limit lies higher" {
		t.Errorf("String = %q", r.String())
	}
	if s := (SearchResult{}).String(); s != "no probes were made" {
		t.Errorf("zero result String = %q", s)
	}
}

// With noise on attainment near the threshold, the search still ends on a
// bracket near it. Attainment is 0.9 + 0.3·(7.3 − r) plus Gaussian noise of
// SD 0.02, so a probe within about ±0.13 req/s of 7.3 can go either way.
func TestSearchNoisy(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 42))
		m := func(ctx context.Context, l Load) (Point, error) {
			att := 0.9 + 0.3*(7.3-l.Value) + 0.02*rng.NormFloat64()
			return Point{Load: l, Mean: synth(l.Value, 1, max(0, min(1, att)))}, nil
		}
		r, err := Search{Mode: ModeRate, MaxProbes: 16}.Run(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Found || r.Low >= r.High || math.Abs(r.Low-7.3) > 0.4 {
			t.Errorf("seed %d: [%v, %v], want a bracket within 0.4 of 7.3", seed, r.Low, r.High)
		}
	}
}

// Accept replaces the attainment test: here p99 TTFT must stay under 1 s,
// which synth sets to 1.5 × latency/5, with latency 0.5·c.
func TestSearchAccept(t *testing.T) {
	m := func(ctx context.Context, l Load) (Point, error) {
		return Point{Load: l, Mean: synth(l.Value, 0.5*l.Value, 1)}, nil
	}
	s := Search{Mode: ModeConcurrency, Accept: func(p Point) bool { return p.Mean.TTFT.P99 < 1 }}
	r, err := s.Run(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	// 0.15·c < 1 holds up to c = 6.
	if r.Low != 6 || r.High != 7 {
		t.Errorf("[%v, %v], want [6, 7]", r.Low, r.High)
	}
}

func TestSearchErrors(t *testing.T) {
	m, _ := threshold(10)
	tests := []struct {
		name string
		s    Search
		err  string
	}{
		{"no mode", Search{}, `search mode ""`},
		{"fractional start", Search{Mode: ModeConcurrency, Start: 1.5}, "search start 1.5"},
		{"negative start", Search{Mode: ModeRate, Start: -1}, "search start -1"},
		{"start above limit", Search{Mode: ModeRate, Start: 10, Limit: 5}, "search start 10"},
		{"fractional limit", Search{Mode: ModeConcurrency, Limit: 2.5}, "search limit 2.5"},
		{"huge limit", Search{Mode: ModeConcurrency, Limit: 1 << 30}, "search limit"},
		{"inf limit", Search{Mode: ModeRate, Limit: math.Inf(1)}, "search limit +Inf"},
		{"target", Search{Mode: ModeRate, Target: 1.1}, "search target 1.1"},
		{"tolerance", Search{Mode: ModeRate, Tolerance: -0.1}, "search tolerance -0.1"},
		{"probes", Search{Mode: ModeRate, MaxProbes: -1}, "search probes -1"},
	}
	for _, tt := range tests {
		if _, err := tt.s.Run(context.Background(), m); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error = %v, want one containing %q", tt.name, err, tt.err)
		}
	}
	if _, err := (Search{Mode: ModeRate}).Run(context.Background(), nil); err == nil {
		t.Error("search without a measure function succeeded")
	}

	// A failed probe ends the search with what it had.
	n := 0
	failing := func(ctx context.Context, l Load) (Point, error) {
		if n++; n == 3 {
			return Point{}, errors.New("server gone")
		}
		return m(ctx, l)
	}
	r, err := Search{Mode: ModeConcurrency}.Run(context.Background(), failing)
	if err == nil || !strings.Contains(err.Error(), "search: measure concurrency=4: server gone") || len(r.Probes) != 2 || r.Low != 2 {
		t.Errorf("after a failed probe: %v, %d probes, low %v", err, len(r.Probes), r.Low)
	}

	// A cancelled context stops before the next probe.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Search{Mode: ModeRate}).Run(ctx, m); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v", err)
	}
}
