package promscrape

import "slices"

// MetricNames lists the metric families of engine e that goodput reads,
// as the engine documents them (counters with their _total), sorted.
func MetricNames(e Engine) []string {
	m, ok := mapping[e]
	if !ok {
		return nil
	}
	var out []string
	for _, names := range m.gauges {
		out = append(out, names...)
	}
	for _, names := range m.counters {
		out = append(out, names...)
	}
	for _, names := range m.hists {
		out = append(out, names...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
