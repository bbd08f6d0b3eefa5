package promscrape

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Errors Between and the Window accessors return; test with errors.Is.
var (
	ErrNoSnapshots = errors.New("no successful scrape")
	ErrAbsent      = errors.New("not exported by the server")
)

// GaugeStats summarises a gauge over a window. Mean is the plain mean of the
// scraped values: scrapes come at a steady interval, so it is also the time
// average to within one interval.
type GaugeStats struct {
	Mean    float64 `json:"mean"`
	Peak    float64 `json:"peak"`
	Min     float64 `json:"min"`
	Samples int     `json:"samples"`
}

// Window is the server's view of one measured window [Start, End]: how much
// each counter rose, the observations each histogram gained, and each
// gauge's mean and peak.
//
// Counters and histograms are differences between the successful scrape
// From (the last at or before Start, else the first after it) and the
// scrape To (the first at or after End, else the last before it), summed
// scrape to scrape and label set by label set so that resets are handled.
// When From is after Start or To before End, part of the window is not
// covered and Notes say so. Gauges use the scrapes inside [Start, End].
type Window struct {
	Start    time.Time            `json:"start"`
	End      time.Time            `json:"end"`
	From     time.Time            `json:"from"`
	To       time.Time            `json:"to"`
	Engine   Engine               `json:"engine"`
	Scrapes  int                  `json:"scrapes"` // scrapes started inside [Start, End]
	Failed   int                  `json:"failed"`  // of those, how many failed
	Gauges   map[Gauge]GaugeStats `json:"gauges,omitempty"`
	Counters map[Counter]float64  `json:"counters,omitempty"`
	// CounterSeries is the increase of each label set, by its labels in
	// Prometheus form, for the counters whose labels carry meaning (the
	// draft position of SpecAcceptedByPosition).
	CounterSeries map[Counter]map[string]float64 `json:"counter_series,omitempty"`
	Histograms    map[Hist]Histogram             `json:"histograms,omitempty"`
	Notes         []string                       `json:"notes,omitempty"`
}

// Between returns the server's view of the window [start, end]. Samples must
// be in scrape order, as Run records them. It fails when end is before start,
// and with ErrNoSnapshots when no successful scrape can anchor the window.
func (s *Series) Between(start, end time.Time) (Window, error) {
	w := Window{Start: start, End: end}
	if end.Before(start) {
		return w, fmt.Errorf("window end %s is before its start %s", end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
	var snaps []*Snapshot // successful scrapes, in order
	for _, smp := range s.Samples {
		if !smp.At.Before(start) && !smp.At.After(end) {
			w.Scrapes++
			if smp.Snapshot == nil {
				w.Failed++
			}
		}
		if smp.Snapshot != nil {
			snaps = append(snaps, smp.Snapshot)
		}
	}
	from, to := -1, -1
	for i, sn := range snaps {
		if !sn.At.After(start) {
			from = i // the last at or before start
		}
	}
	if from < 0 {
		for i, sn := range snaps {
			if !sn.At.After(end) {
				from = i // none before: the first inside the window
				break
			}
		}
	}
	if from < 0 {
		return w, fmt.Errorf("window %s–%s: %w in or before it", start.Format(time.RFC3339Nano), end.Format(time.RFC3339Nano), ErrNoSnapshots)
	}
	to = from
	for i := from; i < len(snaps); i++ {
		to = i
		if !snaps[i].At.Before(end) {
			break // the first at or after end
		}
	}
	used := snaps[from : to+1]
	w.From, w.To, w.Engine = used[0].At, used[len(used)-1].At, used[0].Engine
	for _, sn := range used[1:] {
		if sn.Engine != w.Engine {
			w.note("the engine changed from %q to %q inside the window: the server was replaced", w.Engine, sn.Engine)
			break
		}
	}
	switch {
	case len(used) == 1:
		w.note("only one successful scrape around the window: counters and histograms need two")
	default:
		if w.From.After(start) {
			w.note("first successful scrape %v after the window start: earlier increases are missed", w.From.Sub(start).Round(time.Millisecond))
		}
		if w.To.Before(end) {
			w.note("last successful scrape %v before the window end: later increases are missed", end.Sub(w.To).Round(time.Millisecond))
		}
	}

	w.gauges(snaps, start, end)
	for _, c := range AllCounters {
		var tr counterTrack
		if c.bySeries() {
			tr.each = make(map[string]float64)
		}
		total, n := 0.0, 0
		for _, sn := range used {
			if per, ok := sn.Counters[c]; ok {
				total += tr.step(per)
				n++
			}
		}
		if n < 2 {
			continue
		}
		if w.Counters == nil {
			w.Counters = make(map[Counter]float64)
		}
		w.Counters[c] = total
		if tr.each != nil {
			if w.CounterSeries == nil {
				w.CounterSeries = make(map[Counter]map[string]float64)
			}
			w.CounterSeries[c] = tr.each
		}
		if tr.resets > 0 {
			w.note("counter %s reset %s in the window (a server or engine restart); counts after a reset start from zero", c, times(tr.resets))
		}
	}
	for _, h := range AllHists {
		var tr histTrack
		n := 0
		for _, sn := range used {
			if per, ok := sn.Histograms[h]; ok {
				tr.step(per)
				n++
			}
		}
		if n < 2 {
			continue
		}
		if len(tr.acc) == 0 {
			continue
		}
		sum, left := sumHistograms(tr.sums())
		if w.Histograms == nil {
			w.Histograms = make(map[Hist]Histogram)
		}
		w.Histograms[h] = sum
		if tr.resets > 0 {
			w.note("histogram %s reset %s in the window (a server or engine restart); counts after a reset start from zero", h, times(tr.resets))
		}
		if len(left) > 0 {
			w.note("histogram %s: %d series left out, their bucket layout changed in the window", h, len(left))
		}
	}
	return w, nil
}

// gauges fills Gauges from the snapshots taken inside [start, end].
func (w *Window) gauges(snaps []*Snapshot, start, end time.Time) {
	inside := 0
	for _, sn := range snaps {
		if !sn.At.Before(start) && !sn.At.After(end) {
			inside++
		}
	}
	if inside == 0 {
		w.note("no successful scrape inside the window: no gauge values")
		return
	}
	for _, g := range AllGauges {
		st := GaugeStats{Peak: math.Inf(-1), Min: math.Inf(1)}
		sum := 0.0
		for _, sn := range snaps {
			if sn.At.Before(start) || sn.At.After(end) {
				continue
			}
			v, ok := sn.Gauges[g]
			if !ok {
				continue
			}
			sum += v
			st.Samples++
			st.Peak = max(st.Peak, v)
			st.Min = min(st.Min, v)
		}
		if st.Samples == 0 {
			continue
		}
		st.Mean = sum / float64(st.Samples)
		if w.Gauges == nil {
			w.Gauges = make(map[Gauge]GaugeStats)
		}
		w.Gauges[g] = st
	}
}

// times says how often, in words.
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

func (w *Window) note(format string, args ...any) {
	w.Notes = append(w.Notes, fmt.Sprintf(format, args...))
}

// Duration returns the time the counter and histogram differences span.
func (w Window) Duration() time.Duration { return w.To.Sub(w.From) }

// PerSecond returns the counter's mean rate over From–To, and false when the
// window has no increase for it or spans no time.
func (w Window) PerSecond(c Counter) (float64, bool) {
	v, ok := w.Counters[c]
	d := w.Duration().Seconds()
	if !ok || d <= 0 {
		return 0, false
	}
	return v / d, true
}

// Quantile estimates the q-quantile of the server histogram h over the
// window. It wraps ErrAbsent when the server did not export h, and returns
// Histogram.Quantile's errors otherwise.
func (w Window) Quantile(h Hist, q float64) (Estimate, error) {
	hg, ok := w.Histograms[h]
	if !ok {
		return Estimate{}, fmt.Errorf("server histogram %s: %w", h, ErrAbsent)
	}
	e, err := hg.Quantile(q)
	if err != nil {
		return Estimate{}, fmt.Errorf("server histogram %s: %w", h, err)
	}
	return e, nil
}

// PrefixHitRate returns the fraction of prefix-cache lookups that hit over
// the window: hits ÷ queries from the counters (vLLM), else the mean of the
// engine's own hit-rate gauge (SGLang). It returns false when neither is
// there or no lookup happened.
func (w Window) PrefixHitRate() (float64, bool) {
	q, okQ := w.Counters[PrefixCacheQueries]
	h, okH := w.Counters[PrefixCacheHits]
	if okQ && okH && q > 0 {
		return h / q, true
	}
	if g, ok := w.Gauges[CacheHitRate]; ok {
		return g.Mean, true
	}
	return 0, false
}

// Phase is one part of the server's request latency over a window.
type Phase struct {
	Name Hist    `json:"name"`
	Mean float64 `json:"mean_s"` // mean seconds per request
	// Share is the phase's part of the total request latency: its
	// histogram's sum over the end-to-end histogram's sum, or over the sum
	// of the phases when the server has no end-to-end histogram or when the
	// phases add up to more than it (a server that records a request's
	// queue time when it is scheduled, not when it ends, over a window in
	// which more requests were scheduled than ended). A share is never
	// above 1.
	Share float64 `json:"share"`
}

// Phases splits the server's request latency into queue, prefill and decode,
// from the histograms' sums, for those the server exports and that saw a
// request in the window. The shares need not add up to 1: the server spends
// some time outside these phases (tokenising, detokenising, scheduling).
func (w Window) Phases() []Phase {
	var phases []Phase
	total := 0.0
	for _, h := range []Hist{Queue, Prefill, Decode} {
		hg, ok := w.Histograms[h]
		mean, observed := hg.Mean()
		if !ok || !observed {
			continue
		}
		phases = append(phases, Phase{Name: h, Mean: mean})
		total += hg.Sum
	}
	if e, ok := w.Histograms[E2E]; ok && e.Count > 0 && e.Sum > total {
		total = e.Sum
	}
	if total <= 0 {
		return phases
	}
	for i := range phases {
		phases[i].Share = w.Histograms[phases[i].Name].Sum / total
	}
	return phases
}
