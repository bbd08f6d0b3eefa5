package autoscale

import (
	"math"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// Watcher keeps the recent scrapes of each server of a fleet and reads
// them as a Reading over a trailing window. It holds no more than a window
// and one scrape per server, so it can run for days. A Watcher is not safe
// for concurrent use: feed it from one goroutine.
type Watcher struct {
	window time.Duration
	series []*promscrape.Series // one per server, in the order of the URLs
}

// NewWatcher returns a Watcher of the servers whose /metrics URLs are
// urls, reading over window (not positive: 30 s).
func NewWatcher(urls []string, window time.Duration) *Watcher {
	if window <= 0 {
		window = 30 * time.Second
	}
	w := &Watcher{window: window}
	for _, u := range urls {
		w.series = append(w.series, &promscrape.Series{URL: u})
	}
	return w
}

// Add records a scrape of server i (an index into the URLs). Samples of
// one server must come in scrape order.
func (w *Watcher) Add(i int, s promscrape.Sample) {
	ser := w.series[i]
	ser.Samples = append(ser.Samples, s)
	if ser.Start.IsZero() {
		ser.Start = s.At
	}
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

// Reading reads the window that ends at now.
func (w *Watcher) Reading(now time.Time) Reading {
	r := Reading{Scraped: len(w.series), Window: w.window, Latency: math.NaN()}
	start := now.Add(-w.window)
	var sum, count float64
	for _, ser := range w.series {
		win, err := ser.Between(start, now)
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
	w := NewWatcher([]string{s.URL}, window)
	out := make([]Reading, 0, len(s.Samples))
	for _, smp := range s.Samples {
		w.Add(0, smp)
		out = append(out, w.Reading(smp.At))
	}
	return out
}
