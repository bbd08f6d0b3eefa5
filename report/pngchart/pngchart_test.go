package pngchart

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"strings"
	"testing"
)

// count returns how many pixels of r in img have the bars' colour.
func count(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr>>8 == uint32(bar.R) && cg>>8 == uint32(bar.G) && cb>>8 == uint32(bar.B) {
				n++
			}
		}
	}
	return n
}

// The panels are drawn side by side at their size; one value repeated
// four times is a single bar of the full height (four grid lines of one
// request); thirty different values are thirty bars of one request each,
// a quarter of it; a panel without values has no bar.
func TestHistogramsDrawTheBars(t *testing.T) {
	same := []float64{512, 512, 512, 512}
	spread := make([]float64, 30)
	for i := range spread {
		spread[i] = float64(100 + i)
	}
	var buf bytes.Buffer
	err := Histograms(&buf, "Dataset statistics", []Panel{
		{Title: "Prompt tokens", XLabel: "tokens", Values: same},
		{Title: "Output tokens", XLabel: "tokens", Values: spread},
		{Title: "Total tokens", XLabel: "tokens"},
	})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 3*panelW || b.Dy() != height {
		t.Fatalf("image %v, want %dx%d", b, 3*panelW, height)
	}
	plotH := height - marginB - plotTop
	panel := func(i int) image.Rectangle {
		return image.Rect(i*panelW+marginL, plotTop, (i+1)*panelW-marginR, height-marginB)
	}
	// One bar across the whole plot, as tall as the plot.
	plotW := panelW - marginL - marginR
	if got := count(img, panel(0)); got < (plotW-2)*plotH || got > plotW*plotH {
		t.Errorf("panel 1: %d bar pixels, want one full bar of about %d", got, plotW*plotH)
	}
	// Thirty bars of one request, a pixel apart, up to the first of the
	// four grid lines (one request each): every column but the gaps, a
	// quarter of the height.
	h := (plotH + 2) / 4
	if got := count(img, panel(1)); got < (plotW-31)*h || got > (plotW-29)*h {
		t.Errorf("panel 2: %d bar pixels, want about %d", got, (plotW-30)*h)
	}
	if got := count(img, panel(2)); got != 0 {
		t.Errorf("the empty panel has %d bar pixels", got)
	}
}

func TestBinsCoverTheRange(t *testing.T) {
	tests := []struct {
		vs        []float64
		counts    []int
		lo, width int64
	}{
		{[]float64{7}, []int{1}, 7, 1},
		{[]float64{1, 2, 2, 4}, []int{1, 2, 0, 1}, 1, 1},
		// 1..100 in ranges of 4 (25 of them), 100 in the last
		{[]float64{1, 100}, append(append([]int{1}, make([]int, 23)...), 1), 1, 4},
	}
	for _, tt := range tests {
		counts, lo, width := bins(tt.vs)
		if lo != tt.lo || width != tt.width || len(counts) != len(tt.counts) {
			t.Errorf("%v: %d bins from %d, %d wide; want %d from %d, %d wide", tt.vs, len(counts), lo, width, len(tt.counts), tt.lo, tt.width)
			continue
		}
		for i := range counts {
			if counts[i] != tt.counts[i] {
				t.Errorf("%v: counts %v, want %v", tt.vs, counts, tt.counts)
				break
			}
		}
	}
}

func TestHistogramsRefuseWhatCannotBeDrawn(t *testing.T) {
	var buf bytes.Buffer
	if err := Histograms(&buf, "x", nil); err == nil {
		t.Error("no panel: no error")
	}
	err := Histograms(&buf, "x", []Panel{{Title: "Prompt tokens", Values: []float64{1, math.NaN()}}})
	if err == nil || !strings.Contains(err.Error(), "Prompt tokens: value NaN cannot be drawn") {
		t.Errorf("NaN: %v", err)
	}
}
