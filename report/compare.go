package report

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/slo"
)

// Bootstrap defaults.
const (
	DefaultResamples  = 1000
	DefaultConfidence = 0.95
	MaxResamples      = 100_000
)

// CompareOptions configure Compare. The zero value uses the defaults.
type CompareOptions struct {
	// Resamples is the number of bootstrap resamples per run; zero means
	// DefaultResamples.
	Resamples int
	// Confidence is the coverage of the intervals (0.95 for 95 %); zero
	// means DefaultConfidence.
	Confidence float64
	// Seed makes the resampling reproducible; zero means 1.
	Seed uint64
	// Gates are checked on every run but the baseline.
	Gates slo.Gates
	// Regressions are checked on every run against the baseline. A
	// regression gate is judged as the comparison judges the difference:
	// one whose bootstrap interval holds zero is noise and counts as no
	// change, so a gate never fails on a difference the same output calls
	// noise. The percentiles of the latencies and of the sessions' and
	// tasks' spans have intervals, as do the sessions' and tasks' goodput
	// and attainment; other quantities (throughput, request attainment, a
	// mean) are judged on their point estimates, and the result says so.
	Regressions []RegressionGate
	// PointEstimate judges every regression gate on the point estimates
	// alone, noise or not: the strict gate some CI set-ups want.
	PointEstimate bool
}

// Validate reports the first option out of range.
func (o CompareOptions) Validate() error {
	if o.Resamples < 0 || o.Resamples > MaxResamples {
		return fmt.Errorf("resamples %d: want 1 to %d (0 for the default %d)", o.Resamples, MaxResamples, DefaultResamples)
	}
	if o.Resamples > 0 && o.Resamples < 100 {
		return fmt.Errorf("resamples %d: at least 100 are needed for a %g %% interval's tails", o.Resamples, 100*DefaultConfidence)
	}
	if o.Confidence != 0 && !(o.Confidence > 0.5 && o.Confidence < 1) {
		return fmt.Errorf("confidence %g: want a fraction between 0.5 and 1", o.Confidence)
	}
	return nil
}

// Comparison is runs set side by side against the first, the baseline.
type Comparison struct {
	Runs []*Run
	Rows []Row
	// Warnings say why runs may not be comparable.
	Warnings []Warning
	// Gates holds, for each run (index as in Runs; nil for the baseline),
	// the results of CompareOptions.Gates.
	Gates       [][]slo.GateResult
	Regressions []RegressionResult
	// Pass is true when every gate and regression gate passed.
	Pass bool
	// PointEstimate is CompareOptions.PointEstimate: regression gates
	// were judged on point estimates rather than intervals.
	PointEstimate bool

	Method     metrics.Method
	Resamples  int
	Confidence float64
	Seed       uint64
}

// Row is one key metric across the runs.
type Row struct {
	Key   string // stable name: "ttft_p99", "output_throughput"
	Label string // for people: "TTFT p99"
	Unit  Unit
	// Better says which way is an improvement: -1 lower (latency, errors),
	// +1 higher (throughput), 0 neither (request counts, lengths).
	Better int
	Values []float64 // per run; NaN when a run does not define it
	// Diffs compares each run with the baseline; Diffs[0] is the baseline
	// with itself.
	Diffs []Diff
}

// Unit says how a row's values are written.
type Unit string

// Units of rows.
const (
	UnitSeconds  Unit = "s"     // written as milliseconds
	UnitTokensPS Unit = "tok/s" // tokens per second
	UnitReqPS    Unit = "req/s"
	UnitFraction Unit = "fraction" // written as a percentage
	UnitCount    Unit = ""
)

// Diff is one run's difference from the baseline in one metric.
type Diff struct {
	Abs float64 // run − baseline
	Rel float64 // Abs ÷ baseline; NaN when the baseline is 0 or undefined
	// HasCI says Lo and Hi hold a bootstrap interval of Abs.
	HasCI  bool
	Lo, Hi float64
	// Verdict is "noise" when the interval holds zero, else "better" or
	// "worse"; empty without an interval.
	Verdict string
}

// Verdicts of a Diff.
const (
	Noise  = "noise"
	Better = "better"
	Worse  = "worse"
)

// Compare sets runs side by side against runs[0]. The p50 and p99 of TTFT,
// TPOT, ITL and e2e get bootstrap confidence intervals for their
// differences. Each run is resampled on its own, in blocks of consecutive
// requests (see blockSize) drawn with replacement, each request with all
// its ITLs; the interval is the central Confidence share of the
// differences between resampled runs. A difference whose interval holds
// zero is called noise. Resampling single requests instead would ignore
// that requests in flight together share the server's state: on two runs
// of one seeded load it called about three differences in ten real, where
// blocks call about one in twenty, as a 95 % interval should.
//
// The intervals cover what varies between runs of the same schedule. Two
// runs whose arrivals were drawn with different seeds offered different
// loads (a Poisson run's busiest minute differs), which these intervals do
// not cover; compare runs of the same seeded schedule.
//
// The runs must have been read with the same percentile method, and with
// 50 and 99 among their percentiles (Compare reports the row as NaN when a
// run lacks one).
func Compare(runs []*Run, o CompareOptions) (*Comparison, error) {
	if len(runs) < 2 {
		return nil, errors.New("compare: need at least two runs")
	}
	for i, r := range runs {
		if r == nil || r.Result == nil {
			return nil, fmt.Errorf("compare: run %d is empty", i+1)
		}
	}
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.Confidence == 0 {
		o.Confidence = DefaultConfidence
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	method := runs[0].Result.Method
	for i, r := range runs[1:] {
		if r.Result.Method != method {
			return nil, fmt.Errorf("compare: run %d was read with %s percentiles and the baseline with %s: read them alike", i+2, r.Result.Method, method)
		}
	}
	c := &Comparison{Runs: runs, Method: method, Resamples: o.Resamples, Confidence: o.Confidence, Seed: o.Seed, Pass: true, PointEstimate: o.PointEstimate}
	stats := bootstrapStats(o.Regressions)
	reps := bootstrapRuns(runs, bootstrapMetrics(runs, o.Regressions), o.Resamples, o.Seed, method, stats)
	c.Rows = compareRows(runs, reps, o.Confidence)
	c.Warnings = comparability(runs)
	c.Gates = make([][]slo.GateResult, len(runs))
	for i, r := range runs {
		if i == 0 || len(o.Gates) == 0 {
			continue
		}
		res, ok := o.Gates.Eval(r.Result)
		c.Gates[i] = res
		c.Pass = c.Pass && ok
	}
	for i, r := range runs[1:] {
		for _, g := range o.Regressions {
			res := g.Eval(runs[0].Result, r.Result)
			res.Run = i + 1
			judgeRegression(&res, reps[0], reps[i+1], o)
			c.Regressions = append(c.Regressions, res)
			c.Pass = c.Pass && res.Pass
		}
	}
	return c, nil
}

// comparedPercentiles are the percentiles whose differences get intervals
// in every comparison's rows.
var comparedPercentiles = []float64{50, 99}

// statKey names a bootstrapped statistic: a percentile of a metric.
type statKey struct {
	metric metrics.Metric
	p      float64
}

// replicateSet holds one run's bootstrap replicates of each statistic.
type replicateSet map[statKey][]float64

// bootstrapStats returns the percentiles to resample for every compared
// metric: those of the rows, and those a regression gate reads.
func bootstrapStats(gates []RegressionGate) []float64 {
	ps := slices.Clone(comparedPercentiles)
	for _, g := range gates {
		if k, ok := gateStat(g); ok && g.Quantity.Stat != slo.StatScalar && !slices.Contains(ps, k.p) {
			ps = append(ps, k.p)
		}
	}
	return ps
}

// bootstrapMetrics returns the metrics whose percentiles get intervals:
// comparedMetrics, and TTFA when a run reasoned or a regression gate
// reads it.
func bootstrapMetrics(runs []*Run, gates []RegressionGate) []metrics.Metric {
	ms := comparedMetrics
	ttfa := slices.ContainsFunc(runs, func(r *Run) bool { return r.Result.Reasoning != nil }) ||
		slices.ContainsFunc(gates, func(g RegressionGate) bool { return g.Quantity.Metric == metrics.MetricTTFA })
	if ttfa {
		ms = append(slices.Clone(ms), metrics.MetricTTFA)
	}
	return ms
}

// gateStat returns the resampled statistic a regression gate reads, when
// there is one: a percentile of a compared metric (the median is p50), or
// of the sessions' (tasks') span, or their goodput or attainment.
func gateStat(g RegressionGate) (statKey, bool) {
	q := g.Quantity
	if k, ok := flowGateStat(q); ok {
		return k, true
	}
	if q.Stat == slo.StatScalar || !slices.Contains(comparedMetrics, q.Metric) && q.Metric != metrics.MetricTTFA {
		return statKey{}, false
	}
	switch q.Stat {
	case slo.StatPercentile:
		return statKey{q.Metric, q.P}, true
	case slo.StatMedian:
		return statKey{q.Metric, 50}, true
	}
	return statKey{}, false
}

// bootstrapRuns resamples each run on its own goroutine. Each run's
// generator is seeded from seed and the run's own values (its
// fingerprint), never from its place in the list: the verdict on a pair
// of runs is then the same whichever other runs are compared with them.
func bootstrapRuns(runs []*Run, mts []metrics.Metric, n int, seed uint64, m metrics.Method, ps []float64) []replicateSet {
	out := make([]replicateSet, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			set := replicateSet{}
			for _, mt := range mts {
				// One stream per metric, so that adding a percentile to
				// resample cannot move another metric's replicates.
				rng := rand.New(rand.NewPCG(seed, r.fingerprint^metricSalt(mt)))
				d := r.Result.Distribution(mt)
				est := make([]float64, len(ps))
				for k, p := range ps {
					v, ok := d.Percentile(p)
					if !ok {
						v = math.NaN()
					}
					est[k] = v
				}
				reps := r.samplesOf(mt).replicates(rng, n, ps, est, m)
				for k, p := range ps {
					if reps != nil {
						set[statKey{mt, p}] = reps[k]
					}
				}
			}
			flowReplicates(set, r, seed, n, m, ps)
			out[i] = set
		}()
	}
	wg.Wait()
	return out
}

// metricSalt tells the metrics' random streams apart.
func metricSalt(m metrics.Metric) uint64 {
	h := fnv.New64a()
	h.Write([]byte(m))
	return h.Sum64()
}

// rowSpec defines a key metric.
type rowSpec struct {
	key, label string
	unit       Unit
	better     int
	value      func(r *Run) float64
	// metric and p name the bootstrapped statistic, when there is one.
	metric metrics.Metric
	p      float64
	pi     int // index into comparedPercentiles; -1 for no interval
}

func rowSpecs(runs []*Run) []rowSpec {
	specs := []rowSpec{
		{key: "requests", label: "requests", unit: UnitCount, value: func(r *Run) float64 { return float64(r.Result.Counts.Total) }, pi: -1},
		{key: "error_rate", label: "error rate", unit: UnitFraction, better: -1, value: func(r *Run) float64 { return r.Result.Counts.ErrorRate }, pi: -1},
		{key: "output_throughput", label: "output throughput", unit: UnitTokensPS, better: 1, value: func(r *Run) float64 { return r.Result.Throughput.OutputTokensPerSecond }, pi: -1},
		{key: "request_throughput", label: "request throughput", unit: UnitReqPS, better: 1, value: func(r *Run) float64 { return r.Result.Throughput.RequestsPerSecond }, pi: -1},
	}
	withSLO := false
	for _, r := range runs {
		withSLO = withSLO || r.Result.Goodput != nil
	}
	if withSLO {
		specs = append(specs,
			rowSpec{key: "goodput", label: "goodput", unit: UnitTokensPS, better: 1, value: func(r *Run) float64 {
				if r.Result.Goodput == nil {
					return math.NaN()
				}
				return r.Result.Goodput.OutputTokensPerSecond
			}, pi: -1},
			rowSpec{key: "attainment", label: "SLO attainment", unit: UnitFraction, better: 1, value: func(r *Run) float64 {
				if r.Result.Goodput == nil {
					return math.NaN()
				}
				return r.Result.Goodput.Attainment
			}, pi: -1})
	}
	names := map[metrics.Metric]string{metrics.MetricTTFT: "TTFT", metrics.MetricTPOT: "TPOT", metrics.MetricITL: "ITL", metrics.MetricE2E: "e2e", metrics.MetricTTFA: "TTFA"}
	reasoned := slices.ContainsFunc(runs, func(r *Run) bool { return r.Result.Reasoning != nil })
	mts := comparedMetrics
	if reasoned {
		mts = append(slices.Clone(mts), metrics.MetricTTFA)
	}
	for _, mt := range mts {
		for k, p := range comparedPercentiles {
			specs = append(specs, rowSpec{
				key: fmt.Sprintf("%s_p%s", mt, pct(p)), label: fmt.Sprintf("%s p%s", names[mt], pct(p)),
				unit: UnitSeconds, better: -1, metric: mt, p: p, pi: k,
				value: func(r *Run) float64 {
					d := r.Result.Distribution(mt)
					if v, ok := d.Percentile(p); ok && d.Count > 0 {
						return v
					}
					return math.NaN()
				},
			})
		}
	}
	if reasoned {
		specs = append(specs, reasoningRows()...)
	}
	specs = append(specs, flowRows(runs)...)
	specs = append(specs,
		rowSpec{key: "input_tokens_mean", label: "mean input tokens", unit: UnitCount, value: func(r *Run) float64 { return meanOf(r.InputLens) }, pi: -1},
		rowSpec{key: "output_tokens_mean", label: "mean output tokens", unit: UnitCount, value: func(r *Run) float64 { return meanOf(r.OutputLens) }, pi: -1},
	)
	return specs
}

// reasoningRows are the rows a comparison adds when a run reasoned: TPOT
// over each kind of token (point estimates), and the reasoning and answer
// tokens per completed request. A run without reasoning has TPOT over the
// answer = TPOT, no TPOT over reasoning (NaN) and no reasoning tokens.
func reasoningRows() []rowSpec {
	p50 := func(mt metrics.Metric) func(r *Run) float64 {
		return func(r *Run) float64 {
			if d := r.Result.Distribution(mt); d.Count > 0 {
				return d.Median
			}
			return math.NaN()
		}
	}
	perRequest := func(tokens func(*metrics.Reasoning) int64, without func(r *Run) int64) func(r *Run) float64 {
		return func(r *Run) float64 {
			n := r.Result.Counts.Completed
			if n == 0 {
				return math.NaN()
			}
			if rs := r.Result.Reasoning; rs != nil {
				return float64(tokens(rs)) / float64(n)
			}
			return float64(without(r)) / float64(n)
		}
	}
	return []rowSpec{
		{key: "tpot_reasoning_p50", label: "TPOT over reasoning p50", unit: UnitSeconds, better: -1, value: p50(metrics.MetricTPOTReasoning), pi: -1},
		{key: "tpot_answer_p50", label: "TPOT over the answer p50", unit: UnitSeconds, better: -1, value: p50(metrics.MetricTPOTAnswer), pi: -1},
		{key: "reasoning_tokens_mean", label: "mean reasoning tokens", unit: UnitCount, pi: -1,
			value: perRequest(func(rs *metrics.Reasoning) int64 { return rs.ReasoningTokens }, func(*Run) int64 { return 0 })},
		{key: "answer_tokens_mean", label: "mean answer tokens", unit: UnitCount, pi: -1,
			value: perRequest(func(rs *metrics.Reasoning) int64 { return rs.AnswerTokens }, func(r *Run) int64 { return r.Result.Tokens.Output })},
	}
}

func meanOf(xs []int32) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range xs {
		s += float64(x)
	}
	return s / float64(len(xs))
}

func compareRows(runs []*Run, reps []replicateSet, conf float64) []Row {
	var rows []Row
	for _, sp := range rowSpecs(runs) {
		row := Row{Key: sp.key, Label: sp.label, Unit: sp.unit, Better: sp.better}
		for _, r := range runs {
			row.Values = append(row.Values, sp.value(r))
		}
		base := row.Values[0]
		for i, v := range row.Values {
			d := Diff{Abs: v - base, Rel: math.NaN()}
			if base != 0 && usable(base) && usable(v) {
				d.Rel = d.Abs / math.Abs(base)
			}
			if i > 0 && sp.pi >= 0 && usable(d.Abs) {
				k := statKey{sp.metric, sp.p}
				if a, b := reps[0][k], reps[i][k]; a != nil && b != nil {
					d.Lo, d.Hi, d.HasCI = interval(a, b, conf)
				}
				if d.HasCI {
					d.Verdict = judge(d, sp.better)
				}
			}
			row.Diffs = append(row.Diffs, d)
		}
		rows = append(rows, row)
	}
	return rows
}

// judge calls a difference noise when its interval holds zero, else
// better or worse by the direction that improves the metric.
func judge(d Diff, better int) string {
	if d.Lo <= 0 && d.Hi >= 0 {
		return Noise
	}
	if (d.Lo > 0) == (better > 0) {
		return Better
	}
	return Worse
}

// judgeRegression sets how res was judged. With an interval for its
// quantity (and without o.PointEstimate), a difference the interval calls
// noise counts as no change: the gate is checked on a regression of 0, so
// it passes unless it demands an improvement.
func judgeRegression(res *RegressionResult, base, run replicateSet, o CompareOptions) {
	res.Judged = JudgedPoint
	if res.Problem != "" {
		return
	}
	k, ok := gateStat(res.Gate)
	if !ok {
		if !o.PointEstimate {
			res.Note = "no interval for this quantity: judged on the point estimate"
		}
		return
	}
	a, b := base[k], run[k]
	if a == nil || b == nil {
		return
	}
	lo, hi, ok := interval(a, b, o.Confidence)
	if !ok {
		return
	}
	res.HasCI, res.Lo, res.Hi, res.Confidence = true, lo, hi, o.Confidence
	better := 1
	if res.Gate.higherIsWorse() {
		better = -1
	}
	res.Verdict = judge(Diff{Lo: lo, Hi: hi}, better)
	if o.PointEstimate {
		return
	}
	res.Judged = JudgedInterval
	if res.Verdict == Noise {
		point := res.Pass
		res.Pass = compare(0, res.Gate.Op, res.Gate.Limit)
		if point != res.Pass {
			res.Note = "within the noise, counted as no change; judged on the point estimate it would " + map[bool]string{true: "pass", false: "fail"}[point]
		} else {
			res.Note = "within the noise, counted as no change"
		}
	}
}

// Row returns the row with the given key, or nil.
func (c *Comparison) Row(key string) *Row {
	for i := range c.Rows {
		if c.Rows[i].Key == key {
			return &c.Rows[i]
		}
	}
	return nil
}
