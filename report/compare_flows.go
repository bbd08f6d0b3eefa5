package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/slo"
)

// The statistics of sessions and agent tasks a comparison resamples. They
// are not metrics of a request: the spans are named as gates name them,
// and the other names only key their replicates.
const (
	statSessionDuration   = metrics.MetricSessionDuration
	statSessionGoodput    = metrics.Metric(slo.SessionGoodput)
	statSessionAttainment = metrics.Metric(slo.SessionAttainment)
	statTaskCompletion    = metrics.MetricTaskCompletion
	statTaskGoodput       = metrics.Metric(slo.TaskGoodput)
	statTaskAttainment    = metrics.Metric(slo.TaskAttainment)
)

// flowStats names one kind of flow's resampled statistics: the span's
// percentiles, and goodput and attainment (as p 0).
type flowStats struct{ span, goodput, attainment metrics.Metric }

// WarnFlows says one run replayed sessions (or agent tasks) and the other
// did not, or that their sessions differ in shape.
const WarnFlows WarningKind = "flows"

// maxTurnsGap is the relative difference of the mean turns (calls) per
// session (task) above which two runs' sessions (tasks) differ in shape.
const maxTurnsGap = 0.1

// flowView reads one kind of flow of a run.
type flowView struct {
	kind  flowKind
	stats flowStats
	// goodput and attainment are the gates' names of the flows' goodput
	// and attainment.
	goodput, attainment slo.Scalar
	// counts returns the run's counts, span distribution and goodput,
	// and whether it had flows of the kind.
	counts  func(*metrics.Result) (metrics.FlowCounts, *metrics.Distribution, *metrics.FlowGoodput, bool)
	samples func(*Run) *flowSamples
}

var flowViews = []flowView{
	{sessionKind, flowStats{statSessionDuration, statSessionGoodput, statSessionAttainment}, slo.SessionGoodput, slo.SessionAttainment, func(r *metrics.Result) (metrics.FlowCounts, *metrics.Distribution, *metrics.FlowGoodput, bool) {
		if s := r.Sessions; s != nil {
			return s.FlowCounts, &s.Duration, s.Goodput, true
		}
		return metrics.FlowCounts{}, nil, nil, false
	}, func(r *Run) *flowSamples { return r.sessions }},
	{taskKind, flowStats{statTaskCompletion, statTaskGoodput, statTaskAttainment}, slo.TaskGoodput, slo.TaskAttainment, func(r *metrics.Result) (metrics.FlowCounts, *metrics.Distribution, *metrics.FlowGoodput, bool) {
		if t := r.Tasks; t != nil {
			return t.FlowCounts, &t.Completion, t.Goodput, true
		}
		return metrics.FlowCounts{}, nil, nil, false
	}, func(r *Run) *flowSamples { return r.tasks }},
}

// has reports whether run r had flows of v's kind.
func (v flowView) has(r *Run) bool {
	_, _, _, ok := v.counts(r.Result)
	return ok
}

// flowReplicates adds run r's replicates of its sessions' and tasks'
// statistics to set, each from its own random stream as bootstrapRuns
// seeds them.
func flowReplicates(set replicateSet, r *Run, seed uint64, n int, m metrics.Method, ps []float64) {
	stream := func(mt metrics.Metric) *rand.Rand { return rand.New(rand.NewPCG(seed, r.fingerprint^metricSalt(mt))) }
	for _, v := range flowViews {
		_, d, g, ok := v.counts(r.Result)
		if !ok {
			continue
		}
		est := make([]float64, len(ps))
		for k, p := range ps {
			if x, ok := d.Percentile(p); ok {
				est[k] = x
			} else {
				est[k] = math.NaN()
			}
		}
		v.samples(r).replicates(set, v.stats, stream, n, ps, est, m, g)
	}
}

// flowRows are the rows of the sessions and tasks when a run had them: how
// many, their goodput and attainment when a run had an SLO, and their
// span's p50 and p99; goodput and the span get intervals from resampling
// whole flows. A run without them has n/a in every row.
func flowRows(runs []*Run) []rowSpec {
	var specs []rowSpec
	for _, v := range flowViews {
		if !slices.ContainsFunc(runs, v.has) {
			continue
		}
		read := func(f func(metrics.FlowCounts, *metrics.Distribution, *metrics.FlowGoodput) float64) func(*Run) float64 {
			return func(r *Run) float64 {
				c, d, g, ok := v.counts(r.Result)
				if !ok {
					return math.NaN()
				}
				return f(c, d, g)
			}
		}
		k := v.kind
		specs = append(specs, rowSpec{key: k.units, label: k.units, unit: UnitCount, pi: -1,
			value: read(func(c metrics.FlowCounts, _ *metrics.Distribution, _ *metrics.FlowGoodput) float64 {
				return float64(c.Count)
			})})
		slo := slices.ContainsFunc(runs, func(r *Run) bool { _, _, g, _ := v.counts(r.Result); return g != nil })
		if slo {
			goodput := func(_ metrics.FlowCounts, _ *metrics.Distribution, g *metrics.FlowGoodput) float64 {
				if g == nil {
					return math.NaN()
				}
				return g.OutputTokensPerSecond
			}
			attainment := func(_ metrics.FlowCounts, _ *metrics.Distribution, g *metrics.FlowGoodput) float64 {
				if g == nil {
					return math.NaN()
				}
				return g.Attainment
			}
			specs = append(specs,
				// pi 0 marks a bootstrapped statistic; p 0 keys goodput's
				// and attainment's.
				rowSpec{key: k.unit + "_goodput", label: k.unit + " goodput", unit: UnitTokensPS, better: 1, metric: v.stats.goodput, pi: 0, value: read(goodput)},
				rowSpec{key: k.unit + "_attainment", label: k.unit + " attainment", unit: UnitFraction, better: 1, metric: v.stats.attainment, pi: 0, value: read(attainment)})
		}
		for i, p := range comparedPercentiles {
			specs = append(specs, rowSpec{key: fmt.Sprintf("%s_p%s", v.stats.span, pct(p)), label: fmt.Sprintf("%s p%s", k.span, pct(p)),
				unit: UnitSeconds, better: -1, metric: v.stats.span, p: p, pi: i,
				value: read(func(_ metrics.FlowCounts, d *metrics.Distribution, _ *metrics.FlowGoodput) float64 {
					if x, ok := d.Percentile(p); ok && d.Count > 0 {
						return x
					}
					return math.NaN()
				})})
		}
	}
	return specs
}

// flowGateStat returns the resampled statistic of a gate on the flows'
// goodput, attainment or span (a percentile; the median is p50).
func flowGateStat(q slo.Gate) (statKey, bool) {
	for _, v := range flowViews {
		switch {
		case q.Stat == slo.StatScalar && q.Scalar == v.goodput:
			return statKey{v.stats.goodput, 0}, true
		case q.Stat == slo.StatScalar && q.Scalar == v.attainment:
			return statKey{v.stats.attainment, 0}, true
		case q.Metric == v.stats.span && q.Stat == slo.StatPercentile:
			return statKey{v.stats.span, q.P}, true
		case q.Metric == v.stats.span && q.Stat == slo.StatMedian:
			return statKey{v.stats.span, 50}, true
		}
	}
	return statKey{}, false
}

// flowWarnings says where run b's sessions (tasks) cannot be set against
// the baseline a's: one has them and the other not, or their turns
// (calls) per session (task) differ.
func flowWarnings(a, b *Run, i int) []Warning {
	var out []Warning
	for _, v := range flowViews {
		ca, _, _, oka := v.counts(a.Result)
		cb, _, _, okb := v.counts(b.Result)
		k := v.kind
		switch {
		case oka && !okb:
			out = append(out, Warning{Kind: WarnFlows, Run: i, Text: fmt.Sprintf("the baseline replayed %s but run %s did not: its %s figures are n/a, not comparable", k.units, runLetter(i), k.unit)})
		case okb && !oka:
			out = append(out, Warning{Kind: WarnFlows, Run: i, Text: fmt.Sprintf("run %s replayed %s but the baseline did not: the baseline's %s figures are n/a, not comparable", runLetter(i), k.units, k.unit)})
		case oka && okb && ca.Count > 0 && cb.Count > 0:
			pa, pb := float64(ca.Requests)/float64(ca.Count), float64(cb.Requests)/float64(cb.Count)
			if math.Abs(pb-pa) > maxTurnsGap*pa {
				out = append(out, Warning{Kind: WarnFlows, Run: i, Text: fmt.Sprintf("%s per %s differ: %s in the baseline, %s in run %s; %s and %s goodput depend on them",
					k.parts, k.unit, f2(pa), f2(pb), runLetter(i), k.span, k.unit)})
			}
		}
	}
	return out
}

// flowNote is what the note on the intervals adds when the comparison has
// rows of sessions or tasks; "" otherwise.
func flowNote(c *Comparison) string {
	if c.Row(sessionKind.units) == nil && c.Row(taskKind.units) == nil {
		return ""
	}
	return " Session and task rows resample whole sessions and tasks, in blocks of those in flight together."
}
