package serverview

import (
	"context"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// Watch scrapes with sc at its Interval and, after each scrape, calls show
// with the server's View over the trailing window, until ctx ends or show
// returns false. It returns the last View shown (the zero View when there
// was none). A failed scrape is shown like any other: its View carries the
// error and an unknown status, and the watch goes on.
//
// For a llama.cpp server Watch also reads its /slots after each
// successful scrape, so that the View says how many slots there are.
//
// sc is used as given except for its OnSample, which Watch sets on its own
// copy. show runs on the scraping goroutine and should return quickly: the
// next scrape waits for it.
func Watch(ctx context.Context, sc promscrape.Scraper, window time.Duration, show func(View) bool) View {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := NewMonitor(sc.URL, sc.Model, window)
	var last View
	sc.OnSample = func(s promscrape.Sample) {
		if ctx.Err() != nil {
			return // show asked to stop; a scrape that raced it is not shown
		}
		m.Add(s)
		last = m.View()
		if s.OK() && s.Snapshot.Engine == promscrape.LlamaCpp {
			last.Slots, _ = ReadSlots(ctx, sc.Client, sc.URL, sc.Timeout, sc.Header)
		}
		if !show(last) {
			cancel()
		}
	}
	sc.Run(ctx)
	return last
}
