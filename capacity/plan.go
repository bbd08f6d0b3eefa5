package capacity

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/goodput-dev/goodput/sweep"
)

// Input is what the planner is told. Per-replica throughput comes either
// from PerReplicaQPS or from MaxNumSeqs and Latency (Little's Law); with
// all three, PerReplicaQPS is used and Little's Law is shown as a check.
// Zero means "not given" for every field.
type Input struct {
	// PerReplicaQPS is the request throughput one replica sustains at its
	// operating point, requests per second: for example the operating
	// point's measured request throughput from a sweep.
	PerReplicaQPS float64
	// MaxNumSeqs is the replica's concurrency cap (vLLM --max-num-seqs):
	// the requests it holds in flight at its operating point.
	MaxNumSeqs int
	// Latency is the mean end-to-end latency at that concurrency.
	Latency time.Duration

	// OutputTokensPerRequest is the mean output tokens per request;
	// ReplicaTokensPerSecond is a replica's output tokens per second at
	// the operating point, from which tokens per request follow. Give one
	// or neither: with both, Validate fails, since they would disagree
	// unless one follows from the other. With neither, the plan has no
	// token or per-token cost figures.
	OutputTokensPerRequest float64
	ReplicaTokensPerSecond float64

	// PeakQPS is the busiest demand the fleet must serve, requests per
	// second. Without it the plan stops at one replica's figures.
	PeakQPS float64
	// Headroom is demand the fleet must absorb on top of PeakQPS, as a
	// fraction: 0.2 sizes the fleet for 120 % of the peak. Put the other
	// way, at the stated peak no replica runs above 1 ÷ 1.2 ≈ 83 % of its
	// operating-point throughput. It is applied once, to the demand:
	// replicas = ⌈PeakQPS × (1 + Headroom) ÷ per-replica QPS⌉.
	Headroom float64

	// GPUHourCost is the price of one GPU for one hour, in Currency;
	// GPUsPerReplica the GPUs one replica occupies (0 means 1). Without a
	// cost the plan has no cost figures.
	GPUHourCost    float64
	GPUsPerReplica int
	// Currency prefixes money amounts; empty means "$".
	Currency string

	// Source says where the measured figures came from, for Explain
	// ("the operating point of sweep.json, concurrency 24"), and Measured
	// which figures it measured; the others were given. Both optional.
	Source   string
	Measured Measured
}

// Measured marks the figures of an Input that were measured at its Source
// rather than given, so that Explain can say which is which.
type Measured struct {
	QPS         bool // PerReplicaQPS is the measured request throughput
	Concurrency bool // MaxNumSeqs and Latency are the measured concurrency and its mean e2e
	// OutputTokensPerSecond and RequestsPerSecond are the measured rates
	// whose ratio is OutputTokensPerRequest; zero when it was given.
	OutputTokensPerSecond, RequestsPerSecond float64
}

// MaxReplicas bounds the replica count, far above any real fleet, so that
// a typing slip in a rate reports an error instead of overflowing.
const MaxReplicas = 1 << 30

// MaxGPUHourCost bounds the price of a GPU-hour, in any currency, and
// MaxCost every cost a plan gives, so that a typing slip is an error and
// never an amount of hundreds of digits.
const (
	MaxGPUHourCost = 1e9
	MaxCost        = 1e15
)

// MaxGPUsPerReplica bounds GPUsPerReplica for the same reason.
const MaxGPUsPerReplica = 1 << 16

// Plan is the result of Compute. Figures that the Input did not allow are
// NaN (or 0 for Replicas when there is no peak).
type Plan struct {
	Input Input

	PerReplicaQPS float64 // requests per second one replica sustains
	// LittleQPS is MaxNumSeqs ÷ Latency when both were given; NaN
	// otherwise. It equals PerReplicaQPS unless PerReplicaQPS was given.
	LittleQPS float64

	DemandQPS   float64 // PeakQPS × (1 + Headroom)
	Replicas    int     // ⌈DemandQPS ÷ PerReplicaQPS⌉; 0 without a peak
	Utilisation float64 // PeakQPS ÷ (Replicas × PerReplicaQPS): each replica's load at the stated peak

	TokensPerRequest       float64 // mean output tokens per request
	ReplicaTokensPerSecond float64 // one replica at its operating point
	FleetTokensPerSecond   float64 // Replicas × ReplicaTokensPerSecond: the fleet's capacity
	PeakTokensPerSecond    float64 // PeakQPS × TokensPerRequest: what the fleet emits at the peak

	GPUsPerReplica  int
	ReplicaHourCost float64 // GPUsPerReplica × GPUHourCost
	FleetHourCost   float64 // Replicas × ReplicaHourCost
	// CostPerMillion is a replica's hourly cost over the output tokens it
	// makes in an hour at the operating point, per million:
	// ReplicaHourCost ÷ (ReplicaTokensPerSecond × 3600) × 1e6.
	CostPerMillion float64
	// PeakCostPerMillion is the same for the whole fleet at the stated
	// peak (headroom is paid for but idle):
	// FleetHourCost ÷ (PeakTokensPerSecond × 3600) × 1e6.
	PeakCostPerMillion float64
}

// Compute checks in and works out the plan.
func Compute(in Input) (Plan, error) {
	if err := in.Validate(); err != nil {
		return Plan{}, err
	}
	nan := math.NaN()
	p := Plan{Input: in, LittleQPS: nan, DemandQPS: nan, Utilisation: nan,
		TokensPerRequest: nan, ReplicaTokensPerSecond: nan, FleetTokensPerSecond: nan, PeakTokensPerSecond: nan,
		ReplicaHourCost: nan, FleetHourCost: nan, CostPerMillion: nan, PeakCostPerMillion: nan,
		GPUsPerReplica: max(1, in.GPUsPerReplica)}

	if in.MaxNumSeqs > 0 {
		p.LittleQPS = float64(in.MaxNumSeqs) / in.Latency.Seconds()
	}
	p.PerReplicaQPS = in.PerReplicaQPS
	if p.PerReplicaQPS == 0 {
		p.PerReplicaQPS = p.LittleQPS
	}
	if !finitePositive(p.PerReplicaQPS) {
		return Plan{}, fmt.Errorf("per-replica QPS %v: not a positive rate", p.PerReplicaQPS)
	}
	// A sweep file holding such rates is refused (sweep.Sample.Check);
	// so are the flags, which a latency in the wrong unit gets there.
	switch {
	case in.PerReplicaQPS > sweep.MaxRequestThroughput:
		return Plan{}, fmt.Errorf("--per-replica-qps %v: above 1e7 req/s, more than any replica serves", in.PerReplicaQPS)
	case in.PerReplicaQPS == 0 && p.LittleQPS > sweep.MaxRequestThroughput:
		return Plan{}, fmt.Errorf("--max-num-seqs %d ÷ --latency %v = %.3g req/s per replica: above 1e7 req/s, more than any replica serves (check --latency's unit)",
			in.MaxNumSeqs, in.Latency, p.LittleQPS)
	}

	switch {
	case in.ReplicaTokensPerSecond > 0:
		p.ReplicaTokensPerSecond = in.ReplicaTokensPerSecond
		p.TokensPerRequest = in.ReplicaTokensPerSecond / p.PerReplicaQPS
	case in.OutputTokensPerRequest > 0:
		p.TokensPerRequest = in.OutputTokensPerRequest
		p.ReplicaTokensPerSecond = p.PerReplicaQPS * in.OutputTokensPerRequest
	}
	if p.ReplicaTokensPerSecond > sweep.MaxTokenThroughput {
		switch {
		case in.ReplicaTokensPerSecond > 0:
			return Plan{}, fmt.Errorf("--output-throughput %v: above 1e9 tok/s, more than any replica makes", in.ReplicaTokensPerSecond)
		case in.Measured.OutputTokensPerSecond > 0:
			// Measured tokens per request at a rate given by a flag.
			return Plan{}, fmt.Errorf("--per-replica-qps %v at the %.3g tokens a request measured: %.3g tok/s per replica, above 1e9 tok/s, more than any replica makes",
				in.PerReplicaQPS, p.TokensPerRequest, p.ReplicaTokensPerSecond)
		}
		return Plan{}, fmt.Errorf("--output-tokens %v: %.3g tok/s per replica, above 1e9 tok/s, more than any replica makes",
			in.OutputTokensPerRequest, p.ReplicaTokensPerSecond)
	}

	if in.PeakQPS > 0 {
		p.DemandQPS = in.PeakQPS * (1 + in.Headroom)
		r := ceilTolerant(p.DemandQPS / p.PerReplicaQPS)
		if !(r <= MaxReplicas) {
			return Plan{}, fmt.Errorf("replicas: %v req/s at %v req/s per replica needs more than %d replicas", p.DemandQPS, p.PerReplicaQPS, MaxReplicas)
		}
		p.Replicas = max(1, int(r))
		p.Utilisation = in.PeakQPS / (float64(p.Replicas) * p.PerReplicaQPS)
		p.FleetTokensPerSecond = float64(p.Replicas) * p.ReplicaTokensPerSecond
		p.PeakTokensPerSecond = in.PeakQPS * p.TokensPerRequest
	}

	if in.GPUHourCost > 0 {
		p.ReplicaHourCost = float64(p.GPUsPerReplica) * in.GPUHourCost
		p.CostPerMillion = perMillion(p.ReplicaHourCost, p.ReplicaTokensPerSecond)
		if p.Replicas > 0 {
			p.FleetHourCost = float64(p.Replicas) * p.ReplicaHourCost
			p.PeakCostPerMillion = perMillion(p.FleetHourCost, p.PeakTokensPerSecond)
		}
		for _, c := range []float64{p.ReplicaHourCost, p.FleetHourCost, p.CostPerMillion, p.PeakCostPerMillion} {
			if c > MaxCost {
				return Plan{}, fmt.Errorf("--gpu-hour-cost %v: a cost it gives, %.3g, passes any budget (%.0e): check the price and the token figures (--output-tokens, --output-throughput)", in.GPUHourCost, c, MaxCost)
			}
		}
	}
	return p, nil
}

// perMillion is the cost of a million tokens made at tokPerSec by
// something that costs hourCost an hour.
func perMillion(hourCost, tokPerSec float64) float64 {
	if !finitePositive(tokPerSec) {
		return math.NaN()
	}
	return hourCost / (tokPerSec * 3600) * 1e6
}

// ceilTolerant is ⌈x⌉, forgiving x the rounding error of the products
// before it: 80 × 1.2 ÷ 16 is 6.000000000000001 in floating point, and
// needs 6 replicas, not 7.
func ceilTolerant(x float64) float64 {
	return math.Ceil(x - 1e-9*math.Max(1, math.Abs(x)))
}

func finitePositive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// Validate reports every problem with in, each naming the value and the
// flag of `goodput plan` that sets it.
func (in Input) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	nonNeg := func(name string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			bad("%s %v: must be a non-negative number", name, v)
		}
	}
	// For these zero means "not given", so a value given must be
	// positive: a negative one is told so in the words the command uses
	// for a zero it was given.
	positive := func(name string, v float64) {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			bad("%s %v: must be a positive, finite number", name, v)
		case v < 0:
			bad("%s %v: must be positive", name, v)
		}
	}
	positive("--per-replica-qps", in.PerReplicaQPS)
	positive("--output-tokens", in.OutputTokensPerRequest)
	positive("--output-throughput", in.ReplicaTokensPerSecond)
	positive("--peak-qps", in.PeakQPS)
	nonNeg("--headroom", in.Headroom)
	nonNeg("--gpu-hour-cost", in.GPUHourCost)
	if in.GPUHourCost > MaxGPUHourCost {
		bad("--gpu-hour-cost %v: more than %.0e, which no GPU costs an hour in any currency", in.GPUHourCost, MaxGPUHourCost)
	}
	if in.MaxNumSeqs < 0 {
		bad("--max-num-seqs %d: must be at least 1", in.MaxNumSeqs)
	}
	if in.Latency < 0 {
		bad("--latency %v: must be positive", in.Latency)
	}
	if in.OutputTokensPerRequest > 0 && in.ReplicaTokensPerSecond > 0 {
		bad("--output-tokens %v and --output-throughput %v: give one; tokens per request follow from a replica's tok/s ÷ its req/s",
			in.OutputTokensPerRequest, in.ReplicaTokensPerSecond)
	}
	if in.GPUsPerReplica < 0 || in.GPUsPerReplica > MaxGPUsPerReplica {
		bad("--gpus-per-replica %d: must be from 1 to %d", in.GPUsPerReplica, MaxGPUsPerReplica)
	}
	switch {
	case in.MaxNumSeqs > 0 && in.Latency == 0:
		bad("--max-num-seqs %d needs --latency, the mean e2e latency at that concurrency", in.MaxNumSeqs)
	case in.Latency > 0 && in.MaxNumSeqs == 0:
		bad("--latency %v needs --max-num-seqs, the concurrency it was measured at", in.Latency)
	case in.PerReplicaQPS == 0 && in.MaxNumSeqs == 0 && in.Latency == 0:
		bad("no per-replica throughput: give --per-replica-qps, or --max-num-seqs and --latency, or --from a sweep")
	}
	return errors.Join(errs...)
}
