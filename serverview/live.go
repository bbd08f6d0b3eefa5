package serverview

import (
	"time"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/promscrape"
)

// View is a server's state at its latest scrape, as `goodput watch` shows
// it: gauges from the latest successful scrape, token rates over the last
// scrape interval, and latency percentiles, preemptions and prefix hits over
// the trailing window. Latencies are in seconds and KV usage a fraction. A
// nil field is one the server does not export or no scrape has measured yet
// (JSON null).
type View struct {
	At     time.Time         `json:"at"` // when the latest scrape started
	URL    string            `json:"url"`
	Engine promscrape.Engine `json:"engine"`
	Model  string            `json:"model,omitempty"`  // the model filter, if any
	Models []string          `json:"models,omitempty"` // model_name values the server reported

	WindowSeconds  float64 `json:"window_seconds"`  // the trailing window asked for
	CoveredSeconds float64 `json:"covered_seconds"` // the span its counter and histogram differences cover
	Scrapes        int     `json:"scrapes"`         // scrapes started inside the window
	FailedScrapes  int     `json:"failed_scrapes"`
	Error          string  `json:"error,omitempty"` // why the latest scrape failed

	Running      *float64 `json:"running"`
	Waiting      *float64 `json:"waiting"`
	KVCacheUsage *float64 `json:"kv_cache_usage"`
	// Slots are a llama.cpp server's slots, from its /slots (Watch reads
	// them); nil for other engines or when /slots did not answer.
	Slots *Slots `json:"slots,omitempty"`

	PromptTokensPerSecond     *float64 `json:"prompt_tokens_per_second"`
	GenerationTokensPerSecond *float64 `json:"generation_tokens_per_second"`

	TTFT Percentiles `json:"ttft"`
	ITL  Percentiles `json:"itl"`

	PreemptionsPerSecond *float64 `json:"preemptions_per_second"`
	PrefixCacheHitRate   *float64 `json:"prefix_cache_hit_rate"`
	// QueueShare is the share of the server's request latency spent
	// queued, over the window (requests that finished in it).
	QueueShare *float64 `json:"queue_share"`

	Status Status `json:"status"`
	// NotExported names the quantities above that the server's latest
	// exposition did not have (promscrape's names).
	NotExported []string `json:"not_exported,omitempty"`
}

// Percentiles are a server histogram's p50 and p99 over a window, bucket
// estimates with their bounds; nil when the window holds no observation.
type Percentiles struct {
	Observations float64              `json:"observations"`
	P50          *promscrape.Estimate `json:"p50"`
	P99          *promscrape.Estimate `json:"p99"`
}

// Monitor keeps a server's recent scrapes and reads its View from them. It
// holds no more than two windows of scrapes (the status compares TTFT with
// the window before), so it can run for days.
//
// A Monitor is not safe for concurrent use: feed it from one goroutine, for
// example a promscrape.Scraper's OnSample.
type Monitor struct {
	window    time.Duration
	series    promscrape.Series
	seen      bool      // a scrape has succeeded
	downSince time.Time // the first of the failed scrapes since the last good one; zero when the latest succeeded
}

// NewMonitor returns an empty Monitor of the server at url, whose View
// reads percentiles and rates over the trailing window. model is the model
// filter the scrapes used, if any, reported in the View. A window that is
// not positive means 30 s.
func NewMonitor(url, model string, window time.Duration) *Monitor {
	if window <= 0 {
		window = 30 * time.Second
	}
	return &Monitor{window: window, series: promscrape.Series{URL: human.URL(url), Model: model}}
}

// Add records one scrape. Samples must come in scrape order.
func (m *Monitor) Add(s promscrape.Sample) {
	switch {
	case s.OK():
		m.seen, m.downSince = true, time.Time{}
	case m.downSince.IsZero():
		m.downSince = s.At
	}
	m.series.Samples = append(m.series.Samples, s)
	if m.series.Start.IsZero() {
		m.series.Start = s.At
	}
	m.series.End = s.At
	m.trim()
}

// trim drops the scrapes that no longer matter: those before the last
// successful one at or before two windows ago, which anchors the earlier
// window's differences.
func (m *Monitor) trim() {
	smp := m.series.Samples
	horizon := smp[len(smp)-1].At.Add(-2 * m.window)
	keep := 0
	for i, s := range smp {
		if s.Snapshot != nil && !s.Snapshot.At.After(horizon) {
			keep = i
		}
	}
	if keep > 0 {
		m.series.Samples = append(smp[:0:0], smp[keep:]...)
	}
}

// View reads the server's state at the latest scrape. With no scrape yet it
// returns a View whose status is unknown.
func (m *Monitor) View() View {
	v := View{URL: m.series.URL, Model: m.series.Model, WindowSeconds: m.window.Seconds()}
	smp := m.series.Samples
	if len(smp) == 0 {
		v.Status = Assess(Signals{Err: "no scrape yet"})
		return v
	}
	latest := smp[len(smp)-1]
	now := latest.At
	v.At, v.Error = now, latest.Err
	// The window's scrapes are counted before anything else, even when
	// none succeeded: a server that never answered has its failed
	// scrapes said too.
	start := now.Add(-m.window)
	w, err := m.series.Between(start, now)
	v.Scrapes, v.FailedScrapes = w.Scrapes, w.Failed
	var last *promscrape.Snapshot
	for i := len(smp) - 1; i >= 0 && last == nil; i-- {
		last = smp[i].Snapshot
	}
	sig := Signals{Err: latest.Err, ErrKind: latest.Kind, DownSince: m.downSince, At: now, Seen: m.seen}
	if last == nil {
		v.Status = Assess(sig)
		return v
	}
	v.Engine, v.Models = last.Engine, last.Models
	sig.Engine = last.Engine
	if why := modelAbsent(m.series.Model, last.Models); why != "" {
		v.Status = Assess(Signals{Err: why})
		return v
	}
	v.Running, v.Waiting, v.KVCacheUsage = gaugePtr(last, promscrape.Running), gaugePtr(last, promscrape.Waiting), gaugePtr(last, promscrape.KVCacheUsage)
	sig.Running, sig.Waiting, sig.KVCacheUsage = v.Running, v.Waiting, v.KVCacheUsage
	v.PromptTokensPerSecond = lastRate(&m.series, promscrape.PromptTokens, last.At)
	v.GenerationTokensPerSecond = lastRate(&m.series, promscrape.GenerationTokens, last.At)

	if err == nil {
		v.CoveredSeconds = w.Duration().Seconds()
		v.TTFT = percentiles(w, promscrape.TTFT)
		v.ITL = percentiles(w, promscrape.ITL)
		if ps, ok := w.PerSecond(promscrape.Preemptions); ok {
			v.PreemptionsPerSecond = &ps
		}
		if r, ok := w.PrefixHitRate(); ok {
			v.PrefixCacheHitRate = &r
		}
		v.QueueShare = queueShare(w.Phases())
		if v.TTFT.P99 != nil {
			sig.TTFTP99 = &v.TTFT.P99.Value
		}
	}
	sig.PreemptionsPerSecond, sig.QueueShare = v.PreemptionsPerSecond, v.QueueShare
	sig.QueueFor, sig.QueueRise = queueTrend(m.series.Gauge(promscrape.Waiting), start, now, true)
	sig.TTFTP99Before = p99(&m.series, promscrape.TTFT, start.Add(-m.window), start)
	v.Status = Assess(sig)
	v.NotExported = notExported(last)
	return v
}

// notExported names the quantities a View shows that the server's latest
// exposition did not have.
func notExported(last *promscrape.Snapshot) []string {
	var out []string
	for _, g := range []promscrape.Gauge{promscrape.Running, promscrape.Waiting, promscrape.KVCacheUsage} {
		if _, ok := last.Gauges[g]; !ok {
			out = append(out, string(g))
		}
	}
	for _, c := range []promscrape.Counter{promscrape.PromptTokens, promscrape.GenerationTokens, promscrape.Preemptions} {
		if _, ok := last.Counters[c]; !ok {
			out = append(out, string(c))
		}
	}
	for _, h := range []promscrape.Hist{promscrape.TTFT, promscrape.ITL, promscrape.Queue} {
		if _, ok := last.Histograms[h]; !ok {
			out = append(out, string(h))
		}
	}
	_, queries := last.Counters[promscrape.PrefixCacheQueries]
	_, gauge := last.Gauges[promscrape.CacheHitRate]
	if !queries && !gauge {
		out = append(out, prefixHitRate)
	}
	return out
}

// prefixHitRate is the name NotExported gives the prefix cache's hit rate,
// which the server exports as a counter pair or a gauge (or neither).
const prefixHitRate = "prefix_cache_hit_rate"

func gaugePtr(s *promscrape.Snapshot, g promscrape.Gauge) *float64 {
	if v, ok := s.Gauges[g]; ok {
		return &v
	}
	return nil
}

// lastRate is the counter's rate between the two latest successful scrapes
// that had it, when the later one is the snapshot taken at at.
func lastRate(s *promscrape.Series, c promscrape.Counter, at time.Time) *float64 {
	pts := s.Rate(c)
	if len(pts) == 0 || !pts[len(pts)-1].At.Equal(at) {
		return nil
	}
	return &pts[len(pts)-1].Value
}

func percentiles(w promscrape.Window, h promscrape.Hist) Percentiles {
	hg, ok := w.Histograms[h]
	if !ok {
		return Percentiles{}
	}
	p := Percentiles{Observations: hg.Count}
	if e, err := hg.Quantile(0.5); err == nil {
		p.P50 = &e
	}
	if e, err := hg.Quantile(0.99); err == nil {
		p.P99 = &e
	}
	return p
}

// secondsDuration converts seconds to a Duration.
func secondsDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
