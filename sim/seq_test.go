package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGeometricMean(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mean := range []float64{2, 50, 256} {
		const n = 200_000
		sum := 0
		for range n {
			v := geometric(rng, mean)
			if v < 1 {
				t.Fatalf("geometric(%v) drew %d, want ≥ 1", mean, v)
			}
			sum += v
		}
		// The standard error of the mean is about mean/√n: 2 % is over
		// four standard errors for every mean here.
		if got := float64(sum) / n; math.Abs(got-mean)/mean > 0.02 {
			t.Errorf("geometric(%v): sample mean %.2f, want within 2 %%", mean, got)
		}
	}
}

func TestGeometricDegenerateMeans(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mean := range []float64{1, 0.5, 0, -3, math.NaN()} {
		if v := geometric(rng, mean); v != 1 {
			t.Errorf("geometric(%v) = %d, want 1", mean, v)
		}
	}
}

func TestDecideLength(t *testing.T) {
	tests := []struct {
		name       string
		s          seq
		mean       float64
		wantTarget int
		wantFinish string
	}{
		// ignore_eos runs to max_tokens.
		{"ignore eos", seq{maxTokens: 300, ignoreEOS: true}, 5, 300, finishLength},
		// A natural end far below the cap stops early, and says "stop".
		{"natural stop", seq{maxTokens: 100000}, 1, 1, finishStop},
		// min_tokens holds the end back: mean 1 would end at 1.
		{"min tokens", seq{maxTokens: 100, minTokens: 40}, 1, 40, finishStop},
		// min_tokens equal to max_tokens ends by length.
		{"min equals max", seq{maxTokens: 40, minTokens: 40}, 1, 40, finishLength},
		// A mean far above the cap nearly always hits the cap.
		{"capped", seq{maxTokens: 1}, 1e9, 1, finishLength},
	}
	for _, tt := range tests {
		rng := rand.New(rand.NewPCG(3, 4))
		s := tt.s
		s.decideLength(rng, tt.mean)
		if s.target != tt.wantTarget || s.finish != tt.wantFinish {
			t.Errorf("%s: target %d finish %q, want %d %q", tt.name, s.target, s.finish, tt.wantTarget, tt.wantFinish)
		}
	}
}

func TestSeededRequestsIgnoreTheEngineGenerator(t *testing.T) {
	a := seq{maxTokens: 10000, seeded: true, seed: 42}
	b := a
	a.decideLength(rand.New(rand.NewPCG(1, 1)), 256)
	b.decideLength(rand.New(rand.NewPCG(9, 9)), 256)
	if a.target != b.target {
		t.Errorf("same request seed, different engine generators: %d vs %d tokens", a.target, b.target)
	}
}

func TestSeqQueue(t *testing.T) {
	var q seqQueue
	seqs := make([]*seq, 40)
	for i := range seqs {
		seqs[i] = &seq{id: int64(i)}
	}
	ids := func() []int64 {
		var out []int64
		for i := range q.n {
			out = append(out, q.buf[(q.head+i)&(len(q.buf)-1)].id)
		}
		return out
	}
	for _, s := range seqs[:20] { // grows past the first 16 slots
		q.pushBack(s)
	}
	q.pushFront(seqs[20]) // wraps around the ring's start
	if q.len() != 21 || q.front() != seqs[20] {
		t.Fatalf("len %d front %d; want 21, 20", q.len(), q.front().id)
	}
	if !q.remove(seqs[5]) || q.remove(seqs[5]) {
		t.Error("remove: want true once, then false")
	}
	if q.remove(seqs[39]) {
		t.Error("removed a sequence that was never queued")
	}
	got := ids()
	if len(got) != 20 || got[0] != 20 || got[1] != 0 || got[5] != 4 || got[6] != 6 || got[19] != 19 {
		t.Errorf("order after remove = %v", got)
	}
	for _, want := range []int64{20, 0, 1, 2} {
		if s := q.popFront(); s.id != want {
			t.Errorf("popFront = %d, want %d", s.id, want)
		}
	}
	if q.len() != 16 {
		t.Errorf("len after 4 pops = %d, want 16", q.len())
	}
}
