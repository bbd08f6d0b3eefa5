package calibration

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sim"
)

// Options builds the simulator options of point p on top of base: p's GPU,
// model, precision and tensor parallelism, and vLLM's offline engine
// defaults for offline points. Errors name what the simulator lacks.
func (p Point) Options(base sim.Options) (sim.Options, error) {
	opts := base
	g, err := sim.LookupGPU(p.GPU)
	if err != nil {
		return opts, fmt.Errorf("%s: %w", p.ID, err)
	}
	m, err := sim.LookupModel(modelName(p.Model))
	if err != nil {
		return opts, fmt.Errorf("%s: %w", p.ID, err)
	}
	weights, kv := precision(p.Precision)
	if weights != "" && weights != "bf16" {
		m.WeightDType = weights
	}
	opts.Profile.GPU, opts.Profile.Model, opts.Profile.TensorParallel = g, m, p.TensorParallel
	if kv != "" {
		opts.Profile.KVCacheDType = kv
	}
	opts.Offline = p.Offline
	return opts, nil
}

// precision reads a precision column ("BF16", "BF16/FP16", "FP8", "FP8,
// KV FP8", "AWQ") as a weight format and a KV cache format ("" for the
// model's own).
func precision(s string) (weights, kv string) {
	lower := strings.ToLower(s)
	if i := strings.Index(lower, "kv"); i >= 0 {
		if strings.Contains(lower[i:], "fp8") {
			kv = "fp8"
		}
		lower = lower[:i]
	}
	switch {
	case strings.Contains(lower, "fp8"):
		weights = "fp8"
	case strings.Contains(lower, "awq"), strings.Contains(lower, "gptq"), strings.Contains(lower, "int4"), strings.Contains(lower, "w4"):
		weights = "int4"
	case strings.Contains(lower, "mxfp4"):
		weights = "mxfp4"
	case strings.Contains(lower, "int8"), strings.Contains(lower, "w8a8"):
		weights = "int8"
	default:
		weights = "bf16"
	}
	return weights, kv
}

// shapeRe finds the model a row says it has the shape of: "Meta-Llama-3-8B
// (Llama-3.1-8B shape)".
var shapeRe = regexp.MustCompile(`\(([^()]+?)\s+shape\)`)

// modelName is the name to look the point's model up by.
func modelName(s string) string {
	if m := shapeRe.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if i := strings.IndexByte(s, '('); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// Simulate runs p on the simulator that base describes, in virtual time, and
// returns what the simulator measures, computed as vllm bench serve does:
// output throughput over the run from its first request to its last
// completion, and TTFT and TPOT (excluding the first token) over the
// requests, as the published figures' statistics say.
func Simulate(p Point, base sim.Options) (Metrics, error) {
	opts, err := p.Options(base)
	if err != nil {
		return Metrics{}, err
	}
	return simulate(p, opts)
}

func simulate(p Point, opts sim.Options) (Metrics, error) {
	plan := p.Plan()
	var err error
	var recs []record.Record
	if plan.Concurrency > 0 {
		recs, err = sim.RunVirtualClosed(opts, plan.Concurrency, plan.Requests)
	} else {
		recs, err = sim.RunVirtual(opts, plan.Requests)
	}
	if err != nil {
		return Metrics{}, fmt.Errorf("%s: %w", p.ID, err)
	}
	return measure(recs, p.Published)
}

// measure computes the metrics of recs, with the statistics of pub.
func measure(recs []record.Record, pub Metrics) (Metrics, error) {
	var ttft, tpot, e2e []float64
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	tokens := 0
	for i := range recs {
		r := &recs[i]
		if !r.OK() {
			return Metrics{}, fmt.Errorf("request %d failed: %s", r.Seq, r.Msg)
		}
		first, last = min(first, r.Sent), max(last, r.End)
		tokens += r.OutputTokens
		c1, ok := r.FirstToken()
		if !ok {
			continue
		}
		ttft = append(ttft, float64(c1-r.Sent)/1e6)
		e2e = append(e2e, float64(r.End-r.Sent)/1e6)
		if r.OutputTokens > 1 {
			tpot = append(tpot, float64(r.End-c1)/1e6/float64(r.OutputTokens-1))
		}
	}
	m := Metrics{TTFTStat: pub.TTFTStat, TPOTStat: pub.TPOTStat}
	if last > first {
		m.OutputTokS = float64(tokens) / (float64(last-first) / 1e9)
	}
	m.TTFT = summarise(ttft, pub.TTFTStat)
	if n := pub.TPOTStat.PerTokens; n > 0 {
		m.TPOT = summarise(e2e, Stat{}) / float64(n)
	} else {
		m.TPOT = summarise(tpot, pub.TPOTStat)
	}
	return m, nil
}

func summarise(xs []float64, s Stat) float64 {
	if len(xs) == 0 {
		return 0
	}
	if s.Median {
		xs = slices.Clone(xs)
		slices.Sort(xs)
		n := len(xs)
		if n%2 == 1 {
			return xs[n/2]
		}
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
