package capacity

import (
	"fmt"
	"time"

	"github.com/goodput-dev/goodput/sweep"
)

// FromPoint returns the per-replica figures measured at a sweep point:
// its request throughput as PerReplicaQPS and its output throughput as
// ReplicaTokensPerSecond. A concurrency point also sets MaxNumSeqs and
// Latency (its mean e2e), so that Explain shows Little's Law as a check on
// the measurement. The caller adds the peak, headroom and costs.
func FromPoint(p sweep.Point) Input {
	in := Input{
		PerReplicaQPS:          max(0, p.Mean.RequestThroughput),
		ReplicaTokensPerSecond: max(0, p.Mean.OutputThroughput),
		Source:                 "the measurement at " + p.Load.Phrase(),
	}
	if p.Load.Mode == sweep.ModeConcurrency && p.Mean.E2E.Mean > 0 {
		in.MaxNumSeqs = int(p.Load.Value)
		in.Latency = time.Duration(p.Mean.E2E.Mean * float64(time.Second))
	}
	return in
}

// FromSummary returns FromPoint of the sweep's operating point, or an
// error saying why it has none.
func FromSummary(s sweep.Summary) (Input, error) {
	op := s.Operating
	if !op.Found {
		return Input{}, fmt.Errorf("sweep has no operating point: %s", op.Note)
	}
	in := FromPoint(s.Points[op.Index])
	in.Source = fmt.Sprintf("the sweep's operating point, %s (SLO attainment %.0f %% ≥ %.0f %%)",
		s.Points[op.Index].Load.Phrase(), 100*op.Score, 100*op.Target)
	return in, nil
}
