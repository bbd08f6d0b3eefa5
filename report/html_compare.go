package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/report/svgchart"
)

// maxCDFPoints bounds the points of one run's curve on a compare page.
const maxCDFPoints = 240

// runClasses colour the runs of a comparison, the baseline first.
var runClasses = []string{"s0", "s1", "s2", "s3", "s4", "s5"}

func runClass(i int) string { return runClasses[i%len(runClasses)] }

// WriteCompareHTML writes the comparison as one self-contained HTML page:
// the verdict (gates, and which differences are real), every key metric of
// every run with the differences against the baseline, their confidence
// intervals and verdicts, each difference drawn with its interval, the
// latency distributions of all runs on one chart per metric, and the
// comparability warnings.
func WriteCompareHTML(w io.Writer, c *Comparison, o HTMLOptions) error {
	if c == nil || len(c.Runs) < 2 {
		return fmt.Errorf("html compare: need at least two runs")
	}
	names := make([]string, len(c.Runs))
	for i, r := range c.Runs {
		names[i] = r.Name
	}
	title := o.Title
	if title == "" {
		title = "goodput compare: " + strings.Join(names, " vs ")
	}
	var p page
	p.head(title, fmt.Sprintf("%d runs against the baseline A · %s percentiles · %s %% bootstrap intervals (%d resamples, seed %d)",
		len(c.Runs), c.Method, pct(100*c.Confidence), c.Resamples, c.Seed))
	p.verdict(compareVerdict(c))

	p.section("runs", "Runs")
	var rows [][]cell
	for i, r := range c.Runs {
		role := ""
		if i == 0 {
			role = "baseline"
		}
		rows = append(rows, []cell{{s: runLetter(i), class: "l " + runClass(i) + "-key"}, {s: role, class: "l"}, {s: runLine(r), class: "l"}})
	}
	p.table("runs", []string{"run", "", "records"}, rows)
	p.sectionEnd()

	p.section("differences", "Differences")
	p.intro(fmt.Sprintf("Each run against the baseline A. A difference whose %s %% interval holds zero is noise: the runs' own spread could make it. Intervals come from resampling each run's requests in blocks (requests in flight together share the server's state).%s", pct(100*c.Confidence), flowNote(c)))
	head := []string{"metric"}
	for i := range c.Runs {
		head = append(head, runLetter(i))
	}
	for k := 1; k < len(c.Runs); k++ {
		l := runLetter(k)
		head = append(head, l+" Δ", l+" Δ%", l+" "+pct(100*c.Confidence)+" % CI", l+" verdict")
	}
	rows = nil
	for i := range c.Rows {
		r := &c.Rows[i]
		row := []cell{{s: r.label(), class: "l"}}
		for _, v := range r.Values {
			row = append(row, cell{s: r.value(v)})
		}
		for k := 1; k < len(c.Runs); k++ {
			d := r.Diffs[k]
			cls := "l"
			switch d.Verdict {
			case Worse:
				cls = "l fail"
			case Better:
				cls = "l pass"
			}
			row = append(row, cell{s: r.delta(d.Abs)}, cell{s: signedPercent(d.Rel)}, cell{s: r.interval(d)}, cell{s: d.Verdict, class: cls})
		}
		rows = append(rows, row)
	}
	p.table("differences", head, rows)
	p.chart(differenceChart(c))
	p.sectionEnd()

	p.section("distributions", "Distributions")
	p.intro("The share of requests (of tokens, for ITL) at or below each latency, for every run: a curve to the left is faster; where curves cross, one run is faster in the bulk and the other in the tail.")
	p.gridStart()
	for _, lc := range latencyCharts {
		p.chart(cdfChart(c, lc.m, lc.title, lc.axis))
	}
	p.gridEnd()
	p.sectionEnd()

	if len(c.Warnings) > 0 {
		p.section("warnings", "Comparability warnings")
		p.w(`<ul class="facts">`)
		for _, wn := range c.Warnings {
			p.plain("li", fmt.Sprintf("%s (%s): %s", runLetter(wn.Run), wn.Kind, wn.Text))
		}
		p.w("</ul>\n")
		p.sectionEnd()
	}
	p.tail("", nil, o.Tool)
	_, err := p.finish(w)
	return err
}

// compareVerdict states the gates, else the real differences.
func compareVerdict(c *Comparison) verdict {
	v := verdict{class: "info"}
	_, failed, total := gateLines(c)
	if total > 0 {
		v.headline = gateVerdict(failed, total)
		v.class = "pass"
		if failed > 0 {
			v.class = "fail"
		}
		item := func(pass bool, text string) {
			cls := "gate-pass"
			if !pass {
				cls = "gate-fail"
			}
			v.items = append(v.items, verdictItem{class: cls, text: text})
		}
		for i, rs := range c.Gates {
			for _, g := range rs {
				item(g.Pass, runLetter(i)+": "+g.String())
			}
		}
		for _, g := range c.Regressions {
			item(g.Pass, runLetter(g.Run)+" against A: "+g.String())
		}
		if len(c.Regressions) > 0 {
			v.notes = append(v.notes, regressionJudgement(c))
		}
	}
	var real []string
	for k := 1; k < len(c.Runs); k++ {
		for i := range c.Rows {
			r := &c.Rows[i]
			if d := r.Diffs[k]; d.Verdict == Worse || d.Verdict == Better {
				real = append(real, fmt.Sprintf("%s %s %s (%s)", runLetter(k), r.Label, d.Verdict, signedPercent(d.Rel)))
			}
		}
	}
	summary := "Every latency difference is within the noise."
	if len(real) > 0 {
		summary = "Beyond the noise: " + strings.Join(real, "; ") + "."
	}
	if v.headline == "" {
		v.headline = summary
	} else {
		v.items = append(v.items, verdictItem{class: "slo", text: summary})
	}
	for _, wn := range c.Warnings {
		v.notes = append(v.notes, fmt.Sprintf("%s is not comparable with A (%s): see the warnings.", runLetter(wn.Run), wn.Kind))
	}
	return v
}

// differenceChart draws each latency difference against the baseline, in
// percent, with its interval: a bar that crosses zero is noise.
func differenceChart(c *Comparison) *svgchart.Frame {
	type item struct {
		label         string
		run           int
		rel, lo, hi   float64
		verdict, hint string
	}
	var items []item
	for i := range c.Rows {
		r := &c.Rows[i]
		if r.Unit != UnitSeconds {
			continue
		}
		base := r.Values[0]
		for k := 1; k < len(c.Runs); k++ {
			d := r.Diffs[k]
			if !d.HasCI || !usable(base) || base == 0 {
				continue
			}
			items = append(items, item{label: r.Label, run: k, rel: 100 * d.Rel, lo: 100 * d.Lo / math.Abs(base), hi: 100 * d.Hi / math.Abs(base),
				verdict: d.Verdict, hint: fmt.Sprintf("%s, %s against A: %s (%s), interval [%s, %s] ms: %s", r.Label, runLetter(k),
					signedPercent(d.Rel), r.delta(d.Abs), r.delta(d.Lo), r.delta(d.Hi), d.Verdict)})
		}
	}
	rowH := 18.0
	h := float64(svgchart.MarginTop+svgchart.MarginBottom) + rowH*float64(max(len(items), 1))
	lo, hi := 0.0, 0.0
	for _, it := range items {
		lo, hi = math.Min(lo, math.Min(it.lo, it.rel)), math.Max(hi, math.Max(it.hi, it.rel))
	}
	l, r := svgchart.NiceRange(lo, hi, 6)
	const left = 150.0 // room for the metric names
	f := svgchart.NewSizedFrame("Latency differences against A, with their intervals", "difference from A (%)", "",
		svgchart.Scale{Lo: l, Hi: r}, svgchart.Scale{Lo: 0, Hi: float64(max(len(items), 1))}, svgchart.ChartW, h)
	f.X.A = left
	f.Class = " narrow"
	f.YTick = func(float64, float64) string { return "" }
	z := f.X.Pos(0)
	f.Printf(`<line class="zero" x1="%s" x2="%s" y1="%s" y2="%s"/>`, svgchart.Px(z), svgchart.Px(z), svgchart.Px(f.PlotTop()), svgchart.Px(f.PlotBottom()))
	for i, it := range items {
		y := f.PlotTop() + (float64(i)+0.5)*rowH
		cls := runClass(it.run)
		f.Printf(`<g class="diff %s %s"><line x1="%s" x2="%s" y1="%s" y2="%s"/><circle class="point %s" cx="%s" cy="%s" r="3.5"/><title>%s</title></g>`,
			cls, it.verdict, svgchart.Px(f.X.Pos(it.lo)), svgchart.Px(f.X.Pos(it.hi)), svgchart.Px(y), svgchart.Px(y), cls, svgchart.Px(f.X.Pos(it.rel)), svgchart.Px(y), esc(it.hint))
		f.Printf(`<text class="rowlabel" x="%s" y="%s" text-anchor="end">%s</text>`, svgchart.Px(left-6), svgchart.Px(y+4), esc(runLetter(it.run)+": "+it.label))
	}
	if len(items) == 0 {
		f.Printf(`<text class="empty" x="%s" y="%s" text-anchor="middle">no interval</text>`, svgchart.Px(f.W/2), svgchart.Px(f.H/2))
	}
	return f
}

// cdfChart draws every run's distribution of metric m as the share of
// values at or below each latency.
func cdfChart(c *Comparison, m metrics.Metric, title, axis string) *svgchart.Frame {
	var curves []svgchart.Curve
	lo, hi := math.Inf(1), 0.0
	for i, r := range c.Runs {
		h := r.Latency[m]
		if h == nil || h.Count() == 0 {
			continue
		}
		lo, hi = math.Min(lo, h.Min()), math.Max(hi, h.Quantile(0.999))
		var pts []svgchart.Point
		for _, pt := range h.cdf(maxCDFPoints) {
			pts = append(pts, svgchart.Point{X: 1e3 * pt[0], Y: 100 * pt[1], Hover: fmt.Sprintf("%s: %s of values ≤ %s", runLetter(i), percent(pt[1]), seconds(pt[0]))})
		}
		curves = append(curves, svgchart.Curve{Name: runLetter(i) + ": " + r.Name, Class: runClass(i), Points: pts, Bare: true})
	}
	xa := svgchart.Axis{Label: axis, Zero: true}
	if lo > 0 && hi/lo > 20 {
		xa = svgchart.Axis{Label: axis, Log: true}
	}
	if hi > 0 {
		if xa.Log {
			xa.Lo, xa.Hi = math.Pow(10, math.Floor(math.Log10(1e3*lo))), 1e3*hi
		} else {
			xa.Lo, xa.Hi = svgchart.NiceRange(0, 1e3*hi, 6)
		}
	}
	return svgchart.CurveChart(title, xa, svgchart.Axis{Label: "share at or below (%)", Lo: 0, Hi: 100}, curves, nil)
}
