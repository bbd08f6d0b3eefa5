package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/textblock"
	"github.com/goodput-dev/goodput/metrics"
)

// TextOptions adds context to the terminal summary.
type TextOptions struct {
	Title string // heading; default "Serving Benchmark Result"
	// Notes are printed after the heading, one per line (run description,
	// generator warnings).
	Notes []string
}

// Text writes res in the layout `vllm bench serve` users know: counts,
// duration, token totals, throughputs, goodput, then a block per latency
// metric with mean, median and the requested percentiles, in milliseconds.
// goodput's additions (errors, client queue, Little's Law) follow.
func Text(w io.Writer, res *metrics.Result, o TextOptions) error {
	p := textblock.New(w)
	title := o.Title
	if title == "" {
		title = "Serving Benchmark Result"
	}
	p.Rule('=', " "+title+" ")
	for _, n := range o.Notes {
		p.Line(n)
	}
	c := res.Counts
	p.KV("Successful requests:", strconv.FormatInt(c.Completed, 10))
	if c.Canceled > 0 {
		p.KV("Failed requests:", fmt.Sprintf("%d (%d canceled: in flight at the interrupt)", c.Failed, c.Canceled))
	} else {
		p.KV("Failed requests:", strconv.FormatInt(c.Failed, 10))
	}
	if c.WarmupExcluded > 0 {
		p.KV("Warm-up requests (excluded):", strconv.FormatInt(c.WarmupExcluded, 10))
	}
	p.KV("Benchmark duration (s):", f2(res.Window.Seconds))
	p.KV("Total input tokens:", strconv.FormatInt(res.Tokens.Input, 10))
	p.KV("Total generated tokens:", strconv.FormatInt(res.Tokens.Output, 10))
	p.KV("Request throughput (req/s):", f2(res.Throughput.RequestsPerSecond))
	p.KV("Output token throughput (tok/s):", f2(res.Throughput.OutputTokensPerSecond))
	p.KV("Total Token throughput (tok/s):", f2(res.Throughput.TotalTokensPerSecond))
	if g := res.Goodput; g != nil {
		p.Rule('-', "Goodput")
		p.KV("SLO:", g.SLO)
		p.KV("Request goodput (req/s):", f2(g.RequestsPerSecond))
		p.KV("Goodput (tok/s):", f2(g.OutputTokensPerSecond))
		p.KV("Good output tokens:", fmt.Sprintf("%d of %d", g.GoodOutputTokens, res.Tokens.Output))
		p.KV("SLO attainment:", fmt.Sprintf("%.2f%% (%d of %d requests%s)", 100*g.Attainment, g.GoodRequests, c.Judged(), canceledNote(c)))
	}
	blocks := []struct {
		title, short string
		m            metrics.Metric
	}{
		{"Time to First Token", "TTFT", metrics.MetricTTFT},
		{"Time per Output Token (excl. 1st token)", "TPOT", metrics.MetricTPOT},
		{"Inter-token Latency", "ITL", metrics.MetricITL},
		{"End-to-end Latency", "E2EL", metrics.MetricE2E},
	}
	for _, b := range blocks {
		dist(p, b.title, b.short, res.Distribution(b.m))
	}
	flowBlocks(p, res)
	p.Rule('-', "Client")
	p.KV("Percentile method:", res.Method.String())
	if d := res.Distribution(metrics.MetricClientQueue); d.Count > 0 {
		p.KV("Mean client queue (ms):", f2(1e3*d.Mean))
		p.KV("Max client queue (ms):", f2(1e3*d.Max))
	}
	if ic, itl := res.Latency.InterChunk, res.Latency.ITL; ic.Count > 0 && ic.Count != itl.Count {
		p.KV("Mean inter-chunk latency (ms):", f2(1e3*ic.Mean))
	}
	if len(res.TokenSources) > 0 {
		p.KV("Output token counts from:", sources(res.TokenSources))
	}
	ll := res.LittlesLaw
	if ll.InFlight > 0 {
		p.KV("Mean requests in flight (L):", f2(ll.InFlight))
		p.KV("λ·W̄ (completions/s × mean e2e):", fmt.Sprintf("%s (gap %.1f%%)", f2(ll.RateTimesLatency), 100*ll.RelativeGap))
	}
	if len(c.Errors) > 0 {
		p.Rule('-', "Errors")
		kinds := make([]string, 0, len(c.Errors))
		for k := range c.Errors {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			v := strconv.FormatInt(c.Errors[k], 10)
			if m := c.ErrorExamples[k]; m != "" {
				v += " (first: " + shorten(m, 100) + ")"
			}
			p.KV(k+":", v)
		}
	}
	p.Rule('=', "")
	return p.Err()
}

func sources(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// dist writes one latency metric's block: mean, median and the requested
// percentiles, in milliseconds.
func dist(p *textblock.Printer, title, short string, d *metrics.Distribution) {
	p.Rule('-', title)
	if d == nil || d.Count == 0 {
		p.KV(fmt.Sprintf("%s:", short), "n/a (no sample)")
		return
	}
	p.KV(fmt.Sprintf("Mean %s (ms):", short), f2(1e3*d.Mean))
	p.KV(fmt.Sprintf("Median %s (ms):", short), f2(1e3*d.Median))
	for _, pv := range d.Percentiles {
		if pv.P == 50 {
			continue
		}
		p.KV(fmt.Sprintf("P%s %s (ms):", pct(pv.P), short), f2(1e3*pv.Value))
	}
}

func pct(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func f2(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// canceledNote says, after an attainment's request count, that the
// requests canceled at an interrupt are not in it; "" when there were none.
func canceledNote(c metrics.Counts) string {
	if c.Canceled == 0 {
		return ""
	}
	return fmt.Sprintf("; the %d canceled at the interrupt are outside it", c.Canceled)
}
