package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/serverview"
)

// EndpointServer is one endpoint's own account of a run spread over
// several, from its /metrics.
type EndpointServer struct {
	Endpoint string                 `json:"endpoint"`
	Server   *serverview.Comparison `json:"server,omitempty"`
	// Series are the scrapes; Path the file they were saved to, beside the
	// records, empty when none was written.
	Series *promscrape.Series `json:"-"`
	Path   string             `json:"series,omitempty"`
}

// several reports whether the run spreads its load over several endpoints.
func (c *Config) several() bool { return len(c.BaseURLs) > 1 }

// balance returns the policy of a run over several endpoints: the one
// asked for, or session affinity for sessions and tasks, whose history
// an endpoint's prefix cache holds, and round-robin otherwise.
func (c *Config) balance() load.Balance {
	switch {
	case c.Balance != "":
		return c.Balance
	case c.flows():
		return load.BalanceSession
	}
	return load.BalanceRoundRobin
}

// validateEndpoints checks the endpoints beyond BaseURL and the policy.
func (c *Config) validateEndpoints() []error {
	var errs []error
	if len(c.BaseURLs) > 0 && c.BaseURLs[0] != c.BaseURL {
		errs = append(errs, fmt.Errorf("--base-url: the first of the endpoints is %q, not %q", c.BaseURLs[0], c.BaseURL))
	}
	seen := map[string]bool{}
	for _, u := range c.BaseURLs[min(1, len(c.BaseURLs)):] {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			errs = append(errs, fmt.Errorf("--base-url %q: want an absolute http:// or https:// URL", u))
		}
	}
	for _, u := range c.BaseURLs {
		if seen[u] {
			errs = append(errs, fmt.Errorf("--base-url %q is given twice", u))
		}
		seen[u] = true
	}
	if c.Balance != "" {
		if _, err := load.ParseBalance(string(c.Balance)); err != nil {
			errs = append(errs, fmt.Errorf("--balance %w", err))
		} else if !c.several() {
			errs = append(errs, errors.New("--balance spreads the load over several endpoints: give --base-url more than once"))
		}
	}
	if c.several() && c.MetricsURL != "" {
		errs = append(errs, errors.New("--metrics-url names one server: with several --base-url each endpoint's /metrics is scraped"))
	}
	return errs
}

// router returns the Router of a run over several endpoints, nil for one.
func (c *Config) router() (*load.Router, error) {
	if !c.several() {
		return nil, nil
	}
	return load.NewRouter(c.BaseURLs, c.balance())
}

// waitEndpoints waits until every endpoint but the first (which Run
// checks as it checks a single server) is ready.
func waitEndpoints(ctx context.Context, cfg Config, client *http.Client, headers http.Header) error {
	for _, u := range cfg.BaseURLs[min(1, len(cfg.BaseURLs)):] {
		if err := newServer(client, u, headers, cfg.RequestTimeout).waitReady(ctx, cfg.ReadyTimeout); err != nil && !errors.Is(err, errNoReadyRoute) {
			return err
		}
	}
	return nil
}

// scrapers scrape every endpoint's /metrics during a run over several.
type scrapers struct {
	urls []string
	recs []*serverview.Recorder
}

// startScrapers starts one scraper per endpoint when the run has several
// and scrapes server metrics; nil otherwise. Each takes its first scrape
// before it returns, so the series bracket the run.
func startScrapers(ctx context.Context, cfg Config, model string, client *http.Client, headers http.Header) (*scrapers, error) {
	if !cfg.several() || cfg.NoServerMetrics {
		return nil, nil
	}
	s := &scrapers{urls: cfg.BaseURLs}
	for _, u := range cfg.BaseURLs {
		murl, err := serverview.DefaultMetricsURL(u)
		if err != nil {
			s.stop()
			return nil, fmt.Errorf("--base-url %s: %w", u, err)
		}
		s.recs = append(s.recs, serverview.Start(ctx, murl, serverview.Options{Interval: cfg.ScrapeInterval, Model: model, Client: client,
			Header: scrapeHeader(murl, u, headers)}))
	}
	return s, nil
}

// stop stops the scrapers and returns each endpoint's series.
func (s *scrapers) stop() []*promscrape.Series {
	if s == nil {
		return nil
	}
	out := make([]*promscrape.Series, len(s.recs))
	for i, r := range s.recs {
		out[i] = r.Stop()
	}
	return out
}

// endpointServers sets each endpoint's server view beside what the client
// measured of it, and saves its series as <name>.server-<k>.json beside
// the records when the run keeps server series.
func endpointServers(out *Outcome, series []*promscrape.Series, urls []string, serverFile string, bound int) ([]string, []error) {
	var warnings []string
	var errs []error
	byURL := map[string]*metrics.Result{}
	for _, e := range out.Result.Endpoints {
		byURL[e.Endpoint] = e.Result
	}
	for i, s := range series {
		es := EndpointServer{Endpoint: urls[i], Series: s}
		client := byURL[urls[i]]
		window := out.Result
		if client != nil {
			window = client
		}
		start, end := serverview.RunWindow(out.Run.Epoch, window)
		cmp, err := serverview.CompareBounded(s, start, end, client, bound)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("server metrics of %s: %v", urls[i], err))
		}
		es.Server = cmp
		if serverFile != "" {
			path := strings.TrimSuffix(serverFile, serverSuffix) + fmt.Sprintf(".server-%d.json", i+1)
			if err := writeJSON(path, s); err != nil {
				errs = append(errs, &SaveError{Path: path, Err: err})
			} else {
				es.Path = path
			}
		}
		out.Servers = append(out.Servers, es)
	}
	return warnings, errs
}

// scrapeHeader is what a scrape of murl sends besides its own headers: the
// requests' Authorization (the API key), which llama-server asks of
// /metrics too, when murl is on the server the requests go to (base), and
// nothing for another host, which must not be handed the key.
func scrapeHeader(murl, base string, headers http.Header) http.Header {
	auth := headers.Get("Authorization")
	m, err1 := url.Parse(murl)
	b, err2 := url.Parse(base)
	if auth == "" || err1 != nil || err2 != nil || m.Scheme != b.Scheme || m.Host != b.Host {
		return nil
	}
	return http.Header{"Authorization": {auth}}
}
