package serverview

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/promscrape"
)

// Options configure a Recorder. The zero value scrapes every second with
// promscrape's default timeout and size limit, keeping every model.
type Options struct {
	Interval time.Duration     // between scrape starts; zero means promscrape.DefaultInterval (1 s)
	Timeout  time.Duration     // for one scrape; zero means promscrape.DefaultTimeout
	MaxBytes int64             // largest exposition accepted; zero means promscrape.DefaultMaxBytes
	Model    string            // keep only this model_name (see promscrape.Options.Model)
	Engine   promscrape.Engine // force an engine's mapping; Unknown detects it
	Client   *http.Client      // nil means http.DefaultClient
	Header   http.Header       // sent with every scrape (see promscrape.Scraper.Header)

	// OnSample, when set, is called after each scrape, for a live view,
	// one call at a time: the first on the goroutine calling Start, the
	// last on the one calling Stop, the others on the Recorder's own. It
	// must return quickly.
	OnSample func(promscrape.Sample)
}

// Recorder scrapes a server's /metrics in the background during a run.
// Create it with Start before the run begins and call Stop as soon as the
// measured window has ended; Stop returns everything it saw.
type Recorder struct {
	scraper promscrape.Scraper
	parent  context.Context
	cancel  context.CancelFunc
	done    chan struct{} // closed by the scraping goroutine when Run has returned

	first promscrape.Sample // the scrape Start took itself

	// series is written by the scraping goroutine before it closes done,
	// and read only after done is closed.
	series *promscrape.Series

	stopOnce sync.Once
	final    *promscrape.Series // set once by Stop
}

// EarlyScrape is the longest a Recorder waits after its first scrape
// (taken before the run) for its second: short enough that a run of a
// fraction of a second still has a scrape of the server's gauges inside
// it.
const EarlyScrape = 250 * time.Millisecond

// Start takes a first scrape of metricsURL before it returns, so that the
// series begins before the run it is to bracket, and then scrapes every
// o.Interval in the background until Stop is called or ctx ends, the
// first of those EarlyScrape after the first scrape when that is sooner
// (so that a run shorter than the interval still has a scrape inside it).
// The first scrape blocks for at most o.Timeout (a slow target costs that
// once).
//
// Start never fails: a URL that cannot work, a server that is down, slow,
// garbled or too large gives failed scrapes that the Series records and
// Compare reports as missing. The caller must call Stop to release the
// goroutine.
func Start(ctx context.Context, metricsURL string, o Options) *Recorder {
	r := &Recorder{
		scraper: promscrape.Scraper{
			URL: metricsURL, Client: o.Client, Header: o.Header, Model: o.Model, Engine: o.Engine,
			Interval: o.Interval, Timeout: o.Timeout, MaxBytes: o.MaxBytes,
			OnSample: o.OnSample,
		},
		parent: ctx,
		done:   make(chan struct{}),
	}
	interval := o.Interval
	if interval <= 0 {
		interval = promscrape.DefaultInterval
	}
	r.first = sample(ctx, &r.scraper)
	if r.scraper.OnSample != nil {
		r.scraper.OnSample(r.first)
	}
	var runCtx context.Context
	runCtx, r.cancel = context.WithCancel(ctx)
	go func() {
		defer close(r.done)
		t := time.NewTimer(min(interval, EarlyScrape))
		defer t.Stop()
		select {
		case <-t.C:
			r.series = r.scraper.Run(runCtx) // scrapes at once, then every interval
			r.series.URL = human.URL(r.series.URL)
		case <-runCtx.Done():
			r.series = &promscrape.Series{URL: human.URL(metricsURL), Model: o.Model, Interval: interval}
		}
	}()
	return r
}

// interruptedScrape bounds the closing scrape of an interrupted run.
const interruptedScrape = time.Second

// Stop ends the background scraping, takes one last scrape so that the
// series brackets a window that ended just now, and returns the Series.
// It blocks for at most one scrape timeout, and at most interruptedScrape
// when the context given to Start has ended (an interrupted run still gets
// its closing scrape). Later calls return the same Series.
func (r *Recorder) Stop() *promscrape.Series {
	r.stopOnce.Do(func() {
		r.cancel()
		<-r.done
		s := r.series
		s.Samples = append([]promscrape.Sample{r.first}, s.Samples...)
		s.Start = r.first.At
		// A user who pressed Ctrl-C on a server that stopped answering
		// is not kept waiting a whole scrape timeout.
		ctx := context.WithoutCancel(r.parent)
		if r.parent.Err() != nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, interruptedScrape)
			defer cancel()
		}
		smp := sample(ctx, &r.scraper)
		s.Samples = append(s.Samples, smp)
		if r.scraper.OnSample != nil {
			r.scraper.OnSample(smp)
		}
		s.End = time.Now()
		r.final = s
	})
	return r.final
}

// sample makes one scrape with sc and records it as promscrape.Run does.
func sample(ctx context.Context, sc *promscrape.Scraper) promscrape.Sample {
	start := time.Now()
	snap, err := sc.Scrape(ctx)
	smp := promscrape.Sample{At: start, Took: time.Since(start)}
	if err != nil {
		smp.Kind = promscrape.FailOther
		var se *promscrape.ScrapeError
		if errors.As(err, &se) {
			smp.Kind = se.Kind
		}
		smp.Err = err.Error()
		return smp
	}
	smp.Snapshot = &snap
	return smp
}
