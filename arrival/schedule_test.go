package arrival

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func ms(v ...int) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestShardPartitionsExactly(t *testing.T) {
	p, err := cfg(func(c *Config) { c.NumPrompts, c.Burstiness = 1001, 0.5 }).Plan()
	if err != nil {
		t.Fatal(err)
	}
	full := *p.Open
	for _, n := range []int{1, 2, 3, 7, 1001, 2000} {
		seen := make([]int, full.Len())
		for k := 0; k < n; k++ {
			s, err := full.Shard(k, n)
			if err != nil {
				t.Fatal(err)
			}
			if want := (full.Len() - k + n - 1) / n; s.Len() != want {
				t.Errorf("shard %d/%d has %d requests, want %d", k, n, s.Len(), want)
			}
			for i := range s.Offsets {
				seq := s.Seq(i)
				if seq%int64(n) != int64(k) {
					t.Fatalf("shard %d/%d holds sequence number %d", k, n, seq)
				}
				if s.Offsets[i] != full.Offsets[seq] {
					t.Fatalf("shard %d/%d moved request %d from %v to %v", k, n, seq, full.Offsets[seq], s.Offsets[i])
				}
				seen[seq]++
			}
		}
		for seq, c := range seen {
			if c != 1 {
				t.Fatalf("%d shards: request %d appears %d times, want once", n, seq, c)
			}
		}
	}
}

func TestShardOfShardKeepsGlobalNumbers(t *testing.T) {
	s := Schedule{Offsets: ms(0, 1, 2, 3, 4, 5, 6, 7)}
	a, _ := s.Shard(1, 2) // 1 3 5 7
	b, err := a.Shard(1, 4)
	if err != nil {
		t.Fatal(err)
	}
	// Of 1, 3, 5, 7 the global numbers ≡ 1 (mod 4) are 1 and 5.
	if !slices.Equal(b.Seqs, []int64{1, 5}) || !slices.Equal(b.Offsets, ms(1, 5)) {
		t.Fatalf("shard 1/4 of shard 1/2 = %v at %v, want [1 5] at [1ms 5ms]", b.Seqs, b.Offsets)
	}
}

func TestShardRejects(t *testing.T) {
	s := Schedule{Offsets: ms(0, 1)}
	tests := []struct {
		k, n int
		want string
	}{
		{0, 0, "--shards must be ≥ 1, got 0"}, // no shards at all
		{0, -2, "--shards must be ≥ 1"},       // negative count
		{2, 2, "--shard 2 must be in [0, 2)"}, // index one past the end
		{-1, 2, "--shard -1 must be in [0, 2)"},
	}
	for _, tt := range tests {
		if _, err := s.Shard(tt.k, tt.n); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Shard(%d, %d) = %v, want %q", tt.k, tt.n, err, tt.want)
		}
	}
}

func TestStats(t *testing.T) {
	tests := []struct {
		name string
		s    Schedule
		want Stats
		text string
	}{
		{"empty", Schedule{}, Stats{}, "0 requests"},
		{"one", Schedule{Offsets: ms(250)},
			Stats{Requests: 1, First: 250 * time.Millisecond, Last: 250 * time.Millisecond, Busiest: 1},
			"1 requests from 250ms to 250ms; busiest second 1 requests"},
		// Gaps sorted are 100, 100, 300, 500 ms; nearest rank
		// round(p·3) picks index 2 for p50 and 3 for p90 and p99. Over the
		// span 0–1 s the mean rate is (5−1)/1 s. The busiest second
		// [0, 1 s) holds the first four.
		{"five", Schedule{Offsets: ms(0, 100, 200, 500, 1000)},
			Stats{Requests: 5, Last: time.Second, Rate: 4,
				GapP50: 300 * time.Millisecond, GapP90: 500 * time.Millisecond, GapP99: 500 * time.Millisecond,
				GapMax: 500 * time.Millisecond, Busiest: 4},
			"5 requests from 0s to 1s, mean 4 req/s; gaps p50 300ms p90 500ms p99 500ms max 500ms; busiest second 4 requests"},
		// All at once: no span, so no rate.
		{"burst", Schedule{Offsets: ms(0, 0, 0)},
			Stats{Requests: 3, Busiest: 3},
			"3 requests from 0s to 0s; gaps p50 0s p90 0s p99 0s max 0s; busiest second 3 requests"},
	}
	for _, tt := range tests {
		if got := tt.s.Stats(); got != tt.want {
			t.Errorf("%s: Stats = %+v, want %+v", tt.name, got, tt.want)
		}
		if got := tt.s.String(); got != tt.text {
			t.Errorf("%s: String = %q, want %q", tt.name, got, tt.text)
		}
	}
}

func TestStatsBusiestSecondOfABurstySchedule(t *testing.T) {
	// Burstiness 0.1 packs requests together: the busiest second holds far
	// more than the mean rate of 5 per second.
	smooth, _ := cfg(func(c *Config) { c.RequestRate, c.NumPrompts, c.Arrival = 5, 500, KindConstant }).Plan()
	bursty, _ := cfg(func(c *Config) { c.RequestRate, c.NumPrompts, c.Burstiness = 5, 500, 0.1 }).Plan()
	if got := smooth.Open.Stats().Busiest; got != 5 {
		t.Errorf("constant 5 req/s: busiest second %d, want 5", got)
	}
	if got := bursty.Open.Stats().Busiest; got < 15 {
		t.Errorf("burstiness 0.1 at 5 req/s: busiest second %d, want ≥ 15", got)
	}
}

func TestClosedShard(t *testing.T) {
	base := Closed{Concurrency: 10, Count: 101, Duration: time.Minute, SeqStride: 1}
	tests := []struct {
		k, n int
		want Closed
	}{
		// One shard is the loop itself.
		{0, 1, Closed{10, 101, time.Minute, 0, 1}},
		// 10 workers over 3 shards: 4, 3, 3; 101 requests: 34, 34, 33.
		{0, 3, Closed{4, 34, time.Minute, 0, 3}},
		{1, 3, Closed{3, 34, time.Minute, 1, 3}},
		{2, 3, Closed{3, 33, time.Minute, 2, 3}},
		// As many shards as workers: one each.
		{9, 10, Closed{1, 10, time.Minute, 9, 10}},
	}
	for _, tt := range tests {
		got, err := base.Shard(tt.k, tt.n)
		if err != nil {
			t.Fatalf("Shard(%d, %d): %v", tt.k, tt.n, err)
		}
		if got != tt.want {
			t.Errorf("Shard(%d, %d) = %+v, want %+v", tt.k, tt.n, got, tt.want)
		}
	}
	// The shards' sequence numbers partition 0…Count−1.
	seen := map[int64]int{}
	for k := 0; k < 3; k++ {
		s, _ := base.Shard(k, 3)
		for i := 0; i < s.Count; i++ {
			seen[s.Seq(i)]++
		}
	}
	for seq := int64(0); seq < 101; seq++ {
		if seen[seq] != 1 {
			t.Fatalf("sequence number %d appears %d times across shards", seq, seen[seq])
		}
	}
	if len(seen) != 101 {
		t.Fatalf("shards cover %d sequence numbers, want 101", len(seen))
	}

	bad := []struct {
		c    Closed
		k, n int
		want string
	}{
		{base, 0, 0, "--shards must be ≥ 1"},
		{base, 3, 3, "--shard 3 must be in [0, 3)"},
		{base, 0, 11, "--shards 11 exceeds --max-concurrency 10"},
		{Closed{Concurrency: 8, Count: 3, SeqStride: 1}, 0, 4, "--num-prompts 3 is less than --shards 4"},
		{Closed{Concurrency: 8, FirstSeq: 1, SeqStride: 2}, 0, 2, "already a shard"},
	}
	for _, tt := range bad {
		if _, err := tt.c.Shard(tt.k, tt.n); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v.Shard(%d, %d) = %v, want %q", tt.c, tt.k, tt.n, err, tt.want)
		}
	}
}

func TestShardedPlanMatchesGlobalSchedule(t *testing.T) {
	whole, err := cfg(func(c *Config) { c.Seed, c.NumPrompts = 8, 300 }).Plan()
	if err != nil {
		t.Fatal(err)
	}
	part, err := cfg(func(c *Config) { c.Seed, c.NumPrompts, c.Shard, c.Shards = 8, 300, 2, 5 }).Plan()
	if err != nil {
		t.Fatal(err)
	}
	if part.Open.Len() != 60 {
		t.Fatalf("shard 2/5 of 300 has %d requests, want 60", part.Open.Len())
	}
	// Every shard knows the size of the whole schedule, for the merge to
	// check that the shards together sent all of it.
	if whole.Total != 300 || part.Total != 300 {
		t.Errorf("totals %d and %d, want 300", whole.Total, part.Total)
	}
	for i, seq := range part.Open.Seqs {
		if part.Open.Offsets[i] != whole.Open.Offsets[seq] {
			t.Fatalf("request %d: shard offset %v, global %v", seq, part.Open.Offsets[i], whole.Open.Offsets[seq])
		}
	}
	if !strings.Contains(part.String(), ", shard 2 of 5") {
		t.Errorf("sharded plan text does not say which shard:\n%s", part)
	}
}

// A plan's Total counts the whole run: known for a count, unknown (0) for a
// closed loop bounded by time alone, and what --duration leaves of an open
// schedule.
func TestPlanTotal(t *testing.T) {
	cases := []struct {
		name string
		set  func(*Config)
		want int
	}{
		// A closed loop of 40 requests over 4 shards: 40 in all.
		{"closed count", func(c *Config) {
			c.RequestRate, c.MaxConcurrency, c.NumPrompts, c.Shard, c.Shards = math.Inf(1), 8, 40, 1, 4
		}, 40},
		// A closed loop bounded by time: not known in advance.
		{"closed duration", func(c *Config) {
			c.RequestRate, c.MaxConcurrency, c.NumPrompts, c.Duration = math.Inf(1), 8, 0, time.Minute
		}, 0},
		// 10 req/s, constant, for 3 s: 30 requests, whatever the shard.
		{"open duration", func(c *Config) {
			c.RequestRate, c.Arrival, c.NumPrompts, c.Duration, c.Shard, c.Shards = 10, KindConstant, 0, 3*time.Second, 2, 3
		}, 30},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := cfg(c.set).Plan()
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != c.want {
				t.Errorf("Total = %d, want %d", p.Total, c.want)
			}
		})
	}
}

// An open loop's --max-concurrency caps the whole run, so the shards share
// it as a closed loop's workers are shared: together they never hold more
// in flight than one process of the unsharded run would.
func TestShardedPlanSharesConcurrencyCap(t *testing.T) {
	cases := []struct {
		name      string
		cap, n    int
		wantEach  []int
		wantWhole int
	}{
		// 8 over 4 shards: 2 each.
		{"even", 8, 4, []int{2, 2, 2, 2}, 8},
		// 8 over 3 shards: the remainder goes to the first shards.
		{"uneven", 8, 3, []int{3, 3, 2}, 8},
		// One shard is the run itself.
		{"one shard", 5, 1, []int{5}, 5},
	}
	for _, c := range cases {
		sum := 0
		for k := 0; k < c.n; k++ {
			p, err := cfg(func(x *Config) { x.MaxConcurrency, x.Shard, x.Shards = c.cap, k, c.n }).Plan()
			if err != nil {
				t.Fatalf("%s: shard %d: %v", c.name, k, err)
			}
			if p.Concurrency != c.wantEach[k] {
				t.Errorf("%s: shard %d of %d caps %d in flight, want %d", c.name, k, c.n, p.Concurrency, c.wantEach[k])
			}
			sum += p.Concurrency
		}
		if sum != c.wantWhole {
			t.Errorf("%s: the shards cap %d in flight together, want %d", c.name, sum, c.wantWhole)
		}
	}
	// A cap below the shard count would leave some shard with a cap of 0,
	// which means no cap at all.
	_, err := cfg(func(x *Config) { x.MaxConcurrency, x.Shard, x.Shards = 2, 0, 3 }).Plan()
	if err == nil || !strings.Contains(err.Error(), "--shards 3 exceeds --max-concurrency 2") {
		t.Errorf("cap 2 over 3 shards: %v, want a refusal", err)
	}
}
