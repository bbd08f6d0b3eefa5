package arrival

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestRequestRampRates(t *testing.T) {
	lin := Config{RequestRate: math.Inf(1), Burstiness: 1, NumPrompts: 5, Ramp: Ramp{Kind: RampLinear, From: 2}, RampEnd: 10}
	exp := lin
	exp.Ramp.Kind = RampExponential
	for _, tt := range []struct {
		c    Config
		i    int
		want float64
	}{
		{lin, 0, 2}, {lin, 2, 6}, {lin, 4, 10}, // progress i/(N−1)
		{exp, 0, 2}, {exp, 2, 2 * math.Sqrt(5)}, {exp, 4, 10},
	} {
		if got := tt.c.RateAt(tt.i); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s RateAt(%d) = %v, want %v", tt.c.Ramp.Kind, tt.i, got, tt.want)
		}
	}
	// Without vLLM's ramp the rate is the rate.
	if got := (Config{RequestRate: 7}).RateAt(3); got != 7 {
		t.Errorf("RateAt = %v", got)
	}
}

func TestRequestRampSchedule(t *testing.T) {
	// Constant arrivals make the gaps exactly 1/rate of the request they
	// lead to: 1/2, 1/4, 1/6 and 1/8 s after a first request at 0.
	c := Config{RequestRate: math.Inf(1), Burstiness: 1, Arrival: KindConstant, NumPrompts: 5,
		Ramp: Ramp{Kind: RampLinear, From: 0}, RampEnd: 8}
	p, err := c.Plan()
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, 500 * time.Millisecond, 750 * time.Millisecond, 916_666_667, 1_041_666_667}
	if got := p.Open.Offsets; len(got) != len(want) {
		t.Fatalf("offsets %v", got)
	}
	for i, w := range want {
		if d := p.Open.Offsets[i] - w; d < -1 || d > 1 {
			t.Errorf("offset %d = %v, want %v", i, p.Open.Offsets[i], w)
		}
	}
	if s := p.String(); !strings.Contains(s, "ramp linear from 0 to 8 req/s over the run's requests") {
		t.Errorf("plan: %s", s)
	}
	// With a concurrency cap and no rate it is still an open loop.
	c.MaxConcurrency = 4
	if p, err := c.Plan(); err != nil || p.Open == nil {
		t.Errorf("capped ramp: %v %+v", err, p)
	}
}

func TestRequestRampValidation(t *testing.T) {
	ok := Config{RequestRate: math.Inf(1), Burstiness: 1, NumPrompts: 10, Ramp: Ramp{Kind: RampLinear, From: 1}, RampEnd: 5}
	for _, tt := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"valid", func(*Config) {}, ""},
		{"with a rate", func(c *Config) { c.RequestRate = 3 }, "--ramp-up-end-rps sets the rate: leave out --request-rate"},
		{"with a duration", func(c *Config) { c.Ramp.Over = time.Second }, "give one of them"},
		{"no count", func(c *Config) { c.NumPrompts = 0; c.Duration = time.Minute }, "give --num-prompts"},
		{"down", func(c *Config) { c.Ramp.From = 9 }, "above --ramp-up-end-rps 5: the ramp only climbs"},
		{"negative", func(c *Config) { c.Ramp.From = -1 }, "--ramp-up-start-rps must be a finite rate ≥ 0"},
		{"infinite end", func(c *Config) { c.RampEnd = math.Inf(1) }, "--ramp-up-end-rps must be a finite rate ≥ 0"},
		{"exponential from 0", func(c *Config) { c.Ramp.Kind = RampExponential; c.Ramp.From = 0 }, "a rate of 0 never grows"},
		{"no strategy", func(c *Config) { c.Ramp.Kind = RampNone }, "--ramp-up-end-rps needs --ramp-up-strategy"},
		{"unknown strategy", func(c *Config) { c.Ramp.Kind = "step" }, `--ramp-up-strategy "step" is unknown`},
	} {
		c := ok
		tt.edit(&c)
		err := c.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
}
