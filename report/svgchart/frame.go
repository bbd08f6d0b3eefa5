package svgchart

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
	ChartW       = 640
	ChartH       = 280
	marginLeft   = 64
	marginRight  = 20
	MarginTop    = 30
	MarginBottom = 46
)

// Scale maps a data interval onto a pixel interval, linearly or by
// logarithm. For a y axis a > b, since SVG's y grows downwards.
type Scale struct {
	Lo, Hi float64 // data
	A, B   float64 // pixels
	Log    bool
	// MinStep is the least step between linear ticks: 1 on an axis of
	// whole numbers (turns), which has no tick between them.
	MinStep float64
}

// Pos returns the pixel position of v, clamped to the scale's ends so that
// a stray value cannot draw outside the plot.
func (s Scale) Pos(v float64) float64 {
	var f float64
	switch {
	case s.Hi == s.Lo:
		f = 0.5
	case s.Log:
		f = (math.Log10(math.Max(v, s.Lo*1e-3)) - math.Log10(s.Lo)) / (math.Log10(s.Hi) - math.Log10(s.Lo))
	default:
		f = (v - s.Lo) / (s.Hi - s.Lo)
	}
	f = min(max(f, -0.02), 1.02)
	return s.A + f*(s.B-s.A)
}

// Ticks returns round values inside the scale and the step between them
// (0 on a logarithmic scale, whose ticks are decades and their 2 and 5
// multiples when the range is short).
func (s Scale) Ticks(n int) ([]float64, float64) {
	if s.Log {
		var out []float64
		for e := math.Floor(math.Log10(s.Lo)); e <= math.Ceil(math.Log10(s.Hi)); e++ {
			mults := []float64{1}
			if math.Log10(s.Hi/s.Lo) < 2.5 {
				mults = []float64{1, 2, 5}
			}
			for _, m := range mults {
				v := m * math.Pow(10, e)
				if v >= s.Lo*(1-1e-9) && v <= s.Hi*(1+1e-9) {
					out = append(out, v)
				}
			}
		}
		return out, 0
	}
	step := NiceStep((s.Hi - s.Lo) / float64(n))
	if step <= 0 {
		return []float64{s.Lo}, 0
	}
	step = max(step, s.MinStep)
	var out []float64
	for v := math.Ceil(s.Lo/step-1e-9) * step; v <= s.Hi+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out = append(out, v)
	}
	return out, step
}

// NiceStep returns the smallest of 1, 2 or 5 times a power of ten that is
// at least raw; 0 for a raw step that is not positive and finite.
func NiceStep(raw float64) float64 {
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

// NiceRange widens [lo, hi] to round ends for an axis; an empty or
// degenerate interval becomes one around its value.
func NiceRange(lo, hi float64, n int) (float64, float64) {
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
	step := NiceStep((hi - lo) / float64(n))
	return math.Floor(lo/step) * step, math.Ceil(hi/step) * step
}

// TickLabel writes v with as many decimals as step needs, and large values
// in k or M.
func TickLabel(v, step float64) string {
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

// Px writes a pixel coordinate with one decimal, which is all a screen or
// a printer resolves and keeps the file small.
func Px(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// Frame is an SVG chart under construction: its axes, and the elements drawn
// inside the plot area.
type Frame struct {
	Title          string
	X, Y           Scale
	XLabel, YLabel string
	// XTick and YTick label a tick; nil means TickLabel.
	XTick, YTick func(v, step float64) string
	b            strings.Builder // plot elements
	Legend       []LegendItem
	// W and H are the chart's size in user units: ChartW × ChartH but
	// for a chart made with NewSizedFrame.
	W, H  float64
	Class string // extra classes of the figure
}

// LegendItem names one series of a chart in its legend by its colour
// class, dashed when the series is.
type LegendItem struct {
	Class, Label string
	Dashed       bool
}

// NewFrame starts a chart of ChartW × ChartH user units, titled title,
// whose axes x and y map their data onto the plot area (their pixel ends
// are set here).
func NewFrame(title, xLabel, yLabel string, x, y Scale) *Frame {
	return NewSizedFrame(title, xLabel, yLabel, x, y, ChartW, ChartH)
}

// NewSizedFrame is NewFrame for a chart of w × h user units.
func NewSizedFrame(title, xLabel, yLabel string, x, y Scale, w, h float64) *Frame {
	x.A, x.B = marginLeft, w-marginRight
	y.A, y.B = h-MarginBottom, MarginTop
	return &Frame{Title: title, X: x, Y: y, XLabel: xLabel, YLabel: yLabel, W: w, H: h}
}

// plotTop and plotBottom are the y pixels of the plot area's edges.
func (f *Frame) PlotTop() float64    { return MarginTop }
func (f *Frame) PlotBottom() float64 { return f.H - MarginBottom }

// Printf adds an SVG element to the plot, for a drawing of the caller's
// own; text in it must be escaped by the caller.
func (f *Frame) Printf(format string, args ...any) { fmt.Fprintf(&f.b, format, args...) }

// HLine draws a horizontal reference line at y = v with a label at its
// right end.
func (f *Frame) HLine(v float64, class, label, hover string) {
	y := Px(f.Y.Pos(v))
	f.Printf(`<g class="%s"><line x1="%s" x2="%s" y1="%s" y2="%s"/>`, class, Px(f.X.A), Px(f.X.B), y, y)
	f.Printf(`<text x="%s" y="%s" text-anchor="end">%s</text><title>%s</title></g>`,
		Px(f.X.B-2), Px(f.Y.Pos(v)-4), esc(label), esc(hover))
}

// HLineClear draws a horizontal reference line at y = v with its label
// where the label covers none of data: at the right end above the line,
// else the left end, else below; it returns the label's box.
func (f *Frame) HLineClear(v float64, class, label, hover string, data []Box) Box {
	y := f.Y.Pos(v)
	w := labelWidth(label) + 2
	type place struct {
		x      float64 // the label's left edge
		base   float64 // its baseline
		anchor string
	}
	var places []place
	for _, dy := range []float64{-4, 13} {
		places = append(places, place{f.X.B - 2 - w, y + dy, "end"}, place{f.X.A + 4, y + dy, "start"}, place{(f.X.A + f.X.B - w) / 2, y + dy, "middle"})
	}
	best, bestN := places[0], -1
	for _, p := range places {
		b := Box{p.x, p.base - 10, p.x + w, p.base + 2}
		if b.Y0 < f.PlotTop()-2 || b.Y1 > f.PlotBottom() {
			continue
		}
		n := 0
		for _, d := range data {
			if b.Overlaps(d) {
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
	f.Printf(`<g class="%s"><line x1="%s" x2="%s" y1="%s" y2="%s"/>`, class, Px(f.X.A), Px(f.X.B), Px(y), Px(y))
	f.Printf(`<text x="%s" y="%s" text-anchor="%s">%s</text><title>%s</title></g>`, Px(tx), Px(best.base), best.anchor, esc(label), esc(hover))
	return Box{best.x, best.base - 10, best.x + w, best.base + 2}
}

// Marker draws a vertical marker line at pixel x with its label centred
// at pixel cx above the plot, joined by a leader when the two differ. A
// marker beyond the axis (beyond) has a label only.
func (f *Frame) Marker(x, cx float64, class, label, hover string, beyond bool) {
	top := f.PlotTop()
	f.Printf(`<g class="%s">`, class)
	if !beyond {
		f.Printf(`<line x1="%s" x2="%s" y1="%s" y2="%s"/>`, Px(x), Px(x), Px(top), Px(f.PlotBottom()))
		if math.Abs(cx-x) > 1 {
			f.Printf(`<path class="leader" d="M%s %sL%s %s"/>`, Px(cx), Px(top-3), Px(x), Px(top))
		}
	}
	f.Printf(`<text class="mlabel" x="%s" y="%s" text-anchor="middle">%s</text><title>%s</title></g>`,
		Px(cx), Px(top-5), esc(label), esc(hover))
}

// render writes the chart as a <figure> holding an <svg>.
func (f *Frame) Render(w *strings.Builder) {
	fmt.Fprintf(w, `<figure class="chart%s"><figcaption>%s</figcaption>`, f.Class, esc(f.Title))
	fmt.Fprintf(w, `<svg class="chart" viewBox="0 0 %s %s" role="img" aria-label="%s" xmlns="http://www.w3.org/2000/svg">`,
		Px(f.W), Px(f.H), esc(f.Title))
	f.axes(w)
	fmt.Fprintf(w, `<g class="plot">%s</g>`, f.b.String())
	f.renderLegend(w)
	w.WriteString("</svg></figure>\n")
}

func (f *Frame) axes(w *strings.Builder) {
	w.WriteString(`<g class="axis">`)
	xl, yl := f.XTick, f.YTick
	if xl == nil {
		xl = TickLabel
	}
	if yl == nil {
		yl = TickLabel
	}
	yt, ystep := f.Y.Ticks(5)
	for _, v := range yt {
		y := Px(f.Y.Pos(v))
		fmt.Fprintf(w, `<line class="grid" x1="%s" x2="%s" y1="%s" y2="%s"/>`, Px(f.X.A), Px(f.X.B), y, y)
		fmt.Fprintf(w, `<text x="%s" y="%s" text-anchor="end">%s</text>`, Px(f.X.A-6), Px(f.Y.Pos(v)+4), esc(yl(v, ystep)))
	}
	xt, xstep := f.X.Ticks(6)
	for _, v := range xt {
		x := Px(f.X.Pos(v))
		fmt.Fprintf(w, `<line class="tick" x1="%s" x2="%s" y1="%s" y2="%s"/>`, x, x, Px(f.PlotBottom()), Px(f.PlotBottom()+5))
		fmt.Fprintf(w, `<text x="%s" y="%s" text-anchor="middle">%s</text>`, x, Px(f.PlotBottom()+18), esc(xl(v, xstep)))
	}
	b := Px(f.PlotBottom())
	fmt.Fprintf(w, `<line class="frame" x1="%s" x2="%s" y1="%s" y2="%s"/>`, Px(f.X.A), Px(f.X.B), b, b)
	fmt.Fprintf(w, `<line class="frame" x1="%s" x2="%s" y1="%s" y2="%s"/>`, Px(f.X.A), Px(f.X.A), Px(f.PlotTop()), b)
	fmt.Fprintf(w, `<text class="label" x="%s" y="%s" text-anchor="middle">%s</text>`, Px((f.X.A+f.X.B)/2), Px(f.H-8), esc(f.XLabel))
	fmt.Fprintf(w, `<text class="label" transform="rotate(-90)" x="%s" y="14" text-anchor="middle">%s</text>`,
		Px(-(f.PlotTop()+f.PlotBottom())/2), esc(f.YLabel))
	w.WriteString(`</g>`)
}

func (f *Frame) renderLegend(w *strings.Builder) {
	if len(f.Legend) == 0 {
		return
	}
	w.WriteString(`<g class="legend">`)
	x := float64(marginLeft)
	for _, it := range f.Legend {
		dash := ""
		if it.Dashed {
			dash = ` stroke-dasharray="4 3"`
		}
		fmt.Fprintf(w, `<g class="%s"><line x1="%s" x2="%s" y1="12" y2="12"%s/><text x="%s" y="16">%s</text></g>`,
			it.Class, Px(x), Px(x+18), dash, Px(x+22), esc(it.Label))
		// 11-unit text of mixed letters runs about 7 units a character
		// (wide ones such as m and _ more than 6.5).
		x += 30 + 7*float64(len([]rune(it.Label)))
	}
	w.WriteString(`</g>`)
}
