package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/goodput-dev/goodput/metrics"
)

// flowKind names the parts of a multi-turn session or an agent task on a
// run page.
type flowKind struct {
	id, title   string // the section's
	unit, units string // "session", "sessions"
	part, parts string // "turn", "turns"
	span        string // what a flow's span is called
}

var (
	sessionKind = flowKind{"sessions", "Sessions", "session", "sessions", "turn", "turns", "session duration"}
	taskKind    = flowKind{"tasks", "Agent tasks", "task", "tasks", "call", "calls", "task completion"}
)

// flowSections draw a run's sessions, agent tasks and endpoints, each
// only when the run had them. Every figure is the summary's own
// (metrics.Result), written as the terminal summary writes it.
func flowSections(p *page, run *Run) {
	res := run.Result
	if s := res.Sessions; s != nil {
		p.section(sessionKind.id, sessionKind.title)
		flowFigures(p, res, sessionKind, s.FlowCounts, &s.Duration, s.Goodput)
		turnsFigures(p, run, s.TTFTByTurn)
		p.sectionEnd()
	}
	if t := res.Tasks; t != nil {
		p.section(taskKind.id, taskKind.title)
		flowFigures(p, res, taskKind, t.FlowCounts, &t.Completion, t.Goodput)
		p.sectionEnd()
	}
	if len(res.Endpoints) > 0 {
		endpointsSection(p, res)
	}
}

// flowVerdict says in a sentence how a run's sessions (tasks) went.
func flowVerdict(res *metrics.Result, k flowKind, c metrics.FlowCounts, g *metrics.FlowGoodput) string {
	s := fmt.Sprintf("%d %s of %d %s", c.Count, k.units, c.Requests, k.parts)
	if c.Failed > 0 {
		s += fmt.Sprintf(", %d with a failed %s", c.Failed, k.part)
	}
	if g == nil || res.Goodput == nil {
		return s + fmt.Sprintf(". No SLO was given, so no %s is judged: pass --goodput to see %s goodput, which counts only the %s whose every %s met the SLO.", k.unit, k.unit, k.units, k.part)
	}
	return s + fmt.Sprintf(": %d of %d good (every %s met the SLO %s), %s goodput %s tok/s (attainment %s), against a request goodput of %s tok/s.",
		g.Good, c.Judged(), k.part, res.Goodput.SLO, k.unit, f2(g.OutputTokensPerSecond), percent(g.Attainment), f2(res.Goodput.OutputTokensPerSecond))
}

// flowFigures writes the verdict, the figures and the span's
// distribution of a run's sessions (tasks).
func flowFigures(p *page, res *metrics.Result, k flowKind, c metrics.FlowCounts, span *metrics.Distribution, g *metrics.FlowGoodput) {
	p.text("p", "lead", flowVerdict(res, k, c, g))
	p.intro(fmt.Sprintf("A %s is good only when every one of its %s met the per-request SLO; %s goodput is the output tokens of good %s over the run's window W. %s is the end of a %s's last %s minus the scheduled time of its first. The SLO explorer above moves per-request figures only.",
		k.unit, k.parts, k.unit, k.units, capitalized(k.span), k.unit, k.part))
	per := "n/a"
	if c.Count > 0 {
		per = f2(float64(c.Requests) / float64(c.Count))
	}
	rows := [][]cell{
		{{s: k.units, class: "l"}, {s: strconv.FormatInt(c.Count, 10)}},
		{{s: k.parts, class: "l"}, {s: fmt.Sprintf("%d (%s per %s)", c.Requests, per, k.unit)}},
		{{s: k.units + " with a failed " + k.part, class: "l"}, {s: strconv.FormatInt(c.Failed, 10)}},
	}
	if c.Canceled > 0 {
		rows = append(rows, []cell{{s: k.units + " cut by the interrupt (outside attainment)", class: "l"}, {s: strconv.FormatInt(c.Canceled, 10)}})
	}
	if g != nil {
		rows = append(rows,
			[]cell{{s: fmt.Sprintf("good %s (every %s good)", k.units, k.part), class: "l"}, {s: fmt.Sprintf("%d of %d (%.2f%%)", g.Good, c.Judged(), 100*g.Attainment)}},
			[]cell{{s: k.unit + " goodput (tok/s)", class: "l"}, {s: f2(g.OutputTokensPerSecond)}},
			[]cell{{s: "good " + k.units + " per second", class: "l"}, {s: f2(g.PerSecond)}})
	}
	p.table("flows", []string{"figure", "value"}, rows)
	if span.Count == 0 {
		return
	}
	head := []string{k.span + " (s)", "count", "mean", "median"}
	row := []cell{{s: k.span, class: "l"}, {s: strconv.FormatInt(span.Count, 10)}, {s: f2(span.Mean)}, {s: f2(span.Median)}}
	for _, pv := range span.Percentiles {
		if pv.P != 50 {
			head = append(head, "p"+pct(pv.P))
			row = append(row, cell{s: f2(pv.Value)})
		}
	}
	p.table("spans", append(head, "max"), [][]cell{append(row, cell{s: f2(span.Max)})})
}

// tailP returns the percentile a page shows beside the median of a
// session's or an endpoint's figures: p99 when it was computed, else the
// highest computed, else 100 (the maximum).
func tailP(ps []float64) float64 {
	switch {
	case slices.Contains(ps, 99):
		return 99
	case len(ps) > 0:
		return ps[len(ps)-1]
	}
	return 100
}

// tailOf returns percentile p of d, or its maximum when p was not
// computed.
func tailOf(d *metrics.Distribution, p float64) float64 {
	if v, ok := d.Percentile(p); ok {
		return v
	}
	return d.Max
}

// maxTurnPoints is the number of turns above which the TTFT-by-turn
// curves are drawn without a dot per turn.
const maxTurnPoints = 100

// turnsFigures draws TTFT by turn number, the median and the tail, with
// the SLO's TTFT bound, and lists the first turns' figures.
func turnsFigures(p *page, run *Run, turns []metrics.TurnTTFT) {
	if len(turns) == 0 {
		return
	}
	var mid, tail []xyPoint
	tp := tailP(run.Result.Percentiles)
	for i, t := range turns {
		d := &turns[i].TTFT
		v := tailOf(d, tp)
		x := float64(t.Turn)
		mid = append(mid, xyPoint{x: x, y: 1e3 * d.Median, hover: fmt.Sprintf("turn %d: p50 %s ms over %d turns", t.Turn, ms(d.Median), d.Count)})
		tail = append(tail, xyPoint{x: x, y: 1e3 * v, hover: fmt.Sprintf("turn %d: p%s %s ms over %d turns", t.Turn, pct(tp), ms(v), d.Count)})
	}
	var refs []marker
	for _, c := range run.SLO {
		if c.Metric == metrics.MetricTTFT {
			b := c.Bound.Seconds()
			refs = append(refs, marker{label: "SLO " + seconds(b), value: 1e3 * b, class: "slo", hover: "SLO: " + c.String()})
		}
	}
	last := float64(turns[len(turns)-1].Turn)
	xa := axisSpec{label: "turn", lo: float64(turns[0].Turn) - 0.5, hi: last + 0.5, step: 1}
	bare := len(turns) > maxTurnPoints
	p.intro("TTFT of the successful turns of each number, counted from each turn's scheduled time. A later turn sends the whole history: where a prefix cache holds it, TTFT stays flat as the prompt grows.")
	p.gridStart()
	p.chart(curveChart("TTFT by turn", xa, axisSpec{label: "TTFT (ms)", zero: true}, []curve{
		{name: "p50", class: "s0", pts: mid, bare: bare},
		{name: "p" + pct(tp), class: "s1", pts: tail, dashed: true, bare: bare},
	}, nil, refs...))
	head := []string{"turn", "turns measured", "mean (ms)", "median (ms)", "p" + pct(tp) + " (ms)"}
	var rows [][]cell
	for i, t := range turns[:min(len(turns), maxTurnLines)] {
		d := &turns[i].TTFT
		rows = append(rows, []cell{{s: strconv.Itoa(t.Turn), class: "l"}, {s: strconv.FormatInt(d.Count, 10)}, {s: ms(d.Mean)}, {s: ms(d.Median)}, {s: ms(tailOf(d, tp))}})
	}
	p.w("<div>")
	p.table("turns", head, rows)
	if n := len(turns) - len(rows); n > 0 {
		p.intro(fmt.Sprintf("%d more turns are in the chart and the JSON summary.", n))
	}
	p.w("</div>")
	p.gridEnd()
}

// endpointsSection breaks the run down by endpoint: each measured as a
// run of its own over its own window, as the summary does.
func endpointsSection(p *page, res *metrics.Result) {
	p.section("endpoints", "Endpoints")
	p.intro(fmt.Sprintf("The run's requests by the endpoint that served them (%d endpoints), each measured as a run of its own over its own window, so their rates need not add up to the whole run's.", len(res.Endpoints)))
	slo := res.Goodput != nil
	head := []string{"endpoint", "requests", "failed", "req/s", "output tok/s"}
	if slo {
		head = append(head, "goodput (tok/s)", "attainment")
	}
	tp := tailP(res.Percentiles)
	head = append(head, "TTFT p50 (ms)", "TTFT p"+pct(tp)+" (ms)", "TPOT p50 (ms)")
	var rows [][]cell
	for _, e := range res.Endpoints {
		r := e.Result
		row := []cell{{s: e.Endpoint, class: "l"}, {s: strconv.FormatInt(r.Counts.Total, 10)}, {s: strconv.FormatInt(r.Counts.Failed, 10)},
			{s: f2(r.Throughput.RequestsPerSecond)}, {s: f2(r.Throughput.OutputTokensPerSecond)}}
		if slo {
			if g := r.Goodput; g != nil {
				row = append(row, cell{s: f2(g.OutputTokensPerSecond)}, cell{s: percent(g.Attainment)})
			} else {
				row = append(row, cell{s: "n/a"}, cell{s: "n/a"})
			}
		}
		if d := &r.Latency.TTFT; d.Count > 0 {
			row = append(row, cell{s: ms(d.Median)}, cell{s: ms(tailOf(d, tp))}, cell{s: ms(r.Latency.TPOT.Median)})
		} else {
			row = append(row, cell{s: "n/a"}, cell{s: "n/a"}, cell{s: "n/a"})
		}
		rows = append(rows, row)
	}
	p.table("endpoints", head, rows)
	p.sectionEnd()
}

// flowCards are the headline numbers of a run's sessions and tasks.
func flowCards(res *metrics.Result) []card {
	var cs []card
	add := func(k flowKind, c metrics.FlowCounts, g *metrics.FlowGoodput) {
		if g == nil {
			cs = append(cs, card{capitalized(k.units), strconv.FormatInt(c.Count, 10), fmt.Sprintf("%d %s", c.Requests, k.parts)})
			return
		}
		cs = append(cs, card{capitalized(k.unit) + " goodput", num(g.OutputTokensPerSecond) + " tok/s", fmt.Sprintf("%d of %d %s good", g.Good, c.Judged(), k.units)})
	}
	if s := res.Sessions; s != nil {
		add(sessionKind, s.FlowCounts, s.Goodput)
	}
	if t := res.Tasks; t != nil {
		add(taskKind, t.FlowCounts, t.Goodput)
	}
	return cs
}
