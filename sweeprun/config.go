package sweeprun

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/workload"
)

// Defaults.
const (
	DefaultMinRounds   = 4
	DefaultIdleTimeout = time.Minute
	defaultIdlePoll    = 50 * time.Millisecond
)

// sweepPercentiles are the percentiles a sweep reads from every summary
// (sweep.FromResult); they are added to whatever the caller asks for.
var sweepPercentiles = []float64{50, 90, 99}

// Config is everything a sweep needs besides its plan.
type Config struct {
	// Bench is the template of every measurement: the server, the
	// workload, the arrival process (burstiness, kind), --num-prompts or
	// --duration per point, --seed, warm-ups and the metrics options. In
	// rate mode Arrival.MaxConcurrency caps requests in flight; in
	// concurrency mode it must be zero, since the load sets it. Each
	// measurement sets the load, the seeds, RunName, ResultDir, SaveResult
	// and its labels (added to Bench.Labels). Over HTTP, BaseURL is
	// required; in virtual time it is ignored.
	Bench bench.Config

	// Dir is the result directory. Empty keeps nothing on disk (a library
	// caller that wants only the numbers).
	Dir string
	// Resume takes the finished measurements already in Dir as measured
	// (see the package documentation). Without it, a Dir that holds
	// measurements is refused rather than mixed with new ones.
	Resume bool

	// MinRounds: in concurrency mode each point sends at least MinRounds ×
	// concurrency requests. 0 turns the floor off; negative is an error.
	MinRounds int

	// Virtual, when set, measures in virtual time with the simulator these
	// options describe, instead of over HTTP.
	Virtual *sim.Options

	// SamePrompts sends the same prompts at every load (--same-prompts).
	// By default each load over HTTP gets prompts of its own, drawn alike
	// (see PromptSeed): a server with a prefix cache would otherwise find
	// every prompt after the first load's cached, and answer the later
	// loads faster than it answers new prompts. In virtual time every
	// measurement starts a fresh simulator, so the prompts are shared.
	SamePrompts bool

	// IdleTimeout bounds the wait, before each measurement over HTTP, for
	// the server to report nothing running or waiting. Zero does not wait.
	IdleTimeout time.Duration
	// IdlePoll is how often the wait looks; zero means 50 ms.
	IdlePoll time.Duration

	// Log receives one line per measurement and notes about the sweep; nil
	// discards them.
	Log io.Writer
	// Progress and Terminal are handed to bench.Run for each measurement
	// over HTTP (nil Progress shows none).
	Progress io.Writer
	Terminal bool
}

// Validate reports every problem with c that can be known before
// measuring, each naming its flag.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	a := c.Bench.Arrival
	switch {
	case (a.NumPrompts == 0 || a.NumPrompts == -1) && a.Duration <= 0 && a.Replay == nil && c.Bench.Workload.HasEntries():
		// bench's every entry, which a sweep's points do not take.
		bad("--num-prompts %d: bench takes every entry of --dataset-path for it, but each point of a sweep needs a number of requests or a --duration: give the number of entries to send", a.NumPrompts)
	case a.NumPrompts < 0:
		bad("--num-prompts must be ≥ 0, got %d", a.NumPrompts)
	case a.NumPrompts == 0 && a.Duration <= 0 && a.Replay == nil:
		bad("--num-prompts or --duration: each point needs a number of requests or a duration")
	}
	if a.MaxConcurrency < 0 {
		// A concurrency point sets its own cap, so the check of a point
		// below would not see it.
		bad("--max-concurrency must be ≥ 0, got %d", a.MaxConcurrency)
	}
	if a.Ramp.Kind != arrival.RampNone {
		bad("a sweep offers steady loads: no --ramp-up-strategy")
	}
	if a.Shards > 1 {
		bad("a sweep runs from one process: no --shards")
	}
	if c.MinRounds < 0 {
		bad("--min-rounds must be ≥ 0, got %d", c.MinRounds)
	}
	if c.IdleTimeout < 0 {
		bad("--idle-timeout must be ≥ 0, got %v", c.IdleTimeout)
	}
	if c.IdlePoll < 0 {
		bad("idle poll interval must be ≥ 0, got %v", c.IdlePoll)
	}
	if k := reservedLabel(c.Bench.Labels); k != "" {
		bad("--label %s: the sweep sets this label itself", k)
	}
	if c.Resume && c.Dir == "" {
		bad("--resume needs --result-dir: the directory of the sweep to resume")
	}
	if c.Virtual != nil {
		if _, err := sim.Resolve(*c.Virtual); err != nil {
			bad("simulator: %w", err)
		}
		// A cap on concurrent sessions is a flow's business, which the
		// virtual run of flows keeps; a cap on requests is not.
		flows := session.Enabled(c.Bench.Workload, c.Bench.Sessions)
		if a.MaxConcurrency > 0 && !flows {
			bad("--max-concurrency: a virtual-time rate sweep cannot cap requests in flight (sweep --concurrency instead)")
		}
		if flows {
			if err := session.Validate(c.Bench.Workload, c.Bench.Sessions); err != nil {
				errs = append(errs, err)
			}
		} else if err := c.Bench.Workload.Validate(); err != nil {
			errs = append(errs, err)
		}
		if err := c.Bench.Metrics.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		// Every point is a benchmark: what bench would refuse (a bad
		// --base-url, --prompt-format or warm-up count) is refused before
		// the first point, a dry run's included, as at concurrency 1. The
		// built-in simulator's address stands in for a server not started
		// yet, or never (in virtual time).
		pc := c.benchConfig(Measurement{Load: sweep.Load{Mode: sweep.ModeConcurrency, Value: 1}, Repeat: 1})
		if pc.BaseURL == "" || c.Virtual != nil {
			pc.BaseURL = "http://127.0.0.1:8000"
		}
		if err := pc.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// checkPlan reports what about a sweep in mode (auto: an automatic plan,
// which starts with a concurrency load even in rate mode) this
// configuration cannot measure.
func (c *Config) checkPlan(mode sweep.Mode, auto bool) error {
	if mode == sweep.ModeConcurrency && c.Bench.Arrival.MaxConcurrency > 0 {
		return errors.New("--max-concurrency: a concurrency sweep sets the concurrency of each point itself")
	}
	if c.Virtual != nil && c.Bench.Arrival.Replay != nil && (mode == sweep.ModeConcurrency || auto) {
		return errors.New("--concurrency: a replay in virtual time keeps the trace's arrivals, which a cap in flight cannot hold back there; sweep --request-rate, which rescales the trace to each rate")
	}
	if c.Virtual != nil && c.Bench.Arrival.Duration > 0 && (mode == sweep.ModeConcurrency || auto) {
		return errors.New("--duration: in virtual time a closed loop (a concurrency load, or an auto sweep's synchronous point) ends by count: give --num-prompts instead")
	}
	return nil
}

// benchConfig returns the configuration of measurement m.
func (c *Config) benchConfig(m Measurement) bench.Config {
	cfg := c.Bench
	seed := m.Seed(c.Bench.Arrival.Seed)
	cfg.Arrival.Seed = seed
	cfg.Workload.Seed = seed
	if c.Virtual == nil && !c.SamePrompts {
		cfg.Workload.Seed = m.PromptSeed(c.Bench.Arrival.Seed)
	}
	switch m.Load.Mode {
	case sweep.ModeConcurrency:
		n := int(m.Load.Value)
		cfg.Arrival.RequestRate = math.Inf(1)
		cfg.Arrival.MaxConcurrency = n
		if cfg.Arrival.NumPrompts > 0 && c.MinRounds > 0 {
			cfg.Arrival.NumPrompts = max(cfg.Arrival.NumPrompts, min(c.MinRounds*n, arrival.MaxRequests))
		}
	default:
		cfg.Arrival.RequestRate = m.Load.Value
	}
	if p := cfg.Request.RequestIDPrefix; p != "" {
		// Each point numbers its requests from 0: its name keeps their
		// ids apart from the other points'.
		cfg.Request.RequestIDPrefix = p + m.Name() + "-"
	}
	cfg.Labels = m.Labels(c.Bench.Labels)
	cfg.ResultDir = c.Dir
	cfg.RunName = m.Name()
	cfg.SaveResult = c.Dir != ""
	// The sweep owns its directory: New refuses one that holds another
	// sweep's points, and a point measured again (after an interruption)
	// replaces its own earlier files.
	cfg.Overwrite = true
	cfg.VLLMResult = false
	cfg.Metrics.Percentiles = withSweepPercentiles(cfg.Metrics.Percentiles)
	return cfg
}

// withSweepPercentiles returns ps with the percentiles a sweep reads added.
// nil stands for the metrics package's defaults, which include them.
func withSweepPercentiles(ps []float64) []float64 {
	if ps == nil {
		return nil
	}
	out := slices.Clone(ps)
	for _, p := range sweepPercentiles {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// SharesPrefixes reports whether prompts of the workload can share KV cache
// blocks within one point: text datasets can repeat prompts or their
// openings, and a random workload can have a shared prefix of at least one
// block. Random prompts without one are distinct words from their first
// token, so no block of one can match a block of another, and a prefix
// cache can only ever serve one point from the prompts of an earlier one
// (every point sends the same prompts).
func SharesPrefixes(w workload.Config) bool {
	return w.Dataset != workload.DatasetRandom || w.Random.PrefixLen >= sim.BlockSize
}
