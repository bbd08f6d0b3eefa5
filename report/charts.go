package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/internal/human"
)

// marker is a labelled value drawn as a vertical line across a histogram:
// a percentile, or an SLO bound.
type marker struct {
	label string  // short, above the line: "p99"
	value float64 // in the chart's unit
	class string  // "marker" or "slo"
	hover string
	// edge is the value written out ("500 ms"), shown beside the label
	// when the marker lies beyond the chart's range.
	edge string
}

// histogramChart draws bars with markers. unit scales the bars' seconds to
// the axis unit (1e3 for milliseconds); what names the counted things
// ("requests", "tokens").
func histogramChart(title, axis, what string, bars Bars, unit float64, markers []marker) *frame {
	n := len(bars.Bars)
	if n == 0 {
		f := newFrame(title, axis, what, scale{lo: 0, hi: 1}, scale{lo: 0, hi: 1})
		f.printf(`<text class="empty" x="%d" y="%d" text-anchor="middle">no values</text>`, chartW/2, chartH/2)
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
	_, ytop := niceRange(0, float64(peak), 5)
	f := newFrame(title, axis, what, scale{lo: lo, hi: overHi, log: bars.Log}, scale{lo: 0, hi: ytop})
	share := func(c int64) string {
		if bars.Count == 0 {
			return ""
		}
		return fmt.Sprintf(" (%s %%)", human.Brief(100*float64(c)/float64(bars.Count)))
	}
	bar := func(a, b float64, c int64, class, hover string) {
		x0, x1 := f.x.pos(a), f.x.pos(b)
		y := f.y.pos(float64(c))
		wpx := math.Max(x1-x0-1, 0.5)
		f.printf(`<rect class="%s" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
			class, px(x0+0.5), px(y), px(wpx), px(f.plotBottom()-y), esc(hover))
	}
	for _, b := range bars.Bars {
		if b.Count == 0 {
			continue
		}
		bar(unit*b.Lo, unit*b.Hi, b.Count, "bar",
			fmt.Sprintf("%s–%s %s: %d %s%s", human.Brief(unit*b.Lo), human.Brief(unit*b.Hi), axisUnit(axis), b.Count, what, share(b.Count)))
	}
	if bars.Over > 0 {
		bar(overLo, overHi, bars.Over, "bar over",
			fmt.Sprintf("above %s %s: %d %s%s", human.Brief(overLo), axisUnit(axis), bars.Over, what, share(bars.Over)))
	}
	placeMarkers(f, markers)
	return f
}

// markedHistogram draws h (values in seconds, or any unit drawn as is
// when unit is 1) with its markers (values in h's unit). The range covers
// the bulk of the values, to the 99.9th percentile, and the markers that
// lie near it; a marker far beyond (an SLO ten times the slowest
// request) is named at the right end instead of stretching the axis until
// the values fill one corner.
func markedHistogram(title, axis, what string, h *Histogram, unit float64, ms []marker) *frame {
	top := h.Quantile(0.999)
	var include []float64
	for i := range ms {
		if ms[i].value <= 2*top || top <= 0 {
			include = append(include, ms[i].value)
		}
		ms[i].value *= unit
	}
	return histogramChart(title, axis, what, h.Display(maxBars, include...), unit, ms)
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
func placeMarkers(f *frame, markers []marker) {
	type label struct {
		m      marker
		x      float64 // the line's position
		text   string
		w, cx  float64 // the label's width and centre
		beyond bool
	}
	var ls []label
	for _, m := range markers {
		if !usable(m.value) {
			continue
		}
		l := label{m: m, x: f.x.pos(m.value), text: m.label}
		if m.value > f.x.hi*(1+1e-9) {
			l.beyond, l.x = true, f.x.b
			l.text = m.label + " " + m.edge + " →"
		}
		l.w = labelWidth(l.text)
		ls = append(ls, l)
	}
	slices.SortStableFunc(ls, func(a, b label) int { return cmp.Compare(a.x, b.x) })
	const gap = 4
	left := f.x.a - 2 // clear of the y axis's labels
	for i := range ls {
		l := &ls[i]
		lo := max(l.x-l.w/2, left)
		if i > 0 {
			lo = max(lo, ls[i-1].cx+ls[i-1].w/2+gap)
		}
		l.cx = lo + l.w/2
	}
	right := f.w - 2
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
		f.marker(l.x, l.cx, l.m.class, l.text, l.m.hover, l.beyond)
	}
}

// axisUnit returns the unit in an axis label written "name (unit)".
func axisUnit(axis string) string {
	i := strings.LastIndexByte(axis, '(')
	j := strings.LastIndexByte(axis, ')')
	if i < 0 || j < i {
		return ""
	}
	return axis[i+1 : j]
}

// line is one series of a time chart: a value per bucket, NaN for none.
type line struct {
	name  string
	class string // colour class: s0, s1, …
	ys    []float64
	// xs, when set, places each value at a time of its own (seconds from
	// the run epoch), such as a gauge at its scrape; a missing or NaN
	// entry places it at its bucket's middle, where a rate over the bucket
	// belongs.
	xs     []float64
	dashed bool
	format func(float64) string // hover value; nil means human.Brief
}

// at returns where value i of l is drawn on a time chart of buckets
// starting at starts, step seconds wide.
func (l line) at(i int, starts []float64, step float64) float64 {
	if i < len(l.xs) && usable(l.xs[i]) {
		return l.xs[i]
	}
	return starts[i] + step/2
}

// timeChart draws lines over time. starts are bucket starts in seconds
// from the run epoch, each step seconds wide; a transparent band over each
// bucket carries every line's value at that time as its hover text.
func timeChart(title, yLabel string, starts []float64, step float64, lines []line, refs ...marker) *frame {
	if len(starts) == 0 {
		f := newFrame(title, "time since start (s)", yLabel, scale{lo: 0, hi: 1}, scale{lo: 0, hi: 1})
		f.printf(`<text class="empty" x="%d" y="%d" text-anchor="middle">no data</text>`, chartW/2, chartH/2)
		return f
	}
	x0, x1 := starts[0], starts[len(starts)-1]+step
	top := 0.0
	for _, l := range lines {
		for _, v := range l.ys {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				top = math.Max(top, v)
			}
		}
	}
	for _, r := range refs {
		top = math.Max(top, r.value)
	}
	_, ytop := niceRange(0, top, 5)
	f := newFrame(title, "time since start (s)", yLabel, scale{lo: x0, hi: x1}, scale{lo: 0, hi: ytop})
	for _, r := range refs {
		f.hline(r.value, r.class, r.label, r.hover)
	}
	for _, l := range lines {
		var d strings.Builder
		pen := false
		for i, v := range l.ys {
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
			fmt.Fprintf(&d, "%s%s %s", cmd, px(f.x.pos(l.at(i, starts, step))), px(f.y.pos(v)))
			pen = true
		}
		dash := ""
		if l.dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		if d.Len() > 0 {
			f.printf(`<path class="line %s" d="%s"%s/>`, l.class, d.String(), dash)
		}
		// A value with no usable neighbour is a path of one point, which
		// draws nothing: it gets a dot (a run of one bucket, a gap's
		// island).
		usable := func(i int) bool {
			return i >= 0 && i < len(l.ys) && i < len(starts) && !math.IsNaN(l.ys[i]) && !math.IsInf(l.ys[i], 0)
		}
		for i := range l.ys {
			if usable(i) && !usable(i-1) && !usable(i+1) {
				f.printf(`<circle class="point %s" cx="%s" cy="%s" r="2.5"/>`, l.class, px(f.x.pos(l.at(i, starts, step))), px(f.y.pos(l.ys[i])))
			}
		}
		f.legend = append(f.legend, legendItem{class: l.class, label: l.name, dashed: l.dashed})
	}
	for i, s := range starts {
		var t strings.Builder
		fmt.Fprintf(&t, "%s–%s s", human.Brief(s), human.Brief(s+step))
		for _, l := range lines {
			if i < len(l.ys) && !math.IsNaN(l.ys[i]) {
				format := l.format
				if format == nil {
					format = human.Brief
				}
				fmt.Fprintf(&t, "\n%s: %s", l.name, format(l.ys[i]))
			}
		}
		a, b := f.x.pos(s), f.x.pos(s+step)
		f.printf(`<rect class="hover" x="%s" y="%s" width="%s" height="%s"><title>%s</title></rect>`,
			px(a), px(f.plotTop()), px(math.Max(b-a, 0.1)), px(f.plotBottom()-f.plotTop()), esc(t.String()))
	}
	return f
}

// xyPoint is one point of a curve with its hover text.
type xyPoint struct {
	x, y  float64
	hover string
}

// curve is one series of points joined in order.
type curve struct {
	name   string
	class  string
	pts    []xyPoint
	dashed bool
	// bare draws the line alone, without a dot (and hover) per point: for
	// a curve of many points, such as a distribution.
	bare bool
	// scatter draws the dots alone, without the line: points that are no
	// series, such as every run beside a frontier.
	scatter bool
}

// annotation rings a point of a curve and names it.
type annotation struct {
	x, y  float64
	label string
	class string
	hover string
}

// axisSpec says how to draw one axis of a curve chart.
type axisSpec struct {
	label string
	log   bool
	// zero starts a linear axis at zero rather than at the data's minimum.
	zero bool
	tick func(v, step float64) string
	// lo and hi, when hi > lo, fix the range instead of fitting the data.
	lo, hi float64
	// step is the least step between ticks (1 for whole numbers); 0 for
	// any.
	step float64
}

// curveChart draws curves of points, such as latency against throughput
// across the loads of a sweep, with annotated points and reference lines.
func curveChart(title string, xa, ya axisSpec, curves []curve, notes []annotation, refs ...marker) *frame {
	xs, ys := []float64{}, []float64{}
	for _, c := range curves {
		for _, p := range c.pts {
			if usable(p.x) && usable(p.y) {
				xs = append(xs, p.x)
				ys = append(ys, p.y)
			}
		}
	}
	for _, r := range refs {
		ys = append(ys, r.value)
	}
	xsc, ysc := fitAxis(xa, xs), fitAxis(ya, ys)
	f := newFrame(title, xa.label, ya.label, xsc, ysc)
	f.xTick, f.yTick = xa.tick, ya.tick
	if len(xs) == 0 {
		f.printf(`<text class="empty" x="%d" y="%d" text-anchor="middle">no data</text>`, chartW/2, chartH/2)
		return f
	}
	// Everything drawn from data, in pixels: labels keep clear of it.
	var data []box
	for _, c := range curves {
		var last [2]float64
		pen := false
		for _, p := range c.pts {
			if !usable(p.x) || !usable(p.y) || (ysc.log && p.y <= 0) || (xsc.log && p.x <= 0) {
				pen = false
				continue
			}
			x, y := f.x.pos(p.x), f.y.pos(p.y)
			data = append(data, box{x - 4.5, y - 4.5, x + 4.5, y + 4.5})
			if pen {
				// The line between points, sampled every few pixels.
				steps := int(math.Hypot(x-last[0], y-last[1]) / 4)
				for k := 1; k < steps; k++ {
					t := float64(k) / float64(steps)
					sx, sy := last[0]+t*(x-last[0]), last[1]+t*(y-last[1])
					data = append(data, box{sx - 1.5, sy - 1.5, sx + 1.5, sy + 1.5})
				}
			}
			last, pen = [2]float64{x, y}, true
		}
	}
	var placed []box
	for _, r := range refs {
		placed = append(placed, f.hlineClear(r.value, r.class, r.label, r.hover, data))
	}
	for _, c := range curves {
		var d strings.Builder
		pen := false
		for _, p := range c.pts {
			if !usable(p.x) || !usable(p.y) || (ysc.log && p.y <= 0) || (xsc.log && p.x <= 0) {
				pen = false
				continue
			}
			cmd := "L"
			if !pen {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%s %s", cmd, px(f.x.pos(p.x)), px(f.y.pos(p.y)))
			pen = true
		}
		dash := ""
		if c.dashed {
			dash = ` stroke-dasharray="5 3"`
		}
		if d.Len() > 0 && !c.scatter {
			f.printf(`<path class="line %s" d="%s"%s/>`, c.class, d.String(), dash)
		}
		for _, p := range c.pts {
			if c.bare || !usable(p.x) || !usable(p.y) || (ysc.log && p.y <= 0) || (xsc.log && p.x <= 0) {
				continue
			}
			f.printf(`<circle class="point %s" cx="%s" cy="%s" r="3.5"><title>%s</title></circle>`,
				c.class, px(f.x.pos(p.x)), px(f.y.pos(p.y)), esc(p.hover))
		}
		f.legend = append(f.legend, legendItem{class: c.class, label: c.name, dashed: c.dashed})
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
		if !usable(a.x) || !usable(a.y) {
			continue
		}
		var g *group
		for _, h := range groups {
			if h.x == a.x && h.y == a.y {
				g = h
			}
		}
		if g == nil {
			g = &group{x: a.x, y: a.y}
			groups = append(groups, g)
		}
		g.classes = append(g.classes, a.class)
		g.labels = append(g.labels, a.label)
		g.hovers = append(g.hovers, a.hover)
	}
	for _, g := range groups {
		x, y := f.x.pos(g.x), f.y.pos(g.y)
		text := strings.Join(g.labels, " · ")
		lx, ly := placeLabel(f, x, y, 7+3.5*float64(len(g.classes)), labelWidth(text)+4, data, placed)
		placed = append(placed, box{lx - (labelWidth(text)+4)/2, ly - 10, lx + (labelWidth(text)+4)/2, ly + 2})
		f.printf(`<g class="pick %s">`, g.classes[0])
		for k, c := range g.classes {
			f.printf(`<circle class="%s" cx="%s" cy="%s" r="%s"/>`, c, px(x), px(y), px(7+3.5*float64(k)))
		}
		if math.Hypot(lx-x, ly-4-y) > 24 {
			// A label set far from its point is tied to it.
			f.printf(`<path class="leader" d="M%s %sL%s %s"/>`, px(x), px(y), px(lx), px(ly-4))
		}
		f.printf(`<text x="%s" y="%s" text-anchor="middle">%s</text><title>%s</title></g>`,
			px(lx), px(ly), esc(text), esc(strings.Join(g.hovers, "\n")))
	}
	return f
}

// box is a rectangle in pixels.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// placeLabel chooses where a pick's label goes: the nearest of several
// places around the point (its ring of radius r) where a label w pixels
// wide covers no data, no other label and stays inside the plot; failing
// that, the place that covers the least. It returns the label's centre
// and baseline.
func placeLabel(f *frame, x, y, r, w float64, data, labels []box) (float64, float64) {
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
		b := box{cx - w/2, by - 10, cx + w/2, by + 2}
		cost := 0.0
		if b.x0 < f.x.a || b.x1 > f.x.b || b.y0 < f.plotTop() || b.y1 > f.plotBottom() {
			cost += 1000
		}
		for _, o := range labels {
			if b.overlaps(o) {
				cost += 100
			}
		}
		for _, o := range data {
			if b.overlaps(o) {
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

// fitAxis returns the scale for values vs drawn on an axis like a.
func fitAxis(a axisSpec, vs []float64) scale {
	if a.hi > a.lo {
		return scale{lo: a.lo, hi: a.hi, log: a.log, minStep: a.step}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if a.log && v <= 0 {
			continue
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if math.IsInf(lo, 0) {
		return scale{lo: 0, hi: 1}
	}
	if a.log && lo > 0 {
		return scale{lo: math.Pow(10, math.Floor(math.Log10(lo))), hi: math.Pow(10, math.Ceil(math.Log10(hi)+1e-9)), log: true}
	}
	if a.zero {
		lo = math.Min(lo, 0)
	}
	l, h := niceRange(lo, hi, 5)
	return scale{lo: l, hi: h, minStep: a.step}
}

// segment is one part of a stacked bar.
type segment struct {
	label string
	value float64 // seconds
	class string
	hover string
}

// stackChart draws one horizontal bar split into segments proportional to
// their values, with a legend naming every segment (its colour, label and
// share) below the bar, so that a segment too narrow to hold its label
// is named all the same: the server's request time split into queue,
// prefill and decode.
func stackChart(title, note string, segs []segment) string {
	total := 0.0
	for _, s := range segs {
		if s.value > 0 {
			total += s.value
		}
	}
	// The legend's items are laid out in rows that fit the chart.
	type key struct {
		s    segment
		x, y float64
	}
	var keys []key
	x, y := float64(marginLeft), 76.0
	for _, s := range segs {
		text := s.label
		if total > 0 && s.value > 0 {
			text += fmt.Sprintf(" (%s)", percent(s.value/total))
		}
		w := 18 + legendCharW*float64(utf8.RuneCountInString(text)) + 16
		if x+w > chartW-marginRight && x > marginLeft {
			x, y = marginLeft, y+18
		}
		s.label = text
		keys = append(keys, key{s, x, y})
		x += w
	}
	h := int(y) + 32
	var w strings.Builder
	fmt.Fprintf(&w, `<figure class="chart stack"><figcaption>%s</figcaption>`, esc(title))
	fmt.Fprintf(&w, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`, chartW, h, esc(title))
	x = float64(marginLeft)
	span := float64(chartW - marginLeft - marginRight)
	for _, s := range segs {
		if s.value <= 0 || total <= 0 {
			continue
		}
		wpx := span * s.value / total
		fmt.Fprintf(&w, `<g class="seg %s"><rect x="%s" y="20" width="%s" height="34"/>`, s.class, px(x), px(wpx))
		if wpx > labelWidth(s.label)+8 {
			fmt.Fprintf(&w, `<text x="%s" y="42" text-anchor="middle">%s</text>`, px(x+wpx/2), esc(s.label))
		}
		fmt.Fprintf(&w, `<title>%s</title></g>`, esc(s.hover))
		x += wpx
	}
	w.WriteString(`<g class="legend">`)
	for _, k := range keys {
		fmt.Fprintf(&w, `<g class="segkey %s" data-seg="%s"><rect x="%s" y="%s" width="12" height="12"/><text x="%s" y="%s">%s</text><title>%s</title></g>`,
			k.s.class, k.s.class, px(k.x), px(k.y-10), px(k.x+17), px(k.y), esc(k.s.label), esc(k.s.hover))
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
