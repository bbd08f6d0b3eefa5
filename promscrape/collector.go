package promscrape

import (
	"context"
	"errors"
	"time"
)

// Run scrapes at once and then every Interval until ctx ends, and returns
// everything it saw. A failed scrape (server down, timeout, garbage, too
// large) is recorded in the Series as data and never stops Run; a scrape cut
// short because ctx ended is not recorded, since it says nothing about the
// server. When a scrape takes longer than Interval, the next one starts as
// soon as it ends and the ticks missed meanwhile are skipped.
//
// Run blocks: callers run it on a goroutine of their own and cancel ctx to
// stop it. To cover a measured window fully, stop Run at least one Interval
// after the window ends, so that a scrape brackets it (see Series.Between).
// A Scraper that fails Validate gives a Series of failures that say why.
func (s *Scraper) Run(ctx context.Context) *Series {
	series := &Series{URL: s.URL, Model: s.Model, Interval: s.interval(), Start: s.now()}
	tick := time.NewTicker(s.interval())
	defer tick.Stop()
	for {
		smp := s.sample(ctx)
		if smp.Snapshot != nil || ctx.Err() == nil {
			series.Samples = append(series.Samples, smp)
			if s.OnSample != nil {
				s.OnSample(smp)
			}
		}
		select {
		case <-ctx.Done():
			series.End = s.now()
			return series
		case <-tick.C:
		}
	}
}

// sample makes one scrape and records it as a Sample.
func (s *Scraper) sample(ctx context.Context) Sample {
	start := s.now()
	snap, err := s.Scrape(ctx)
	smp := Sample{At: start, Took: s.now().Sub(start)}
	if err != nil {
		smp.Kind = FailOther
		var se *ScrapeError
		if errors.As(err, &se) {
			smp.Kind = se.Kind
		}
		smp.Err = err.Error()
		return smp
	}
	smp.Snapshot = &snap
	return smp
}
