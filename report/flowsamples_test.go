package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
)

// goodTokens is a set of n flows, each carrying 10 good tokens but every
// fourth (bad, 0): a mean of 7.5 tokens with a spread of 4.33 per flow.
func goodTokens(n, budget int) *sampleSet {
	rng := rand.New(rand.NewPCG(3, 3))
	s := newSampleSet(budget)
	for i := range n {
		v := 10.0
		if i%4 == 0 {
			v = 0
		}
		s.add(rng.Uint64(), []float64{v}, nil)
	}
	s.finish(1)
	return s
}

func TestMeanReplicates(t *testing.T) {
	tests := []struct {
		name       string
		n, budget  int
		sdLo, sdHi float64
	}{
		// 100 flows, f = 2: the mean's spread 4.33/√100 = 0.433, doubled.
		{"every flow kept", 100, 1 << 20, 0.6, 1.1},
		// 1,000 flows of which about 64 are kept: the spread is scaled to
		// the whole run's, 2 × 4.33/√1000 = 0.27.
		{"a sample kept", 1000, 64, 0.15, 0.45},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := goodTokens(tt.n, tt.budget)
			reps := s.meanReplicates(rand.New(rand.NewPCG(1, 2)), 2000, 2, 15)
			if len(reps) != 2000 {
				t.Fatalf("%d replicates, want 2000", len(reps))
			}
			if m := mean(reps); math.Abs(m-15) > 0.1 {
				t.Errorf("replicates centre on %v, want the estimate 15", m)
			}
			if sd := stddev(reps); sd < tt.sdLo || sd > tt.sdHi {
				t.Errorf("bootstrap sd %v, want %v to %v", sd, tt.sdLo, tt.sdHi)
			}
			if again := s.meanReplicates(rand.New(rand.NewPCG(1, 2)), 2000, 2, 15); !slices.Equal(reps, again) {
				t.Error("replicates are not reproducible with the same seed")
			}
		})
	}
	if r := newSampleSet(1).meanReplicates(rand.New(rand.NewPCG(1, 1)), 10, 1, 0); r != nil {
		t.Errorf("an empty set gave %v", r)
	}
}

func TestFlowSamples(t *testing.T) {
	// 100 sessions of 1 s over a 10 s window: 10 in flight on average,
	// blocks of 5 (capped to keep 20 blocks). Every other one is good.
	var fs []metrics.Flow
	for i := range 100 {
		fs = append(fs, metrics.Flow{Start: int64(i) * 1e8, Span: time.Second, Requests: 3, OutputTokens: 12, Good: i%2 == 0})
	}
	s := newFlowSamples(fs, 10, 1<<20, rand.New(rand.NewPCG(1, 1)))
	if s.count != 100 || s.spans.clusters() != 20 || s.good.clusters() != 20 {
		t.Fatalf("%d flows in %d and %d blocks, want 100 in 20", s.count, s.spans.clusters(), s.good.clusters())
	}
	// Goodput: 50 good × 12 tokens over 10 s.
	if got := 10 * s.good.mean(nil, s.good.size(nil)); got != 60 {
		t.Errorf("goodput from the kept flows %v, want 60", got)
	}
	set := replicateSet{}
	rng := func(metrics.Metric) *rand.Rand { return rand.New(rand.NewPCG(4, 4)) }
	s.replicates(set, flowStats{statSessionDuration, statSessionGoodput, statSessionAttainment}, rng, 100, []float64{50, 99}, []float64{1, 1}, metrics.Linear, &metrics.FlowGoodput{OutputTokensPerSecond: 60, Attainment: 0.5})
	// Every span is 1 s: each replicate of a percentile is 1 s.
	for _, p := range []float64{50, 99} {
		if r := set[statKey{statSessionDuration, p}]; len(r) != 100 || slices.Min(r) != 1 || slices.Max(r) != 1 {
			t.Errorf("p%v replicates %v", p, r)
		}
	}
	if r := set[statKey{statSessionGoodput, 0}]; len(r) != 100 || math.Abs(mean(r)-60) > 3 {
		t.Errorf("goodput replicates centre on %v", mean(r))
	}
	// Attainment: 50 of 100 good.
	if r := set[statKey{statSessionAttainment, 0}]; len(r) != 100 || math.Abs(mean(r)-0.5) > 0.05 || slices.Min(r) == slices.Max(r) {
		t.Errorf("attainment replicates centre on %v, from %v to %v", mean(r), slices.Min(r), slices.Max(r))
	}
	// Without an SLO there is no goodput to resample; without flows,
	// nothing at all.
	set = replicateSet{}
	s.replicates(set, flowStats{statSessionDuration, statSessionGoodput, statSessionAttainment}, rng, 10, []float64{50}, []float64{1}, metrics.Linear, nil)
	if _, ok := set[statKey{statSessionGoodput, 0}]; ok || len(set) != 1 {
		t.Errorf("without an SLO: %v", set)
	}
	// A flow cut by an interrupt is outside attainment, as in metrics:
	// 50 good of the 75 others.
	for i := range fs {
		fs[i].Canceled = i%4 == 1
	}
	if s := newFlowSamples(fs, 10, 1<<20, rand.New(rand.NewPCG(1, 1))); s.judged.mean(nil, s.judged.size(nil)) != 50.0/75 {
		t.Errorf("attainment from the kept flows %v, want 50/75", s.judged.mean(nil, s.judged.size(nil)))
	}
	for i := range fs {
		fs[i].Canceled = false
	}
	if newFlowSamples(nil, 10, 1, rand.New(rand.NewPCG(1, 1))) != nil {
		t.Error("samples of no flows")
	}
	// A zero window leaves the blocks at one flow each.
	if s := newFlowSamples(fs, 0, 1<<20, rand.New(rand.NewPCG(1, 1))); s.spans.clusters() != 100 {
		t.Errorf("zero window: %d blocks", s.spans.clusters())
	}
}
