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
	"github.com/goodput-dev/goodput/vllmresult"
)

// TextOptions adds context to the terminal summary.
type TextOptions struct {
	Title string // heading; default "Serving Benchmark Result"
	// Notes are printed before the heading, one per line (run description,
	// generator warnings), as vLLM prints its configuration before its
	// box.
	Notes []string
	// Metrics names the latency blocks to print, by vLLM's
	// --percentile-metrics names (ttft, tpot, itl, e2el); nil prints all
	// four.
	Metrics []string
	// VLLM, when set, adds the lines of vLLM's summary that need more than
	// the Result, each in vLLM's place.
	VLLM *VLLMLines
	// P50 prints a P50 line after the median when the percentiles include
	// 50, as vLLM does for a --metric-percentiles that names it; without
	// it the median stands for P50.
	P50 bool
}

// VLLMLines are lines of `vllm bench serve`'s summary that the Result
// alone cannot give.
type VLLMLines struct {
	MaxConcurrency *int    // "Maximum request concurrency", when capped
	RequestRate    float64 // "Request rate configured (RPS)", when finite and > 0
	// RequestGoodput is vLLM's request goodput (its --goodput, TTFT from
	// the send), printed after the request throughput; nil leaves it out.
	RequestGoodput *float64
	// Peak is vLLM's busiest second of output (chunks in one second) and
	// most requests active in one second; nil leaves them out.
	Peak *Peak
	// Unit, "session" or "task", says the rate and the cap count those
	// rather than requests; empty for requests.
	Unit string
	// Queue are vLLM's client-side queueing blocks (its Client-side
	// Queueing and Queue-inclusive End-to-end Latency), printed after the
	// latency blocks, in seconds like the Result's.
	Queue []Block
	// Probes are vLLM's Probe Requests lines (--probe-request-rate),
	// printed after the throughputs; nil leaves them out.
	Probes *Probes
	// SpecDecode is vLLM's Speculative Decoding block, printed after the
	// latency blocks; nil leaves it out, and so does a Diffusion block.
	SpecDecode *vllmresult.SpecDecode
	// Diffusion is vLLM's Diffusion Decoding block, printed after the
	// latency blocks in the Speculative Decoding block's place, over the
	// run's duration; nil, or counts without figures, leave it out.
	Diffusion *vllmresult.Diffusion
}

// Probes are the figures of a run's one-token probe requests, latencies
// in milliseconds. Without a success (Completed 0) only the counts are
// printed.
type Probes struct {
	Completed, Failed int
	Median, P99, Max  float64
}

// Block is one latency block of vLLM's summary that the Result does not
// hold.
type Block struct {
	Title, Short string
	D            metrics.Distribution
}

// Peak is the busiest output and concurrency of a run, as vLLM counts them.
type Peak struct {
	OutputTokensPerSecond float64
	ConcurrentRequests    int
}

// minWindow is the shortest window whose rates Text prints: a
// microsecond, below a socket's round trip.
const minWindow = 1e-6

// Text writes res in the layout `vllm bench serve` users know, in vLLM's
// order: counts, duration, token totals, throughputs, then a block per
// latency metric with mean, median and the requested percentiles, in
// milliseconds. goodput's additions (goodput and SLO attainment, client
// queue, Little's Law, errors) follow vLLM's blocks. A run in which
// requests reasoned adds the TTFA and per-kind TPOT blocks beside TTFT and
// TPOT, and a Reasoning block (reasoning and answer tokens) after goodput.
func Text(w io.Writer, res *metrics.Result, o TextOptions) error {
	p := textblock.New(w)
	title := o.Title
	if title == "" {
		title = "Serving Benchmark Result"
	}
	for _, n := range o.Notes {
		p.Line(n)
	}
	p.Rule('=', " "+title+" ")
	v := o.VLLM
	if v == nil {
		v = &VLLMLines{}
	}
	c := res.Counts
	p.KV("Successful requests:", strconv.FormatInt(c.Completed, 10))
	if c.NoToken > 0 {
		p.KV("  of which empty (no token):", fmt.Sprintf("%d (no TTFT, never good)", c.NoToken))
	}
	if c.Canceled > 0 {
		p.KV("Failed requests:", fmt.Sprintf("%d (%d canceled by the client while in flight)", c.Failed, c.Canceled))
	} else {
		p.KV("Failed requests:", strconv.FormatInt(c.Failed, 10))
	}
	if v.MaxConcurrency != nil && v.Unit != "" {
		p.KV(fmt.Sprintf("Maximum concurrent %ss:", v.Unit), strconv.Itoa(*v.MaxConcurrency))
	} else if v.MaxConcurrency != nil {
		p.KV("Maximum request concurrency:", strconv.Itoa(*v.MaxConcurrency))
	}
	if v.RequestRate > 0 && !math.IsInf(v.RequestRate, 1) && v.Unit != "" {
		p.KV(fmt.Sprintf("%s rate configured (per s):", capitalized(v.Unit)), f2(v.RequestRate))
	} else if v.RequestRate > 0 && !math.IsInf(v.RequestRate, 1) {
		p.KV("Request rate configured (RPS):", f2(v.RequestRate))
	}
	if c.WarmupExcluded > 0 {
		p.KV("Warm-up requests (excluded):", strconv.FormatInt(c.WarmupExcluded, 10))
	}
	p.KV("Benchmark duration (s):", f2(res.Window.Seconds))
	p.KV("Total input tokens:", strconv.FormatInt(res.Tokens.Input, 10))
	p.KV("Total generated tokens:", strconv.FormatInt(res.Tokens.Output, 10))
	// A window in which no time passed has no rate: 0.00 would read as
	// a server that did nothing. One under a microsecond, less than any
	// answer over a socket takes, holds times no server gave (a file
	// edited, or timed in another unit): its rates would be past any
	// server's, and are not printed as results either.
	rate := f2
	switch w := res.Window.Seconds; {
	case !(w > 0):
		rate = func(float64) string { return "n/a (no time passed)" }
	case w < minWindow:
		rate = func(float64) string { return "n/a (a window under 1 µs: no server answers that fast)" }
	}
	p.KV("Request throughput (req/s):", rate(res.Throughput.RequestsPerSecond))
	if v.RequestGoodput != nil {
		p.KV("Request goodput (req/s):", rate(*v.RequestGoodput))
	}
	p.KV("Output token throughput (tok/s):", rate(res.Throughput.OutputTokensPerSecond))
	if v.Peak != nil {
		p.KV("Peak output token throughput (tok/s):", f2(v.Peak.OutputTokensPerSecond))
		p.KV("Peak concurrent requests:", f2(float64(v.Peak.ConcurrentRequests)))
	}
	p.KV("Total token throughput (tok/s):", rate(res.Throughput.TotalTokensPerSecond))
	if pr := v.Probes; pr != nil {
		p.Rule('-', "Probe Requests")
		p.KV("Probe requests completed:", strconv.Itoa(pr.Completed))
		p.KV("Probe requests failed:", strconv.Itoa(pr.Failed))
		if pr.Completed > 0 {
			p.KV("Median probe E2EL (ms):", f2(pr.Median))
			p.KV("P99 probe E2EL (ms):", f2(pr.P99))
			p.KV("Max probe E2EL (ms):", f2(pr.Max))
		}
	}
	blocks := []struct {
		name, title, short string
		m                  metrics.Metric
		// beside names the seeds' block a reasoning block goes with: it is
		// printed for runs with reasoning, when that block or itself is.
		beside string
	}{
		{"ttft", "Time to First Token", "TTFT", metrics.MetricTTFT, ""},
		{"ttfa", "Time to First Answer Token", "TTFA", metrics.MetricTTFA, "ttft"},
		{"tpot", "Time per Output Token (excl. 1st token)", "TPOT", metrics.MetricTPOT, ""},
		{"tpot_reasoning", "Time per Output Token, reasoning", "TPOT-R", metrics.MetricTPOTReasoning, "tpot"},
		{"tpot_answer", "Time per Output Token, answer", "TPOT-A", metrics.MetricTPOTAnswer, "tpot"},
		{"itl", "Inter-token Latency", "ITL", metrics.MetricITL, ""},
		{"e2el", "End-to-end Latency", "E2EL", metrics.MetricE2E, ""},
	}
	for _, b := range blocks {
		if b.beside != "" && res.Reasoning == nil {
			continue
		}
		if o.Metrics == nil || slices.Contains(o.Metrics, b.name) || b.beside != "" && slices.Contains(o.Metrics, b.beside) {
			dist(p, b.title, b.short, res.Distribution(b.m), o.P50)
		}
	}
	for _, b := range v.Queue {
		dist(p, b.Title, b.Short, &b.D, o.P50)
	}
	df, diffusion := v.Diffusion.Figures(res.Window.Seconds)
	if diffusion {
		p.Rule('-', "Diffusion Decoding")
		p.KV("Committed throughput (tok/s):", f2(df.CommittedThroughput))
		p.KV("Denoising steps per canvas:", f2(df.StepsPerCanvas))
		p.KV("Committed per denoising step:", f2(df.CommittedPerStep))
		p.KV("Committed tokens:", strconv.FormatInt(df.Committed, 10))
		p.KV("Denoising steps:", strconv.FormatInt(df.DenoisingSteps, 10))
		p.KV("Canvas positions evaluated:", strconv.FormatInt(df.Positions, 10))
	}
	// vLLM prints the Speculative Decoding block only without this one.
	if sd := v.SpecDecode; sd != nil && sd.DraftTokens > 0 && !diffusion {
		p.Rule('-', "Speculative Decoding")
		p.KV("Acceptance rate (%):", f2(sd.AcceptanceRate()))
		p.KV("Acceptance length:", f2(sd.AcceptanceLength()))
		p.KV("Drafts:", strconv.FormatInt(sd.Drafts, 10))
		p.KV("Draft tokens:", strconv.FormatInt(sd.DraftTokens, 10))
		p.KV("Accepted tokens:", strconv.FormatInt(sd.Accepted, 10))
		if len(sd.PerPosition) > 0 {
			p.Line("Per-position acceptance (%):")
			for i, r := range sd.PerPosition {
				p.KV(fmt.Sprintf("  Position %d:", i), f2(100*r))
			}
		}
	}
	if g := res.Goodput; g != nil {
		p.Rule('-', "Goodput")
		p.KV("SLO:", g.SLO)
		label := "Request goodput (req/s):"
		if v := o.VLLM; v != nil && v.RequestGoodput != nil {
			// vLLM's line above judges TTFT from the send; this one
			// from the due time, and the two differ once requests wait.
			label = "Request goodput, due-time TTFT (req/s):"
		}
		p.KV(label, rate(g.RequestsPerSecond))
		p.KV("Goodput (tok/s):", rate(g.OutputTokensPerSecond))
		p.KV("Good output tokens:", fmt.Sprintf("%d of %d", g.GoodOutputTokens, res.Tokens.Output))
		if c.Judged() == 0 {
			p.KV("SLO attainment:", "n/a (no request measured)")
		} else {
			p.KV("SLO attainment:", fmt.Sprintf("%.2f%% (%d of %d requests%s)", 100*g.Attainment, g.GoodRequests, c.Judged(), canceledNote(c)))
		}
	}
	if rs := res.Reasoning; rs != nil {
		reasoningBlock(p, res, rs)
	}
	flowBlocks(p, res)
	prefixGroups(p, res)
	p.Rule('-', "Client")
	p.KV("Percentile method:", res.Method.String())
	if c.Retried > 0 {
		p.KV("Retried on a new connection:", fmt.Sprintf("%d (a kept-alive connection closed before any byte)", c.Retried))
	}
	if d := res.Distribution(metrics.MetricClientQueue); d.Count > 0 {
		p.KV("Mean client queue (ms):", f2(1e3*d.Mean))
		p.KV("Max client queue (ms):", f2(1e3*d.Max))
	}
	if d := res.Distribution(metrics.MetricTTFTSent); d.Count > 0 {
		p.KV("Mean TTFT from send (ms):", f2(1e3*d.Mean))
	}
	if ic, itl := res.Latency.InterChunk, res.Latency.ITL; ic.Count > 0 && ic.Count != itl.Count {
		p.KV("Mean inter-chunk latency (ms):", f2(1e3*ic.Mean))
	}
	if len(res.TokenSources) > 0 {
		p.KV("Output token counts from:", sources(res.TokenSources))
	}
	if pc := res.PromptCache; pc != nil {
		p.KV("Prompt cache hits (client):", fmt.Sprintf("%.2f%% (%d of %d prompt tokens, %d requests)",
			100*pc.HitRate, pc.CachedTokens, pc.PromptTokens, pc.Requests))
	}
	if st := res.ServerTimings; st != nil {
		for _, d := range []struct {
			name string
			d    *metrics.Distribution
		}{{"Server prefill", &st.Prefill}, {"Server decode per token", &st.DecodePerToken}} {
			if d.d.Count > 0 {
				v := fmt.Sprintf("mean %s, median %s", f2(1e3*d.d.Mean), f2(1e3*d.d.Median))
				if p99, ok := d.d.Percentile(99); ok {
					v += ", p99 " + f2(1e3*p99)
				}
				p.KV(d.name+" (ms):", v)
			}
		}
	}
	ll := res.LittlesLaw
	if ll.InFlight > 0 {
		l := littlesL(res)
		p.KV("Mean "+strings.ToLower(l[:1])+l[1:]+":", f2(ll.InFlight))
		gap := fmt.Sprintf("gap %.1f%%", 100*ll.RelativeGap)
		if c.Failed > 0 {
			// L counts every request while in flight, λ·W̄ the completions.
			gap += fmt.Sprintf("; L counts the %d failed while in flight", c.Failed)
		}
		p.KV("λ·W̄ (completions/s × mean e2e):", fmt.Sprintf("%s (%s)", f2(ll.RateTimesLatency), gap))
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
				// Whole: the message is what says why, and records already
				// bound it (a few hundred bytes).
				v += " (first: " + m + ")"
			}
			p.KV(k+":", v)
		}
	}
	p.Rule('=', "")
	return p.Err()
}

// reasoningBlock writes what a reasoning model's replies add: how many
// reasoned, and their tokens split into reasoning and answer.
func reasoningBlock(p *textblock.Printer, res *metrics.Result, rs *metrics.Reasoning) {
	p.Rule('-', "Reasoning")
	p.KV("Requests that reasoned:", fmt.Sprintf("%d of %d", rs.Requests, res.Counts.Completed))
	if rs.Unanswered > 0 {
		p.KV("Reasoned without answering:", fmt.Sprintf("%d (no answer token: cut off while thinking)", rs.Unanswered))
	}
	p.KV("Reasoning tokens:", strconv.FormatInt(rs.ReasoningTokens, 10))
	p.KV("Answer tokens:", strconv.FormatInt(rs.AnswerTokens, 10))
	p.KV("Reasoning token throughput (tok/s):", f2(rs.ReasoningTokensPerSecond))
	p.KV("Answer token throughput (tok/s):", f2(rs.AnswerTokensPerSecond))
	if len(rs.TokenSources) > 0 {
		p.KV("Reasoning token counts from:", sources(rs.TokenSources))
	}
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
// percentiles, in milliseconds; P50 beside the median only when p50.
func dist(p *textblock.Printer, title, short string, d *metrics.Distribution, p50 bool) {
	p.Rule('-', title)
	if d == nil || d.Count == 0 {
		p.KV(fmt.Sprintf("%s:", short), "n/a (no sample)")
		return
	}
	p.KV(fmt.Sprintf("Mean %s (ms):", short), f2(1e3*d.Mean))
	p.KV(fmt.Sprintf("Median %s (ms):", short), f2(1e3*d.Median))
	for _, pv := range d.Percentiles {
		if pv.P == 50 && !p50 {
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

// shownGroups is how many prefix groups the terminal summary lists; the
// JSON summary holds every one.
const shownGroups = 12

// queueShown is the mean client queue, in seconds and as a share of the
// mean end-to-end latency, from which L's line says that it counts the
// requests queued in the client too.
const (
	queueShown      = 1e-3
	queueShownShare = 0.01
)

// littlesL names L, "Requests in flight (L)". L counts each request from
// when it was due, as W̄ does: where requests waited in the client for a
// --max-concurrency slot, the name says that those waiting are in it too.
func littlesL(res *metrics.Result) string {
	q := res.Distribution(metrics.MetricClientQueue)
	if q.Count > 0 && q.Mean >= queueShown && q.Mean >= queueShownShare*res.Latency.E2E.Mean {
		return "Requests queued or in flight (L)"
	}
	return "Requests in flight (L)"
}

// prefixGroups writes the TTFT of each prefix group, the busiest first:
// mean, median and the highest percentile asked for, in milliseconds.
func prefixGroups(p *textblock.Printer, res *metrics.Result) {
	gs := res.PrefixGroups
	if len(gs) == 0 {
		return
	}
	p.Rule('-', "TTFT by Prefix Group")
	top := 0.0
	for _, q := range res.Percentiles {
		top = max(top, q)
	}
	for i, g := range gs {
		if i == shownGroups {
			p.KV(fmt.Sprintf("%d more groups:", len(gs)-shownGroups), "in the JSON summary (prefix_groups)")
			break
		}
		v := fmt.Sprintf("%d requests, no first token", g.Requests)
		if d := g.TTFT; d.Count > 0 {
			v = fmt.Sprintf("%d requests, mean %s, median %s", g.Requests, f2(1e3*d.Mean), f2(1e3*d.Median))
			if pv, ok := d.Percentile(top); ok && top != 50 {
				v += fmt.Sprintf(", P%s %s", pct(top), f2(1e3*pv))
			}
		}
		p.KV(g.Group+" (ms):", v)
	}
}
