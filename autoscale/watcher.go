package autoscale

import (
	"math"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// Watcher keeps the recent scrapes of each server of a fleet and reads
// them as a Reading over a trailing window. It holds no more than a window
// and one scrape per server, so it can run for days. A Watcher is not safe
// for concurrent use: feed it from one goroutine.
type Watcher struct {
	window time.Duration
	series map[string]*promscrape.Series // by /metrics URL
}

// NewWatcher returns a Watcher reading over window (not positive: 30 s).
func NewWatcher(window time.Duration) *Watcher {
	if window <= 0 {
		window = 30 * time.Second
	}
	return &Watcher{window: window, series: map[string]*promscrape.Series{}}
}

// Add records a scrape of the server at url. Samples of one server must
// come in scrape order.
func (w *Watcher) Add(url string, s promscrape.Sample) {
	ser, ok := w.series[url]
	if !ok {
		ser = &promscrape.Series{URL: url, Start: s.At}
		w.series[url] = ser
	}
	ser.Samples = append(ser.Samples, s)
	ser.End = s.At
	// Keep the last successful scrape at or before the window's start, to
	// anchor its histogram differences, and everything after.
	horizon := s.At.Add(-w.window)
	keep := 0
	for j, smp := range ser.Samples {
		if smp.Snapshot != nil && !smp.At.After(horizon) {
			keep = j
		}
	}
	if keep > 0 {
		ser.Samples = append(ser.Samples[:0:0], ser.Samples[keep:]...)
	}
}

// Forget drops the server at url: it left the fleet.
func (w *Watcher) Forget(url string) { delete(w.series, url) }

// Servers returns the URLs the watcher holds scrapes of, sorted.
func (w *Watcher) Servers() []string {
	out := make([]string, 0, len(w.series))
	for u := range w.series {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// Reading reads the window that ends at now.
func (w *Watcher) Reading(now time.Time) Reading {
	r := Reading{Scraped: len(w.series), Window: w.window, Latency: math.NaN()}
	start := now.Add(-w.window)
	var sum, count float64
	for _, u := range w.Servers() {
		win, err := w.series[u].Between(start, now)
		if err != nil {
			continue
		}
		run, okR := win.Gauges[promscrape.Running]
		wait, okW := win.Gauges[promscrape.Waiting]
		if !okR && !okW {
			continue
		}
		r.Replicas++
		r.Running += run.Mean
		r.Waiting += wait.Mean
		if h, ok := win.Histograms[promscrape.E2E]; ok && h.Count > 0 {
			sum += h.Sum
			count += h.Count
		}
	}
	if count > 0 {
		r.Latency, r.Finished = sum/count, count
	}
	return r
}

// Replay reads a recorded series of one server as a Watcher fed scrape by
// scrape would, and returns the Reading after each scrape.
func Replay(s promscrape.Series, window time.Duration) []Reading {
	w := NewWatcher(window)
	out := make([]Reading, 0, len(s.Samples))
	for _, smp := range s.Samples {
		w.Add(s.URL, smp)
		out = append(out, w.Reading(smp.At))
	}
	return out
}
