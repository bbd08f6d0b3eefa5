package serverview

import (
	"fmt"
	"slices"

	"github.com/goodput-dev/goodput/promscrape"
)

// Fleet returns the account of several endpoints that served one run
// together, from each one's: what adds up exactly across them. Requests
// running and waiting are the sums of the endpoints' means, preemptions and
// generated tokens their sums, KV cache usage the fullest endpoint's, and
// a server mean latency the mean over every endpoint's observations.
//
// A server percentile is read from the sum of the endpoints' window
// histograms (their ServerHistogram), which is the fleet's own histogram
// when their buckets match, as they do for the same engine and version
// everywhere: the estimate is as good as one endpoint's. When the bounds
// differ, or an endpoint that observed the latency keeps no histogram (a
// summary written before they were kept), the fleet has no percentile of
// it, and Missing says why. Client percentiles do not add up (each is
// exact over one endpoint's requests, with no buckets to sum), so the
// fleet's percentiles have no Client and no Gap; the run's own client
// percentiles are its result's.
//
// The peak of running and waiting requests is the sum of the endpoints'
// peaks, which need not coincide: the most there were at once, not what
// there were. Nil entries are skipped; Fleet returns nil when none is
// left.
func Fleet(cs []*Comparison) *Comparison {
	cs = slices.DeleteFunc(slices.Clone(cs), func(c *Comparison) bool { return c == nil })
	if len(cs) == 0 {
		return nil
	}
	f := &Comparison{URL: fmt.Sprintf("%d endpoints", len(cs)), Endpoints: len(cs), Model: cs[0].Model, Start: cs[0].Start, End: cs[0].End}
	for _, c := range cs {
		if f.Engine == promscrape.Unknown {
			f.Engine = c.Engine
		}
		f.Scrapes += c.Scrapes
		f.FailedScrapes += c.FailedScrapes
		f.CoveredSeconds = max(f.CoveredSeconds, c.CoveredSeconds)
	}
	var why [3]string
	f.TTFT, why[0] = fleetLatency(cs, func(c *Comparison) LatencyComparison { return c.TTFT })
	f.ITL, why[1] = fleetLatency(cs, func(c *Comparison) LatencyComparison { return c.ITL })
	f.E2E, why[2] = fleetLatency(cs, func(c *Comparison) LatencyComparison { return c.E2E })
	f.Phases = fleetPhases(cs)
	f.Running = fleetGauge(cs, func(c *Comparison) *GaugeSummary { return c.Running }, false)
	f.Waiting = fleetGauge(cs, func(c *Comparison) *GaugeSummary { return c.Waiting }, false)
	f.KVCacheUsage = fleetGauge(cs, func(c *Comparison) *GaugeSummary { return c.KVCacheUsage }, true)
	f.Preemptions = fleetCounter(cs, func(c *Comparison) *CounterSummary { return c.Preemptions })
	f.GenerationTokens = fleetCounter(cs, func(c *Comparison) *CounterSummary { return c.GenerationTokens })
	for _, c := range cs {
		for _, m := range c.Missing {
			if !slices.Contains(f.Missing, m) {
				f.Missing = append(f.Missing, m)
			}
		}
	}
	for i, h := range []promscrape.Hist{promscrape.TTFT, promscrape.ITL, promscrape.E2E} {
		if why[i] != "" {
			f.missing("server %s p50 and p99: %s", h, why[i])
		}
	}
	f.Notes = append(f.Notes, fmt.Sprintf("the account of %d endpoints together: sums and means over them, server percentiles read from the sum of their histograms (where their buckets match), and a peak of requests running or waiting the sum of theirs", len(cs)))
	return f
}

// fleetLatency combines one latency of every endpoint: observations and
// client counts add up, the server's mean is over all observations, and
// its percentiles are read from the sum of the histograms of the endpoints
// that observed any. why says, when some endpoint observed the latency but
// the fleet has no percentile of it, why not.
func fleetLatency(cs []*Comparison, of func(*Comparison) LatencyComparison) (out LatencyComparison, why string) {
	var sum float64
	var hs []promscrape.Histogram
	observed := 0
	for _, c := range cs {
		l := of(c)
		out.ClientCount += l.ClientCount
		if l.ServerMean == nil || l.ServerObservations <= 0 {
			// An endpoint that observed nothing adds nothing to the
			// histogram either, whatever its buckets.
			continue
		}
		observed++
		out.ServerObservations += l.ServerObservations
		sum += *l.ServerMean * l.ServerObservations
		if l.ServerHistogram != nil {
			hs = append(hs, *l.ServerHistogram)
		}
	}
	if observed == 0 {
		return out, ""
	}
	out.ServerMean = ptr(sum / out.ServerObservations)
	switch n := observed - len(hs); {
	case n == observed:
		return out, "the endpoints keep no histogram (summaries written before they were kept), so there is none to add up: no fleet percentile"
	case n == 1:
		return out, fmt.Sprintf("1 of the %d endpoints that observed it keeps no histogram (a summary written before they were kept), so theirs do not add up to the fleet's: no fleet percentile", observed)
	case n > 1:
		return out, fmt.Sprintf("%d of the %d endpoints that observed it keep no histogram (summaries written before they were kept), so theirs do not add up to the fleet's: no fleet percentile", n, observed)
	}
	total, ok := promscrape.Sum(hs...)
	if !ok {
		return out, "the endpoints' buckets differ, so their histograms do not add up: no fleet percentile"
	}
	out.ServerHistogram = &total
	for _, q := range []struct {
		p   float64
		out **QuantileComparison
	}{{0.5, &out.P50}, {0.99, &out.P99}} {
		e, err := total.Quantile(q.p)
		if err != nil {
			return out, fmt.Sprintf("the endpoints' histograms together: %v", err)
		}
		*q.out = &QuantileComparison{Server: &e}
	}
	return out, ""
}

// fleetPhases weighs each endpoint's mean phase times by the requests it
// finished (its end-to-end observations), and recomputes the shares.
func fleetPhases(cs []*Comparison) []promscrape.Phase {
	sums, weights := map[promscrape.Hist]float64{}, map[promscrape.Hist]float64{}
	var order []promscrape.Hist
	for _, c := range cs {
		n := c.E2E.ServerObservations
		if n <= 0 {
			continue
		}
		for _, ph := range c.Phases {
			if _, ok := weights[ph.Name]; !ok {
				order = append(order, ph.Name)
			}
			sums[ph.Name] += ph.Mean * n
			weights[ph.Name] += n
		}
	}
	var out []promscrape.Phase
	total := 0.0
	for _, h := range order {
		out = append(out, promscrape.Phase{Name: h, Mean: sums[h] / weights[h]})
		total += sums[h] / weights[h]
	}
	for i := range out {
		if total > 0 {
			out[i].Share = out[i].Mean / total
		}
	}
	return out
}

// fleetGauge adds up a gauge's means and peaks over the endpoints that
// have it (or, for a fraction, takes the fullest endpoint's mean and
// peak); nil when none has it.
func fleetGauge(cs []*Comparison, of func(*Comparison) *GaugeSummary, fraction bool) *GaugeSummary {
	var out *GaugeSummary
	for _, c := range cs {
		g := of(c)
		if g == nil {
			continue
		}
		switch {
		case out == nil && fraction:
			out = &GaugeSummary{Peak: g.Peak, Mean: g.Mean, Samples: g.Samples}
		case out == nil:
			out = &GaugeSummary{Peak: g.Peak, Mean: g.Mean, Samples: g.Samples}
		case fraction:
			if g.Peak > out.Peak {
				out.Peak = g.Peak
			}
			out.Mean = max(out.Mean, g.Mean)
			out.Samples += g.Samples
		default:
			out.Peak += g.Peak
			out.Mean += g.Mean
			out.Samples += g.Samples
		}
	}
	return out
}

// fleetCounter adds up a counter over the endpoints that have it.
func fleetCounter(cs []*Comparison, of func(*Comparison) *CounterSummary) *CounterSummary {
	var out *CounterSummary
	for _, c := range cs {
		k := of(c)
		if k == nil {
			continue
		}
		if out == nil {
			out = &CounterSummary{}
		}
		out.Count += k.Count
		out.PerSecond += k.PerSecond
	}
	return out
}
