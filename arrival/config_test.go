package arrival

import (
	"math"
	"strings"
	"testing"
	"time"
)

// cfg returns a valid open-loop config with one change applied.
func cfg(change func(*Config)) Config {
	c := DefaultConfig()
	c.RequestRate, c.NumPrompts = 10, 100
	if change != nil {
		change(&c)
	}
	return c
}

func TestValidateRejects(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name   string
		change func(*Config)
		want   string // a substring of the error: the flag it names
	}{
		{"zero rate", func(c *Config) { c.RequestRate = 0 }, "--request-rate must be a positive"},
		{"negative rate", func(c *Config) { c.RequestRate = -1 }, "--request-rate"},
		{"NaN rate", func(c *Config) { c.RequestRate = nan }, "--request-rate"},
		{"negative infinite rate", func(c *Config) { c.RequestRate = -inf }, "--request-rate"},
		{"zero burstiness", func(c *Config) { c.Burstiness = 0 }, "--burstiness must be a positive finite"},
		{"negative burstiness", func(c *Config) { c.Burstiness = -0.5 }, "--burstiness"},
		{"NaN burstiness", func(c *Config) { c.Burstiness = nan }, "--burstiness"},
		{"infinite burstiness", func(c *Config) { c.Burstiness = inf }, "--burstiness"},
		{"burstiness with poisson", func(c *Config) { c.Arrival, c.Burstiness = KindPoisson, 2 }, "applies only to gamma arrivals, not --arrival poisson"},
		{"burstiness with constant", func(c *Config) { c.Arrival, c.Burstiness = KindConstant, 0.5 }, "--arrival constant"},
		{"unknown process", func(c *Config) { c.Arrival = "weibull" }, `--arrival "weibull" is unknown`},
		{"negative concurrency", func(c *Config) { c.MaxConcurrency = -2 }, "--max-concurrency must be ≥ 0"},
		{"negative count", func(c *Config) { c.NumPrompts = -1 }, "--num-prompts must be ≥ 0"},
		{"count over the limit", func(c *Config) { c.NumPrompts = MaxRequests + 1 }, "exceeds the limit of 10000000"},
		{"negative duration", func(c *Config) { c.Duration = -time.Second }, "--duration must be ≥ 0"},
		{"no limit at all", func(c *Config) { c.NumPrompts = 0 }, "unbounded: give --num-prompts of 1 or more, a --duration, or both"},
		{"closed loop without limit", func(c *Config) { c.RequestRate, c.MaxConcurrency, c.NumPrompts = inf, 4, 0 }, "unbounded"},
		{"infinite rate with only a duration", func(c *Config) {
			c.RequestRate, c.NumPrompts, c.Duration = inf, 0, time.Minute
		}, "--request-rate inf sends every request at once, so it needs --num-prompts"},
		{"unknown ramp", func(c *Config) { c.Ramp = Ramp{Kind: "sigmoid", Over: time.Second} }, `--ramp-up-strategy "sigmoid"`},
		{"ramp fields without a strategy", func(c *Config) { c.Ramp = Ramp{From: 1} }, "need --ramp-up-strategy"},
		{"ramp to an infinite rate", func(c *Config) {
			c.RequestRate, c.Ramp = inf, Ramp{RampLinear, 1, time.Second}
		}, "needs a finite --request-rate"},
		{"negative start rate", func(c *Config) { c.Ramp = Ramp{RampLinear, -1, time.Second} }, "--ramp-up-start-rps must be a finite rate ≥ 0"},
		{"NaN start rate", func(c *Config) { c.Ramp = Ramp{RampLinear, nan, time.Second} }, "--ramp-up-start-rps"},
		{"exponential from zero", func(c *Config) { c.Ramp = Ramp{RampExponential, 0, time.Second} }, "must be > 0 for an exponential ramp"},
		{"ramp without duration", func(c *Config) { c.Ramp = Ramp{Kind: RampLinear, From: 1} },
			"--ramp-up-strategy linear needs --ramp-up-start-rps and --ramp-up-end-rps (vLLM's ramp, over the run's requests), or --ramp-up-duration"},
		{"ramp of a negative duration", func(c *Config) { c.Ramp = Ramp{Kind: RampLinear, From: 1, Over: -time.Second} }, "--ramp-up-duration must be > 0, got -1s"},
		{"ramp longer than the run", func(c *Config) {
			c.Duration, c.Ramp = 10*time.Second, Ramp{RampLinear, 1, 20 * time.Second}
		}, "--ramp-up-duration 20s is longer than --duration 10s"},
		{"negative shard count", func(c *Config) { c.Shards = -1 }, "--shards must be ≥ 0"},
		{"shard index too large", func(c *Config) { c.Shard, c.Shards = 3, 3 }, "--shard 3 must be in [0, 3)"},
		{"negative shard index", func(c *Config) { c.Shard, c.Shards = -1, 2 }, "--shard -1"},
		{"shard without shards", func(c *Config) { c.Shard = 1 }, "--shard 1 must be in [0, 1)"},
		{"more shards than closed-loop workers", func(c *Config) {
			c.RequestRate, c.MaxConcurrency, c.Shards = inf, 2, 3
		}, "--shards 3 exceeds --max-concurrency 2"},
		{"fewer closed-loop requests than shards", func(c *Config) {
			c.RequestRate, c.MaxConcurrency, c.Shards, c.NumPrompts = inf, 8, 4, 3
		}, "--num-prompts 3 is less than --shards 4"},
		{"rate times duration too large", func(c *Config) {
			c.RequestRate, c.NumPrompts, c.Duration = 1e9, 0, time.Hour
		}, "would schedule about 3.6e+12 requests"},
	}
	for _, tt := range tests {
		err := cfg(tt.change).Validate()
		if err == nil {
			t.Errorf("%s: Validate accepted the config", tt.name)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %q does not contain %q", tt.name, err, tt.want)
		}
		if _, perr := cfg(tt.change).Plan(); perr == nil {
			t.Errorf("%s: Plan accepted a config Validate rejects", tt.name)
		}
	}
}

func TestValidateReportsEveryProblem(t *testing.T) {
	c := Config{RequestRate: -1, Burstiness: 0, MaxConcurrency: -1}
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate accepted the zero config")
	}
	for _, flag := range []string{"--request-rate", "--burstiness", "--max-concurrency", "unbounded"} {
		if !strings.Contains(err.Error(), flag) {
			t.Errorf("error %q does not mention %s", err, flag)
		}
	}
}

func TestValidateAccepts(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name   string
		change func(*Config)
	}{
		{"poisson with a count", nil},
		{"gamma", func(c *Config) { c.Burstiness = 0.3 }},
		{"explicit gamma at burstiness 1", func(c *Config) { c.Arrival = KindGamma }},
		{"constant", func(c *Config) { c.Arrival = KindConstant }},
		{"duration only", func(c *Config) { c.NumPrompts, c.Duration = 0, time.Minute }},
		{"burst of everything", func(c *Config) { c.RequestRate = inf }},
		{"closed loop by time", func(c *Config) { c.RequestRate, c.MaxConcurrency, c.NumPrompts, c.Duration = inf, 8, 0, time.Minute }},
		{"open loop with a cap", func(c *Config) { c.MaxConcurrency = 4 }},
		{"ramp as long as the run", func(c *Config) { c.Duration, c.Ramp = time.Minute, Ramp{RampExponential, 1, time.Minute} }},
		{"ramp with only a count", func(c *Config) { c.Ramp = Ramp{RampLinear, 0, time.Minute} }},
		{"last shard", func(c *Config) { c.Shard, c.Shards = 3, 4 }},
		{"duration bounded by a count", func(c *Config) { c.RequestRate, c.NumPrompts, c.Duration = 1e9, 1000, time.Hour }},
	}
	for _, tt := range tests {
		if err := cfg(tt.change).Validate(); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

func TestScheduleLimits(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name   string
		change func(*Config)
		want   int           // requests
		last   time.Duration // offset of the last request
	}{
		// Count only: n at a constant 10 req/s span (n−1)/10.
		{"count", func(c *Config) { c.Arrival, c.NumPrompts = KindConstant, 50 }, 50, 4900 * time.Millisecond},
		// Duration only: offsets 0, 0.1, …, 9.9 s are < 10 s.
		{"duration", func(c *Config) { c.Arrival, c.NumPrompts, c.Duration = KindConstant, 0, 10*time.Second }, 100, 9900 * time.Millisecond},
		// Both, the count comes first.
		{"count first", func(c *Config) { c.Arrival, c.NumPrompts, c.Duration = KindConstant, 20, 10*time.Second }, 20, 1900 * time.Millisecond},
		// Both, the duration comes first.
		{"duration first", func(c *Config) { c.Arrival, c.NumPrompts, c.Duration = KindConstant, 500, 3*time.Second }, 30, 2900 * time.Millisecond},
		// Infinite rate: everything at 0.
		{"all at once", func(c *Config) { c.RequestRate, c.NumPrompts = inf, 7 }, 7, 0},
		// One request is sent at once, whatever the rate.
		{"single", func(c *Config) { c.NumPrompts = 1 }, 1, 0},
		// A duration shorter than the first gap still sends the request at 0.
		{"tiny duration", func(c *Config) { c.Arrival, c.NumPrompts, c.Duration = KindConstant, 0, time.Nanosecond }, 1, 0},
	}
	for _, tt := range tests {
		c := cfg(tt.change)
		p, err := c.Plan()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		s := p.Open
		if s.Len() != tt.want {
			t.Errorf("%s: %d requests, want %d", tt.name, s.Len(), tt.want)
			continue
		}
		if last := s.Offsets[s.Len()-1]; absDur(last-tt.last) > time.Microsecond {
			t.Errorf("%s: last offset %v, want %v", tt.name, last, tt.last)
		}
		for i := 1; i < s.Len(); i++ {
			if s.Offsets[i] < s.Offsets[i-1] {
				t.Fatalf("%s: offset %d goes back in time", tt.name, i)
			}
		}
	}
}

func TestScheduleTooSlow(t *testing.T) {
	c := cfg(func(c *Config) { c.RequestRate = 1e-12 })
	_, err := c.Plan()
	if err == nil || !strings.Contains(err.Error(), "--request-rate 1e-12 is too low for --num-prompts 100") {
		t.Fatalf("Plan = %v, want an error about a schedule beyond a century", err)
	}
}

// TestScheduleMeanRate checks that the schedule keeps its target rate for
// several processes, within five standard errors of the gap sum.
func TestScheduleMeanRate(t *testing.T) {
	const n, rate = 20000, 50.0
	for _, b := range []float64{0.25, 0.5, 1, 2, 8} {
		c := cfg(func(c *Config) { c.NumPrompts, c.RequestRate, c.Burstiness, c.Seed = n, rate, b, 99 })
		p, err := c.Plan()
		if err != nil {
			t.Fatal(err)
		}
		got := p.Open.Stats().Rate
		tol := 5 / math.Sqrt(b) / math.Sqrt(n-1) // CV of the sum of n−1 gaps
		if math.Abs(got/rate-1) > tol {
			t.Errorf("burstiness %v: mean rate %.3f, want %v ± %.1f%%", b, got, rate, 100*tol)
		}
	}
}

func TestScheduleDeterministic(t *testing.T) {
	plan := func(seed uint64) *Schedule {
		p, err := cfg(func(c *Config) { c.Seed, c.Burstiness = seed, 0.7 }).Plan()
		if err != nil {
			t.Fatal(err)
		}
		return p.Open
	}
	a, b, other := plan(5), plan(5), plan(6)
	for i := range a.Offsets {
		if a.Offsets[i] != b.Offsets[i] {
			t.Fatalf("same seed: offset %d differs (%v vs %v)", i, a.Offsets[i], b.Offsets[i])
		}
	}
	same := 0
	for i := range a.Offsets {
		if a.Offsets[i] == other.Offsets[i] {
			same++
		}
	}
	if same > 2 { // both start at 0 and end at (N−1)/rate
		t.Fatalf("different seeds share %d of %d offsets", same, a.Len())
	}
}

func TestPlanKinds(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name       string
		change     func(*Config)
		closed     bool
		cap        int
		wantString []string
	}{
		{"open loop", func(c *Config) { c.Seed = 3 }, false, 0,
			[]string{"open loop: poisson arrivals at 10 req/s, seed 3", "stops after 100 requests", "schedule: 100 requests from 0s"}},
		{"open loop with a cap", func(c *Config) { c.MaxConcurrency, c.Burstiness = 4, 0.5 }, false, 4,
			[]string{"gamma (burstiness 0.5) arrivals", "at most 4 in flight: a request waiting for a slot counts the wait as client queue"}},
		{"ramp", func(c *Config) { c.Duration, c.Ramp = time.Minute, Ramp{RampLinear, 1, 30 * time.Second} }, false, 0,
			[]string{"ramp-up: linear from 1 req/s over 30s", "stops after 100 requests or 1m0s, whichever comes first"}},
		{"burst", func(c *Config) { c.RequestRate = inf }, false, 0,
			[]string{"open loop: every request at once", "100 requests from 0s to 0s; gaps p50 0s p90 0s p99 0s max 0s; busiest second 100 requests"}},
		{"closed loop", func(c *Config) { c.RequestRate, c.MaxConcurrency = inf, 16 }, true, 0,
			[]string{"closed loop: 16 concurrent requests, each sent when the previous one ends", "stops after 100 requests"}},
		{"closed loop of one", func(c *Config) { c.RequestRate, c.MaxConcurrency = inf, 1 }, true, 0,
			[]string{"closed loop: 1 concurrent request, each sent when the previous one ends"}},
		{"sharded closed loop", func(c *Config) { c.RequestRate, c.MaxConcurrency, c.Shard, c.Shards = inf, 16, 1, 3 }, true, 0,
			[]string{"closed loop: 5 concurrent requests, shard 1 of 3", "stops after 33 requests", "sequence numbers 1, 4, 7, …"}},
	}
	for _, tt := range tests {
		p, err := cfg(tt.change).Plan()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if (p.Closed != nil) != tt.closed || (p.Open != nil) == tt.closed {
			t.Errorf("%s: open %v closed %v, want closed = %v", tt.name, p.Open != nil, p.Closed != nil, tt.closed)
		}
		if p.Concurrency != tt.cap {
			t.Errorf("%s: open-loop cap %d, want %d", tt.name, p.Concurrency, tt.cap)
		}
		s := p.String()
		for _, want := range tt.wantString {
			if !strings.Contains(s, want) {
				t.Errorf("%s: plan text lacks %q:\n%s", tt.name, want, s)
			}
		}
	}
}

// A random schedule of a fixed rate and count spans exactly (N−1)/rate,
// whatever the seed, as a constant one does, so that seeds give the
// run the same rate; a ramp or a --duration keeps the draws as they fall.
func TestRandomScheduleSpansItsRate(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(*Config)
		exact  bool
	}{
		{"poisson", func(c *Config) {}, true},
		{"gamma", func(c *Config) { c.Burstiness = 0.5 }, true},
		{"constant", func(c *Config) { c.Arrival = KindConstant }, true},
		{"a ramp", func(c *Config) {
			c.Ramp = Ramp{Kind: RampLinear, From: 1, Over: 5 * time.Second}
		}, false},
	} {
		spans := map[time.Duration]bool{}
		for seed := range uint64(5) {
			p, err := cfg(func(c *Config) {
				c.Seed, c.NumPrompts, c.RequestRate = seed, 50, 10
				tt.change(c)
			}).Plan()
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			st := p.Open.Stats()
			spans[st.Last] = true
			if st.First != 0 || tt.exact && st.Last != 4900*time.Millisecond {
				t.Errorf("%s, seed %d: requests from %v to %v, want 0 to 4.9s", tt.name, seed, st.First, st.Last)
			}
		}
		if !tt.exact && len(spans) == 1 {
			t.Errorf("%s: every seed spans the same %v", tt.name, spans)
		}
	}
	// With --duration the count is not fixed: the draws stand.
	p, err := cfg(func(c *Config) { c.NumPrompts, c.RequestRate, c.Duration = 0, 10, 5*time.Second }).Plan()
	if err != nil {
		t.Fatal(err)
	}
	if st := p.Open.Stats(); st.Last >= 5*time.Second || st.Requests < 20 {
		t.Errorf("--duration 5s at 10 req/s: %d requests up to %v", st.Requests, st.Last)
	}
}
