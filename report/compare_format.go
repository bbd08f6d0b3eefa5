package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// runLetter names run i in tables: A for the baseline, then B, C, …
func runLetter(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return "R" + strconv.Itoa(i+1)
}

// label is the row's label with its unit.
func (r *Row) label() string {
	switch r.Unit {
	case UnitSeconds:
		return r.Label + " (ms)"
	case UnitTokensPS, UnitReqPS:
		return r.Label + " (" + string(r.Unit) + ")"
	}
	return r.Label
}

// value writes one of the row's values.
func (r *Row) value(v float64) string {
	if !usable(v) {
		return "n/a"
	}
	switch r.Unit {
	case UnitSeconds:
		return strconv.FormatFloat(1e3*v, 'f', 2, 64)
	case UnitTokensPS:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case UnitReqPS:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case UnitFraction:
		return percent(v)
	}
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// delta writes a difference in the row's unit, with its sign; fractions
// differ in percentage points.
func (r *Row) delta(v float64) string {
	if !usable(v) {
		return "n/a"
	}
	switch r.Unit {
	case UnitSeconds:
		return fmt.Sprintf("%+.2f", 1e3*v)
	case UnitTokensPS:
		return fmt.Sprintf("%+.1f", v)
	case UnitReqPS:
		return fmt.Sprintf("%+.2f", v)
	case UnitFraction:
		return fmt.Sprintf("%+.1f pp", 100*v)
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%+.0f", v)
	}
	return fmt.Sprintf("%+.1f", v)
}

func (r *Row) interval(d Diff) string {
	if !d.HasCI {
		return ""
	}
	return "[" + r.delta(d.Lo) + ", " + r.delta(d.Hi) + "]"
}

// WriteCompareText writes the comparison for a terminal: which run is
// which, for each run against the baseline a table of values, differences,
// intervals and verdicts (with three or more runs, a side-by-side table
// first), then the comparability warnings and the gates.
func WriteCompareText(w io.Writer, c *Comparison) error {
	m := &md{w: w}
	m.p("goodput compare: %d runs against the baseline A\n", len(c.Runs))
	for i, r := range c.Runs {
		m.p("  %s  %s\n", runLetter(i), runLine(r))
	}
	m.p("\n")
	if len(c.Runs) > 2 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		head := []string{"metric"}
		for i := range c.Runs {
			head = append(head, runLetter(i))
		}
		fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
		for i := range c.Rows {
			r := &c.Rows[i]
			cells := []string{r.label()}
			for _, v := range r.Values {
				cells = append(cells, r.value(v))
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		if m.err == nil {
			m.err = tw.Flush()
		}
		m.p("\n")
	}
	conf := pct(100 * c.Confidence)
	for k := 1; k < len(c.Runs); k++ {
		m.p("%s against A\n", runLetter(k))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "metric\tA\t%s\tΔ\tΔ%%\t%s %% CI of Δ\tverdict\t\n", runLetter(k), conf)
		for i := range c.Rows {
			r := &c.Rows[i]
			d := r.Diffs[k]
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.label(), r.value(r.Values[0]), r.value(r.Values[k]),
				r.delta(d.Abs), signedPercent(d.Rel), r.interval(d), d.Verdict)
		}
		if m.err == nil {
			m.err = tw.Flush()
		}
		m.p("\n")
	}
	m.p("Percentiles: %s. Intervals: %s %% bootstrap over requests (%d resamples, seed %d); noise means the interval holds zero.%s\n",
		c.Method, conf, c.Resamples, c.Seed, flowNote(c))
	if len(c.Warnings) > 0 {
		m.p("\nComparability warnings:\n")
		for _, wn := range c.Warnings {
			m.p("  - %s (%s): %s\n", runLetter(wn.Run), wn.Kind, wn.Text)
		}
	}
	if lines, failed, total := gateLines(c); total > 0 {
		m.p("\nGates:\n")
		for _, l := range lines {
			m.p("  - %s\n", l)
		}
		if len(c.Regressions) > 0 {
			m.p("%s\n", regressionJudgement(c))
		}
		m.p("\n%s\n", gateVerdict(failed, total))
	}
	return m.err
}

// regressionJudgement says how the comparison's regression gates were
// judged, so that a reader knows whether noise can fail one.
func regressionJudgement(c *Comparison) string {
	if c.PointEstimate {
		return "Regression gates were judged on point estimates (--point-estimate): a difference the intervals call noise can fail them."
	}
	return "Regression gates were judged with the intervals: a difference within the noise counts as no change (--point-estimate judges point estimates)."
}

func runLine(r *Run) string {
	parts := []string{r.Name}
	if r.Path != "" && r.Path != r.Name {
		parts[0] = r.Path
	}
	parts = append(parts, fmt.Sprintf("%d requests", r.Result.Counts.Total))
	if r.Header.Tool != "" {
		parts = append(parts, r.Header.Tool)
	}
	if !r.Header.Start.IsZero() {
		parts = append(parts, "started "+r.Header.Start.UTC().Format("2006-01-02 15:04:05 MST"))
	}
	return strings.Join(parts, ", ")
}

// gateLines lists every gate result with the run it was checked on.
func gateLines(c *Comparison) (lines []string, failed, total int) {
	for i, rs := range c.Gates {
		for _, g := range rs {
			total++
			if !g.Pass {
				failed++
			}
			lines = append(lines, runLetter(i)+": "+g.String())
		}
	}
	for _, g := range c.Regressions {
		total++
		if !g.Pass {
			failed++
		}
		lines = append(lines, runLetter(g.Run)+" against A: "+g.String())
	}
	return lines, failed, total
}

func gateVerdict(failed, total int) string {
	switch {
	case total == 1 && failed == 0:
		return "PASS: the gate passed."
	case total == 1:
		return "FAIL: the gate failed."
	case failed == 0:
		return fmt.Sprintf("PASS: all %d gates passed.", total)
	}
	return fmt.Sprintf("FAIL: %d of %d gates failed.", failed, total)
}

// WriteCompareMarkdown writes the comparison as Markdown for a pull
// request: one table with every run's values and, for each run after the
// baseline, its difference, interval and verdict; then the warnings and
// gates.
func WriteCompareMarkdown(w io.Writer, c *Comparison) error {
	m := &md{w: w}
	m.p("## goodput compare\n\n")
	for i, r := range c.Runs {
		role := ""
		if i == 0 {
			role = " (baseline)"
		}
		m.p("- **%s**%s: %s\n", runLetter(i), role, runLine(r))
	}
	m.p("\n")
	conf := pct(100 * c.Confidence)
	head := []string{"metric"}
	right := []bool{false}
	for i := range c.Runs {
		head = append(head, runLetter(i))
		right = append(right, true)
	}
	for k := 1; k < len(c.Runs); k++ {
		l := runLetter(k)
		head = append(head, l+" Δ", l+" Δ%", l+" "+conf+" % CI", l+" verdict")
		right = append(right, true, true, true, false)
	}
	var rows [][]string
	for i := range c.Rows {
		r := &c.Rows[i]
		row := []string{r.label()}
		for _, v := range r.Values {
			row = append(row, r.value(v))
		}
		for k := 1; k < len(c.Runs); k++ {
			d := r.Diffs[k]
			verdict := d.Verdict
			if verdict == Worse {
				verdict = "**worse**"
			}
			row = append(row, r.delta(d.Abs), signedPercent(d.Rel), r.interval(d), verdict)
		}
		rows = append(rows, row)
	}
	m.table(head, right, rows)
	m.p("Percentiles: %s. Intervals: %s %% bootstrap over requests (%d resamples, seed %d); noise means the interval holds zero.%s\n\n",
		c.Method, conf, c.Resamples, c.Seed, flowNote(c))
	if len(c.Warnings) > 0 {
		m.p("**Comparability warnings**\n\n")
		for _, wn := range c.Warnings {
			m.p("- %s (%s): %s\n", runLetter(wn.Run), wn.Kind, wn.Text)
		}
		m.p("\n")
	}
	if lines, failed, total := gateLines(c); total > 0 {
		m.p("**Gates**\n\n")
		for _, l := range lines {
			m.p("- %s\n", l)
		}
		if len(c.Regressions) > 0 {
			m.p("\n%s\n", regressionJudgement(c))
		}
		m.p("\n**%s**\n", gateVerdict(failed, total))
	}
	return m.err
}
