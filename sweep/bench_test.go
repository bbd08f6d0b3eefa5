package sweep

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/goodput-dev/goodput/internal/human"
)

// benchPoints is a sweep of n concurrency loads, three noisy repeats each,
// on the plateau curve.
func benchPoints(b *testing.B, n int) []Point {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]Point, n)
	for i := range out {
		c := float64(i + 1)
		var reps []Sample
		for range 3 {
			reps = append(reps, synth(min(c, float64(n)/2)/2*(1+0.02*rng.Float64()), (1+0.05*c)*(1+0.02*rng.Float64()), 1))
		}
		p, err := NewPoint(Concurrency(i+1), reps...)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = p
	}
	return out
}

// BenchmarkAnalyze reads a sweep: sort, both knees, the goodput peak, the
// operating point and the verdict.
func BenchmarkAnalyze(b *testing.B) {
	for _, n := range []int{16, 256} {
		ps := benchPoints(b, n)
		b.Run(human.Count(float64(n))+"_points", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Analyze(ps, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunAuto runs the default automatic concurrency plan against a
// measurement that returns at once: the executor's own overhead.
func BenchmarkRunAuto(b *testing.B) {
	pts := map[Load]Point{}
	measure := func(ctx context.Context, l Load) (Point, error) {
		if p, ok := pts[l]; ok {
			return p, nil
		}
		c := l.Value
		p := Point{Load: l, Mean: synth(min(c, 28)/2, 2*max(1, c/28), 1)}
		pts[l] = p
		return p, nil
	}
	plan := autoPlan(ModeConcurrency)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), plan, measure, nil); err != nil {
			b.Fatal(err)
		}
	}
}
