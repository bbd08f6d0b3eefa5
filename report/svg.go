package report

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
)

// Chart geometry in SVG user units. The page scales each chart to its
// column with CSS, so these only fix the proportions and the text size.
const (
	chartW      = 640
	chartH      = 280
	marginLeft  = 64
	marginRight = 20
	marginTop   = 30
	marginBot   = 46
)

// scale maps a data interval onto a pixel interval, linearly or by
// logarithm. For a y axis a > b, since SVG's y grows downwards.
type scale struct {
	lo, hi float64 // data
	a, b   float64 // pixels
	log    bool
	// minStep is the least step between linear ticks: 1 on an axis of
	// whole numbers (turns), which has no tick between them.
	minStep float64
}

// pos returns the pixel position of v, clamped to the scale's ends so that
// a stray value cannot draw outside the plot.
func (s scale) pos(v float64) float64 {
	var f float64
	switch {
	case s.hi == s.lo:
		f = 0.5
	case s.log:
		f = (math.Log10(math.Max(v, s.lo*1e-3)) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	default:
		f = (v - s.lo) / (s.hi - s.lo)
	}
	f = min(max(f, -0.02), 1.02)
	return s.a + f*(s.b-s.a)
}

// ticks returns round values inside the scale and the step between them
// (0 on a logarithmic scale, whose ticks are decades and their 2 and 5
// multiples when the range is short).
func (s scale) ticks(n int) ([]float64, float64) {
	if s.log {
		var out []float64
		for e := math.Floor(math.Log10(s.lo)); e <= math.Ceil(math.Log10(s.hi)); e++ {
			mults := []float64{1}
			if math.Log10(s.hi/s.lo) < 2.5 {
				mults = []float64{1, 2, 5}
			}
			for _, m := range mults {
				v := m * math.Pow(10, e)
				if v >= s.lo*(1-1e-9) && v <= s.hi*(1+1e-9) {
					out = append(out, v)
				}
			}
		}
		return out, 0
	}
	step := niceStep((s.hi - s.lo) / float64(n))
	if step <= 0 {
		return []float64{s.lo}, 0
	}
	step = max(step, s.minStep)
	var out []float64
	for v := math.Ceil(s.lo/step-1e-9) * step; v <= s.hi+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, v)
	}
	return out, step
}

// niceStep returns the smallest of 1, 2 or 5 times a power of ten that is
// at least raw; 0 for a raw step that is not positive and finite.
func niceStep(raw float64) float64 {
	if !(raw > 0) || math.IsInf(raw, 0) {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// niceRange widens [lo, hi] to round ends for an axis; an empty or
// degenerate interval becomes one around its value.
func niceRange(lo, hi float64, n int) (float64, float64) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, 1
	}
	if hi <= lo {
		if lo == 0 {
			return 0, 1
		}
		pad := math.Abs(lo) * 0.1
		lo, hi = lo-pad, hi+pad
	}
	step := niceStep((hi - lo) / float64(n))
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step
}

// tickLabel writes v with as many decimals as step needs, and large values
// in k or M.
func tickLabel(v, step float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6 && (step == 0 || step >= 1e5):
		return strconv.FormatFloat(math.Round(v/1e5)/10, 'f', -1, 64) + "M"
	case a >= 1e4 && (step == 0 || step >= 1e3):
		return strconv.FormatFloat(math.Round(v/1e2)/10, 'f', -1, 64) + "k"
	}
	if step == 0 {
		return human.Brief(v)
	}
	d := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	return strconv.FormatFloat(v, 'f', d, 64)
}

// esc escapes text for an HTML or SVG text node or a quoted attribute.
func esc(s string) string { return html.EscapeString(s) }

// px writes a pixel coordinate with one decimal, which is all a screen or
// a printer resolves and keeps the file small.
func px(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// frame is an SVG chart under construction: its axes, and the elements drawn
// inside the plot area.
type frame struct {
	title          string
	x, y           scale
	xLabel, yLabel string
	// xTick and yTick label a tick; nil means tickLabel.
	xTick, yTick func(v, step float64) string
	b            strings.Builder // plot elements
	legend       []legendItem
	// w and h are the chart's size in user units: chartW × chartH but
	// for a chart made with newSizedFrame.
	w, h  float64
	class string // extra classes of the figure
}

type legendItem struct {
	class, label string
	dashed       bool
}

func newFrame(title, xLabel, yLabel string, x, y scale) *frame {
	return newSizedFrame(title, xLabel, yLabel, x, y, chartW, chartH)
}

// newSizedFrame is newFrame for a chart of w × h user units.
func newSizedFrame(title, xLabel, yLabel string, x, y scale, w, h float64) *frame {
	x.a, x.b = marginLeft, w-marginRight
	y.a, y.b = h-marginBot, marginTop
	return &frame{title: title, x: x, y: y, xLabel: xLabel, yLabel: yLabel, w: w, h: h}
}

// plotTop and plotBottom are the y pixels of the plot area's edges.
func (f *frame) plotTop() float64    { return marginTop }
func (f *frame) plotBottom() float64 { return f.h - marginBot }

func (f *frame) printf(format string, args ...any) { fmt.Fprintf(&f.b, format, args...) }

// hline draws a horizontal reference line at y = v with a label at its
// right end.
func (f *frame) hline(v float64, class, label, hover string) {
	y := px(f.y.pos(v))
	f.printf(`<g class="%s"><line x1="%s" x2="%s" y1="%s" y2="%s"/>`, class, px(f.x.a), px(f.x.b), y, y)
	f.printf(`<text x="%s" y="%s" text-anchor="end">%s</text><title>%s</title></g>`,
		px(f.x.b-2), px(f.y.pos(v)-4), esc(label), esc(hover))
}

// hlineClear draws a horizontal reference line at y = v with its label
// where the label covers none of data: at the right end above the line,
// else the left end, else below; it returns the label's box.
func (f *frame) hlineClear(v float64, class, label, hover string, data []box) box {
	y := f.y.pos(v)
	w := labelWidth(label) + 2
	type place struct {
		x      float64 // the label's left edge
		base   float64 // its baseline
		anchor string
	}
	var places []place
	for _, dy := range []float64{-4, 13} {
		places = append(places, place{f.x.b - 2 - w, y + dy, "end"}, place{f.x.a + 4, y + dy, "start"}, place{(f.x.a + f.x.b - w) / 2, y + dy, "middle"})
	}
	best, bestN := places[0], -1
	for _, p := range places {
		b := box{p.x, p.base - 10, p.x + w, p.base + 2}
		if b.y0 < f.plotTop()-2 || b.y1 > f.plotBottom() {
			continue
		}
		n := 0
		for _, d := range data {
			if b.overlaps(d) {
				n++
			}
		}
		if bestN < 0 || n < bestN {
			best, bestN = p, n
		}
		if n == 0 {
			break
		}
	}
	tx := best.x
	switch best.anchor {
	case "end":
		tx = best.x + w
	case "middle":
		tx = best.x + w/2
	}
	f.printf(`<g class="%s"><line x1="%s" x2="%s" y1="%s" y2="%s"/>`, class, px(f.x.a), px(f.x.b), px(y), px(y))
	f.printf(`<text x="%s" y="%s" text-anchor="%s">%s</text><title>%s</title></g>`, px(tx), px(best.base), best.anchor, esc(label), esc(hover))
	return box{best.x, best.base - 10, best.x + w, best.base + 2}
}

// marker draws a vertical marker line at pixel x with its label centred
// at pixel cx above the plot, joined by a leader when the two differ. A
// marker beyond the axis (beyond) has a label only.
func (f *frame) marker(x, cx float64, class, label, hover string, beyond bool) {
	top := f.plotTop()
	f.printf(`<g class="%s">`, class)
	if !beyond {
		f.printf(`<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, px(x), px(x), px(top), px(f.plotBottom()))
		if math.Abs(cx-x) > 1 {
			f.printf(`<path class="leader" d="M%s %sL%s %s"/>`, px(cx), px(top-3), px(x), px(top))
		}
	}
	f.printf(`<text class="mlabel" x="%s" y="%s" text-anchor="middle">%s</text><title>%s</title></g>`,
		px(cx), px(top-5), esc(label), esc(hover))
}

// render writes the chart as a <figure> holding an <svg>.
func (f *frame) render(w *strings.Builder) {
	fmt.Fprintf(w, `<figure class="chart%s"><figcaption>%s</figcaption>`, f.class, esc(f.title))
	fmt.Fprintf(w, `<svg class="chart" viewBox="0 0 %s %s" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		px(f.w), px(f.h), esc(f.title))
	f.axes(w)
	fmt.Fprintf(w, `<g class="plot">%s</g>`, f.b.String())
	f.renderLegend(w)
	w.WriteString("</svg></figure>\n")
}

func (f *frame) axes(w *strings.Builder) {
	w.WriteString(`<g class="axis">`)
	xl, yl := f.xTick, f.yTick
	if xl == nil {
		xl = tickLabel
	}
	if yl == nil {
		yl = tickLabel
	}
	yt, ystep := f.y.ticks(5)
	for _, v := range yt {
		y := px(f.y.pos(v))
		fmt.Fprintf(w, `<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/>`, px(f.x.a), px(f.x.b), y, y)
		fmt.Fprintf(w, `<text x="%s" y="%s" text-anchor="end">%s</text>`, px(f.x.a-6), px(f.y.pos(v)+4), esc(yl(v, ystep)))
	}
	xt, xstep := f.x.ticks(6)
	for _, v := range xt {
		x := px(f.x.pos(v))
		fmt.Fprintf(w, `<line class="tick" x1="%s" x2="%s" y1="%s" y2="%s"/>`, x, x, px(f.plotBottom()), px(f.plotBottom()+5))
		fmt.Fprintf(w, `<text x="%s" y="%s" text-anchor="middle">%s</text>`, x, px(f.plotBottom()+18), esc(xl(v, xstep)))
	}
	b := px(f.plotBottom())
	fmt.Fprintf(w, `<line class="frame" x1="%s" x2="%s" y1="%s" y2="%s"/>`, px(f.x.a), px(f.x.b), b, b)
	fmt.Fprintf(w, `<line class="frame" x1="%s" x2="%s" y1="%s" y2="%s"/>`, px(f.x.a), px(f.x.a), px(f.plotTop()), b)
	fmt.Fprintf(w, `<text class="label" x="%s" y="%s" text-anchor="middle">%s</text>`, px((f.x.a+f.x.b)/2), px(f.h-8), esc(f.xLabel))
	fmt.Fprintf(w, `<text class="label" transform="rotate(-90)" x="%s" y="14" text-anchor="middle">%s</text>`,
		px(-(f.plotTop()+f.plotBottom())/2), esc(f.yLabel))
	w.WriteString(`</g>`)
}

func (f *frame) renderLegend(w *strings.Builder) {
	if len(f.legend) == 0 {
		return
	}
	w.WriteString(`<g class="legend">`)
	x := float64(marginLeft)
	for _, it := range f.legend {
		dash := ""
		if it.dashed {
			dash = ` stroke-dasharray="4 3"`
		}
		fmt.Fprintf(w, `<g class="%s"><line x1="%s" x2="%s" y1="12" y2="12"%s/><text x="%s" y="16">%s</text></g>`,
			it.class, px(x), px(x+18), dash, px(x+22), esc(it.label))
		// 11-unit text of mixed letters runs about 7 units a character
		// (wide ones such as m and _ more than 6.5).
		x += 30 + 7*float64(len([]rune(it.label)))
	}
	w.WriteString(`</g>`)
}
