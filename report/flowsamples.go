package report

import (
	"math/rand/v2"

	"github.com/goodput-dev/goodput/metrics"
)

// flowSamples keeps a run's sessions (or agent tasks) for Compare's
// bootstrap, which resamples whole flows: the turns of one conversation
// share its history and its server, so they are not independent, and the
// figures compared (a session's duration, whether it was good) belong to
// the session, not to a turn.
type flowSamples struct {
	spans *sampleSet // each flow's span, in seconds
	// good holds each flow's output tokens when it was good, else 0:
	// their mean × count ÷ W is flow goodput.
	good *sampleSet
	// judged holds 1 for each good flow and 0 for each other one not cut
	// by an interrupt: their mean is flow attainment.
	judged *sampleSet
	count  int64   // flows
	window float64 // the run's window W, in seconds
}

// newFlowSamples keeps fs, the flows metrics.Summary.Flows listed (in
// order of start), of a run whose window was w seconds. Flows in flight
// together share the server's state, so they are resampled in blocks of
// about as many as were in flight on average (see blockOf). It returns nil
// for no flows.
func newFlowSamples(fs []metrics.Flow, w float64, budget int, rng *rand.Rand) *flowSamples {
	if len(fs) == 0 {
		return nil
	}
	s := &flowSamples{spans: newSampleSet(budget), good: newSampleSet(budget), judged: newSampleSet(budget), count: int64(len(fs)), window: w}
	var busy float64
	var one [1]float64
	for _, f := range fs {
		// One key for every set, so that they keep the same flows.
		key := rng.Uint64()
		one[0] = f.Span.Seconds()
		s.spans.add(key, one[:], nil)
		busy += one[0]
		one[0] = 0
		if f.Good {
			one[0] = float64(f.OutputTokens)
		}
		s.good.add(key, one[:], nil)
		if !f.Canceled {
			one[0] = 0
			if f.Good {
				one[0] = 1
			}
			s.judged.add(key, one[:], nil)
		}
	}
	block := 1
	if w > 0 {
		block = blockOf(busy/w, s.count)
	}
	s.spans.finish(block)
	s.good.finish(block)
	s.judged.finish(block)
	return s
}

// replicates adds s's bootstrap replicates to set under the names in
// stats: percentiles ps of the span (est holds the run's own, from
// metrics), and flow goodput and attainment when the run had an SLO (gp
// holds their values, nil without one).
func (s *flowSamples) replicates(set replicateSet, stats flowStats, rng func(metrics.Metric) *rand.Rand, n int, ps, est []float64, m metrics.Method, gp *metrics.FlowGoodput) {
	if s == nil {
		return
	}
	if reps := s.spans.replicates(rng(stats.span), n, ps, est, m); reps != nil {
		for k, p := range ps {
			set[statKey{stats.span, p}] = reps[k]
		}
	}
	if gp == nil {
		return
	}
	if s.window > 0 {
		if reps := s.good.meanReplicates(rng(stats.goodput), n, float64(s.count)/s.window, gp.OutputTokensPerSecond); reps != nil {
			set[statKey{stats.goodput, 0}] = reps
		}
	}
	if reps := s.judged.meanReplicates(rng(stats.attainment), n, 1, gp.Attainment); reps != nil {
		set[statKey{stats.attainment, 0}] = reps
	}
}
