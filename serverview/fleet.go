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
// Percentiles do not combine (each endpoint has only its own buckets), so
// the fleet has none. The peak of running and waiting requests is the sum
// of the endpoints' peaks, which need not coincide: the most there were at
// once, not what there were. Nil entries are skipped; Fleet returns nil
// when none is left.
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
	f.TTFT, f.ITL, f.E2E = fleetLatency(cs, func(c *Comparison) LatencyComparison { return c.TTFT }),
		fleetLatency(cs, func(c *Comparison) LatencyComparison { return c.ITL }),
		fleetLatency(cs, func(c *Comparison) LatencyComparison { return c.E2E })
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
	f.Notes = append(f.Notes, fmt.Sprintf("the account of %d endpoints together: sums and means over them; percentiles are each endpoint's only, and a peak of requests running or waiting the sum of theirs", len(cs)))
	return f
}

// fleetLatency combines one latency of every endpoint: observations and
// client counts add up, and the server's mean is over all observations.
func fleetLatency(cs []*Comparison, of func(*Comparison) LatencyComparison) LatencyComparison {
	var out LatencyComparison
	var sum float64
	for _, c := range cs {
		l := of(c)
		out.ClientCount += l.ClientCount
		if l.ServerMean != nil && l.ServerObservations > 0 {
			out.ServerObservations += l.ServerObservations
			sum += *l.ServerMean * l.ServerObservations
		}
	}
	if out.ServerObservations > 0 {
		out.ServerMean = ptr(sum / out.ServerObservations)
	}
	return out
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
