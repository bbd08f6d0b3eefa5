package sweeprun

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/workload"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		want string // fragment of the error; empty for a valid config
	}{
		{"valid", func(c *Config) {}, ""},
		// Either bound makes a point finite.
		{"duration only", func(c *Config) { c.Bench.Arrival.NumPrompts = 0; c.Bench.Arrival.Duration = time.Second }, ""},
		{"no bound", func(c *Config) { c.Bench.Arrival.NumPrompts = 0 }, "--num-prompts or --duration"},
		{"negative prompts", func(c *Config) { c.Bench.Arrival.NumPrompts = -5 }, "--num-prompts must be ≥ 0, got -5"},
		// bench's every entry of a file is no count for a point.
		{"every entry", func(c *Config) {
			c.Bench.Arrival.NumPrompts = -1
			c.Bench.Workload.Dataset, c.Bench.Workload.Path = "sharegpt", "../workload/testdata/sharegpt_small.json"
		}, "--num-prompts -1: bench takes every entry of --dataset-path for it, but each point of a sweep needs a number of requests or a --duration"},
		// Over HTTP, where a concurrency point sets its own cap.
		{"negative cap", func(c *Config) { c.Virtual = nil; c.Bench.Arrival.MaxConcurrency = -3 }, "--max-concurrency must be ≥ 0, got -3"},
		{"ramp", func(c *Config) { c.Bench.Arrival.Ramp.Kind = arrival.RampLinear }, "no --ramp-up-strategy"},
		{"shards", func(c *Config) { c.Bench.Arrival.Shards = 2 }, "no --shards"},
		{"negative rounds", func(c *Config) { c.MinRounds = -1 }, "--min-rounds must be ≥ 0, got -1"},
		{"negative idle", func(c *Config) { c.IdleTimeout = -time.Second }, "--idle-timeout must be ≥ 0"},
		{"negative poll", func(c *Config) { c.IdlePoll = -1 }, "idle poll interval"},
		{"reserved label", func(c *Config) { c.Bench.Labels = map[string]string{"point": "x"} }, "--label point: the sweep sets this label itself"},
		{"resume without dir", func(c *Config) { c.Resume = true; c.Dir = "" }, "--resume needs --result-dir"},
		{"bad simulator", func(c *Config) { c.Virtual.MaxNumSeqs = -1 }, "simulator:"},
		{"virtual cap", func(c *Config) { c.Bench.Arrival.MaxConcurrency = 8 }, "cannot cap requests in flight"},
		{"virtual bad workload", func(c *Config) { c.Bench.Workload.Dataset = "nope" }, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := virtualConfig(t.TempDir())
			tt.edit(&c)
			err := c.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestCheckPlan(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Config)
		mode sweep.Mode
		auto bool
		want string
	}{
		{"concurrency", func(c *Config) {}, sweep.ModeConcurrency, false, ""},
		// A rate sweep over HTTP may cap requests in flight.
		{"capped rate over http", func(c *Config) { c.Virtual = nil; c.Bench.Arrival.MaxConcurrency = 4 }, sweep.ModeRate, false, ""},
		{"capped concurrency", func(c *Config) { c.Virtual = nil; c.Bench.Arrival.MaxConcurrency = 4 }, sweep.ModeConcurrency, false, "sets the concurrency of each point itself"},
		// An open loop in virtual time may end by duration ...
		{"virtual rate by duration", func(c *Config) { c.Bench.Arrival.Duration = time.Second }, sweep.ModeRate, false, ""},
		// ... but a closed loop cannot, and an auto rate sweep starts with one.
		{"virtual concurrency by duration", func(c *Config) { c.Bench.Arrival.Duration = time.Second }, sweep.ModeConcurrency, false, "ends by count"},
		{"virtual auto rate by duration", func(c *Config) { c.Bench.Arrival.Duration = time.Second }, sweep.ModeRate, true, "ends by count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := virtualConfig("")
			tt.edit(&c)
			err := c.checkPlan(tt.mode, tt.auto)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestBenchConfig(t *testing.T) {
	c := virtualConfig("out")
	c.Bench.Arrival.Seed = 10
	c.Bench.Labels = map[string]string{"team": "a"}
	c.Bench.Metrics.Percentiles = []float64{95}
	tests := []struct {
		name    string
		m       Measurement
		rate    float64
		cap     int
		prompts int
		seed    uint64
		runName string
	}{
		// 64 requests ≥ 4 rounds of 8: the count stands.
		{"small concurrency", Measurement{sweep.Concurrency(8), 1}, math.Inf(1), 8, 64, 10, "c8"},
		// 4 rounds of 64 = 256 requests: the floor raises the count.
		{"large concurrency", Measurement{sweep.Concurrency(64), 2}, math.Inf(1), 64, 256, 11, "c64-r2"},
		// A rate point keeps the count and has no cap.
		{"rate", Measurement{sweep.Rate(2.5), 3}, 2.5, 0, 64, 12, "r2.5-r3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := c.benchConfig(tt.m)
			a := b.Arrival
			if a.RequestRate != tt.rate || a.MaxConcurrency != tt.cap || a.NumPrompts != tt.prompts {
				t.Errorf("arrival rate %v cap %d prompts %d, want %v %d %d", a.RequestRate, a.MaxConcurrency, a.NumPrompts, tt.rate, tt.cap, tt.prompts)
			}
			if a.Seed != tt.seed || b.Workload.Seed != tt.seed {
				t.Errorf("seeds %d (arrival), %d (workload), want %d", a.Seed, b.Workload.Seed, tt.seed)
			}
			if b.RunName != tt.runName || b.ResultDir != "out" || !b.SaveResult || b.VLLMResult {
				t.Errorf("run %q in %q, save %v, vllm %v", b.RunName, b.ResultDir, b.SaveResult, b.VLLMResult)
			}
			if b.Labels["team"] != "a" || b.Labels["point"] != PointName(tt.m.Load) || len(b.Labels) != 4 {
				t.Errorf("labels %v", b.Labels)
			}
			if !slices.Equal(b.Metrics.Percentiles, []float64{50, 90, 95, 99}) {
				t.Errorf("percentiles %v: a sweep reads 50, 90 and 99", b.Metrics.Percentiles)
			}
		})
	}
	if len(c.Bench.Labels) != 1 || c.Bench.Arrival.Seed != 10 {
		t.Errorf("benchConfig changed the template: %v, seed %d", c.Bench.Labels, c.Bench.Arrival.Seed)
	}
	// With the floor off, or without a count, the count stands.
	c.MinRounds = 0
	if n := c.benchConfig(Measurement{sweep.Concurrency(64), 1}).Arrival.NumPrompts; n != 64 {
		t.Errorf("floor off: %d requests, want 64", n)
	}
	c.MinRounds, c.Bench.Arrival.NumPrompts, c.Bench.Arrival.Duration = 4, 0, time.Second
	if n := c.benchConfig(Measurement{sweep.Concurrency(64), 1}).Arrival.NumPrompts; n != 0 {
		t.Errorf("by duration: %d requests, want 0 (no count)", n)
	}
	// An enormous concurrency stays within what a schedule may hold.
	c.Bench.Arrival.NumPrompts = 1
	if n := c.benchConfig(Measurement{sweep.Concurrency(sweep.MaxConcurrency), 1}).Arrival.NumPrompts; n != 4*sweep.MaxConcurrency {
		t.Errorf("largest concurrency: %d requests", n)
	}
	c.MinRounds = 100
	if n := c.benchConfig(Measurement{sweep.Concurrency(sweep.MaxConcurrency), 1}).Arrival.NumPrompts; n != arrival.MaxRequests {
		t.Errorf("capped floor: %d requests, want %d", n, arrival.MaxRequests)
	}
}

func TestWithSweepPercentiles(t *testing.T) {
	tests := []struct {
		in, want []float64
	}{
		{nil, nil}, // the defaults already hold 50, 90 and 99
		{[]float64{99.9}, []float64{50, 90, 99, 99.9}},
		{[]float64{90, 50, 99}, []float64{50, 90, 99}},
		{[]float64{}, []float64{50, 90, 99}},
	}
	for _, tt := range tests {
		if got := withSweepPercentiles(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("withSweepPercentiles(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSharesPrefixes(t *testing.T) {
	tests := []struct {
		name string
		edit func(*workload.Config)
		want bool
	}{
		{"random", func(w *workload.Config) {}, false},
		// Less than a block of prefix fills no block alike.
		{"short prefix", func(w *workload.Config) { w.Random.PrefixLen = sim.BlockSize - 1 }, false},
		{"block of prefix", func(w *workload.Config) { w.Random.PrefixLen = sim.BlockSize }, true},
		{"sharegpt", func(w *workload.Config) { w.Dataset = workload.DatasetShareGPT }, true},
		{"custom", func(w *workload.Config) { w.Dataset = workload.DatasetCustom }, true},
	}
	for _, tt := range tests {
		w := workload.DefaultConfig()
		tt.edit(&w)
		if got := SharesPrefixes(w); got != tt.want {
			t.Errorf("%s: SharesPrefixes = %v, want %v", tt.name, got, tt.want)
		}
	}
}
