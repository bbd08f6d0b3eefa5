package serverview

import (
	"testing"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// vLLM's TTFT, per-token and request-phase bucket layouts.
var (
	benchTTFT    = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	benchToken   = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	benchRequest = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}
)

// benchSample is the scrape at t seconds of a vLLM server with two engine
// cores: every quantity Compare and View read, each histogram gaining
// observations spread over its buckets.
func benchSample(sec int) promscrape.Sample {
	t := float64(sec)
	grow := func(bounds []float64, perSec float64) promscrape.Histogram {
		h := promscrape.Histogram{Bounds: bounds, Counts: make([]float64, len(bounds)), Count: perSec * t, Sum: perSec * t * 0.1}
		for i := range bounds {
			h.Counts[i] = h.Count * float64(i+1) / float64(len(bounds)+1)
		}
		return h
	}
	hists := make(map[promscrape.Hist]map[string]promscrape.Histogram)
	counters := make(map[promscrape.Counter]map[string]float64)
	for _, core := range []string{`engine="0",model_name="m"`, `engine="1",model_name="m"`} {
		for h, b := range map[promscrape.Hist][]float64{
			promscrape.TTFT: benchTTFT, promscrape.ITL: benchToken, promscrape.TPOT: benchToken, promscrape.E2E: benchRequest,
			promscrape.Queue: benchRequest, promscrape.Prefill: benchRequest, promscrape.Decode: benchRequest,
		} {
			if hists[h] == nil {
				hists[h] = make(map[string]promscrape.Histogram)
			}
			hists[h][core] = grow(b, 20)
		}
		for _, c := range promscrape.AllCounters {
			if counters[c] == nil {
				counters[c] = make(map[string]float64)
			}
			counters[c][core] = 100 * t
		}
	}
	return scraped(t, promscrape.Snapshot{
		Engine: promscrape.VLLM, Models: []string{"m"},
		Gauges:   map[promscrape.Gauge]float64{promscrape.Running: 64, promscrape.Waiting: float64(sec % 7), promscrape.KVCacheUsage: 0.5},
		Counters: counters, Histograms: hists,
	})
}

// BenchmarkCompareHour measures comparing an hour-long run scraped every
// second (3,601 scrapes) with the client's result: the cost the bench
// runner pays once at the end of a long run.
func BenchmarkCompareHour(b *testing.B) {
	s := &promscrape.Series{URL: fixtureURL}
	for sec := 0; sec <= 3600; sec++ {
		s.Samples = append(s.Samples, benchSample(sec))
	}
	res := runResult()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compare(s, at(0.5), at(3599.5), res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMonitorRefresh measures one refresh of `goodput watch` with the
// default 30 s window at one scrape a second: adding the scrape and
// reading the view.
func BenchmarkMonitorRefresh(b *testing.B) {
	m := NewMonitor(fixtureURL, "", 30*time.Second)
	samples := make([]promscrape.Sample, 600)
	for i := range samples {
		samples[i] = benchSample(i)
	}
	for i := 0; i < 60; i++ {
		m.Add(samples[i])
	}
	b.ReportAllocs()
	i := 60
	for b.Loop() {
		if i == len(samples) {
			b.StopTimer()
			m = NewMonitor(fixtureURL, "", 30*time.Second)
			for j := 0; j < 60; j++ {
				m.Add(samples[j])
			}
			i = 60
			b.StartTimer()
		}
		m.Add(samples[i])
		i++
		if v := m.View(); v.Running == nil {
			b.Fatal("no view")
		}
	}
}
