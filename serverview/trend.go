package serverview

import (
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// minTrendPoints is the fewest scrapes a queue trend is drawn from: two
// points always make a line, three at least show a direction.
const minTrendPoints = 3

// queueTrend measures how long the waiting count stayed above zero among the
// points inside [from, to], and how much it grew meanwhile. With trailing
// set it reads the run of non-zero counts that ends at the last point (a
// live view: is the queue growing now?); otherwise the longest such run (a
// finished run, whose queue drains at the end). The growth is the slope of
// the least-squares line through the run times its span, so one noisy
// scrape at either end does not decide it.
//
// It returns zeros when the chosen run has fewer than minTrendPoints
// points or spans no time.
func queueTrend(pts []promscrape.Point, from, to time.Time, trailing bool) (span time.Duration, rise float64) {
	var in []promscrape.Point
	for _, p := range pts {
		if !p.At.Before(from) && !p.At.After(to) {
			in = append(in, p)
		}
	}
	var best []promscrape.Point
	start := -1
	for i := 0; i <= len(in); i++ {
		if i < len(in) && in[i].Value > 0 {
			if start < 0 {
				start = i
			}
			continue
		}
		if start < 0 {
			continue
		}
		run := in[start:i]
		start = -1
		if trailing {
			if i == len(in) {
				best = run
			}
			continue
		}
		if best == nil || run[len(run)-1].At.Sub(run[0].At) > best[len(best)-1].At.Sub(best[0].At) {
			best = run
		}
	}
	if len(best) < minTrendPoints {
		return 0, 0
	}
	span = best[len(best)-1].At.Sub(best[0].At)
	if span <= 0 {
		return 0, 0
	}
	return span, slope(best) * span.Seconds()
}

// slope returns the least-squares slope of the points' values over time, per
// second. The points must span some time.
func slope(pts []promscrape.Point) float64 {
	t0 := pts[0].At
	n := float64(len(pts))
	var sx, sy float64
	for _, p := range pts {
		sx += p.At.Sub(t0).Seconds()
		sy += p.Value
	}
	mx, my := sx/n, sy/n
	var sxy, sxx float64
	for _, p := range pts {
		dx := p.At.Sub(t0).Seconds() - mx
		sxy += dx * (p.Value - my)
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}
