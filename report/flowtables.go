package report

import (
	"fmt"
	"strconv"

	"github.com/goodput-dev/goodput/metrics"
)

// flowTable is one table of a run's sessions, agent tasks or endpoints, as
// both the run page and the Markdown report write it: the first column
// names a row, the others hold numbers. Building it once keeps the two
// reports' figures the same, each the summary's own (metrics.Result).
type flowTable struct {
	head []string
	rows [][]string
}

// flowDefinition says in two sentences what makes a session (task) good
// and what its span measures.
func flowDefinition(k flowKind) string {
	return fmt.Sprintf("A %s is good only when every one of its %s met the per-request SLO; %s goodput is the output tokens of good %s over the run's window W. %s is the end of a %s's last %s minus the scheduled time of its first.",
		k.unit, k.parts, k.unit, k.units, capitalized(k.span), k.unit, k.part)
}

// flowFigureTable lists how many sessions (tasks) a run had, how many
// failed and, with an SLO (g not nil), how many were good and the goodput
// they carried.
func flowFigureTable(k flowKind, c metrics.FlowCounts, g *metrics.FlowGoodput) flowTable {
	per := "n/a"
	if c.Count > 0 {
		per = f2(float64(c.Requests) / float64(c.Count))
	}
	rows := [][]string{
		{k.units, strconv.FormatInt(c.Count, 10)},
		{k.parts, fmt.Sprintf("%d (%s per %s)", c.Requests, per, k.unit)},
		{k.units + " with a failed " + k.part, strconv.FormatInt(c.Failed, 10)},
	}
	if c.Canceled > 0 {
		rows = append(rows, []string{k.units + " cut by the interrupt (outside attainment)", strconv.FormatInt(c.Canceled, 10)})
	}
	if g != nil {
		rows = append(rows,
			[]string{fmt.Sprintf("good %s (every %s good)", k.units, k.part), fmt.Sprintf("%d of %d (%.2f%%)", g.Good, c.Judged(), 100*g.Attainment)},
			[]string{k.unit + " goodput (tok/s)", f2(g.OutputTokensPerSecond)},
			[]string{"good " + k.units + " per second", f2(g.PerSecond)})
	}
	return flowTable{head: []string{"figure", "value"}, rows: rows}
}

// flowSpanTable is the distribution of the sessions' durations (the
// tasks' completion times) in seconds, in one row; ok is false when no
// span was measured.
func flowSpanTable(k flowKind, span *metrics.Distribution) (t flowTable, ok bool) {
	if span.Count == 0 {
		return flowTable{}, false
	}
	head := []string{k.span + " (s)", "count", "mean", "median"}
	row := []string{k.span, strconv.FormatInt(span.Count, 10), f2(span.Mean), f2(span.Median)}
	for _, pv := range span.Percentiles {
		if pv.P != 50 {
			head = append(head, "p"+pct(pv.P))
			row = append(row, f2(pv.Value))
		}
	}
	return flowTable{head: append(head, "max"), rows: [][]string{append(row, f2(span.Max))}}, true
}

// turnTable lists the TTFT of the first maxTurnLines turn numbers in
// milliseconds: the median and percentile tp beside the mean. more is the
// number of turns left out.
func turnTable(turns []metrics.TurnTTFT, tp float64) (t flowTable, more int) {
	t.head = []string{"turn", "turns measured", "mean (ms)", "median (ms)", "p" + pct(tp) + " (ms)"}
	for i, tt := range turns[:min(len(turns), maxTurnLines)] {
		d := &turns[i].TTFT
		t.rows = append(t.rows, []string{strconv.Itoa(tt.Turn), strconv.FormatInt(d.Count, 10), ms(d.Mean), ms(d.Median), ms(tailOf(d, tp))})
	}
	return t, len(turns) - len(t.rows)
}

// endpointTable breaks a run down by the endpoint that served each
// request, each measured as a run of its own over its own window:
// requests, rates, goodput and attainment when the run had an SLO, TTFT
// and TPOT.
func endpointTable(res *metrics.Result) flowTable {
	slo := res.Goodput != nil
	head := []string{"endpoint", "requests", "failed", "req/s", "output tok/s"}
	if slo {
		head = append(head, "goodput (tok/s)", "attainment")
	}
	tp := tailP(res.Percentiles)
	head = append(head, "TTFT p50 (ms)", "TTFT p"+pct(tp)+" (ms)", "TPOT p50 (ms)")
	var rows [][]string
	for _, e := range res.Endpoints {
		r := e.Result
		row := []string{e.Endpoint, strconv.FormatInt(r.Counts.Total, 10), strconv.FormatInt(r.Counts.Failed, 10),
			f2(r.Throughput.RequestsPerSecond), f2(r.Throughput.OutputTokensPerSecond)}
		if slo {
			if g := r.Goodput; g != nil {
				row = append(row, f2(g.OutputTokensPerSecond), percent(g.Attainment))
			} else {
				row = append(row, "n/a", "n/a")
			}
		}
		if d := &r.Latency.TTFT; d.Count > 0 {
			row = append(row, ms(d.Median), ms(tailOf(d, tp)), ms(r.Latency.TPOT.Median))
		} else {
			row = append(row, "n/a", "n/a", "n/a")
		}
		rows = append(rows, row)
	}
	return flowTable{head: head, rows: rows}
}

// endpointsIntro says how the endpoints' figures are measured.
func endpointsIntro(res *metrics.Result) string {
	return fmt.Sprintf("The run's requests by the endpoint that served them (%d endpoints), each measured as a run of its own over its own window, so their rates need not add up to the whole run's.", len(res.Endpoints))
}
