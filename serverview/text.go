package serverview

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/textblock"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
)

// Text writes cmp as the "Server (vLLM /metrics)" block of the terminal
// summary: a heading rule, then one "key: value" line each, latencies in
// milliseconds. Server percentiles carry their bucket bounds and client
// percentiles the gap to the server's; quantities the server did not give
// print "n/a", and what was missing is listed last. It returns the first
// write error.
func Text(w io.Writer, cmp *Comparison) error {
	p := textblock.New(w)
	p.Rule('-', fmt.Sprintf("Server (%s/metrics)", engineTitle(cmp.Engine)))
	p.KV("Status:", cmp.Status.Text)
	if cmp.URL != "" {
		p.KV("Metrics URL:", cmp.URL)
	}
	p.KV("Scrapes in window:", fmt.Sprintf("%d (%d failed), counters span %s s", cmp.Scrapes, cmp.FailedScrapes, f2(cmp.CoveredSeconds)))
	for _, l := range []struct {
		short string
		lc    *LatencyComparison
	}{{"TTFT", &cmp.TTFT}, {"ITL", &cmp.ITL}, {"E2EL", &cmp.E2E}} {
		for _, q := range []struct {
			name string
			qc   *QuantileComparison
		}{{"P50", l.lc.P50}, {"P99", l.lc.P99}} {
			server, client := "n/a", "n/a"
			if q.qc != nil && q.qc.Server != nil {
				server = estimate(*q.qc.Server)
			}
			if q.qc != nil && q.qc.Client != nil {
				client = ms(*q.qc.Client)
				if g := q.qc.Gap; g != nil {
					client += fmt.Sprintf(" (gap %s, %s to %s)", ms(g.Value), ms(g.Lower), ms(g.Upper))
				}
			}
			p.KV(fmt.Sprintf("Server %s %s (ms):", l.short, q.name), server)
			p.KV(fmt.Sprintf("Client %s %s (ms):", l.short, q.name), client)
		}
	}
	if rt := cmp.ResponseTimings; rt != nil && rt.Prefill.Count > 0 {
		p.KV("Server prefill, per response P50 / P99 (ms):", percentilePair(&rt.Prefill, 50, 99)+" (excludes the wait for a slot; set it beside client TTFT)")
	}
	if sp := cmp.Speeds; sp != nil {
		p.KV("Server prefill speed (tok/s per stream):", opt(sp.PrefillTokensPerSecond, f2))
		p.KV("Server decode speed (tok/s per stream):", opt(sp.DecodeTokensPerSecond, f2))
		p.KV("Output tokens per engine step:", opt(sp.TokensPerStep, f2))
	}
	shares, means := phases(cmp.Phases)
	p.KV("Queue / prefill / decode share:", shares)
	p.KV("Mean queue / prefill / decode (ms):", means)
	p.KV("Running peak / mean:", gauge(cmp.Running, count))
	p.KV("Waiting peak / mean:", gauge(cmp.Waiting, count))
	p.KV("KV cache usage peak / mean:", gauge(cmp.KVCacheUsage, pct2))
	if c := cmp.Preemptions; c != nil {
		p.KV("Preemptions:", fmt.Sprintf("%s (%s/s)", count(c.Count), f2(c.PerSecond)))
	} else {
		p.KV("Preemptions:", "n/a")
	}
	if r := cmp.PrefixCacheHitRate; r != nil {
		p.KV("Prefix cache hit rate:", pct2(*r))
	} else {
		p.KV("Prefix cache hit rate:", "n/a")
	}
	if r := cmp.TracePrefixHitRate; r != nil {
		p.KV("Trace's theoretical hit rate:", pct2(*r)+" (of the requests answered, as sent: the most a cache that never evicts could serve)")
	}
	if r := cmp.ClientCacheHitRate; r != nil {
		p.KV("Prompt cache hits, per response:", pct2(*r))
	}
	if sd := cmp.SpecDecode; sd != nil {
		p.KV("Speculative decoding:", sd.String())
	}
	if d := cmp.Diffusion; d != nil {
		p.KV("Diffusion decoding:", d.String())
	}
	p.KV("Server generation (tok/s):", tokens(cmp.GenerationTokens))
	p.KV("Client output (tok/s):", tokens(cmp.ClientOutputTokens))
	p.List("Missing:", cmp.Missing)
	p.List("Notes:", cmp.Notes)
	return p.Err()
}

// percentilePair renders two percentiles of d in milliseconds, "n/a" for
// one not computed.
func percentilePair(d *metrics.Distribution, a, b float64) string {
	one := func(q float64) string {
		if v, ok := d.Percentile(q); ok {
			return ms(v)
		}
		if q == 50 {
			return ms(d.Median)
		}
		return "n/a"
	}
	return one(a) + " / " + one(b)
}

// engineTitle names the engine as its users write it, with a trailing space.
func engineTitle(e promscrape.Engine) string {
	switch e {
	case promscrape.VLLM:
		return "vLLM "
	case promscrape.SGLang:
		return "SGLang "
	case promscrape.TGI:
		return "TGI "
	case promscrape.LlamaCpp:
		return "llama.cpp "
	case promscrape.Unknown:
		return ""
	}
	return string(e) + " "
}

// estimate renders a server percentile with its bucket: "35.20 (bucket
// 20.00–40.00)", or "> 2560000.00" when it fell beyond the last bucket.
func estimate(e promscrape.Estimate) string {
	if e.Overflow {
		return "> " + ms(e.Upper) + " (beyond the last bucket)"
	}
	return fmt.Sprintf("%s (bucket %s–%s)", ms(e.Value), ms(e.Lower), ms(e.Upper))
}

// phases renders the phase shares and means in queue, prefill, decode order,
// "n/a" for those the server did not give.
func phases(ps []promscrape.Phase) (shares, means string) {
	sh, mn := []string{"n/a", "n/a", "n/a"}, []string{"n/a", "n/a", "n/a"}
	for _, p := range ps {
		i := -1
		switch p.Name {
		case promscrape.Queue:
			i = 0
		case promscrape.Prefill:
			i = 1
		case promscrape.Decode:
			i = 2
		}
		if i >= 0 {
			sh[i], mn[i] = pct2(p.Share), ms(p.Mean)
		}
	}
	return strings.Join(sh, " / "), strings.Join(mn, " / ")
}

func gauge(g *GaugeSummary, f func(float64) string) string {
	if g == nil {
		return "n/a"
	}
	return f(g.Peak) + " / " + f(g.Mean)
}

func tokens(c *CounterSummary) string {
	if c == nil {
		return "n/a"
	}
	return fmt.Sprintf("%s (%s tokens)", f2(c.PerSecond), count(c.Count))
}

func ms(s float64) string { return f2(1e3 * s) }

func pct2(f float64) string { return f2(100*f) + "%" }

func f2(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
