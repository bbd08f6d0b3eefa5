package arrival

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixedReplay replays the times it holds, and says how many were asked for.
type fixedReplay struct {
	times []time.Duration
	err   error
	asked *int
}

func (f fixedReplay) Times(n int, _ uint64) ([]time.Duration, error) {
	if f.asked != nil {
		*f.asked = n
	}
	if f.err != nil {
		return nil, f.err
	}
	if n == 0 || n > len(f.times) {
		n = len(f.times)
	}
	return slices.Clone(f.times[:n]), nil
}

func (fixedReplay) String() string { return "fixed trace" }

// replayCfg is a replay of times at its own speed with one change applied.
func replayCfg(times []time.Duration, change func(*Config)) Config {
	c := DefaultConfig()
	c.Replay = fixedReplay{times: times}
	if change != nil {
		change(&c)
	}
	return c
}

func TestReplaySchedule(t *testing.T) {
	trace := ms(0, 1000, 1000, 3000, 7000)
	tests := []struct {
		name   string
		change func(*Config)
		want   []time.Duration
		speed  float64
	}{
		// At its own speed the schedule is the trace.
		{"own speed", nil, ms(0, 1000, 1000, 3000, 7000), 1},
		// A speed-up divides every time; equal times stay equal.
		{"speed-up 4", func(c *Config) { c.Speedup = 4 }, ms(0, 250, 250, 750, 1750), 4},
		// A slow-down stretches them.
		{"slow-down", func(c *Config) { c.Speedup = 0.5 }, ms(0, 2000, 2000, 6000, 14000), 0.5},
		// 5 arrivals over 7 s are 4/7 req/s; 2 req/s is 3.5× faster.
		{"rescaled to 2 req/s", func(c *Config) { c.RequestRate = 2 }, ms(0, 286, 286, 857, 2000), 3.5},
		// --num-prompts takes the first rows, and the rescale reads only
		// those: 3 over 1 s is 2 req/s, so 4 req/s is twice as fast.
		{"first three at 4 req/s", func(c *Config) { c.NumPrompts, c.RequestRate = 3, 4 }, ms(0, 500, 500), 2},
		// --duration cuts in run time, after the speed-up.
		{"duration after speed-up", func(c *Config) { c.Speedup, c.Duration = 2, 1500*time.Millisecond }, ms(0, 500, 500), 2},
		// A cap in flight keeps the open loop's schedule.
		{"capped in flight", func(c *Config) { c.MaxConcurrency = 2 }, ms(0, 1000, 1000, 3000, 7000), 1},
	}
	for _, tt := range tests {
		p, err := replayCfg(trace, tt.change).Plan()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if p.Open == nil || p.Closed != nil {
			t.Fatalf("%s: plan is not open loop: %+v", tt.name, p)
		}
		got := p.Open.Offsets
		for i := range got {
			got[i] = got[i].Round(time.Millisecond)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: offsets %v, want %v", tt.name, got, tt.want)
		}
		if math.Abs(p.Speedup-tt.speed) > 1e-12 {
			t.Errorf("%s: speed-up %v, want %v", tt.name, p.Speedup, tt.speed)
		}
	}
}

func TestReplayRescaleIsExact(t *testing.T) {
	// 1,001 arrivals over 500 s: a mean of 2 req/s. Rescaled to 50 req/s
	// they span exactly 20 s, whatever their gaps.
	times := make([]time.Duration, 1001)
	for i := range times {
		times[i] = time.Duration(float64(i*i)/2000) * time.Second
	}
	times[len(times)-1] = 500 * time.Second
	p, err := replayCfg(times, func(c *Config) { c.RequestRate = 50 }).Plan()
	if err != nil {
		t.Fatal(err)
	}
	st := p.Open.Stats()
	if st.Last != 20*time.Second || math.Abs(st.Rate-50) > 1e-9 {
		t.Errorf("rescaled schedule spans %v at %v req/s, want 20s at 50", st.Last, st.Rate)
	}
}

func TestReplayAsksForNumPrompts(t *testing.T) {
	asked := -1
	c := DefaultConfig()
	c.Replay, c.NumPrompts = fixedReplay{times: ms(0, 1, 2), asked: &asked}, 2
	if _, err := c.Plan(); err != nil {
		t.Fatal(err)
	}
	if asked != 2 {
		t.Errorf("Times asked for %d arrivals, want --num-prompts 2", asked)
	}
}

func TestReplayShards(t *testing.T) {
	trace := ms(0, 10, 20, 30, 40, 50, 60)
	var all []time.Duration
	for k := range 3 {
		p, err := replayCfg(trace, func(c *Config) { c.Shard, c.Shards = k, 3 }).Plan()
		if err != nil {
			t.Fatal(err)
		}
		for i, off := range p.Open.Offsets {
			if seq := p.Open.Seq(i); seq%3 != int64(k) || trace[seq] != off {
				t.Errorf("shard %d: request %d is seq %d at %v, want seq ≡ %d (mod 3) at its trace time", k, i, seq, off, k)
			}
		}
		all = append(all, p.Open.Offsets...)
	}
	slices.Sort(all)
	if !slices.Equal(all, trace) {
		t.Errorf("shards together send %v, want the whole trace %v", all, trace)
	}
}

func TestReplayRejects(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name   string
		times  []time.Duration
		change func(*Config)
		want   string
	}{
		{"speed-up and rate", ms(0, 1), func(c *Config) { c.Speedup, c.RequestRate = 2, 5 }, "--trace-speedup and --request-rate both set"},
		{"negative speed-up", ms(0, 1), func(c *Config) { c.Speedup = -1 }, "--trace-speedup must be a positive finite"},
		{"NaN speed-up", ms(0, 1), func(c *Config) { c.Speedup = nan }, "--trace-speedup"},
		{"infinite speed-up", ms(0, 1), func(c *Config) { c.Speedup = math.Inf(1) }, "--trace-speedup"},
		{"a process", ms(0, 1), func(c *Config) { c.Arrival = KindPoisson }, "--arrival and --burstiness do not apply to a replay"},
		{"burstiness", ms(0, 1), func(c *Config) { c.Burstiness = 0.5 }, "--burstiness do not apply"},
		{"a ramp", ms(0, 1), func(c *Config) {
			c.RequestRate, c.Ramp = 5, Ramp{RampLinear, 1, time.Second}
		}, "--ramp-up-strategy does not apply to a replay"},
		// All at one instant: no speed gives them a mean rate.
		{"rate for one instant", ms(5, 5, 5), func(c *Config) { c.RequestRate = 5 }, "span no time"},
		{"rate for one arrival", ms(0), func(c *Config) { c.RequestRate = 5 }, "span no time"},
		{"out of order", ms(0, 20, 10), nil, "arrival 2 is at 10ms, out of order"},
		{"not from zero", ms(3, 4), nil, "arrival 0 is at 3ms"},
		{"too slow", ms(0, 1000), func(c *Config) { c.Speedup = 1e-12 }, "too low"},
	}
	for _, tt := range tests {
		_, err := replayCfg(tt.times, tt.change).Plan()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	// The trace's own error comes back as it is.
	boom := errors.New("trace.jsonl:7: missing \"timestamp\"")
	c := DefaultConfig()
	c.Replay = fixedReplay{err: boom}
	if _, err := c.Plan(); !errors.Is(err, boom) {
		t.Errorf("Plan error %v, want the trace's %v", err, boom)
	}
	// A speed-up without a replay names what it needs.
	if err := cfg(func(c *Config) { c.Speedup = 2 }).Validate(); err == nil || !strings.Contains(err.Error(), "applies only to a replay") {
		t.Errorf("speed-up without replay: %v", err)
	}
}

func TestReplayPlanString(t *testing.T) {
	tests := []struct {
		change func(*Config)
		want   string
	}{
		{nil, "open loop: replay of fixed trace at its own speed\n"},
		{func(c *Config) { c.Speedup = 10 }, "replay of fixed trace at 10× its speed\n"},
		{func(c *Config) { c.RequestRate = 2 }, "at a mean of 2 req/s (3× its speed)"},
		{func(c *Config) { c.Shard, c.Shards = 1, 2 }, "its own speed, shard 1 of 2\n"},
		{func(c *Config) { c.MaxConcurrency = 8 }, "at most 8 in flight"},
	}
	for _, tt := range tests {
		p, err := replayCfg(ms(0, 1000, 3000), tt.change).Plan()
		if err != nil {
			t.Fatal(err)
		}
		if s := p.String(); !strings.Contains(s, tt.want) || !strings.Contains(s, "schedule: ") {
			t.Errorf("plan text %q lacks %q", s, tt.want)
		}
	}
}

// A replay shorter than --num-prompts stops at its end, and the plan says
// so rather than promise the count; a count the replay reaches binds.
func TestReplayPlanSaysWhereItStops(t *testing.T) {
	for _, tt := range []struct {
		prompts int
		want    string
	}{
		{200, "stops at the replay's end, after 5 requests\n"},
		{3, "stops after 3 requests\n"},
	} {
		c := replayCfg(ms(0, 1000, 1000, 3000, 7000), func(c *Config) { c.NumPrompts = tt.prompts })
		p, err := c.Plan()
		if err != nil {
			t.Fatal(err)
		}
		if got := p.String(); !strings.Contains(got, tt.want) {
			t.Errorf("--num-prompts %d: plan\n%s\nlacks %q", tt.prompts, got, tt.want)
		}
	}
}
