package autoscale

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// Config is what Run needs.
type Config struct {
	// Targets are the servers' /metrics URLs, one per replica, or
	// dns+http:// URLs that stand for every address of a name (see
	// DNSScheme).
	Targets   []string
	Model     string // keep only this model_name, when set
	Interval  time.Duration
	Timeout   time.Duration // of one scrape; zero is promscrape's default
	Window    time.Duration
	Operating Operating
	Policy    Policy
	Client    *http.Client // nil: http.DefaultClient
	Header    http.Header  // sent with every scrape: the servers' API key, when they guard /metrics
	Resolver  Resolver     // nil: net.DefaultResolver
	// Now returns the time; nil is time.Now.
	Now func() time.Time
	// OnLookupError, when set, hears of a name that did not resolve.
	OnLookupError func(error)
}

// Run scrapes every server each Interval and, each Interval, advises from
// the trailing Window, calling show with the advice (and Advise's error)
// until show returns false or ctx ends. Each server is scraped by a
// goroutine of its own, so a slow one does not delay the others; dns+
// targets are looked up again at every interval, and a server whose
// address is gone is forgotten.
func Run(ctx context.Context, cfg Config, show func(Advice, error) bool) error {
	if len(cfg.Targets) == 0 {
		return fmt.Errorf("advise: no server to scrape")
	}
	if cfg.Interval <= 0 {
		return fmt.Errorf("advise: interval %v: must be positive", cfg.Interval)
	}
	for _, t := range cfg.Targets {
		if err := CheckTarget(t); err != nil {
			return fmt.Errorf("advise: %w", err)
		}
	}
	if err := cfg.Policy.Validate(); err != nil {
		return err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	var resolver Resolver = net.DefaultResolver
	if cfg.Resolver != nil {
		resolver = cfg.Resolver
	}
	ctx, cancel := context.WithCancel(ctx)
	type sample struct {
		url string
		s   promscrape.Sample
	}
	// Written by the scrapers until their context ends; never closed,
	// since several goroutines send on it.
	samples := make(chan sample, 64)
	var wg sync.WaitGroup
	defer func() {
		cancel() // before waiting: a scraper may be blocked sending
		wg.Wait()
	}()
	scrapers := map[string]context.CancelFunc{}
	w := NewWatcher(cfg.Window)
	// follow starts a scraper for each server the targets stand for now,
	// and stops those of servers gone.
	follow := func() {
		urls, errs := Expand(ctx, resolver, cfg.Targets)
		for _, err := range errs {
			if cfg.OnLookupError != nil {
				cfg.OnLookupError(err)
			}
		}
		want := map[string]bool{}
		for _, u := range urls {
			want[u] = true
			if _, ok := scrapers[u]; ok {
				continue
			}
			sctx, stop := context.WithCancel(ctx)
			scrapers[u] = stop
			sc := promscrape.Scraper{URL: u, Model: cfg.Model, Interval: cfg.Interval, Timeout: cfg.Timeout, Client: cfg.Client, Header: cfg.Header, Now: cfg.Now}
			sc.OnSample = func(s promscrape.Sample) {
				select {
				case samples <- sample{u, s}:
				case <-sctx.Done():
				}
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				sc.Run(sctx)
			}()
		}
		for u, stop := range scrapers {
			if !want[u] {
				stop()
				delete(scrapers, u)
				w.Forget(u)
			}
		}
	}
	follow()
	tick := time.NewTicker(cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case s := <-samples:
			if _, ok := scrapers[s.url]; ok {
				w.Add(s.url, s.s)
			}
		case <-tick.C:
			// Take what the scrapers have delivered before reading.
			for drained := false; !drained; {
				select {
				case s := <-samples:
					if _, ok := scrapers[s.url]; ok {
						w.Add(s.url, s.s)
					}
				default:
					drained = true
				}
			}
			a, err := Advise(w.Reading(now()), cfg.Operating, cfg.Policy)
			if !show(a, err) {
				return nil
			}
			follow()
		}
	}
}
