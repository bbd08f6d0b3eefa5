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
// percentiles the gap to the server's. A quantity the server did not give
// has no line (a latency it exports no histogram of loses its client lines
// too, which the summary's own blocks carry), and what was missing, and
// why, is listed last; within a line a part it did not give prints "n/a".
// It returns the first write error.
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
		if !l.lc.fromServer() {
			continue
		}
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
		for _, v := range []struct {
			key string
			v   *float64
		}{{"Server prefill speed (tok/s per stream):", sp.PrefillTokensPerSecond},
			{"Server decode speed (tok/s per stream):", sp.DecodeTokensPerSecond},
			{"Output tokens per engine step:", sp.TokensPerStep}} {
			if v.v != nil {
				p.KV(v.key, f2(*v.v))
			}
		}
	}
	if len(cmp.Phases) > 0 {
		shares, means := phases(cmp.Phases)
		p.KV("Queue / prefill / decode share:", shares)
		p.KV("Mean queue / prefill / decode (ms):", means)
	}
	for _, g := range []struct {
		key string
		g   *GaugeSummary
		f   func(float64) string
	}{{"Running peak / mean:", cmp.Running, count}, {"Waiting peak / mean:", cmp.Waiting, count}, {"KV cache usage peak / mean:", cmp.KVCacheUsage, pct2}} {
		if g.g != nil {
			p.KV(g.key, g.f(g.g.Peak)+" / "+g.f(g.g.Mean))
		}
	}
	if c := cmp.Preemptions; c != nil {
		p.KV("Preemptions:", fmt.Sprintf("%s (%s/s)", count(c.Count), f2(c.PerSecond)))
	}
	if r := cmp.PrefixCacheHitRate; r != nil {
		p.KV("Prefix cache hit rate:", pct2(*r))
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
	if cmp.GenerationTokens != nil {
		p.KV("Server generation (tok/s):", tokens(cmp.GenerationTokens))
	}
	p.KV("Client output (tok/s):", tokens(cmp.ClientOutputTokens))
	p.List("Missing:", groupMissing(cmp.Missing))
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

// fromServer reports whether the server gave a percentile of the latency:
// without one its lines would compare the client with nothing.
func (lc *LatencyComparison) fromServer() bool {
	for _, q := range []*QuantileComparison{lc.P50, lc.P99} {
		if q != nil && q.Server != nil {
			return true
		}
	}
	return false
}

// groupMissing joins the Missing entries ("server ttft: not exported by
// the server") that share a reason into one, in the order of their first:
// "server ttft, server itl: not exported by the server".
func groupMissing(missing []string) []string {
	var reasons []string
	what := map[string][]string{}
	for _, m := range missing {
		name, reason, ok := strings.Cut(m, ": ")
		if !ok {
			name, reason = "", m
		}
		if _, seen := what[reason]; !seen {
			reasons = append(reasons, reason)
		}
		if name != "" {
			what[reason] = append(what[reason], name)
		} else if what[reason] == nil {
			what[reason] = []string{}
		}
	}
	out := make([]string, 0, len(reasons))
	for _, r := range reasons {
		if names := what[r]; len(names) > 0 {
			out = append(out, strings.Join(names, ", ")+": "+r)
		} else {
			out = append(out, r)
		}
	}
	return out
}
