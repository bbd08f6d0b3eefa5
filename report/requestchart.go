package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/report/svgchart"
)

// maxTimelineRequests bounds the bars of the per-request timeline; a
// longer run draws every k-th request, and says so.
const maxTimelineRequests = 1000

// Geometry of the per-request timeline: it spans the page, and each
// request is a row between minRowH and maxRowH user units tall.
const (
	timelineW    = 1280
	timelineRows = 540.0 // the rows' height when they are not at a bound
	minRowH      = 0.5
	maxRowH      = 6.0
)

// longGap returns the gap between chunks above which the timeline marks
// a request's longest gap: five times the median ITL, or the 99th
// percentile when that is larger, so that only stalls stand out.
func longGap(res *metrics.Result) float64 {
	d := res.Distribution(metrics.MetricInterChunk)
	if d.Count == 0 {
		return math.Inf(1)
	}
	return math.Max(5*d.Median, pctOr(d, 99))
}

// requestTimeline draws every request (or every k-th) as a bar, in order
// of its scheduled time: grey from scheduled to sent (the client's
// queue), amber from sent to the first token, then blue to the last token
// when the request met the SLO, purple when it missed it, red when it
// failed; a black mark shows its longest gap between chunks when that gap
// was long: above gapMin seconds, or, when gapMin is 0, above longGap's
// choice. It is what vLLM's --plot-timeline shows, with the client's
// queue and the SLO added. It returns the frame and the stride.
func requestTimeline(run *Run, gapMin float64) (*svgchart.Frame, int) {
	// Sort indices, not spans: a long run's spans are megabytes.
	order := make([]int32, len(run.Requests))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(run.Requests[a].Scheduled, run.Requests[b].Scheduled) })
	every := sampleEvery(len(order), maxTimelineRequests)
	var spans []RequestSpan
	for i := 0; i < len(order); i += every {
		spans = append(spans, run.Requests[order[i]])
	}
	stride := every * max(run.RequestStride, 1)
	n := len(spans)
	rowH := min(max(timelineRows/float64(max(n, 1)), minRowH), maxRowH)
	h := float64(svgchart.MarginTop+svgchart.MarginBottom) + rowH*float64(n)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range spans {
		lo = math.Min(lo, float64(s.Scheduled)/1e9)
		hi = math.Max(hi, float64(max(s.End, s.Last, s.Sent))/1e9)
	}
	if n == 0 {
		lo, hi = 0, 1
	}
	l, r := svgchart.NiceRange(math.Min(lo, 0), hi, 8)
	f := svgchart.NewSizedFrame("Every request over time", "time since the run's start (s)", "requests, by scheduled time",
		svgchart.Scale{Lo: l, Hi: r}, svgchart.Scale{Lo: 0, Hi: float64(max(n, 1))}, timelineW, h)
	f.Class = " wide"
	// Row 0 is at the top: the axis counts requests downwards.
	f.YTick = func(v, step float64) string { return svgchart.TickLabel(float64(n)-v, step) }
	if n == 0 {
		f.Printf(`<text class="empty" x="%s" y="%s" text-anchor="middle">no requests</text>`, svgchart.Px(f.W/2), svgchart.Px(f.H/2))
		return f, stride
	}
	if gapMin <= 0 {
		gapMin = longGap(run.Result)
	}
	x := func(ns int64) float64 { return f.X.Pos(float64(ns) / 1e9) }
	seg := func(class string, a, b int64, y, hh float64) {
		x0, x1 := x(a), x(b)
		f.Printf(`<rect class="%s" x="%s" y="%s" width="%s" height="%s"/>`, class, svgchart.Px(x0), svgchart.Px(y), svgchart.Px(math.Max(x1-x0, 0.5)), svgchart.Px(hh))
	}
	barH := math.Max(rowH*0.8, minRowH)
	for i, s := range spans {
		y := f.Y.Pos(float64(n - i))
		outcome := "good"
		switch {
		case !s.OK:
			outcome = "failed"
		case !s.Good:
			outcome = "missed"
		}
		f.Printf(`<g class="req %s">`, outcome)
		seg("tq", s.Scheduled, s.Sent, y, barH)
		switch {
		case !s.OK:
			seg("tf", s.Sent, max(s.End, s.Last), y, barH)
		case s.HasToken:
			seg("tw", s.Sent, s.First, y, barH)
			seg("ts "+outcome, s.First, s.Last, y, barH)
		default:
			seg("tw", s.Sent, s.End, y, barH)
		}
		gap := float64(s.GapEnd-s.GapStart) / 1e9
		if gap > gapMin {
			seg("tg", s.GapStart, s.GapEnd, y-0.15*barH, barH*1.3)
		}
		f.Printf(`<title>%s</title></g>`, esc(spanHover(s, gap > gapMin)))
	}
	for _, k := range []struct{ class, label string }{
		{"tq", "client queue"}, {"tw", "to first token"}, {"ts good", "streaming, met the SLO"},
		{"ts missed", "streaming, missed the SLO"}, {"tf", "failed"}, {"tg", fmt.Sprintf("gap over %s", seconds(gapMin))},
	} {
		f.Legend = append(f.Legend, svgchart.LegendItem{Class: k.class, Label: k.label})
	}
	return f, stride
}

// spanHover describes one request for its hover text.
func spanHover(s RequestSpan, longGap bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "request %d, scheduled at %s s", s.Seq, human.Brief(float64(s.Scheduled)/1e9))
	if q := s.Sent - s.Scheduled; q > 0 {
		fmt.Fprintf(&b, ", queued %s", seconds(float64(q)/1e9))
	}
	if !s.OK {
		fmt.Fprintf(&b, "\nfailed: %s after %s", s.Error, seconds(float64(s.End-s.Scheduled)/1e9))
		return b.String()
	}
	if s.HasTTFT {
		fmt.Fprintf(&b, "\nTTFT %s", seconds(float64(s.TTFT)/1e9))
	}
	if s.HasTPOT {
		fmt.Fprintf(&b, ", TPOT %s", seconds(float64(s.TPOT)/1e9))
	}
	if s.HasToken {
		fmt.Fprintf(&b, ", e2e %s, %d tokens", seconds(float64(s.Last-s.Scheduled)/1e9), s.OutputTokens)
	}
	if longGap {
		fmt.Fprintf(&b, "\nlongest gap %s at %s s", seconds(float64(s.GapEnd-s.GapStart)/1e9), human.Brief(float64(s.GapStart)/1e9))
	}
	if s.Good {
		b.WriteString("\nmet the SLO")
	} else {
		b.WriteString("\nmissed the SLO")
	}
	return b.String()
}
