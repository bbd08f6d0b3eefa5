package report

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/metrics"
)

// Warning says why a run may not be comparable with the baseline.
type Warning struct {
	Kind WarningKind
	Run  int // index of the run compared with the baseline (0)
	Text string
}

// WarningKind classifies a comparability warning.
type WarningKind string

// The differences between runs that make their latencies and throughputs
// incomparable, as the seeds warn.
const (
	WarnOutputLengths    WarningKind = "output_lengths"    // different output-length distributions
	WarnStopCriteria     WarningKind = "stop_criteria"     // ignore_eos on one side, or different finish reasons
	WarnInputLengths     WarningKind = "input_lengths"     // different prompt lengths
	WarnWarmup           WarningKind = "warmup"            // warm-up excluded in one run, not in the other
	WarnPercentileMethod WarningKind = "percentile_method" // the runs were reported with different percentile methods
	WarnLoadShape        WarningKind = "load_shape"        // different arrival process, rate, concurrency or burstiness
	WarnReasoning        WarningKind = "reasoning"         // one run's replies reasoned, the other's did not
	WarnModel            WarningKind = "model"             // the runs served different models
	WarnFewRequests      WarningKind = "few_requests"      // too few successful requests to tell runs apart
)

// Thresholds of the comparability checks. They are wide enough that two
// runs of the same load with different seeds pass them.
const (
	// minKS is the Kolmogorov–Smirnov distance (the largest gap between two
	// empirical CDFs) below which length distributions count as the same,
	// whatever their size; smaller samples need more (see ksCritical).
	minKS = 0.1
	// maxRateGap is the relative difference of offered request rates, and
	// maxCVGap the absolute difference of the inter-arrival coefficients
	// of variation (0 for constant spacing, 1 for Poisson), above which
	// loads inferred from records differ.
	maxRateGap = 0.1
	maxCVGap   = 0.25
	// maxLengthShare is the difference in the share of requests that
	// stopped at their token limit above which stop criteria differ.
	maxLengthShare = 0.5
	// minRequests is the fewest successful requests a run needs for its
	// percentiles, and a bootstrap interval around them, to mean much:
	// resampling one request gives an interval of width zero.
	minRequests = 20
)

// comparability checks every run against the baseline.
func comparability(runs []*Run) []Warning {
	var out []Warning
	a := runs[0]
	for i, b := range runs[1:] {
		i++
		add := func(k WarningKind, format string, args ...any) {
			out = append(out, Warning{Kind: k, Run: i, Text: fmt.Sprintf(format, args...)})
		}
		if d, ok := lengthsDiffer(a.OutputLens, b.OutputLens); ok {
			add(WarnOutputLengths, "output lengths differ: mean %s tokens in the baseline, %s in run %s (KS distance %.2f); latency per request and throughput depend on them",
				human.Brief(meanOf(a.OutputLens)), human.Brief(meanOf(b.OutputLens)), runLetter(i), d)
		}
		if msg := stopDiffers(a, b, i); msg != "" {
			add(WarnStopCriteria, "%s", msg)
		}
		if ra, rb := a.Result.Reasoning != nil, b.Result.Reasoning != nil; ra != rb {
			which := func(r bool) string {
				if r {
					return "reasoned before answering"
				}
				return "did not reason"
			}
			add(WarnReasoning, "the baseline's replies %s but run %s's %s: TTFT then times different things (a first thought, a first answer); compare TTFA", which(ra), runLetter(i), which(rb))
		}
		if d, ok := lengthsDiffer(a.InputLens, b.InputLens); ok {
			add(WarnInputLengths, "input lengths differ: mean %s tokens in the baseline, %s in run %s (KS distance %.2f); prefill time, and so TTFT, depends on them",
				human.Brief(meanOf(a.InputLens)), human.Brief(meanOf(b.InputLens)), runLetter(i), d)
		}
		if wa, wb := warm(a), warm(b); wa != wb {
			which := func(w bool) string {
				if w {
					return "excluded warm-up requests"
				}
				return "measured from a cold start (no warm-up excluded)"
			}
			add(WarnWarmup, "the baseline %s but run %s %s: the first requests on a cold server are slower", which(wa), runLetter(i), which(wb))
		}
		if ma, oka := runMethod(a); oka {
			if mb, okb := runMethod(b); okb && ma != mb {
				add(WarnPercentileMethod, "the baseline was reported with %s percentiles and run %s with %s: this comparison reads both with %s, but numbers quoted from the runs' own reports differ in method",
					ma, runLetter(i), mb, a.Result.Method)
			}
		}
		if msg := loadDiffers(a, b, i); msg != "" {
			add(WarnLoadShape, "%s", msg)
		}
		if ma, mb := runModel(a), runModel(b); ma != "" && mb != "" && ma != mb {
			add(WarnModel, "the baseline served %s and run %s %s: the differences are the models' as much as the serving's", ma, runLetter(i), mb)
		}
		if na, nb := a.Result.Counts.Completed, b.Result.Counts.Completed; min(na, nb) < minRequests {
			add(WarnFewRequests, "the baseline has %d successful requests and run %s %d: percentiles of fewer than %d, and intervals resampled from them, cannot tell two runs apart; measure more requests",
				na, runLetter(i), nb, minRequests)
		}
		out = append(out, flowWarnings(a, b, i)...)
	}
	return out
}

// runModel is the model a run's header names, "" when it names none.
func runModel(r *Run) string {
	if v, ok := configValue(r.Header, "model"); ok {
		return fmt.Sprint(v)
	}
	return ""
}

// lengthsDiffer returns the KS distance of two samples of lengths and
// whether it is large enough to matter: above minKS and above what chance
// gives at the 0.1 % level for samples of their sizes.
func lengthsDiffer(a, b []int32) (float64, bool) {
	if len(a) == 0 || len(b) == 0 {
		return 0, false
	}
	d := ksDistance(a, b)
	return d, d > minKS && d > ksCritical(len(a), len(b))
}

// ksCritical is the two-sample Kolmogorov–Smirnov distance that chance
// exceeds with probability 0.001: c(α)·√((n+m)/(n·m)) with c = 1.95.
func ksCritical(n, m int) float64 {
	return 1.95 * math.Sqrt(float64(n+m)/(float64(n)*float64(m)))
}

// ksDistance is the largest gap between the empirical CDFs of a and b.
func ksDistance(a, b []int32) float64 {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	var i, j int
	d := 0.0
	for i < len(x) && j < len(y) {
		v := min(x[i], y[j])
		for i < len(x) && x[i] == v {
			i++
		}
		for j < len(y) && y[j] == v {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/float64(len(x))-float64(j)/float64(len(y))))
	}
	return d
}

// stopDiffers compares the runs' stop criteria: ignore_eos from their
// configurations when both say, else the share of requests that stopped at
// their token limit (finish reason "length").
func stopDiffers(a, b *Run, i int) string {
	ea, oka := configValue(a.Header, "ignore_eos")
	eb, okb := configValue(b.Header, "ignore_eos")
	if oka && okb {
		if fmt.Sprint(ea) != fmt.Sprint(eb) {
			return fmt.Sprintf("stop criteria differ: ignore_eos is %v in the baseline and %v in run %s, so one side stops at the model's end of text and the other at max tokens", ea, eb, runLetter(i))
		}
		return ""
	}
	la, na := lengthShare(a)
	lb, nb := lengthShare(b)
	if na == 0 || nb == 0 || math.Abs(la-lb) <= maxLengthShare {
		return ""
	}
	return fmt.Sprintf("stop criteria appear to differ: %s of the baseline's requests stopped at their token limit (finish reason \"length\"), %s of run %s's (ignore_eos on one side?)",
		percent(la), percent(lb), runLetter(i))
}

// lengthShare returns the share of completed requests whose finish reason
// was "length", among those that gave one, and how many gave one.
func lengthShare(r *Run) (float64, int64) {
	var n, l int64
	for reason, c := range r.Finish {
		if reason == "" {
			continue
		}
		n += c
		if reason == "length" {
			l += c
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(l) / float64(n), n
}

// warm reports whether the run left warm-up requests out of its numbers.
func warm(r *Run) bool {
	if r.Result.Counts.WarmupExcluded > 0 {
		return true
	}
	for _, k := range []string{"num_warmups", "warmup_seconds"} {
		if v, ok := configValue(r.Header, k); ok {
			if f, isNum := v.(float64); isNum && f > 0 {
				return true
			}
		}
	}
	return false
}

// runMethod returns the percentile method the run was reported with: its
// header's, its summary file's, or linear for a vLLM import (vLLM uses
// NumPy's default).
func runMethod(r *Run) (metrics.Method, bool) {
	if m, ok := HeaderMethod(r.Header); ok {
		return m, true
	}
	if r.Summary != nil {
		return r.Summary.Result.Method, true
	}
	if r.Format == "vllm" {
		return metrics.Linear, true
	}
	return 0, false
}

// seedPhrase matches the seed in an arrival description, which differs
// between repeats of one load and so must not count as a different shape.
var seedPhrase = regexp.MustCompile(`,? *seed -?[0-9]+`)

// loadKeys are the configuration keys that describe the offered load.
var loadKeys = []string{"arrival", "request_rate", "max_concurrency", "burstiness"}

// loadDiffers compares the offered loads: from the configurations when
// both describe them, else from the records' scheduled times (rate and
// burstiness).
func loadDiffers(a, b *Run, i int) string {
	var diffs []string
	described := false
	for _, k := range loadKeys {
		va, oka := configValue(a.Header, k)
		vb, okb := configValue(b.Header, k)
		if !oka || !okb {
			continue
		}
		described = true
		sa, sb := loadText(va), loadText(vb)
		if sa != sb {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", k, sa, sb))
		}
	}
	if described {
		if len(diffs) == 0 {
			return ""
		}
		return fmt.Sprintf("load shapes differ between the baseline and run %s: %s", runLetter(i), strings.Join(diffs, "; "))
	}
	ra, cva, oka := arrivalStats(a.Scheduled)
	rb, cvb, okb := arrivalStats(b.Scheduled)
	if !oka || !okb {
		return ""
	}
	if gap := math.Abs(rb-ra) / ra; gap > maxRateGap {
		diffs = append(diffs, fmt.Sprintf("offered %s req/s vs %s req/s", human.Brief(ra), human.Brief(rb)))
	}
	if math.Abs(cva-cvb) > maxCVGap {
		diffs = append(diffs, fmt.Sprintf("inter-arrival variation (CV) %.2f vs %.2f", cva, cvb))
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("load shapes differ between the baseline and run %s (read from the scheduled times): %s", runLetter(i), strings.Join(diffs, "; "))
}

// loadText writes a configuration value for comparison, without the seed
// of an arrival description (only its first line: the process and rate).
func loadText(v any) string {
	s, ok := v.(string)
	if !ok {
		return fmt.Sprint(v)
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(seedPhrase.ReplaceAllString(s, ""))
}

// arrivalStats returns the offered request rate (requests per second of
// the span of scheduled times) and the coefficient of variation of the
// gaps between consecutive scheduled times; ok is false with fewer than
// three requests or a zero span.
func arrivalStats(sched []int64) (rate, cv float64, ok bool) {
	if len(sched) < 3 {
		return 0, 0, false
	}
	s := slices.Clone(sched)
	slices.Sort(s)
	span := float64(s[len(s)-1]-s[0]) / 1e9
	if span <= 0 {
		return 0, 0, false
	}
	n := float64(len(s) - 1)
	mean := span / n
	var ss float64
	for k := 1; k < len(s); k++ {
		d := float64(s[k]-s[k-1])/1e9 - mean
		ss += d * d
	}
	return n / span, math.Sqrt(ss/n) / mean, true
}
