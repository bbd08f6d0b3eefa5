package sweep

import (
	"errors"
	"fmt"
	"math"
)

// Analysis defaults.
const (
	DefaultTarget  = 0.9 // SLO attainment the operating point must reach
	DefaultMinBend = 0.1 // see Options.MinBend
)

// Options says how a sweep is read. The zero value reads it with the
// defaults: mean e2e latency, output tokens per second, target 0.9.
type Options struct {
	// Latency is the latency of the knee: power divides throughput by it,
	// and the curvature knee bends on it. Zero means StatE2EMean, the
	// latency Little's Law and Kleinrock's power are stated in; StatE2EP50
	// resists a few outliers; a tail such as StatTTFTP99 finds where the
	// tail, rather than the typical request, turns.
	Latency Stat
	// Throughput is the work rate of the knee; zero means
	// StatOutputThroughput.
	Throughput Stat
	// Target is the SLO attainment (0 < Target ≤ 1) the operating point
	// must reach; zero means DefaultTarget.
	Target float64
	// MinBend is how far below the diagonal, in the normalised
	// latency-throughput plane, a point must lie to be a curvature knee
	// (0 < MinBend < 1); zero means DefaultMinBend. At 0.1, a straight line
	// or a gentle curve such as latency ∝ throughput^1.3 has no knee.
	MinBend float64
}

// withDefaults fills in zero fields.
func (o Options) withDefaults() Options {
	if o.Latency == "" {
		o.Latency = StatE2EMean
	}
	if o.Throughput == "" {
		o.Throughput = StatOutputThroughput
	}
	if o.Target == 0 {
		o.Target = DefaultTarget
	}
	if o.MinBend == 0 {
		o.MinBend = DefaultMinBend
	}
	return o
}

// Validate reports every problem with o, each naming its option.
func (o Options) Validate() error {
	o = o.withDefaults()
	var errs []error
	if _, ok := lookup(o.Latency); !ok {
		errs = append(errs, fmt.Errorf("knee latency %q: unknown statistic", string(o.Latency)))
	} else if !o.Latency.isLatency() {
		errs = append(errs, fmt.Errorf("knee latency %q: not a latency", string(o.Latency)))
	}
	if _, ok := lookup(o.Throughput); !ok {
		errs = append(errs, fmt.Errorf("knee throughput %q: unknown statistic", string(o.Throughput)))
	} else if o.Throughput.isLatency() {
		errs = append(errs, fmt.Errorf("knee throughput %q: a latency, not a throughput", string(o.Throughput)))
	}
	if math.IsNaN(o.Target) || o.Target <= 0 || o.Target > 1 {
		errs = append(errs, fmt.Errorf("attainment target %v: must be in (0, 1]", o.Target))
	}
	if math.IsNaN(o.MinBend) || o.MinBend <= 0 || o.MinBend >= 1 {
		errs = append(errs, fmt.Errorf("minimum bend %v: must be in (0, 1)", o.MinBend))
	}
	return errors.Join(errs...)
}
