package promscrape

import (
	"maps"
	"slices"
	"time"
)

// Snapshot is one exposition mapped onto the common quantities. A quantity
// the engine does not export, or that this exposition lacked, is absent from
// its map, never zero.
//
// Gauges are aggregated over label sets when parsed (counts summed,
// fractions averaged). Counters and histograms are kept per label set, keyed
// by the series' labels in Prometheus form (`engine="0",model_name="m"`, ""
// for a series without labels), so that a reset of one series is seen even
// when the sum over all of them still rises; Counter and Histogram return
// the sums.
type Snapshot struct {
	// At is when the response arrived; Parse leaves it zero and Scrape sets it.
	At     time.Time `json:"at"`
	Engine Engine    `json:"engine"`
	// Models lists the model_name label values seen on the engine's metrics,
	// before any model filter, so a caller can say which models were there.
	Models     []string                       `json:"models,omitempty"`
	Gauges     map[Gauge]float64              `json:"gauges,omitempty"`
	Counters   map[Counter]map[string]float64 `json:"counters,omitempty"`
	Histograms map[Hist]map[string]Histogram  `json:"histograms,omitempty"`
	// Skipped names the series Parse left out and why (a NaN value, a
	// histogram without buckets), so that a missing number is explained.
	Skipped []string `json:"skipped,omitempty"`
}

// Gauge returns the gauge's value and whether the exposition had it.
func (s *Snapshot) Gauge(g Gauge) (float64, bool) {
	v, ok := s.Gauges[g]
	return v, ok
}

// Counter returns the counter summed over its label sets, and whether the
// exposition had it.
func (s *Snapshot) Counter(c Counter) (float64, bool) {
	per, ok := s.Counters[c]
	if !ok {
		return 0, false
	}
	sum := 0.0
	for _, k := range slices.Sorted(maps.Keys(per)) { // fixed order: the same bits every time
		sum += per[k]
	}
	return sum, true
}

// Histogram returns the histogram summed over its label sets, and whether
// the exposition had it. Parse guarantees that all label sets of one
// histogram share a bucket layout; in a snapshot built otherwise, label sets
// whose layout differs from the first one's (in key order) are left out.
func (s *Snapshot) Histogram(h Hist) (Histogram, bool) {
	per, ok := s.Histograms[h]
	if !ok || len(per) == 0 {
		return Histogram{}, false
	}
	sum, _ := sumHistograms(per)
	return sum, true
}

// sumHistograms adds the histograms of per that share the bucket layout of
// the first one in key order, and returns the keys of those that did not.
func sumHistograms(per map[string]Histogram) (sum Histogram, left []string) {
	for i, k := range slices.Sorted(maps.Keys(per)) {
		switch h := per[k]; {
		case i == 0:
			sum = h.clone()
		case sum.sameBounds(h):
			sum = sum.add(h)
		default:
			left = append(left, k)
		}
	}
	return sum, left
}
