package promscrape

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// modelLabel is the label vLLM and SGLang put the served model's name in.
const modelLabel = "model_name"

// Options says how Parse reads an exposition. The zero value detects the
// engine and keeps every model.
type Options struct {
	// Model keeps only series whose model_name label equals Model. Series
	// without a model_name label are kept: TGI and llama.cpp serve one model
	// and do not label their metrics with it. Empty keeps every series.
	Model string
	// Engine forces one engine's mapping instead of detecting the engine
	// from metric prefixes.
	Engine Engine
}

// Parse reads one Prometheus text exposition (format 0.0.4) from r and maps
// the engine's metrics onto the common quantities. It reads r to the end, so
// callers must bound what r can return; Scrape does.
//
// Parse fails only when the text cannot be parsed (the error names the line)
// or opts.Engine is not a known engine. An exposition with no known engine
// gives a Snapshot whose Engine is Unknown and whose maps are empty. A series
// whose value is not usable (NaN or infinite, a histogram without buckets or
// with a bucket layout that differs from its siblings') is left out and
// named in Snapshot.Skipped.
func Parse(r io.Reader, opts Options) (Snapshot, error) {
	// A TextParser keeps state between calls and is not safe for concurrent
	// use, so each call gets its own.
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Snapshot{}, fmt.Errorf("parse exposition: %w", err)
	}
	return fromFamilies(fams, opts)
}

// fromFamilies maps parsed metric families onto a Snapshot.
func fromFamilies(fams map[string]*dto.MetricFamily, opts Options) (Snapshot, error) {
	eng := opts.Engine
	if eng == Unknown {
		eng = DetectEngine(slices.Collect(maps.Keys(fams)))
	} else if _, ok := mapping[eng]; !ok {
		return Snapshot{}, fmt.Errorf("unknown engine %q (want vllm, sglang, tgi or llamacpp)", string(eng))
	}
	s := Snapshot{Engine: eng}
	if eng == Unknown {
		return s, nil
	}
	s.Models = models(fams, eng.Prefix())
	m := mapping[eng]
	keep := func(mt *dto.Metric) bool {
		if opts.Model == "" {
			return true
		}
		v, ok := label(mt, modelLabel)
		return !ok || v == opts.Model
	}

	for _, g := range AllGauges {
		for _, name := range m.gauges[g] {
			sum, n := 0.0, 0
			for _, mt := range fams[name].GetMetric() {
				if !keep(mt) {
					continue
				}
				v, ok := scalar(mt)
				if !ok {
					s.skip(name, mt, "no usable value")
					continue
				}
				sum += v
				n++
			}
			if n == 0 {
				continue // absent or all filtered out: an older name may still be there
			}
			if g.ratio() {
				sum /= float64(n)
			}
			if s.Gauges == nil {
				s.Gauges = make(map[Gauge]float64)
			}
			s.Gauges[g] = sum
			break
		}
	}

	for _, c := range AllCounters {
		for _, name := range m.counters[c] {
			per := make(map[string]float64)
			for _, mt := range fams[name].GetMetric() {
				if !keep(mt) {
					continue
				}
				v, ok := scalar(mt)
				if !ok {
					s.skip(name, mt, "no usable value")
					continue
				}
				per[seriesKey(mt)] += v // a repeated series adds up, as the sum would
			}
			if len(per) == 0 {
				continue
			}
			if s.Counters == nil {
				s.Counters = make(map[Counter]map[string]float64)
			}
			s.Counters[c] = per
			break
		}
	}

	for _, h := range AllHists {
		for _, name := range m.hists[h] {
			fam := fams[name]
			if t := fam.GetType(); t != dto.MetricType_HISTOGRAM && t != dto.MetricType_GAUGE_HISTOGRAM {
				continue // absent, or declared as something else: not a histogram we can read
			}
			per := make(map[string]Histogram)
			for _, mt := range fam.GetMetric() {
				if !keep(mt) {
					continue
				}
				hg, err := fromProto(mt.GetHistogram())
				if err != nil {
					s.skip(name, mt, err.Error())
					continue
				}
				per[seriesKey(mt)] = hg
			}
			if _, left := sumHistograms(per); len(left) > 0 {
				for _, k := range left {
					s.Skipped = append(s.Skipped, fmt.Sprintf("%s{%s}: bucket layout differs from the other series", name, k))
					delete(per, k)
				}
			}
			if len(per) == 0 {
				continue
			}
			if s.Histograms == nil {
				s.Histograms = make(map[Hist]map[string]Histogram)
			}
			s.Histograms[h] = per
			break
		}
	}
	return s, nil
}

// skip records a series Parse left out and why.
func (s *Snapshot) skip(name string, mt *dto.Metric, why string) {
	s.Skipped = append(s.Skipped, fmt.Sprintf("%s{%s}: %s", name, seriesKey(mt), why))
}

// scalar returns a counter's, gauge's or untyped metric's value. A family
// may arrive untyped (no TYPE line, or an OpenMetrics counter whose samples
// end in _total), so all three are accepted. NaN and infinities are not a
// usable value.
func scalar(mt *dto.Metric) (float64, bool) {
	var v float64
	switch {
	case mt.GetCounter() != nil:
		v = mt.GetCounter().GetValue()
	case mt.GetGauge() != nil:
		v = mt.GetGauge().GetValue()
	case mt.GetUntyped() != nil:
		v = mt.GetUntyped().GetValue()
	default:
		return 0, false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// label returns the value of the named label and whether mt has it.
func label(mt *dto.Metric, name string) (string, bool) {
	for _, lp := range mt.GetLabel() {
		if lp.GetName() == name {
			return lp.GetValue(), true
		}
	}
	return "", false
}

// seriesKey renders mt's labels in Prometheus form, sorted by name, as the
// identity of its series across scrapes.
func seriesKey(mt *dto.Metric) string {
	lps := slices.Clone(mt.GetLabel())
	slices.SortFunc(lps, func(a, b *dto.LabelPair) int { return strings.Compare(a.GetName(), b.GetName()) })
	var b strings.Builder
	for i, lp := range lps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(lp.GetName())
		b.WriteByte('=')
		b.WriteString(strconv.Quote(lp.GetValue()))
	}
	return b.String()
}

// models returns the sorted distinct model_name values of the families whose
// names start with prefix.
func models(fams map[string]*dto.MetricFamily, prefix string) []string {
	seen := make(map[string]bool)
	for name, fam := range fams {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		for _, mt := range fam.GetMetric() {
			if v, ok := label(mt, modelLabel); ok {
				seen[v] = true
			}
		}
	}
	if len(seen) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(seen))
}
