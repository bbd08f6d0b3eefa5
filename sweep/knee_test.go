package sweep

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestPowerKneeKnownCurves(t *testing.T) {
	tests := []struct {
		name   string
		points func(*testing.T) []Point
		o      Options
		want   Load
		score  float64
	}{
		// M/M/1 (μ = 1): power λ·100 ÷ 1/(1 − λ) = 100·λ(1 − λ) peaks at
		// λ = μ/2 = 0.5, where it is 25.
		{"mm1", mm1, Options{}, Rate(0.5), 25},
		// Plateau: power 100·min(c,32)/2 ÷ (1 + 0.05c) rises to 1600/2.6
		// at c = 32, then falls as latency keeps rising.
		{"plateau", plateau, Options{}, Concurrency(32), 1600 / 2.6},
		// The median e2e of these curves equals the mean: same knee.
		{"plateau by e2e p50", plateau, Options{Latency: StatE2EP50}, Concurrency(32), 1600 / 2.6},
		// Requests per second instead of tokens: same argmax, score ÷ 100.
		{"plateau in req/s", plateau, Options{Throughput: StatRequestThroughput}, Concurrency(32), 16 / 2.6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := PowerKnee(tt.points(t), tt.o)
			if !k.Found || k.Load != tt.want || !near(k.Score, tt.score, 1e-9) {
				t.Fatalf("PowerKnee = %+v, want %s with score %v", k, tt.want, tt.score)
			}
		})
	}
}

func TestCurvatureKneeKnownCurves(t *testing.T) {
	tests := []struct {
		name   string
		points func(*testing.T) []Point
		want   Load
		bend   float64
	}{
		// M/M/1 over λ = 0.05..0.95: x = (λ − 0.05)/0.9 and
		// y = (1/(1−λ) − 20/19)/(20 − 20/19). At λ = 0.80, x − y =
		// 5/6 − 75/360 = 0.625; at 0.75 it is 0.6222 and at 0.85 0.5926.
		{"mm1", mm1, Rate(0.8), 0.625},
		// Plateau: at c = 32 throughput is at its maximum (x = 1) and
		// latency 2.6 s is (2.6 − 1.2)/(4.2 − 1.2) = 0.4667 of the way up,
		// so the bend is 0.5333; at 28 it is 24/28 − 1.2/3 = 0.4571.
		{"plateau", plateau, Concurrency(32), 1 - 1.4/3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := CurvatureKnee(tt.points(t), Options{})
			if !k.Found || k.Load != tt.want || !near(k.Score, tt.bend, 1e-9) {
				t.Fatalf("CurvatureKnee = %+v, want %s with bend %v", k, tt.want, tt.bend)
			}
		})
	}
}

// A noisy sweep measured three times per load must still put both knees
// within one step of the truth (concurrency 32 on the plateau), for every
// seed tried: averaging repeats is what makes a noisy sweep usable.
func TestKneesNoisyRepeats(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		noise := func() float64 { return 1 + 0.05*(2*rng.Float64()-1) } // ±5 %
		var points []Point
		for _, l := range concurrencies(4, 64, 4) {
			c := l.Value
			var reps []Sample
			for range 3 {
				reps = append(reps, synth(min(c, 32)/2*noise(), (1+0.05*c)*noise(), 1))
			}
			p, err := NewPoint(l, reps...)
			if err != nil {
				t.Fatal(err)
			}
			points = append(points, p)
		}
		for _, k := range []Pick{PowerKnee(points, Options{}), CurvatureKnee(points, Options{})} {
			if !k.Found || math.Abs(k.Load.Value-32) > 4 {
				t.Errorf("seed %d: knee %+v, want within one step (4) of concurrency 32", seed, k)
			}
		}
	}
}

func TestPowerKneeNone(t *testing.T) {
	rising := curve(t, concurrencies(1, 8, 1),
		func(c float64) float64 { return c }, always(2), always(1))
	tests := []struct {
		name   string
		points []Point
		note   string
	}{
		// Nothing to compare.
		{"empty", nil, "needs at least 2 loads"},
		// One load is not a curve.
		{"one point", rising[:1], "have 1"},
		// Throughput rises at flat latency to the end: no knee yet.
		{"still rising", rising, "still rising at the highest load, 8"},
		// Latency undefined everywhere (no request finished).
		{"no latency", curve(t, concurrencies(1, 4, 1), always(1), always(math.NaN()), always(1)), "have 0"},
		// Zero latency cannot divide.
		{"zero latency", curve(t, concurrencies(1, 4, 1), always(1), always(0), always(1)), "have 0"},
		// Nothing completed at any load.
		{"no throughput", curve(t, concurrencies(1, 4, 1), always(0), always(1), always(0)), "no load delivered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := PowerKnee(tt.points, Options{})
			if k.Found || k.Index != -1 || !math.IsNaN(k.Score) || !strings.Contains(k.Note, tt.note) {
				t.Fatalf("PowerKnee = %+v, want none with note containing %q", k, tt.note)
			}
		})
	}
}

func TestCurvatureKneeNone(t *testing.T) {
	lin := func(c float64) float64 { return c }
	tests := []struct {
		name   string
		points []Point
		note   string
	}{
		// Two points have no curvature.
		{"two points", curve(t, concurrencies(1, 2, 1), lin, lin, always(1)), "needs at least 3"},
		// Flat latency: the server was never loaded.
		{"flat latency", curve(t, concurrencies(1, 8, 1), lin, always(1), always(1)), "never loaded"},
		// Flat throughput: every load got the same.
		{"flat throughput", curve(t, concurrencies(1, 8, 1), always(5), lin, always(1)), "same at every load"},
		// Latency proportional to throughput: a straight line.
		{"straight line", curve(t, concurrencies(1, 8, 1), lin, lin, always(1)), "does not bend"},
		// latency ∝ throughput^1.3 over c = 1..100 bends, but its farthest
		// point (c = 43) lies only 0.092 below the diagonal: under the 0.1
		// that makes a knee.
		{"gentle curve", curve(t, concurrencies(1, 100, 1), lin,
			func(c float64) float64 { return math.Pow(c, 1.3) }, always(1)), "does not bend"},
		// Concave: latency jumps first, then levels off; every point lies
		// above the diagonal.
		{"concave", curve(t, concurrencies(1, 8, 1), lin, math.Sqrt, always(1)), "does not bend"},
		// Still steepening at the end? No: latency falls while throughput
		// rises, so the farthest point is the last.
		{"falling latency", curve(t, concurrencies(1, 8, 1), lin,
			func(c float64) float64 { return 10 - c }, always(1)), "has not turned"},
		// NaN latencies drop out, leaving too few points.
		{"undefined latency", curve(t, concurrencies(1, 8, 1), lin,
			func(c float64) float64 {
				if c > 2 {
					return math.NaN()
				}
				return c
			}, always(1)), "have 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := CurvatureKnee(tt.points, Options{})
			if k.Found || k.Index != -1 || !strings.Contains(k.Note, tt.note) {
				t.Fatalf("CurvatureKnee = %+v, want none with note containing %q", k, tt.note)
			}
		})
	}
}

// MinBend decides whether a mild bend counts.
func TestCurvatureKneeMinBend(t *testing.T) {
	gentle := curve(t, concurrencies(1, 100, 1), func(c float64) float64 { return c },
		func(c float64) float64 { return math.Pow(c, 1.3) }, always(1))
	k := CurvatureKnee(gentle, Options{MinBend: 0.05})
	// (c − 1)/99 − (c^1.3 − 1)/(100^1.3 − 1) is largest at c = 43, where
	// it is 0.42424 − 0.33214 = 0.0921.
	if !k.Found || k.Load != Concurrency(43) || !near(k.Score, 0.0921026, 1e-6) {
		t.Fatalf("CurvatureKnee with MinBend 0.05 = %+v, want concurrency 43, bend 0.0921", k)
	}
}

func TestGoodputPeak(t *testing.T) {
	// Goodput = 100·λ·attainment; attainment falls from 1 to 0 as load
	// rises past 4, so goodput 100·c·(1 − (c−4)/4) for c ≥ 4 peaks at 4
	// or 5: at 4 it is 400, at 5 it is 375.
	att := func(c float64) float64 { return max(0, min(1, 1-(c-4)/4)) }
	points := curve(t, concurrencies(1, 8, 1), func(c float64) float64 { return c }, always(1), att)
	g := GoodputPeak(points)
	if !g.Found || g.Load != Concurrency(4) || g.Score != 400 {
		t.Fatalf("GoodputPeak = %+v, want concurrency 4 with 400 tok/s", g)
	}

	// A tie goes to the lower load.
	flat := curve(t, concurrencies(1, 3, 1), always(2), always(1), always(1))
	if g := GoodputPeak(flat); g.Load != Concurrency(1) {
		t.Fatalf("GoodputPeak on a tie = %+v, want concurrency 1", g)
	}

	// No goodput anywhere, or none defined.
	for name, pts := range map[string][]Point{
		"zero": curve(t, concurrencies(1, 3, 1), always(2), always(1), always(0)),
		"nan":  curve(t, concurrencies(1, 3, 1), always(math.NaN()), always(1), always(1)),
		"none": nil,
	} {
		if g := GoodputPeak(pts); g.Found || !strings.Contains(g.Note, "no load delivered goodput") {
			t.Errorf("%s: GoodputPeak = %+v, want none", name, g)
		}
	}
}
