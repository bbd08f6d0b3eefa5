package report

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/report/svgchart"
	"github.com/goodput-dev/goodput/slo"
	"github.com/goodput-dev/goodput/sweep"
)

// WriteSweepHTML writes a sweep as one self-contained HTML page: its
// verdict, the latency–throughput curves of TTFT and TPOT (p50 and p99)
// with the knees, the goodput peak and the operating point marked,
// throughput and goodput against load, SLO attainment against load, the
// server's own account of each load beside the client's (from the points'
// summaries, s.Servers), and every point's numbers. The page loads nothing; its one script saves
// charts.
func WriteSweepHTML(w io.Writer, s *Sweep, o HTMLOptions) error {
	if s == nil || len(s.Summary.Points) == 0 {
		return fmt.Errorf("html report: sweep has no points")
	}
	var data bytes.Buffer
	if err := sweep.WriteJSON(&data, s.Summary); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	title := o.Title
	if title == "" {
		title = "goodput sweep: " + s.Name
	}
	sum := s.Summary
	var p page
	sub := fmt.Sprintf("%d loads", len(sum.Points))
	if s.Path != "" {
		sub += " · " + s.Path
	}
	p.head(title, sub)
	measuredSection(&p, s)
	p.verdict(sweepVerdict(sum))
	p.cards(sweepCards(sum))
	cs := s.Context.Conditions()

	p.section("curve", "Latency against throughput")
	p.intro("Each point is one load; as load rises, throughput levels off while latency climbs. The knee (Kleinrock's power, throughput ÷ latency) is where more load starts to cost more latency than it buys throughput; the curvature knee is where the curve bends hardest.")
	p.gridStart()
	xs := svgchart.Axis{Label: "output throughput (tok/s)", Zero: true}
	for _, m := range []struct {
		title, name string
		dist        func(sweep.Sample) sweep.Dist
	}{
		{"TTFT against throughput", "TTFT", func(x sweep.Sample) sweep.Dist { return x.TTFT }},
		{"TPOT against throughput", "TPOT", func(x sweep.Sample) sweep.Dist { return x.TPOT }},
	} {
		var p50, p99 []svgchart.Point
		for _, pt := range sum.Points {
			d := m.dist(pt.Mean)
			x := pt.Mean.OutputThroughput
			p50 = append(p50, svgchart.Point{X: x, Y: 1e3 * d.P50, Hover: pointHover(pt, m.name+" p50", d.P50)})
			p99 = append(p99, svgchart.Point{X: x, Y: 1e3 * d.P99, Hover: pointHover(pt, m.name+" p99", d.P99)})
		}
		ys := svgchart.Axis{Label: m.name + " (ms)", Zero: true, Log: spansDecades(p50, p99)}
		notes := pickNotes(sum, func(i int) (float64, float64) {
			return sum.Points[i].Mean.OutputThroughput, 1e3 * m.dist(sum.Points[i].Mean).P99
		})
		var refs []svgchart.Marker
		for _, c := range cs {
			if string(c.Metric) == strings.ToLower(m.name) && (c.Op == slo.LE || c.Op == slo.LT) {
				b := c.Bound.Seconds()
				refs = append(refs, svgchart.Marker{Label: "SLO " + seconds(b), Value: 1e3 * b, Class: "slo", Hover: "SLO: " + c.String()})
			}
		}
		p.chart(svgchart.CurveChart(m.title, xs, ys, []svgchart.Curve{
			{Name: "p50", Class: "s0", Points: p50},
			{Name: "p99", Class: "s1", Points: p99, Dashed: true},
		}, notes, refs...))
	}
	p.gridEnd()
	p.sectionEnd()

	p.section("load", "Against load")
	xa, xpos, note := loadAxis(sum.Points)
	if note != "" {
		p.intro(note)
	}
	p.gridStart()
	var tput, good, att []svgchart.Point
	for i, pt := range sum.Points {
		tput = append(tput, svgchart.Point{X: xpos[i], Y: pt.Mean.OutputThroughput, Hover: pointHover(pt, "output throughput", math.NaN())})
		good = append(good, svgchart.Point{X: xpos[i], Y: pt.Mean.Goodput, Hover: pointHover(pt, "goodput", math.NaN())})
		att = append(att, svgchart.Point{X: xpos[i], Y: 100 * pt.Mean.Attainment, Hover: pointHover(pt, "attainment", math.NaN())})
	}
	p.chart(svgchart.CurveChart("Throughput and goodput", xa, svgchart.Axis{Label: "tok/s", Zero: true}, []svgchart.Curve{
		{Name: "output throughput", Class: "s0", Points: tput},
		{Name: "goodput", Class: "s2", Points: good},
	}, pickNotesOn(sum, func(i int, class string) (float64, float64) {
		// The knees are throughput's, and the operating point a load:
		// they sit on the throughput line; the goodput peak on goodput's.
		if class == "peak" {
			return xpos[i], sum.Points[i].Mean.Goodput
		}
		return xpos[i], sum.Points[i].Mean.OutputThroughput
	})))
	target := sum.Operating.Target
	if target == 0 {
		target = sweep.DefaultTarget
	}
	p.chart(svgchart.CurveChart("SLO attainment", xa, svgchart.Axis{Label: "requests meeting the SLO (%)", Lo: 0, Hi: 100}, []svgchart.Curve{
		{Name: "attainment", Class: "s2", Points: att},
	}, operatingNote(sum, func(i int) (float64, float64) { return xpos[i], 100 * sum.Points[i].Mean.Attainment }),
		svgchart.Marker{Label: "target " + percent(target), Value: 100 * target, Class: "target", Hover: "the attainment the operating point must reach"}))
	p.gridEnd()
	p.sectionEnd()

	serverSweepSection(&p, s, xa, xpos)

	p.section("points", "Points")
	p.intro("Every load with the mean over its repeats (± one standard deviation when measured more than once). Marks: op = operating point, knee = power knee, curve = curvature knee, peak = goodput peak, stray = met the target above a load that missed it.")
	p.table("points", []string{"load", "repeats", "requests", "req/s", "out tok/s", "goodput", "attainment", "errors",
		"TTFT p50", "TTFT p99", "TPOT p50", "TPOT p99", "ITL p99", "e2e mean", "e2e p99", "L", "λ·W̄", "lag p99", "marks"}, sweepRows(sum))
	if rows := recordRows(s); len(rows) > 0 {
		p.intro("Each point's requests are in its record files beside the sweep file; goodput report FILE draws one measurement in full.")
		p.table("point-records", []string{"load", "record files"}, rows)
	}
	var picks [][]cell
	for _, pk := range []struct {
		name string
		p    sweep.Pick
	}{{"power knee", sum.Power}, {"curvature knee", sum.Curvature}, {"goodput peak", sum.GoodputPeak}, {"operating point", sum.Operating.Pick}} {
		load := "none"
		if pk.p.Found {
			load = pk.p.Load.Short()
		}
		picks = append(picks, []cell{{s: pk.name, class: "l"}, {s: load, class: "l"}, {s: pk.p.Note, class: "msg"}})
	}
	p.table("picks", []string{"pick", "load", "note"}, picks)
	p.sectionEnd()
	p.tail("goodput-sweep", safeJSON(data.Bytes()), o.Tool)
	_, err := p.finish(w)
	return err
}

// measuredSection says what the sweep measured: the target (the server,
// or the simulated GPU and model), the workload, the loads, the SLO and
// the attainment the operating point had to reach.
func measuredSection(p *page, s *Sweep) {
	c, sum := s.Context, s.Summary
	var rows [][]cell
	add := func(k, v string) {
		if v != "" {
			cls := "l"
			if strings.Contains(v, "\n") {
				cls = "l pre"
			}
			rows = append(rows, []cell{{s: k, class: "l"}, {s: v, class: cls}})
		}
	}
	target := c.Target
	if c.Clock == "virtual" && !strings.Contains(target, "virtual") {
		target += " (virtual time)"
	}
	add("target", target)
	add("model", c.Model)
	add("workload", c.Workload)
	loads := make([]string, len(sum.Points))
	for i, pt := range sum.Points {
		loads[i] = pt.Load.Short()
	}
	what := "concurrency"
	if len(sum.Points) > 0 && sum.Points[0].Load.Mode == sweep.ModeRate {
		what = "request rate (req/s)"
	}
	perPoint := ""
	if n := c.Settings["num_prompts"]; n != "" && n != "0" {
		perPoint = fmt.Sprintf(", %s requests each", n)
	}
	add("loads", fmt.Sprintf("%s %s (%d loads%s)", what, strings.Join(loads, ", "), len(sum.Points), perPoint))
	sloText := c.SLO
	if sloText == "" {
		sloText = "none recorded beside the sweep file"
	}
	add("SLO", sloText)
	target2 := sum.Operating.Target
	if target2 == 0 {
		target2 = sweep.DefaultTarget
	}
	add("attainment target", percent(target2)+" of requests within the SLO, for the operating point")
	add("percentiles", c.Method)
	p.section("measured", "What was measured")
	p.table("measured", []string{"", ""}, rows)
	p.sectionEnd()
}

func sweepVerdict(s sweep.Summary) verdict {
	v := verdict{class: "info", headline: s.Verdict}
	if v.headline == "" {
		v.headline = fmt.Sprintf("%d loads measured.", len(s.Points))
	}
	if len(s.Operating.Strays) > 0 {
		var ls []string
		for _, l := range s.Operating.Strays {
			ls = append(ls, l.Short())
		}
		v.notes = append(v.notes, fmt.Sprintf("Loads that met the target above one that missed it (%s) were not taken as the operating point: treat them as noise.", strings.Join(ls, ", ")))
	}
	return v
}

func sweepCards(s sweep.Summary) []card {
	pick := func(name string, p sweep.Pick, detail func(sweep.Sample) string) card {
		if !p.Found || p.Index < 0 || p.Index >= len(s.Points) {
			return card{name, "none", p.Note}
		}
		return card{name, p.Load.Short(), detail(s.Points[p.Index].Mean)}
	}
	tput := func(x sweep.Sample) string { return human.Brief(x.OutputThroughput) + " tok/s" }
	return []card{
		pick("Operating point", s.Operating.Pick, func(x sweep.Sample) string {
			return fmt.Sprintf("%s req/s, attainment %s", human.Brief(x.RequestThroughput), percent(x.Attainment))
		}),
		pick("Goodput peak", s.GoodputPeak, func(x sweep.Sample) string { return human.Brief(x.Goodput) + " tok/s goodput" }),
		pick("Knee (power)", s.Power, tput),
		pick("Knee (curvature)", s.Curvature, tput),
	}
}

// pickNotes annotates the chosen points at the positions at gives them.
func pickNotes(s sweep.Summary, at func(i int) (float64, float64)) []svgchart.Annotation {
	return pickNotesOn(s, func(i int, _ string) (float64, float64) { return at(i) })
}

// pickNotesOn is pickNotes with a position for each pick, by its class
// (knee, curvature, peak, operating).
func pickNotesOn(s sweep.Summary, at func(i int, class string) (float64, float64)) []svgchart.Annotation {
	var out []svgchart.Annotation
	for _, pk := range []struct {
		p            sweep.Pick
		label, class string
		what         string
	}{
		{s.Power, "knee", "knee", "knee by power (throughput ÷ latency)"},
		{s.Curvature, "curvature", "curvature", "knee by curvature"},
		{s.GoodputPeak, "peak", "peak", "goodput peak"},
		{s.Operating.Pick, "operating", "operating", "operating point: the highest load meeting the SLO target"},
	} {
		if !pk.p.Found || pk.p.Index < 0 || pk.p.Index >= len(s.Points) {
			continue
		}
		x, y := at(pk.p.Index, pk.class)
		out = append(out, svgchart.Annotation{X: x, Y: y, Label: pk.label, Class: pk.class, Hover: pk.what + " at " + pk.p.Load.Phrase()})
	}
	return out
}

func operatingNote(s sweep.Summary, at func(i int) (float64, float64)) []svgchart.Annotation {
	all := pickNotes(s, at)
	for _, a := range all {
		if a.Class == "operating" {
			return []svgchart.Annotation{a}
		}
	}
	return nil
}

// pointHover describes a sweep point for a hover: its load, throughput and
// the value drawn (seconds; NaN draws none).
func pointHover(pt sweep.Point, what string, v float64) string {
	m := pt.Mean
	s := fmt.Sprintf("load %s: %s tok/s, goodput %s tok/s, attainment %s", pt.Load.Short(), human.Brief(m.OutputThroughput), human.Brief(m.Goodput), percent(m.Attainment))
	if !math.IsNaN(v) {
		s = fmt.Sprintf("%s %s\n%s", what, seconds(v), s)
	}
	return s
}

// spansDecades reports whether the curves' values spread over more than a
// factor of 30, when a logarithmic axis keeps the low loads readable.
func spansDecades(curves ...[]svgchart.Point) bool {
	lo, hi := math.Inf(1), 0.0
	for _, c := range curves {
		for _, p := range c {
			if usable(p.Y) && p.Y > 0 {
				lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
			}
		}
	}
	return hi > 0 && hi/lo > 30
}

// loadAxis places each point on an offered-load axis. In a rate sweep a
// closed-loop point (the synchronous one) sits at the rate it achieved;
// an unbounded rate sits beyond the highest finite load, and note says so.
func loadAxis(points []sweep.Point) (svgchart.Axis, []float64, string) {
	mode := sweep.ModeConcurrency
	for _, p := range points {
		if p.Load.Mode == sweep.ModeRate {
			mode = sweep.ModeRate
		}
	}
	xs := make([]float64, len(points))
	hi, lo := 0.0, math.Inf(1)
	unbounded := false
	for i, p := range points {
		switch {
		case p.Load.Unbounded():
			unbounded = true
			xs[i] = math.NaN()
			continue
		case p.Load.Mode == mode:
			xs[i] = p.Load.Value
		default:
			xs[i] = p.Mean.RequestThroughput
		}
		if usable(xs[i]) && xs[i] > 0 {
			hi, lo = math.Max(hi, xs[i]), math.Min(lo, xs[i])
		}
	}
	a := svgchart.Axis{Label: "concurrency (requests in flight)", Zero: true}
	if mode == sweep.ModeRate {
		a.Label = "offered load (req/s)"
	}
	if hi > 0 && hi/lo >= 8 {
		a.Log, a.Zero = true, false
	}
	note := ""
	if unbounded {
		beyond := hi * 1.25
		if a.Log {
			beyond = hi * 2
		}
		if hi == 0 {
			beyond = 1
		}
		for i, p := range points {
			if p.Load.Unbounded() {
				xs[i] = beyond
			}
		}
		note = fmt.Sprintf("The unbounded request rate (every request at once) is drawn at %s req/s, beyond the highest finite rate.", human.Brief(beyond))
	}
	return a, xs, note
}

func sweepRows(s sweep.Summary) [][]cell {
	var rows [][]cell
	for i, pt := range s.Points {
		m, sd := pt.Mean, pt.Spread
		reps := max(len(pt.Repeats), 1)
		spread := func(v, d float64) string {
			if reps > 1 && usable(d) {
				return human.Brief(v) + " ±" + human.Brief(d)
			}
			return human.Brief(v)
		}
		row := []cell{
			{s: pt.Load.Short(), class: "l"},
			{s: strconv.Itoa(reps)},
			{s: strconv.Itoa(m.Requests)},
			{s: human.Brief(m.RequestThroughput)},
			{s: spread(m.OutputThroughput, sd.OutputThroughput)},
			{s: spread(m.Goodput, sd.Goodput)},
			{s: percent(m.Attainment)},
			{s: percent(m.ErrorRate)},
			{s: seconds(m.TTFT.P50)}, {s: seconds(m.TTFT.P99)},
			{s: seconds(m.TPOT.P50)}, {s: seconds(m.TPOT.P99)},
			{s: seconds(m.ITL.P99)},
			{s: seconds(m.E2E.Mean)}, {s: seconds(m.E2E.P99)},
			{s: human.Brief(m.LittleL)}, {s: human.Brief(m.LittleLambdaW)},
			{s: seconds(m.ClientLagP99)},
			{s: strings.Join(s.Marks(i), ", "), class: "l"},
		}
		rows = append(rows, row)
	}
	return rows
}

// recordRows lists the record files of each point, in the order of the
// points.
func recordRows(s *Sweep) [][]cell {
	var rows [][]cell
	for _, pt := range s.Summary.Points {
		if files := s.Records[pt.Load.String()]; len(files) > 0 {
			rows = append(rows, []cell{{s: pt.Load.Short(), class: "l"}, {s: strings.Join(files, ", "), class: "l"}})
		}
	}
	return rows
}
