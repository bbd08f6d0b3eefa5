// Package pngchart draws histograms as a PNG image, for the pictures other
// tools' users expect as files (vLLM's --plot-dataset-stats). It needs no
// browser and no font on the machine: its text is a fixed 7×13 bitmap
// face. goodput's own charts are SVG (package report); this is for a file
// that must be a PNG.
package pngchart

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"slices"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Panel is one histogram.
type Panel struct {
	Title  string    // above it
	XLabel string    // under its axis
	Values []float64 // its samples: whole numbers (token counts), any order
}

// Geometry of the image, in pixels.
const (
	panelW   = 480
	height   = 420
	marginL  = 64 // room for the count labels
	marginR  = 24
	plotTop  = 84 // under the title, the panel's title and its figures
	marginB  = 52 // the axis labels and the x label
	maxBins  = 30
	charW    = 7
	lineStep = 16
)

var (
	ink  = color.RGBA{0x22, 0x22, 0x22, 0xff}
	bar  = color.RGBA{0x46, 0x82, 0xb4, 0xff}
	grid = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
)

// Histograms writes the panels side by side, under title, as one PNG
// image. Each panel's bars are equal ranges of whole numbers, at most 30
// of them, from its smallest value to its largest; a panel without values
// says so. A value that is not finite is an error.
func Histograms(w io.Writer, title string, panels []Panel) error {
	if len(panels) == 0 {
		return errors.New("pngchart: no panel to draw")
	}
	img := image.NewRGBA(image.Rect(0, 0, panelW*len(panels), height))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	text(img, (img.Bounds().Dx()-charW*len([]rune(title)))/2, 22, title)
	for i, p := range panels {
		if err := drawPanel(img, i*panelW, p); err != nil {
			return fmt.Errorf("pngchart: %s: %w", p.Title, err)
		}
	}
	return png.Encode(w, img)
}

// bins counts vs in equal ranges of whole numbers: lo is the first
// range's least value and width each range's span.
func bins(vs []float64) (counts []int, lo, width int64) {
	minV, maxV := slices.Min(vs), slices.Max(vs)
	lo, hi := int64(math.Floor(minV)), int64(math.Floor(maxV))
	span := hi - lo + 1
	width = (span + maxBins - 1) / maxBins
	counts = make([]int, (span+width-1)/width)
	for _, v := range vs {
		counts[(int64(math.Floor(v))-lo)/width]++
	}
	return counts, lo, width
}

func drawPanel(img *image.RGBA, x0 int, p Panel) error {
	left, right := x0+marginL, x0+panelW-marginR
	top, bottom := plotTop, height-marginB
	centre := func(y int, s string) { text(img, x0+marginL+(right-left-charW*len([]rune(s)))/2, y, s) }
	centre(48, p.Title)
	if len(p.Values) == 0 {
		centre((top+bottom)/2, "no requests")
		return nil
	}
	for _, v := range p.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1<<52 {
			return fmt.Errorf("value %v cannot be drawn", v)
		}
	}
	sorted := slices.Sorted(slices.Values(p.Values))
	var sum float64
	for _, v := range sorted {
		sum += v
	}
	centre(48+lineStep, fmt.Sprintf("n %d, mean %s, median %s, max %s", len(sorted),
		num(sum/float64(len(sorted))), num(sorted[len(sorted)/2]), num(sorted[len(sorted)-1])))

	counts, lo, width := bins(p.Values)
	// Four grid lines a whole number of requests apart, the top one at or
	// above the tallest bar, so that every label is exact.
	step := max(1, (slices.Max(counts)+3)/4)
	most := 4 * step
	for q := 0; q <= 4; q++ {
		y := bottom - (bottom-top)*q/4
		hline(img, left, right, y, grid)
		label := strconv.Itoa(q * step)
		text(img, left-6-charW*len(label), y+4, label)
	}
	barW := float64(right-left) / float64(len(counts))
	for i, c := range counts {
		if c == 0 {
			continue
		}
		bx0 := left + int(math.Round(float64(i)*barW))
		bx1 := left + int(math.Round(float64(i+1)*barW)) - 1 // a pixel between bars
		by := bottom - int(math.Round(float64(bottom-top)*float64(c)/float64(most)))
		draw.Draw(img, image.Rect(bx0, by, max(bx1, bx0+1), bottom), &image.Uniform{bar}, image.Point{}, draw.Src)
	}
	hline(img, left, right, bottom, ink)
	vline(img, left, top, bottom, ink)
	// The axis: the least value at the first bar's left, the end of the
	// last range at the right.
	first, last := strconv.FormatInt(lo, 10), strconv.FormatInt(lo+width*int64(len(counts))-1, 10)
	text(img, left, bottom+16, first)
	text(img, right-charW*len(last), bottom+16, last)
	centre(bottom+38, p.XLabel)
	text(img, x0+8, top-10, "requests")
	return nil
}

// num writes v with at most one decimal.
func num(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func text(img *image.RGBA, x, y int, s string) {
	d := font.Drawer{Dst: img, Src: &image.Uniform{ink}, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func hline(img *image.RGBA, x0, x1, y int, c color.Color) {
	for x := x0; x <= x1; x++ {
		img.Set(x, y, c)
	}
}

func vline(img *image.RGBA, x, y0, y1 int, c color.Color) {
	for y := y0; y <= y1; y++ {
		img.Set(x, y, c)
	}
}
