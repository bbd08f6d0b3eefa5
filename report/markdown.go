package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/sweep"
)

// md accumulates Markdown and remembers the first write error.
type md struct {
	w   io.Writer
	err error
}

func (m *md) p(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}

// table writes a GitHub-flavoured table; right[i] right-aligns column i
// (numbers).
func (m *md) table(head []string, right []bool, rows [][]string) {
	m.p("|")
	for _, h := range head {
		m.p(" %s |", mdCell(h))
	}
	m.p("\n|")
	for i := range head {
		if i < len(right) && right[i] {
			m.p("--:|")
		} else {
			m.p("---|")
		}
	}
	m.p("\n")
	for _, r := range rows {
		m.p("|")
		for _, c := range r {
			m.p(" %s |", mdCell(c))
		}
		m.p("\n")
	}
	m.p("\n")
}

// mdCell keeps a value inside its table cell: a pipe would end the cell
// and a newline the row.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

// WriteRunMarkdown writes run as Markdown for a pull request or an issue:
// the verdict, headline numbers, a latency table in milliseconds, the
// sessions, agent tasks and endpoints when the run had them, errors and
// the configuration.
func WriteRunMarkdown(w io.Writer, run *Run) error {
	if run == nil || run.Result == nil {
		return fmt.Errorf("markdown report: no run")
	}
	res := run.Result
	m := &md{w: w}
	m.p("## goodput run: %s\n\n", run.Name)
	v := runVerdict(run)
	m.p("**%s**\n\n", v.headline)
	for _, it := range v.items {
		if it.class == "gate-fail" {
			m.p("- **%s**\n", it.text)
			continue
		}
		m.p("- %s\n", it.text)
	}
	for _, n := range v.notes {
		m.p("- **note:** %s\n", n)
	}
	if len(v.items)+len(v.notes) > 0 {
		m.p("\n")
	}
	c := res.Counts
	rows := [][]string{
		{"requests", fmt.Sprintf("%d (%d failed, %s)", c.Total, c.Failed, percent(c.ErrorRate))},
		{"duration (window W)", fixed(res.Window.Seconds, 2) + " s"},
		{"output throughput", fixed(res.Throughput.OutputTokensPerSecond, 2) + " tok/s"},
		{"request throughput", fixed(res.Throughput.RequestsPerSecond, 2) + " req/s"},
		{"input throughput", fixed(res.Throughput.InputTokensPerSecond, 2) + " tok/s"},
		{"total token throughput", fixed(res.Throughput.TotalTokensPerSecond, 2) + " tok/s"},
	}
	if g := res.Goodput; g != nil {
		rows = append(rows,
			[]string{"goodput", fixed(g.OutputTokensPerSecond, 2) + " tok/s"},
			[]string{"SLO attainment", fmt.Sprintf("%s (%d of %d requests met %s%s)", percent(g.Attainment), g.GoodRequests, c.Judged(), g.SLO, canceledNote(c))})
	}
	if rs := res.Reasoning; rs != nil {
		rows = append(rows,
			[]string{"requests that reasoned", fmt.Sprintf("%d of %d (%d never answered)", rs.Requests, c.Completed, rs.Unanswered)},
			[]string{"reasoning / answer tokens", fmt.Sprintf("%d / %d (%s / %s tok/s)", rs.ReasoningTokens, rs.AnswerTokens,
				fixed(rs.ReasoningTokensPerSecond, 2), fixed(rs.AnswerTokensPerSecond, 2))})
	}
	if ll := res.LittlesLaw; ll.InFlight > 0 {
		rows = append(rows, []string{"Little's Law", fmt.Sprintf("L = %s, λ·W̄ = %s (gap %s)", fixed(ll.InFlight, 2), fixed(ll.RateTimesLatency, 2), percent(ll.RelativeGap))})
	}
	m.table([]string{"", "value"}, nil, rows)

	head := []string{"latency (ms)", "count", "mean", "median"}
	for _, p := range res.Percentiles {
		if p != 50 {
			head = append(head, "p"+pct(p))
		}
	}
	head = append(head, "max")
	right := make([]bool, len(head))
	for i := 1; i < len(right); i++ {
		right[i] = true
	}
	rows = nil
	mts := []metrics.Metric{metrics.MetricTTFT, metrics.MetricTPOT, metrics.MetricITL, metrics.MetricE2E}
	if res.Reasoning != nil {
		mts = slices.Insert(mts, 1, metrics.MetricTTFA)
		mts = slices.Insert(mts, 3, metrics.MetricTPOTReasoning, metrics.MetricTPOTAnswer)
	}
	for _, mt := range mts {
		d := res.Distribution(mt)
		row := []string{string(mt), strconv.FormatInt(d.Count, 10)}
		if d.Count == 0 {
			for range head[2:] {
				row = append(row, "n/a")
			}
			rows = append(rows, row)
			continue
		}
		row = append(row, ms(d.Mean), ms(d.Median))
		for _, p := range res.Percentiles {
			if p != 50 {
				v, _ := d.Percentile(p)
				row = append(row, ms(v))
			}
		}
		rows = append(rows, append(row, ms(d.Max)))
	}
	m.table(head, right, rows)
	m.p("Percentiles: %s.\n\n", methodPhrase(res.Method))

	if gs := res.PrefixGroups; len(gs) > 0 {
		rows = nil
		for _, g := range gs {
			row := []string{mdCell(g.Group), strconv.FormatInt(g.Requests, 10), strconv.FormatInt(g.TTFT.Count, 10)}
			if d := g.TTFT; d.Count > 0 {
				row = append(row, ms(d.Mean), ms(d.Median))
				for _, p := range res.Percentiles {
					if p != 50 {
						v, _ := d.Percentile(p)
						row = append(row, ms(v))
					}
				}
				row = append(row, ms(d.Max))
			} else {
				for range head[2:] {
					row = append(row, "n/a")
				}
			}
			rows = append(rows, row)
		}
		m.table(append([]string{"prefix group", "requests"}, append([]string{"TTFT (ms) count"}, head[2:]...)...), append([]bool{false}, right...), rows)
	}

	flowMarkdown(m, run)

	if len(run.Errors) > 0 {
		rows = nil
		for _, g := range run.Errors {
			status := ""
			if g.Status != 0 {
				status = strconv.Itoa(g.Status)
			}
			rows = append(rows, []string{string(g.Kind), status, strconv.FormatInt(g.Count, 10), g.Example})
		}
		m.table([]string{"error", "HTTP status", "requests", "first message"}, []bool{false, true, true, false}, rows)
	}
	if pairs := configPairs(run.Header); len(pairs) > 0 {
		m.p("<details><summary>Configuration</summary>\n\n")
		rows = nil
		for _, kv := range pairs {
			if kv[0] == "percentile_method" {
				continue // said under the latency table
			}
			// A table cell is one line: a multi-line value (the arrival
			// plan) keeps its breaks as <br>.
			lines := strings.Split(strings.TrimRight(kv[1], "\n"), "\n")
			for i := range lines {
				lines[i] = mdCell(lines[i])
			}
			rows = append(rows, []string{kv[0], strings.Join(lines, "<br>")})
		}
		m.table([]string{"setting", "value"}, nil, rows)
		m.p("</details>\n")
	}
	return m.err
}

// WriteSweepMarkdown writes a sweep as Markdown: the verdict, the picks and
// a table of every load.
func WriteSweepMarkdown(w io.Writer, s *Sweep) error {
	if s == nil || len(s.Summary.Points) == 0 {
		return fmt.Errorf("markdown report: sweep has no points")
	}
	sum := s.Summary
	m := &md{w: w}
	m.p("## goodput sweep: %s\n\n", s.Name)
	if sum.Verdict != "" {
		m.p("%s\n\n", sum.Verdict)
	}
	for _, pk := range []struct {
		name string
		p    sweep.Pick
	}{{"Operating point", sum.Operating.Pick}, {"Goodput peak", sum.GoodputPeak}, {"Knee (power)", sum.Power}, {"Knee (curvature)", sum.Curvature}} {
		switch {
		case pk.p.Found:
			m.p("- **%s**: %s\n", pk.name, pk.p.Load.Short())
		case pk.p.Note != "":
			m.p("- **%s**: none (%s)\n", pk.name, pk.p.Note)
		default:
			m.p("- **%s**: none\n", pk.name)
		}
	}
	m.p("\n")
	head := []string{"load", "req/s", "out tok/s", "goodput", "attainment", "TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "e2e p99", "errors", "marks"}
	right := []bool{false, true, true, true, true, true, true, true, true, true, true, false}
	var rows [][]string
	for i, pt := range sum.Points {
		x := pt.Mean
		rows = append(rows, []string{
			pt.Load.Short(), human.Brief(x.RequestThroughput), human.Brief(x.OutputThroughput), human.Brief(x.Goodput), percent(x.Attainment),
			seconds(x.TTFT.P50), seconds(x.TTFT.P99), seconds(x.TPOT.P50), seconds(x.TPOT.P99), seconds(x.E2E.P99),
			percent(x.ErrorRate), strings.Join(sum.Marks(i), ", "),
		})
	}
	m.table(head, right, rows)
	return m.err
}

// methodPhrase names a percentile method in words.
func methodPhrase(m metrics.Method) string {
	if m == metrics.Linear {
		return "linear interpolation between ranks"
	}
	return m.String() + " (no interpolation)"
}
