package arrival

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Kind names an open-loop arrival process, the values of --arrival.
type Kind string

// Arrival process kinds.
const (
	// KindDefault is `vllm bench serve`'s process: gamma gaps of shape
	// --burstiness, which is Poisson at the default burstiness 1.
	KindDefault  Kind = ""
	KindPoisson  Kind = "poisson"
	KindGamma    Kind = "gamma"
	KindConstant Kind = "constant"
)

// MaxRequests bounds the size of a precomputed schedule (80 MB of offsets),
// so that a typo such as --request-rate 1e9 --duration 1h fails with a clear
// error instead of exhausting memory.
const MaxRequests = 10_000_000

// maxOffset is the latest offset a schedule may hold: time.Duration spans
// about 292 years, and a schedule near that is a unit mistake.
const maxOffset = 100 * 365 * 24 * time.Hour

// rngStream separates the arrival process's random stream from other
// consumers of the same --seed (the workload), so that changing how many
// numbers one of them draws does not shift the other.
const rngStream = 0x6172726976616c // "arrival" in ASCII

// Config is the load shape of a run, as given on the command line. Each
// field names the flag it comes from. Start from DefaultConfig: the zero
// value is not valid.
type Config struct {
	// RequestRate is the target rate in requests per second (--request-rate).
	// +Inf sends every request at once, or, with MaxConcurrency, makes a
	// closed loop.
	RequestRate float64
	// Arrival picks the process (--arrival); KindDefault follows Burstiness.
	Arrival Kind
	// Burstiness is the gamma shape (--burstiness): 1 is Poisson, below 1
	// burstier, above 1 smoother.
	Burstiness float64
	// Ramp optionally ramps the rate up to RequestRate (--ramp-up-*).
	Ramp Ramp
	// RampEnd, when set, makes the ramp vLLM's (--ramp-up-end-rps): the
	// rate climbs from Ramp.From to RampEnd over the run's requests,
	// request i of N at progress i/(N−1), with no steady rate after it
	// (see RateAt); RequestRate stays infinite and Ramp.Over zero.
	RampEnd float64

	// Replay, when set, is the run's arrival process: a trace's own times
	// (--dataset-name trace or servegen), sent open loop. A finite
	// RequestRate then rescales them to that mean rate; Speedup divides
	// them instead (--trace-speedup; 0 means 1). A replay is never a
	// closed loop: MaxConcurrency caps it in flight.
	Replay  Replay
	Speedup float64

	// MaxConcurrency caps requests in flight (--max-concurrency); 0 = no cap.
	// With an infinite RequestRate it alone defines a closed loop.
	MaxConcurrency int
	// NumPrompts stops the run after this many requests (--num-prompts);
	// 0 = no count limit.
	NumPrompts int
	// Duration stops scheduling at this offset (--duration); 0 = no time
	// limit. With both limits, whichever comes first ends the run.
	Duration time.Duration

	// Shard and Shards select shard Shard of Shards (--shard, --shards):
	// the requests whose sequence number ≡ Shard (mod Shards). Shards 0 or 1
	// means no sharding.
	Shard, Shards int

	// Seed makes the schedule reproducible (--seed).
	Seed uint64

	// Unit names what each arrival is: "" for a request, or "session" or
	// "task" when each arrival starts a flow of requests. --request-rate
	// and --num-prompts then count those, and --max-concurrency caps them
	// (concurrent users). It changes only how the plan is described.
	Unit string
}

// DefaultConfig returns the defaults of `vllm bench serve`: infinite rate,
// burstiness 1. The caller must still set NumPrompts or Duration.
func DefaultConfig() Config {
	return Config{RequestRate: math.Inf(1), Burstiness: 1}
}

// closedLoop reports whether the config describes a closed loop.
func (c Config) closedLoop() bool {
	return math.IsInf(c.RequestRate, 1) && c.MaxConcurrency > 0 && c.Replay == nil && !c.rampByRequest()
}

// Validate reports every problem of the config, each naming its flag.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	rateOK := !math.IsNaN(c.RequestRate) && c.RequestRate > 0
	if !rateOK {
		bad("--request-rate must be a positive number of requests per second or inf, got %v", c.RequestRate)
	}
	if math.IsNaN(c.Burstiness) || math.IsInf(c.Burstiness, 0) || c.Burstiness <= 0 {
		bad("--burstiness must be a positive finite number, got %v", c.Burstiness)
	}
	switch c.Arrival {
	case KindDefault, KindGamma:
	case KindPoisson, KindConstant:
		if c.Burstiness != 1 {
			bad("--burstiness %v applies only to gamma arrivals, not --arrival %s", c.Burstiness, c.Arrival)
		}
	default:
		bad("--arrival %q is unknown: want poisson, gamma or constant", string(c.Arrival))
	}

	if c.MaxConcurrency < 0 {
		bad("--max-concurrency must be ≥ 0, got %d", c.MaxConcurrency)
	}
	if c.NumPrompts < 0 {
		bad("--num-prompts must be ≥ 0, got %d", c.NumPrompts)
	} else if c.NumPrompts > MaxRequests {
		bad("--num-prompts %d exceeds the limit of %d requests", c.NumPrompts, MaxRequests)
	}
	if c.Duration < 0 {
		bad("--duration must be ≥ 0, got %v", c.Duration)
	}
	if c.Replay != nil {
		// The replay's own length bounds the run.
		errs = append(errs, c.validateReplay(rateOK)...)
	} else {
		if c.Speedup != 0 {
			bad("--trace-speedup applies only to a replay (--dataset-name trace or servegen)")
		}
		if c.NumPrompts == 0 && c.Duration == 0 {
			bad("the run is unbounded: give --num-prompts of 1 or more, a --duration, or both (0 bounds neither)")
		}
		if rateOK && math.IsInf(c.RequestRate, 1) && c.MaxConcurrency == 0 && c.NumPrompts == 0 {
			bad("--request-rate inf sends every request at once, so it needs --num-prompts (or --max-concurrency for a closed loop)")
		}
		errs = append(errs, c.validateRamp(rateOK)...)
	}

	if c.Shards < 0 {
		bad("--shards must be ≥ 0, got %d", c.Shards)
	} else if n := max(c.Shards, 1); c.Shard < 0 || c.Shard >= n {
		bad("--shard %d must be in [0, %d)", c.Shard, n)
	} else if c.closedLoop() && n > c.MaxConcurrency {
		bad("--shards %d exceeds --max-concurrency %d: some shard would have no worker", n, c.MaxConcurrency)
	} else if c.MaxConcurrency > 0 && n > c.MaxConcurrency {
		// The shards share the cap; a share of 0 would mean no cap.
		bad("--shards %d exceeds --max-concurrency %d: some shard would have no slot of the cap", n, c.MaxConcurrency)
	} else if c.closedLoop() && c.NumPrompts > 0 && c.NumPrompts < n {
		bad("--num-prompts %d is less than --shards %d: some shard would send nothing", c.NumPrompts, n)
	}

	// An open loop bounded only by time must not schedule absurd numbers
	// of requests; estimate before drawing a single gap.
	if len(errs) == 0 && c.Replay == nil && !math.IsInf(c.RequestRate, 1) && c.Duration > 0 {
		want := c.profile().integral(c.Duration.Seconds())
		if c.NumPrompts > 0 {
			want = min(want, float64(c.NumPrompts))
		}
		if want > MaxRequests {
			bad("--request-rate %v for --duration %v would schedule about %.3g requests, more than the limit of %d",
				c.RequestRate, c.Duration, want, MaxRequests)
		}
	}
	return errors.Join(errs...)
}

func (c Config) validateRamp(rateOK bool) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	r := c.Ramp
	if r.Kind == RampNone && c.RampEnd != 0 {
		bad("--ramp-up-end-rps needs --ramp-up-strategy")
		return errs
	}
	if c.rampByRequest() {
		return append(errs, c.validateRequestRamp()...)
	}
	switch r.Kind {
	case RampNone:
		if r.From != 0 || r.Over != 0 {
			bad("--ramp-up-start-rps and --ramp-up-duration need --ramp-up-strategy")
		}
		return errs
	case RampLinear, RampExponential:
	default:
		bad("--ramp-up-strategy %q is unknown: want linear or exponential", string(r.Kind))
		return errs
	}
	if r.Over == 0 {
		// Neither kind of ramp was given its span: say both, vLLM's first.
		bad("--ramp-up-strategy %s needs --ramp-up-start-rps and --ramp-up-end-rps (vLLM's ramp, over the run's requests), or --ramp-up-duration (a ramp up to --request-rate over that long)", r.Kind)
		return errs
	}
	if rateOK && math.IsInf(c.RequestRate, 1) {
		bad("--ramp-up-strategy needs a finite --request-rate to ramp up to")
	}
	switch {
	case math.IsNaN(r.From) || math.IsInf(r.From, 0) || r.From < 0:
		bad("--ramp-up-start-rps must be a finite rate ≥ 0, got %v", r.From)
	case r.Kind == RampExponential && r.From == 0:
		bad("--ramp-up-start-rps must be > 0 for an exponential ramp: a rate of 0 never grows")
	}
	if r.Over <= 0 {
		bad("--ramp-up-duration must be > 0, got %v", r.Over)
	} else if c.Duration > 0 && r.Over > c.Duration {
		bad("--ramp-up-duration %v is longer than --duration %v", r.Over, c.Duration)
	}
	return errs
}

// process returns the configured Process.
func (c Config) process() Process {
	switch c.Arrival {
	case KindPoisson:
		return Poisson{}
	case KindConstant:
		return Constant{}
	}
	if c.Burstiness == 1 {
		return Poisson{}
	}
	return Gamma{Burstiness: c.Burstiness}
}

func (c Config) profile() profile { return profile{ramp: c.Ramp, rate: c.RequestRate} }

// Plan validates the config and builds the run's plan: the open-loop
// schedule, or the closed loop, of this config's shard.
func (c Config) Plan() (Plan, error) {
	if err := c.Validate(); err != nil {
		return Plan{}, err
	}
	shards := max(c.Shards, 1)
	if c.closedLoop() {
		whole := Closed{Concurrency: c.MaxConcurrency, Count: c.NumPrompts, Duration: c.Duration, SeqStride: 1}
		cl, err := whole.Shard(c.Shard, shards)
		if err != nil {
			return Plan{}, err
		}
		return Plan{Closed: &cl, Config: c, Total: c.NumPrompts, Warning: whole.UnevenShards(c.Shard, shards)}, nil
	}
	var s Schedule
	var speed float64
	var err error
	if c.Replay != nil {
		s, speed, err = c.replaySchedule()
	} else {
		s, err = c.schedule()
	}
	if err != nil {
		return Plan{}, err
	}
	total := s.Len()
	if shards > 1 {
		if s, err = s.Shard(c.Shard, shards); err != nil {
			return Plan{}, err
		}
	}
	// The cap bounds the whole run in flight, so each shard holds its
	// share of it, dealt out as a closed loop's workers are.
	conc := shareOf(c.MaxConcurrency, c.Shard, shards)
	return Plan{Open: &s, Concurrency: conc, Config: c, Total: total, Speedup: speed}, nil
}

// schedule draws the whole open-loop schedule; c must be valid.
func (c Config) schedule() (Schedule, error) {
	if c.rampByRequest() {
		return c.requestRampSchedule()
	}
	if math.IsInf(c.RequestRate, 1) {
		return Schedule{Offsets: make([]time.Duration, c.NumPrompts)}, nil
	}
	rng := rand.New(rand.NewPCG(c.Seed, rngStream))
	proc, prof := c.process(), c.profile()
	var offsets []time.Duration
	if c.NumPrompts > 0 {
		offsets = make([]time.Duration, 0, c.NumPrompts)
	}
	u := 0.0 // operational time: expected arrivals so far
	for c.NumPrompts == 0 || len(offsets) < c.NumPrompts {
		t := prof.at(u)
		if math.IsNaN(t) || t > maxOffset.Seconds() {
			return Schedule{}, fmt.Errorf("request %d would be sent after %v: --request-rate %v is too low for --num-prompts %d",
				len(offsets), maxOffset, c.RequestRate, c.NumPrompts)
		}
		// Rounding, not truncating, keeps a constant process's offsets
		// exact multiples of its period.
		off := time.Duration(math.Round(t * float64(time.Second)))
		if c.Duration > 0 && off >= c.Duration {
			break
		}
		if len(offsets) == MaxRequests {
			return Schedule{}, fmt.Errorf("schedule exceeds the limit of %d requests: lower --request-rate or --duration", MaxRequests)
		}
		offsets = append(offsets, off)
		u += proc.Gap(rng)
	}
	if _, constant := proc.(Constant); !constant && c.Ramp.Kind == RampNone && c.Duration == 0 {
		fitSpan(offsets, float64(len(offsets)-1)/c.RequestRate)
	}
	return Schedule{Offsets: offsets}, nil
}

// fitSpan scales a random schedule of a fixed rate and count so that its
// last request is sent span seconds after its first, (N−1)/rate: its mean
// gap is then exactly 1/rate, as a constant schedule's is. A sum of N
// random gaps strays from its mean by about 1/√N (10% for 100 requests),
// and the run's throughput with it; `vllm bench serve` scales its
// schedule the same way, so that seeds give the same rate.
func fitSpan(offsets []time.Duration, span float64) {
	if len(offsets) < 2 || offsets[len(offsets)-1] <= 0 {
		return
	}
	factor := span * float64(time.Second) / float64(offsets[len(offsets)-1])
	for i, off := range offsets {
		offsets[i] = time.Duration(math.Round(float64(off) * factor))
	}
}
