package arrival

import (
	"math"
	"testing"
	"time"
)

// FuzzPlan feeds arbitrary flag values to Config.Plan. Whatever they are,
// Plan must return either an error or a plan that keeps its promises: a
// bounded, non-decreasing schedule within --num-prompts and --duration.
func FuzzPlan(f *testing.F) {
	f.Add(10.0, 1.0, "", "", 0.0, int64(0), 0, 100, int64(0), 0, 0, uint64(1))
	f.Add(math.Inf(1), 1.0, "", "", 0.0, int64(0), 8, 0, int64(time.Minute), 1, 4, uint64(2))
	f.Add(50.0, 0.3, "gamma", "linear", 0.0, int64(10*time.Second), 0, 0, int64(20*time.Second), 0, 0, uint64(3))
	f.Add(5.0, 1.0, "constant", "exponential", 0.5, int64(time.Second), 2, 40, int64(0), 3, 5, uint64(4))
	f.Add(math.NaN(), -1.0, "weibull", "sigmoid", -3.0, int64(-1), -1, -1, int64(-1), -1, -1, uint64(5))
	f.Fuzz(func(t *testing.T, rate, burst float64, kind, ramp string, from float64, over int64,
		conc, n int, dur int64, shard, shards int, seed uint64) {
		// Keep the work per input small: huge but valid schedules are
		// legitimate, just slow to fuzz.
		if n > 20000 || dur > int64(time.Hour) || rate > 1000 || from > 1000 {
			t.Skip()
		}
		c := Config{
			RequestRate: rate, Arrival: Kind(kind), Burstiness: burst,
			Ramp:           Ramp{Kind: RampKind(ramp), From: from, Over: time.Duration(over)},
			MaxConcurrency: conc, NumPrompts: n, Duration: time.Duration(dur),
			Shard: shard, Shards: shards, Seed: seed,
		}
		p, err := c.Plan()
		if err != nil {
			return
		}
		if (p.Open == nil) == (p.Closed == nil) {
			t.Fatalf("plan has open %v and closed %v", p.Open != nil, p.Closed != nil)
		}
		_ = p.String()
		if p.Closed != nil {
			if p.Closed.Concurrency < 1 {
				t.Fatalf("closed loop with %d workers", p.Closed.Concurrency)
			}
			return
		}
		s := p.Open
		if n > 0 && s.Len() > n {
			t.Fatalf("%d requests scheduled for --num-prompts %d", s.Len(), n)
		}
		for i, off := range s.Offsets {
			if off < 0 || (dur > 0 && off >= time.Duration(dur)) {
				t.Fatalf("offset %d = %v outside [0, %v)", i, off, time.Duration(dur))
			}
			if i > 0 && off < s.Offsets[i-1] {
				t.Fatalf("offset %d = %v goes back in time from %v", i, off, s.Offsets[i-1])
			}
		}
	})
}
