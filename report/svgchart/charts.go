package svgchart

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/internal/human"
)

// Marker is a labelled value drawn as a vertical line across a histogram:
// a percentile, or an SLO bound.
type Marker struct {
	Label string  // short, above the line: "p99"
	Value float64 // in the chart's unit
	Class string  // "marker" or "slo"
	Hover string
	// Edge is the value written out ("500 ms"), shown beside the label
	// when the marker lies beyond the chart's range.
	Edge string
}

// Bar is one bar of a displayed histogram: Count values in [Lo, Hi).
type Bar struct {
	Lo, Hi float64
	Count  int64
}

// Bars is a histogram ready to draw.
type Bars struct {
	Bars []Bar
	Log  bool // bars of equal ratio on a logarithmic axis; else equal width
	// Over counts the values above the last bar's Hi, drawn as one more
	// bar so that a few outliers do not squeeze the rest into one column.
	Over  int64
	Count int64 // every value, Over included
}

// HistogramChart draws bars with markers. unit scales the bars' seconds to
// the axis unit (1e3 for milliseconds); what names the counted things
// ("requests", "tokens").
func HistogramChart(title, axis, what string, bars Bars, unit float64, markers []Marker) *Frame {
	n := len(bars.Bars)
	if n == 0 {
		f := NewFrame(title, axis, what, Scale{Lo: 0, Hi: 1}, Scale{Lo: 0, Hi: 1})
		f.Printf(`<text class="empty" x="%d" y="%d" text-anchor="middle">no values</text>`, ChartW/2, ChartH/2)
		return f
	}
	lo, hi := unit*bars.Bars[0].Lo, unit*bars.Bars[n-1].Hi
	overLo, overHi := hi, hi
	if bars.Over > 0 {
		// One more bar, as wide as the last, holds the values beyond.
		if bars.Log {
			overHi = hi * bars.Bars[n-1].Hi / bars.Bars[n-1].Lo
		} else {
			overHi = hi + unit*(bars.Bars[n-1].Hi-bars.Bars[n-1].Lo)
		}
	}
	var peak int64
	for _, b := range bars.Bars {
		peak = max(peak, b.Count)
	}
	peak = max(peak, bars.Over, 1)
	_, ytop := NiceRange(0, float64(peak), 5)
	f := NewFrame(title, axis, what, Scale{Lo: lo, Hi: overHi, Log: bars.Log}, Scale{Lo: 0, Hi: ytop})
	share := func(c int64) string {
		if bars.Count == 0 {
			return ""
		}
		return fmt.Sprintf(" (%s %%)", human.Brief(100*float64(c)/float64(bars.Count)))
	}
	bar := func(a, b float64, c int64, class, hover string) {
		x0, x1 := f.X.Pos(a), f.X.Pos(b)
		y := f.Y.Pos(float64(c))
		wpx := math.Max(x1-x0-1, 0.5)
		f.Printf(`<rect class="%s" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
			class, Px(x0+0.5), Px(y), Px(wpx), Px(f.PlotBottom()-y), esc(hover))
	}
	for _, b := range bars.Bars {
		if b.Count == 0 {
			continue
		}
		bar(unit*b.Lo, unit*b.Hi, b.Count, "bar",
			fmt.Sprintf("%s–%s %s: %d %s%s", human.Brief(unit*b.Lo), human.Brief(unit*b.Hi), AxisUnit(axis), b.Count, what, share(b.Count)))
	}
	if bars.Over > 0 {
		bar(overLo, overHi, bars.Over, "bar over",
			fmt.Sprintf("above %s %s: %d %s%s", human.Brief(overLo), AxisUnit(axis), bars.Over, what, share(bars.Over)))
	}
	placeMarkers(f, markers)
	return f
}

// labelCharW is the width allowed per character of a 10 px chart label,
// a little more than the average of the sans-serif fonts a page may get,
// so that labels laid out apart stay apart.
const labelCharW = 6.2

// labelWidth is the width allowed for label in a chart.
func labelWidth(label string) float64 {
	return labelCharW*float64(utf8.RuneCountInString(label)) + 2
}

// placeMarkers draws markers as vertical lines with their labels in one
// row above the plot, each label moved sideways as little as needed to
// keep clear of its neighbours (a thin leader joins a moved label to its
// line). A marker beyond the axis's end draws no line: its label sits at
// the right end with an arrow, so that an SLO far above the data does not
// squeeze the data into a corner.
func placeMarkers(f *Frame, markers []Marker) {
	type label struct {
		m      Marker
		x      float64 // the line's position
		text   string
		w, cx  float64 // the label's width and centre
		beyond bool
	}
	var ls []label
	for _, m := range markers {
		if !usable(m.Value) {
			continue
		}
		l := label{m: m, x: f.X.Pos(m.Value), text: m.Label}
		if m.Value > f.X.Hi*(1+1e-9) {
			l.beyond, l.x = true, f.X.B
			l.text = m.Label + " " + m.Edge + " →"
		}
		l.w = labelWidth(l.text)
		ls = append(ls, l)
	}
	slices.SortStableFunc(ls, func(a, b label) int { return cmp.Compare(a.x, b.x) })
	const gap = 4
	left := f.X.A - 2 // clear of the y axis's labels
	for i := range ls {
		l := &ls[i]
		lo := max(l.x-l.w/2, left)
		if i > 0 {
			lo = max(lo, ls[i-1].cx+ls[i-1].w/2+gap)
		}
		l.cx = lo + l.w/2
	}
	right := f.W - 2
	for i := len(ls) - 1; i >= 0; i-- {
		l := &ls[i]
		hi := right
		if i < len(ls)-1 {
			hi = ls[i+1].cx - ls[i+1].w/2 - gap
		}
		if l.cx+l.w/2 > hi {
			l.cx = hi - l.w/2
		}
	}
	for _, l := range ls {
		f.Marker(l.x, l.cx, l.m.Class, l.text, l.m.Hover, l.beyond)
	}
}

// AxisUnit returns the unit in an axis label written "name (unit)".
func AxisUnit(axis string) string {
	i := strings.LastIndexByte(axis, '(')
	j := strings.LastIndexByte(axis, ')')
	if i < 0 || j < i {
		return ""
	}
	return axis[i+1 : j]
}

// Line is one series of a time chart: a value per bucket, NaN for none.
type Line struct {
	Name  string
	Class string // colour class: s0, s1, …
	Ys    []float64
	// Xs, when set, places each value at a time of its own (seconds from
	// the run epoch), such as a gauge at its scrape; a missing or NaN
	// entry places it at its bucket's middle, where a rate over the bucket
	// belongs.
	Xs     []float64
	Dashed bool
	Format func(float64) string // hover value; nil means human.Brief
}

// At returns where value i of l is drawn on a time chart of buckets
// starting at starts, step seconds wide.
func (l Line) At(i int, starts []float64, step float64) float64 {
	if i < len(l.Xs) && usable(l.Xs[i]) {
		return l.Xs[i]
	}
	return starts[i] + step/2
}

// TimeChart draws lines over time. starts are bucket starts in seconds
// from the run epoch, each step seconds wide; a transparent band over each
// bucket carries every line's value at that time as its hover text.
func TimeChart(title, yLabel string, starts []float64, step float64, lines []Line, refs ...Marker) *Frame {
	if len(starts) == 0 {
		f := NewFrame(title, "time since start (s)", yLabel, Scale{Lo: 0, Hi: 1}, Scale{Lo: 0, Hi: 1})
		f.Printf(`<text class="empty" x="%d" y="%d" text-anchor="middle">no data</text>`, ChartW/2, ChartH/2)
		return f
	}
	x0, x1 := starts[0], starts[len(starts)-1]+step
	top := 0.0
	for _, l := range lines {
		for _, v := range l.Ys {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				top = math.Max(top, v)
			}
		}
	}
	for _, r := range refs {
		top = math.Max(top, r.Value)
	}
	_, ytop := NiceRange(0, top, 5)
	f := NewFrame(title, "time since start (s)", yLabel, Scale{Lo: x0, Hi: x1}, Scale{Lo: 0, Hi: ytop})
	for _, r := range refs {
		f.HLine(r.Value, r.Class, r.Label, r.Hover)
	}
	for _, l := range lines {
		var d strings.Builder
		pen := false
		for i, v := range l.Ys {
			if i >= len(starts) {
				break
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s", cmd, Px(f.X.Pos(l.At(i, starts, step))), Px(f.Y.Pos(v)))
			pen = true
		}
		dash := ""
		if l.Dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		if d.Len() > 0 {
			f.Printf(`<path class="line %s" d="%s"%s/>`, l.Class, d.String(), dash)
		}
		// A value with no usable neighbour is a path of one point, which
		// draws nothing: it gets a dot (a run of one bucket, a gap's
		// island).
		usable := func(i int) bool {
			return i >= 0 && i < len(l.Ys) && i < len(starts) && !math.IsNaN(l.Ys[i]) && !math.IsInf(l.Ys[i], 0)
		}
		for i := range l.Ys {
			if usable(i) && !usable(i-1) && !usable(i+1) {
				f.Printf(`<circle class="point %s" cx="%s" cy="%s" r="2.5"/>`, l.Class, Px(f.X.Pos(l.At(i, starts, step))), Px(f.Y.Pos(l.Ys[i])))
			}
		}
		f.Legend = append(f.Legend, LegendItem{Class: l.Class, Label: l.Name, Dashed: l.Dashed})
	}
	for i, s := range starts {
		var t strings.Builder
		fmt.Fprintf(&t, "%s–%s s", human.Brief(s), human.Brief(s+step))
		for _, l := range lines {
			if i < len(l.Ys) && !math.IsNaN(l.Ys[i]) {
				format := l.Format
				if format == nil {
					format = human.Brief
				}
				fmt.Fprintf(&t, "\n%s: %s", l.Name, format(l.Ys[i]))
			}
		}
		a, b := f.X.Pos(s), f.X.Pos(s+step)
		f.Printf(`<rect class="hover" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
			Px(a), Px(f.PlotTop()), Px(math.Max(b-a, 0.1)), Px(f.PlotBottom()-f.PlotTop()), esc(t.String()))
	}
	return f
}

// Point is one point of a curve with its hover text.
type Point struct {
	X, Y  float64
	Hover string
}

// Curve is one series of points joined in order.
type Curve struct {
	Name   string
	Class  string
	Points []Point
	Dashed bool
	// Bare draws the line alone, without a dot (and hover) per point: for
	// a curve of many points, such as a distribution.
	Bare bool
	// Scatter draws the dots alone, without the line: points that are no
	// series, such as every run beside a frontier.
	Scatter bool
}

// Annotation rings a point of a curve and names it.
type Annotation struct {
	X, Y  float64
	Label string
	Class string
	Hover string
}

// Axis says how to draw one axis of a curve chart.
type Axis struct {
	Label string
	Log   bool
	// Zero starts a linear axis at zero rather than at the data's minimum.
	Zero bool
	Tick func(v, step float64) string
	// Lo and Hi, when Hi > Lo, fix the range instead of fitting the data.
	Lo, Hi float64
	// Step is the least step between ticks (1 for whole numbers); 0 for
	// any.
	Step float64
}

// CurveChart draws curves of points, such as latency against throughput
// across the loads of a sweep, with annotated points and reference lines.
func CurveChart(title string, xa, ya Axis, curves []Curve, notes []Annotation, refs ...Marker) *Frame {
	xs, ys := []float64{}, []float64{}
	for _, c := range curves {
		for _, p := range c.Points {
			if usable(p.X) && usable(p.Y) {
				xs = append(xs, p.X)
				ys = append(ys, p.Y)
			}
		}
	}
	for _, r := range refs {
		ys = append(ys, r.Value)
	}
	xsc, ysc := FitAxis(xa, xs), FitAxis(ya, ys)
	f := NewFrame(title, xa.Label, ya.Label, xsc, ysc)
	f.XTick, f.YTick = xa.Tick, ya.Tick
	if len(xs) == 0 {
		f.Printf(`<text class="empty" x="%d" y="%d" text-anchor="middle">no data</text>`, ChartW/2, ChartH/2)
		return f
	}
	// Everything drawn from data, in pixels: labels keep clear of it.
	var data []Box
	for _, c := range curves {
		var last [2]float64
		pen := false
		for _, p := range c.Points {
			if !usable(p.X) || !usable(p.Y) || (ysc.Log && p.Y <= 0) || (xsc.Log && p.X <= 0) {
				pen = false
				continue
			}
			x, y := f.X.Pos(p.X), f.Y.Pos(p.Y)
			data = append(data, Box{x - 4.5, y - 4.5, x + 4.5, y + 4.5})
			if pen {
				// The line between points, sampled every few pixels.
				steps := int(math.Hypot(x-last[0], y-last[1]) / 4)
				for k := 1; k < steps; k++ {
					t := float64(k) / float64(steps)
					sx, sy := last[0]+t*(x-last[0]), last[1]+t*(y-last[1])
					data = append(data, Box{sx - 1.5, sy - 1.5, sx + 1.5, sy + 1.5})
				}
			}
			last, pen = [2]float64{x, y}, true
		}
	}
	var placed []Box
	for _, r := range refs {
		placed = append(placed, f.HLineClear(r.Value, r.Class, r.Label, r.Hover, data))
	}
	for _, c := range curves {
		var d strings.Builder
		pen := false
		for _, p := range c.Points {
			if !usable(p.X) || !usable(p.Y) || (ysc.Log && p.Y <= 0) || (xsc.Log && p.X <= 0) {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s", cmd, Px(f.X.Pos(p.X)), Px(f.Y.Pos(p.Y)))
			pen = true
		}
		dash := ""
		if c.Dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		if d.Len() > 0 && !c.Scatter {
			f.Printf(`<path class="line %s" d="%s"%s/>`, c.Class, d.String(), dash)
		}
		for _, p := range c.Points {
			if c.Bare || !usable(p.X) || !usable(p.Y) || (ysc.Log && p.Y <= 0) || (xsc.Log && p.X <= 0) {
				continue
			}
			f.Printf(`<circle class="point %s" cx="%s" cy="%s" r="3.5"><title>%s</title></circle>`,
				c.Class, Px(f.X.Pos(p.X)), Px(f.Y.Pos(p.Y)), esc(p.Hover))
		}
		f.Legend = append(f.Legend, LegendItem{Class: c.Class, Label: c.Name, Dashed: c.Dashed})
	}
	// Picks on one point (the knee is often also the goodput peak) share
	// one label and get a ring each.
	type group struct {
		x, y    float64
		classes []string
		labels  []string
		hovers  []string
	}
	var groups []*group
	for _, a := range notes {
		if !usable(a.X) || !usable(a.Y) {
			continue
		}
		var g *group
		for _, h := range groups {
			if h.x == a.X && h.y == a.Y {
				g = h
			}
		}
		if g == nil {
			g = &group{x: a.X, y: a.Y}
			groups = append(groups, g)
		}
		g.classes = append(g.classes, a.Class)
		g.labels = append(g.labels, a.Label)
		g.hovers = append(g.hovers, a.Hover)
	}
	for _, g := range groups {
		x, y := f.X.Pos(g.x), f.Y.Pos(g.y)
		text := strings.Join(g.labels, " · ")
		lx, ly := placeLabel(f, x, y, 7+3.5*float64(len(g.classes)), labelWidth(text)+4, data, placed)
		placed = append(placed, Box{lx - (labelWidth(text)+4)/2, ly - 10, lx + (labelWidth(text)+4)/2, ly + 2})
		f.Printf(`<g class="pick %s">`, g.classes[0])
		for k, c := range g.classes {
			f.Printf(`<circle class="%s" cx="%s" cy="%s" r="%s"/>`, c, Px(x), Px(y), Px(7+3.5*float64(k)))
		}
		if math.Hypot(lx-x, ly-4-y) > 24 {
			// A label set far from its point is tied to it.
			f.Printf(`<path class="leader" d="M%s %sL%s %s"/>`, Px(x), Px(y), Px(lx), Px(ly-4))
		}
		f.Printf(`<text x="%s" y="%s" text-anchor="middle">%s</text><title>%s</title></g>`,
			Px(lx), Px(ly), esc(text), esc(strings.Join(g.hovers, "\n")))
	}
	return f
}

// Box is a rectangle in pixels.
type Box struct{ X0, Y0, X1, Y1 float64 }

// Overlaps reports whether a and b share some area.
func (a Box) Overlaps(b Box) bool {
	return a.X0 < b.X1 && b.X0 < a.X1 && a.Y0 < b.Y1 && b.Y0 < a.Y1
}

// placeLabel chooses where a pick's label goes: the nearest of several
// places around the point (its ring of radius r) where a label w pixels
// wide covers no data, no other label and stays inside the plot; failing
// that, the place that covers the least. It returns the label's centre
// and baseline.
func placeLabel(f *Frame, x, y, r, w float64, data, labels []Box) (float64, float64) {
	type place struct{ dx, dy float64 }
	var places []place
	for _, d := range []float64{0, 14, 28, 44} {
		places = append(places,
			place{0, -r - 4 - d}, place{0, r + 12 + d},
			place{w/2 + r + 2 + d, 4}, place{-w/2 - r - 2 - d, 4},
			place{w/2 + r, -r - d}, place{-w/2 - r, -r - d},
			place{w/2 + r, r + 10 + d}, place{-w/2 - r, r + 10 + d})
	}
	best, bestCost := places[0], math.Inf(1)
	for _, pl := range places {
		cx, by := x+pl.dx, y+pl.dy
		b := Box{cx - w/2, by - 10, cx + w/2, by + 2}
		cost := 0.0
		if b.X0 < f.X.A || b.X1 > f.X.B || b.Y0 < f.PlotTop() || b.Y1 > f.PlotBottom() {
			cost += 1000
		}
		for _, o := range labels {
			if b.Overlaps(o) {
				cost += 100
			}
		}
		for _, o := range data {
			if b.Overlaps(o) {
				cost++
			}
		}
		if cost == 0 {
			return cx, by
		}
		if cost < bestCost {
			best, bestCost = pl, cost
		}
	}
	return x + best.dx, y + best.dy
}

// FitAxis returns the scale for values vs drawn on an axis like a.
func FitAxis(a Axis, vs []float64) Scale {
	if a.Hi > a.Lo {
		return Scale{Lo: a.Lo, Hi: a.Hi, Log: a.Log, MinStep: a.Step}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if a.Log && v <= 0 {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(lo, 0) {
		return Scale{Lo: 0, Hi: 1}
	}
	if a.Log && lo > 0 {
		return Scale{Lo: math.Pow(10, math.Floor(math.Log10(lo))), Hi: math.Pow(10, math.Ceil(math.Log10(hi)+1e-9)), Log: true}
	}
	if a.Zero {
		lo = math.Min(lo, 0)
	}
	l, h := NiceRange(lo, hi, 5)
	return Scale{Lo: l, Hi: h, MinStep: a.Step}
}

// Segment is one part of a stacked bar.
type Segment struct {
	Label string
	Value float64 // seconds
	Class string
	Hover string
}

// StackChart draws one horizontal bar split into segments proportional to
// their values, with a legend naming every segment (its colour, label and
// share) below the bar, so that a segment too narrow to hold its label
// is named all the same: the server's request time split into queue,
// prefill and decode.
func StackChart(title, note string, segs []Segment) string {
	total := 0.0
	for _, s := range segs {
		if s.Value > 0 {
			total += s.Value
		}
	}
	// The legend's items are laid out in rows that fit the chart.
	type key struct {
		s    Segment
		x, y float64
	}
	var keys []key
	x, y := float64(marginLeft), 76.0
	for _, s := range segs {
		text := s.Label
		if total > 0 && s.Value > 0 {
			text += fmt.Sprintf(" (%s)", share(s.Value/total))
		}
		w := 18 + legendCharW*float64(utf8.RuneCountInString(text)) + 16
		if x+w > ChartW-marginRight && x > marginLeft {
			x, y = marginLeft, y+18
		}
		s.Label = text
		keys = append(keys, key{s, x, y})
		x += w
	}
	h := int(y) + 32
	var w strings.Builder
	fmt.Fprintf(&w, `<figure class="chart stack"><figcaption>%s</figcaption>`, esc(title))
	fmt.Fprintf(&w, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`, ChartW, h, esc(title))
	x = float64(marginLeft)
	span := float64(ChartW - marginLeft - marginRight)
	for _, s := range segs {
		if s.Value <= 0 || total <= 0 {
			continue
		}
		wpx := span * s.Value / total
		fmt.Fprintf(&w, `<g class="seg %s"><rect x="%s" y="20" width="%s" height="34"/>`, s.Class, Px(x), Px(wpx))
		if wpx > labelWidth(s.Label)+8 {
			fmt.Fprintf(&w, `<text x="%s" y="42" text-anchor="middle">%s</text>`, Px(x+wpx/2), esc(s.Label))
		}
		fmt.Fprintf(&w, `<title>%s</title></g>`, esc(s.Hover))
		x += wpx
	}
	w.WriteString(`<g class="legend">`)
	for _, k := range keys {
		fmt.Fprintf(&w, `<g class="segkey %s" data-seg="%s"><rect x="%s" y="%s" width="12" height="12"/><text x="%s" y="%s">%s</text><title>%s</title></g>`,
			k.s.Class, k.s.Class, Px(k.x), Px(k.y-10), Px(k.x+17), Px(k.y), esc(k.s.Label), esc(k.s.Hover))
	}
	w.WriteString(`</g>`)
	fmt.Fprintf(&w, `<text class="label" x="%d" y="%d">%s</text>`, marginLeft, h-8, esc(note))
	w.WriteString("</svg></figure>\n")
	return w.String()
}

// legendCharW is the width allowed per character of an 11 px legend
// label.
const legendCharW = 6.8

// usable reports whether v is a finite number.
func usable(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// share writes a fraction as a percentage with one decimal: "12.3 %".
func share(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + " %" }
