package report

import (
	"fmt"

	"github.com/goodput-dev/goodput/internal/textblock"
	"github.com/goodput-dev/goodput/metrics"
)

// maxTurnLines is how many turns the TTFT-by-turn block lists; the JSON
// summary has every one.
const maxTurnLines = 16

// flowBlocks writes the blocks of a run's sessions, agent tasks and
// endpoints, each only when the run had them.
func flowBlocks(p *textblock.Printer, res *metrics.Result) {
	if s := res.Sessions; s != nil {
		p.Rule('-', "Sessions")
		p.KV("Sessions:", fmt.Sprintf("%d (%d turns; %d with a failed turn)", s.Count, s.Requests, s.Failed))
		spanBlock(p, "session duration", &s.Duration)
		flowGoodput(p, "session", s.FlowCounts, s.Goodput)
		if len(s.TTFTByTurn) > 0 {
			p.KV("TTFT by turn (ms):", "mean / median / P"+pct(highest(res.Percentiles)))
			for i, t := range s.TTFTByTurn {
				if i == maxTurnLines {
					p.KV("", fmt.Sprintf("(%d more turns in the JSON summary)", len(s.TTFTByTurn)-i))
					break
				}
				d := t.TTFT
				p.KV(fmt.Sprintf("  Turn %d (%d):", t.Turn, d.Count), fmt.Sprintf("%s / %s / %s", f2(1e3*d.Mean), f2(1e3*d.Median), f2(1e3*top(&d))))
			}
		}
	}
	if t := res.Tasks; t != nil {
		p.Rule('-', "Agent tasks")
		p.KV("Tasks:", fmt.Sprintf("%d (%d calls; %d with a failed call)", t.Count, t.Requests, t.Failed))
		spanBlock(p, "task completion", &t.Completion)
		flowGoodput(p, "task", t.FlowCounts, t.Goodput)
	}
	if len(res.Endpoints) > 0 {
		p.Rule('-', "Endpoints")
		for _, e := range res.Endpoints {
			r := e.Result
			line := fmt.Sprintf("%d requests, %d failed; %s req/s, %s tok/s", r.Counts.Total, r.Counts.Failed,
				f2(r.Throughput.RequestsPerSecond), f2(r.Throughput.OutputTokensPerSecond))
			if g := r.Goodput; g != nil {
				line += fmt.Sprintf(", goodput %s tok/s (%.1f%%)", f2(g.OutputTokensPerSecond), 100*g.Attainment)
			}
			p.KV(e.Endpoint+":", line)
			if d := r.Latency.TTFT; d.Count > 0 {
				p.KV("", fmt.Sprintf("TTFT median %s ms, P%s %s ms; TPOT median %s ms", f2(1e3*d.Median),
					pct(highest(r.Percentiles)), f2(1e3*top(&d)), f2(1e3*r.Latency.TPOT.Median)))
			}
		}
	}
}

// spanBlock writes the mean, median and percentiles of a session's or
// task's span, in seconds.
func spanBlock(p *textblock.Printer, what string, d *metrics.Distribution) {
	if d.Count == 0 {
		return
	}
	p.KV(fmt.Sprintf("Mean %s (s):", what), f2(d.Mean))
	p.KV(fmt.Sprintf("Median %s (s):", what), f2(d.Median))
	for _, pv := range d.Percentiles {
		if pv.P != 50 {
			p.KV(fmt.Sprintf("P%s %s (s):", pct(pv.P), what), f2(pv.Value))
		}
	}
}

// flowGoodput writes how many sessions (tasks) were good and the goodput
// they carried.
func flowGoodput(p *textblock.Printer, unit string, c metrics.FlowCounts, g *metrics.FlowGoodput) {
	if g == nil {
		return
	}
	p.KV(fmt.Sprintf("Good %ss (every request good):", unit), fmt.Sprintf("%d of %d (%.2f%%)", g.Good, c.Judged(), 100*g.Attainment))
	p.KV(fmt.Sprintf("%s goodput (tok/s):", capitalized(unit)), f2(g.OutputTokensPerSecond))
}

func capitalized(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// highest returns the highest of the percentiles reported, 100 for none.
func highest(ps []float64) float64 {
	if len(ps) == 0 {
		return 100
	}
	return ps[len(ps)-1]
}

// top returns the highest percentile's value of d, or its maximum.
func top(d *metrics.Distribution) float64 {
	if n := len(d.Percentiles); n > 0 {
		return d.Percentiles[n-1].Value
	}
	return d.Max
}
