package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/report/svgchart"
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
	p.intro(flowDefinition(k) + " The SLO explorer above moves per-request figures only.")
	pageTable(p, "flows", flowFigureTable(k, c, g))
	if t, ok := flowSpanTable(k, span); ok {
		pageTable(p, "spans", t)
	}
}

// pageTable writes t as a table of class, its first column a name and the
// others numbers.
func pageTable(p *page, class string, t flowTable) {
	rows := make([][]cell, len(t.rows))
	for i, r := range t.rows {
		for j, v := range r {
			c := cell{s: v}
			if j == 0 {
				c.class = "l"
			}
			rows[i] = append(rows[i], c)
		}
	}
	p.table(class, t.head, rows)
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
	var mid, tail []svgchart.Point
	tp := tailP(run.Result.Percentiles)
	for i, t := range turns {
		d := &turns[i].TTFT
		v := tailOf(d, tp)
		x := float64(t.Turn)
		mid = append(mid, svgchart.Point{X: x, Y: 1e3 * d.Median, Hover: fmt.Sprintf("turn %d: p50 %s ms over %d turns", t.Turn, ms(d.Median), d.Count)})
		tail = append(tail, svgchart.Point{X: x, Y: 1e3 * v, Hover: fmt.Sprintf("turn %d: p%s %s ms over %d turns", t.Turn, pct(tp), ms(v), d.Count)})
	}
	var refs []svgchart.Marker
	for _, c := range run.SLO {
		if c.Metric == metrics.MetricTTFT {
			b := c.Bound.Seconds()
			refs = append(refs, svgchart.Marker{Label: "SLO " + seconds(b), Value: 1e3 * b, Class: "slo", Hover: "SLO: " + c.String()})
		}
	}
	last := float64(turns[len(turns)-1].Turn)
	xa := svgchart.Axis{Label: "turn", Lo: float64(turns[0].Turn) - 0.5, Hi: last + 0.5, Step: 1}
	bare := len(turns) > maxTurnPoints
	p.intro("TTFT of the successful turns of each number, counted from each turn's scheduled time. A later turn sends the whole history: where a prefix cache holds it, TTFT stays flat as the prompt grows.")
	p.gridStart()
	p.chart(svgchart.CurveChart("TTFT by turn", xa, svgchart.Axis{Label: "TTFT (ms)", Zero: true}, []svgchart.Curve{
		{Name: "p50", Class: "s0", Points: mid, Bare: bare},
		{Name: "p" + pct(tp), Class: "s1", Points: tail, Dashed: true, Bare: bare},
	}, nil, refs...))
	t, more := turnTable(turns, tp)
	p.w("<div>")
	pageTable(p, "turns", t)
	if more > 0 {
		p.intro(fmt.Sprintf("%d more turns are in the chart and the JSON summary.", more))
	}
	p.w("</div>")
	p.gridEnd()
}

// endpointsSection breaks the run down by endpoint: each measured as a
// run of its own over its own window, as the summary does.
func endpointsSection(p *page, res *metrics.Result) {
	p.section("endpoints", "Endpoints")
	p.intro(endpointsIntro(res))
	pageTable(p, "endpoints", endpointTable(res))
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
		cs = append(cs, card{capitalized(k.unit) + " goodput", human.Brief(g.OutputTokensPerSecond) + " tok/s", fmt.Sprintf("%d of %d %s good", g.Good, c.Judged(), k.units)})
	}
	if s := res.Sessions; s != nil {
		add(sessionKind, s.FlowCounts, s.Goodput)
	}
	if t := res.Tasks; t != nil {
		add(taskKind, t.FlowCounts, t.Goodput)
	}
	return cs
}
