package bench

import (
	"fmt"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// vllmCollector gathers the per-request arrays of a `vllm bench serve
// --save-result --save-detailed` JSON, so scripts written for that file keep
// working on goodput's runs.
type vllmCollector struct {
	on         bool
	inputLens  []int
	outputLens []int
	ttfts      []float64
	itls       [][]float64
	starts     []float64
	errors     []string
}

func newVLLMCollector(on bool) *vllmCollector { return &vllmCollector{on: on} }

func (v *vllmCollector) add(r *record.Record) {
	if !v.on || r.Warmup {
		return
	}
	v.inputLens = append(v.inputLens, r.InputTokens)
	v.starts = append(v.starts, float64(r.Sent)/1e9)
	itl := []float64{}
	ttft := 0.0
	if len(r.Chunks) > 0 {
		// vLLM measures TTFT from its send time.
		ttft = float64(r.Chunks[0].At-r.Sent) / 1e9
		for i := 1; i < len(r.Chunks); i++ {
			itl = append(itl, float64(r.Chunks[i].At-r.Chunks[i-1].At)/1e9)
		}
	}
	msg := ""
	out := r.OutputTokens
	if !r.OK() {
		msg = fmt.Sprintf("%s: %s", r.Error, r.Msg)
		out = 0
	}
	v.outputLens = append(v.outputLens, out)
	v.ttfts = append(v.ttfts, ttft)
	v.itls = append(v.itls, itl)
	v.errors = append(v.errors, msg)
}

// write saves the file. The aggregate fields use goodput's definitions
// (TTFT from the scheduled time); the per-request arrays use vLLM's (TTFT
// from the send time).
func (v *vllmCollector) write(path string, cfg Config, model string, res *metrics.Result) error {
	rate := any(cfg.Arrival.RequestRate)
	if cfg.Arrival.RequestRate > 1e300 {
		rate = "inf"
	}
	var maxConc any
	if cfg.Arrival.MaxConcurrency > 0 {
		maxConc = cfg.Arrival.MaxConcurrency
	}
	texts := make([]string, len(v.ttfts))
	m := map[string]any{
		"date":                   time.Now().Format("20060102-150405"),
		"backend":                cfg.Backend,
		"model_id":               model,
		"tokenizer_id":           model,
		"num_prompts":            len(v.ttfts),
		"request_rate":           rate,
		"burstiness":             cfg.Arrival.Burstiness,
		"max_concurrency":        maxConc,
		"duration":               res.Window.Seconds,
		"completed":              res.Counts.Completed,
		"failed":                 res.Counts.Failed,
		"total_input_tokens":     res.Tokens.Input,
		"total_output_tokens":    res.Tokens.Output,
		"request_throughput":     res.Throughput.RequestsPerSecond,
		"output_throughput":      res.Throughput.OutputTokensPerSecond,
		"total_token_throughput": res.Throughput.TotalTokensPerSecond,
		"input_lens":             v.inputLens,
		"output_lens":            v.outputLens,
		"ttfts":                  v.ttfts,
		"itls":                   v.itls,
		"start_times":            v.starts,
		"generated_texts":        texts,
		"errors":                 v.errors,
		"percentile_method":      res.Method.String(),
	}
	if g := res.Goodput; g != nil {
		m["request_goodput"] = g.RequestsPerSecond
	}
	for _, x := range []struct {
		key string
		m   metrics.Metric
	}{{"ttft", metrics.MetricTTFT}, {"tpot", metrics.MetricTPOT}, {"itl", metrics.MetricITL}, {"e2el", metrics.MetricE2E}} {
		d := res.Distribution(x.m)
		m["mean_"+x.key+"_ms"] = 1e3 * d.Mean
		m["median_"+x.key+"_ms"] = 1e3 * d.Median
		m["std_"+x.key+"_ms"] = 1e3 * d.Std
		for _, pv := range d.Percentiles {
			m["p"+strconv.FormatFloat(pv.P, 'f', -1, 64)+"_"+x.key+"_ms"] = 1e3 * pv.Value
		}
	}
	return writeJSON(path, m)
}
