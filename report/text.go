package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/metrics"
)

// TextOptions adds context to the terminal summary.
type TextOptions struct {
	Title string // heading; default "Serving Benchmark Result"
	// Notes are printed after the heading, one per line (run description,
	// generator warnings).
	Notes []string
}

const width = 50

// Text writes res in the layout `vllm bench serve` users know: counts,
// duration, token totals, throughputs, goodput, then a block per latency
// metric with mean, median and the requested percentiles, in milliseconds.
// goodput's additions (errors, client queue, Little's Law) follow.
func Text(w io.Writer, res *metrics.Result, o TextOptions) error {
	p := &printer{w: w}
	title := o.Title
	if title == "" {
		title = "Serving Benchmark Result"
	}
	p.rule('=', " "+title+" ")
	for _, n := range o.Notes {
		p.line(n)
	}
	c := res.Counts
	p.kv("Successful requests:", strconv.FormatInt(c.Completed, 10))
	p.kv("Failed requests:", strconv.FormatInt(c.Failed, 10))
	if c.WarmupExcluded > 0 {
		p.kv("Warm-up requests (excluded):", strconv.FormatInt(c.WarmupExcluded, 10))
	}
	p.kv("Benchmark duration (s):", f2(res.Window.Seconds))
	p.kv("Total input tokens:", strconv.FormatInt(res.Tokens.Input, 10))
	p.kv("Total generated tokens:", strconv.FormatInt(res.Tokens.Output, 10))
	p.kv("Request throughput (req/s):", f2(res.Throughput.RequestsPerSecond))
	p.kv("Output token throughput (tok/s):", f2(res.Throughput.OutputTokensPerSecond))
	p.kv("Total Token throughput (tok/s):", f2(res.Throughput.TotalTokensPerSecond))
	if g := res.Goodput; g != nil {
		p.rule('-', "Goodput")
		p.kv("SLO:", g.SLO)
		p.kv("Request goodput (req/s):", f2(g.RequestsPerSecond))
		p.kv("Goodput (tok/s):", f2(g.OutputTokensPerSecond))
		p.kv("Good output tokens:", fmt.Sprintf("%d of %d", g.GoodOutputTokens, res.Tokens.Output))
		p.kv("SLO attainment:", fmt.Sprintf("%.2f%% (%d of %d requests)", 100*g.Attainment, g.GoodRequests, c.Total))
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
		p.dist(b.title, b.short, res.Distribution(b.m))
	}
	p.rule('-', "Client")
	p.kv("Percentile method:", res.Method.String())
	if d := res.Distribution(metrics.MetricClientQueue); d.Count > 0 {
		p.kv("Mean client queue (ms):", f2(1e3*d.Mean))
		p.kv("Max client queue (ms):", f2(1e3*d.Max))
	}
	if ic, itl := res.Latency.InterChunk, res.Latency.ITL; ic.Count > 0 && ic.Count != itl.Count {
		p.kv("Mean inter-chunk latency (ms):", f2(1e3*ic.Mean))
	}
	if len(res.TokenSources) > 0 {
		p.kv("Output token counts from:", sources(res.TokenSources))
	}
	ll := res.LittlesLaw
	if ll.InFlight > 0 {
		p.kv("Mean requests in flight (L):", f2(ll.InFlight))
		p.kv("λ·W̄ (completions/s × mean e2e):", fmt.Sprintf("%s (gap %.1f%%)", f2(ll.RateTimesLatency), 100*ll.RelativeGap))
	}
	if len(c.Errors) > 0 {
		p.rule('-', "Errors")
		kinds := make([]string, 0, len(c.Errors))
		for k := range c.Errors {
			kinds = append(kinds, k)
		}
		slices.Sort(kinds)
		for _, k := range kinds {
			p.kv(k+":", strconv.FormatInt(c.Errors[k], 10))
		}
	}
	p.rule('=', "")
	return p.err
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

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(s string) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, s)
	}
}

func (p *printer) kv(k, v string) {
	p.line(fmt.Sprintf("%-40s %s", k, v))
}

// rule prints a heading centred in a line of c, as vLLM does.
func (p *printer) rule(c byte, title string) {
	n := width - len([]rune(title))
	if n < 2 {
		p.line(title)
		return
	}
	left := n / 2
	p.line(strings.Repeat(string(c), left) + title + strings.Repeat(string(c), n-left))
}

func (p *printer) dist(title, short string, d *metrics.Distribution) {
	p.rule('-', title)
	if d == nil || d.Count == 0 {
		p.kv(fmt.Sprintf("%s:", short), "n/a (no sample)")
		return
	}
	p.kv(fmt.Sprintf("Mean %s (ms):", short), f2(1e3*d.Mean))
	p.kv(fmt.Sprintf("Median %s (ms):", short), f2(1e3*d.Median))
	for _, pv := range d.Percentiles {
		if pv.P == 50 {
			continue
		}
		p.kv(fmt.Sprintf("P%s %s (ms):", pct(pv.P), short), f2(1e3*pv.Value))
	}
}

func pct(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func f2(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
