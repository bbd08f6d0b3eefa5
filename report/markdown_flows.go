package report

import "github.com/goodput-dev/goodput/metrics"

// flowMarkdown writes a run's sessions, agent tasks and endpoints, each
// only when the run had them, with the figures the run page shows (the
// same tables, each figure the summary's own).
func flowMarkdown(m *md, run *Run) {
	res := run.Result
	if s := res.Sessions; s != nil {
		m.p("### %s\n\n", sessionKind.title)
		flowFiguresMarkdown(m, res, sessionKind, s.FlowCounts, &s.Duration, s.Goodput)
		if len(s.TTFTByTurn) > 0 {
			t, more := turnTable(s.TTFTByTurn, tailP(res.Percentiles))
			m.p("TTFT by turn, of the successful turns of each number, counted from each turn's scheduled time:\n\n")
			mdTable(m, t)
			if more > 0 {
				m.p("%d more turns are in the JSON summary.\n\n", more)
			}
		}
	}
	if t := res.Tasks; t != nil {
		m.p("### %s\n\n", taskKind.title)
		flowFiguresMarkdown(m, res, taskKind, t.FlowCounts, &t.Completion, t.Goodput)
	}
	if len(res.Endpoints) > 0 {
		m.p("### Endpoints\n\n%s\n\n", endpointsIntro(res))
		mdTable(m, endpointTable(res))
	}
}

// flowFiguresMarkdown writes the verdict, the figures and the span's
// distribution of a run's sessions (tasks).
func flowFiguresMarkdown(m *md, res *metrics.Result, k flowKind, c metrics.FlowCounts, span *metrics.Distribution, g *metrics.FlowGoodput) {
	m.p("%s\n\n%s\n\n", flowVerdict(res, k, c, g), flowDefinition(k))
	mdTable(m, flowFigureTable(k, c, g))
	if t, ok := flowSpanTable(k, span); ok {
		mdTable(m, t)
	}
}

// mdTable writes t with its number columns right-aligned.
func mdTable(m *md, t flowTable) {
	right := make([]bool, len(t.head))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	m.table(t.head, right, t.rows)
}
