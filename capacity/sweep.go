package capacity

import (
	"fmt"
	"math"
	"time"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/sweep"
)

// FromPoint returns the per-replica figures measured at a sweep point:
// its request throughput as PerReplicaQPS and its output throughput ÷ its
// request throughput as OutputTokensPerRequest. Tokens per request are
// the workload's, not the load's, so a caller that replaces PerReplicaQPS
// keeps them. A concurrency point also sets MaxNumSeqs and Latency (its
// mean e2e), so that Explain shows Little's Law as a check on the
// measurement. Measured marks what was set. The caller adds the peak,
// headroom and costs.
func FromPoint(p sweep.Point) Input {
	in := Input{
		PerReplicaQPS: orZero(p.Mean.RequestThroughput),
		Source:        "the measurement at " + p.Load.Phrase(),
	}
	in.Measured.QPS = in.PerReplicaQPS > 0
	if tok := orZero(p.Mean.OutputThroughput); tok > 0 && in.PerReplicaQPS > 0 {
		in.OutputTokensPerRequest = tok / in.PerReplicaQPS
		in.Measured.OutputTokensPerSecond, in.Measured.RequestsPerSecond = tok, in.PerReplicaQPS
	}
	// A latency that rounds to no time at all (under a nanosecond) cannot
	// pair with the concurrency: both are left out, and the rate plans.
	if e2e := orZero(p.Mean.E2E.Mean); p.Load.Mode == sweep.ModeConcurrency && e2e < 1e9 {
		if d := time.Duration(e2e * float64(time.Second)); d > 0 {
			in.MaxNumSeqs = int(p.Load.Value)
			in.Latency = d
			in.Measured.Concurrency = true
		}
	}
	return in
}

// ReplicaPoint returns the index in s.Points of the load that plans one
// replica: of the operating point and the loads below it, all of which met
// the SLO, the one that finished the most requests per second, the
// operating point on a tie (see FromSummary). It returns -1 when the
// sweep has no operating point.
func ReplicaPoint(s sweep.Summary) int {
	op := s.Operating
	if !op.Found || op.Index < 0 || op.Index >= len(s.Points) {
		return -1
	}
	best := op.Index
	for i := op.Index - 1; i >= 0; i-- {
		if orZero(s.Points[i].Mean.RequestThroughput) > orZero(s.Points[best].Mean.RequestThroughput) {
			best = i
		}
	}
	return best
}

// orZero returns v when it is a positive finite number and 0 ("not
// given") otherwise: a sweep's undefined numbers are NaN.
func orZero(v float64) float64 {
	if v > 0 && !math.IsInf(v, 1) {
		return v
	}
	return 0
}

// FromSummary returns FromPoint of the load that plans one replica, or an
// error saying why the sweep has none. That load is the sweep's operating
// point unless a lower load, which met the SLO too (every load below the
// operating point did), finished more requests per second: past its knee
// a server can do less work for more load, and a replica capped at the
// lower load then sustains more within the SLO. The fleet is sized by what
// one replica sustains, so the load with the most request throughput is
// taken, the operating point on a tie, and Source says so. When every
// load met the target, Source also says that the rate is a floor.
func FromSummary(s sweep.Summary) (Input, error) {
	op := s.Operating
	if !op.Found {
		return Input{}, fmt.Errorf("sweep has no operating point: %s", op.Note)
	}
	best := ReplicaPoint(s)
	in := FromPoint(s.Points[best])
	if in.PerReplicaQPS == 0 && in.MaxNumSeqs == 0 {
		// Said in the file's terms: the flags that would fill the gap
		// were not given, or they would have been used instead.
		return Input{}, fmt.Errorf("the sweep's operating point, %s, has no request throughput (nor a latency at a concurrency) to plan from", s.Points[op.Index].Load.Phrase())
	}
	in.Source = fmt.Sprintf("the sweep's operating point, %s (SLO attainment %s ≥ %s)",
		s.Points[op.Index].Load.Phrase(), human.Percent(op.Score), human.Percent(op.Target))
	if best != op.Index {
		b, o := s.Points[best], s.Points[op.Index]
		in.Source += fmt.Sprintf(", finished %s req/s; %s, which met the SLO too (%s), finished %s req/s, so one replica is planned at %s",
			human.Number(o.Mean.RequestThroughput), b.Load.Phrase(), human.Percent(b.Mean.Attainment),
			human.Number(b.Mean.RequestThroughput), b.Load.Phrase())
	}
	if op.FirstFailure.IsZero() {
		// The sweep never found the limit: what it measured is a floor.
		in.Source += "; every load met the target, so one replica sustains at least this rate, perhaps more," +
			" and the fleet below may be larger than needed: sweep higher loads to find the limit"
	}
	return in, nil
}
