package autoscale

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// Config is what Run needs.
type Config struct {
	URLs      []string // the servers' /metrics URLs, one per replica
	Model     string   // keep only this model_name, when set
	Interval  time.Duration
	Timeout   time.Duration // of one scrape; zero is promscrape's default
	Window    time.Duration
	Operating Operating
	Policy    Policy
	Client    *http.Client // nil: http.DefaultClient
	// Now returns the time; nil is time.Now.
	Now func() time.Time
}

// Run scrapes every server each Interval and, each Interval, advises from
// the trailing Window, calling show with the advice (and Advise's error)
// until show returns false or ctx ends. The scrapes go on in goroutines of
// their own, one per server, so a slow server does not delay the others.
func Run(ctx context.Context, cfg Config, show func(Advice, error) bool) error {
	if len(cfg.URLs) == 0 {
		return fmt.Errorf("advise: no server to scrape")
	}
	if cfg.Interval <= 0 {
		return fmt.Errorf("advise: interval %v: must be positive", cfg.Interval)
	}
	if err := cfg.Policy.Validate(); err != nil {
		return err
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type sample struct {
		i int
		s promscrape.Sample
	}
	// Written by the scrapers until ctx ends; never closed, since several
	// goroutines send on it.
	samples := make(chan sample, 4*len(cfg.URLs))
	var wg sync.WaitGroup
	for i, u := range cfg.URLs {
		sc := promscrape.Scraper{URL: u, Model: cfg.Model, Interval: cfg.Interval, Timeout: cfg.Timeout, Client: cfg.Client, Now: cfg.Now}
		if err := sc.Validate(); err != nil {
			return fmt.Errorf("advise: %w", err)
		}
		sc.OnSample = func(s promscrape.Sample) {
			select {
			case samples <- sample{i, s}:
			case <-ctx.Done():
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc.Run(ctx)
		}()
	}
	defer func() {
		cancel() // before waiting: a scraper may be blocked sending
		wg.Wait()
	}()
	w := NewWatcher(cfg.URLs, cfg.Window)
	tick := time.NewTicker(cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case s := <-samples:
			w.Add(s.i, s.s)
		case <-tick.C:
			// Take what the scrapers have delivered before reading.
			for drained := false; !drained; {
				select {
				case s := <-samples:
					w.Add(s.i, s.s)
				default:
					drained = true
				}
			}
			a, err := Advise(w.Reading(now()), cfg.Operating, cfg.Policy)
			if !show(a, err) {
				return nil
			}
		}
	}
}
