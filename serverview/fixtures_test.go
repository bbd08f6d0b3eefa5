package serverview

import (
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
)

// fixtureURL is where the hand-made series claim to have scraped.
const fixtureURL = "http://127.0.0.1:8000/metrics"

// ttftBounds is the low end of vLLM's TTFT buckets.
var ttftBounds = []float64{0.02, 0.04, 0.06, 0.08, 0.1}

// hist builds a one-series histogram (no labels) for a snapshot.
func hist(bounds, counts []float64, count, sum float64) map[string]promscrape.Histogram {
	return map[string]promscrape.Histogram{"": {Bounds: bounds, Counts: counts, Count: count, Sum: sum}}
}

// one wraps a value as a one-series counter (no labels).
func one(v float64) map[string]float64 { return map[string]float64{"": v} }

// scraped is a successful scrape at sec seconds.
func scraped(sec float64, s promscrape.Snapshot) promscrape.Sample {
	s.At = at(sec)
	return promscrape.Sample{At: at(sec), Snapshot: &s}
}

// failed is a failed scrape at sec seconds.
func failed(sec float64, kind promscrape.FailureKind, msg string) promscrape.Sample {
	return promscrape.Sample{At: at(sec), Kind: kind, Err: msg}
}

// runSeries is a vLLM server scraped every second from t = 0 to t = 10
// while a run measured [0.5 s, 9.5 s]:
//
//   - TTFT (buckets 20, 40, 60, 80, 100 ms) gained 200 observations, with
//     cumulative bucket counts 20, 80, 160, 190, 199 and a sum of 10 s; 80
//     of them by t = 5 (20, 60, 80, 80, 80, sum 3 s);
//   - e2e gained 200 observations summing to 200 s; queue 20 s, prefill
//     10 s, decode 160 s;
//   - running rose 10, 20, 30 then held 32 over t = 1..9; waiting was 0,
//     0, 0, 1, 3, 5, 7, 9, 11; KV usage 0.2 … 0.6;
//   - preemptions 5 → 8, generation tokens 0 → 20,000, prefix-cache
//     queries 0 → 1,000 with 250 hits.
//
// There is no ITL histogram: the comparison must say so.
func runSeries() *promscrape.Series {
	base := func(sec float64) promscrape.Snapshot {
		i := int(sec)
		running := []float64{0, 10, 20, 30, 32, 32, 32, 32, 32, 32, 0}[i]
		waiting := []float64{0, 0, 0, 0, 1, 3, 5, 7, 9, 11, 0}[i]
		kv := []float64{0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.6, 0.5, 0.4, 0.3, 0}[i]
		return promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: map[promscrape.Gauge]float64{
			promscrape.Running: running, promscrape.Waiting: waiting, promscrape.KVCacheUsage: kv,
		}}
	}
	s := &promscrape.Series{URL: fixtureURL, Interval: 1e9, Start: at(0), End: at(10)}
	for sec := 0.0; sec <= 10; sec++ {
		sn := base(sec)
		switch sec {
		case 0:
			sn.Counters = map[promscrape.Counter]map[string]float64{
				promscrape.Preemptions: one(5), promscrape.GenerationTokens: one(0),
				promscrape.PrefixCacheQueries: one(0), promscrape.PrefixCacheHits: one(0),
			}
			sn.Histograms = map[promscrape.Hist]map[string]promscrape.Histogram{
				// Two warm-up requests before the window.
				promscrape.TTFT:    hist(ttftBounds, []float64{1, 2, 2, 2, 2}, 2, 0.05),
				promscrape.E2E:     hist([]float64{0.5, 1, 2}, []float64{0, 0, 0}, 0, 0),
				promscrape.Queue:   hist([]float64{1}, []float64{0}, 0, 0),
				promscrape.Prefill: hist([]float64{1}, []float64{0}, 0, 0),
				promscrape.Decode:  hist([]float64{1}, []float64{0}, 0, 0),
			}
		case 5:
			sn.Histograms = map[promscrape.Hist]map[string]promscrape.Histogram{
				promscrape.TTFT: hist(ttftBounds, []float64{21, 62, 82, 82, 82}, 82, 3.05),
			}
		case 10:
			sn.Counters = map[promscrape.Counter]map[string]float64{
				promscrape.Preemptions: one(8), promscrape.GenerationTokens: one(20000),
				promscrape.PrefixCacheQueries: one(1000), promscrape.PrefixCacheHits: one(250),
			}
			sn.Histograms = map[promscrape.Hist]map[string]promscrape.Histogram{
				promscrape.TTFT:    hist(ttftBounds, []float64{21, 82, 162, 192, 201}, 202, 10.05),
				promscrape.E2E:     hist([]float64{0.5, 1, 2}, []float64{10, 150, 200}, 200, 200),
				promscrape.Queue:   hist([]float64{1}, []float64{200}, 200, 20),
				promscrape.Prefill: hist([]float64{1}, []float64{200}, 200, 10),
				promscrape.Decode:  hist([]float64{1}, []float64{200}, 200, 160),
			}
		}
		s.Samples = append(s.Samples, scraped(sec, sn))
	}
	return s
}

// runResult is the client's side of the same run: 200 requests, TTFT p50
// 50 ms and p99 105 ms, e2e median 1.02 s with no p99 computed, 19,800
// output tokens at 2,200 tok/s over 9 s.
func runResult() *metrics.Result {
	return &metrics.Result{
		Percentiles: []float64{50, 99},
		Tokens:      metrics.Tokens{Output: 19800},
		Throughput:  metrics.Throughput{OutputTokensPerSecond: 2200},
		Latency: metrics.Latency{
			TTFT: metrics.Distribution{Count: 200, Mean: 0.055, Median: 0.05,
				Percentiles: []metrics.PercentileValue{{P: 50, Value: 0.05}, {P: 99, Value: 0.105}}},
			E2E: metrics.Distribution{Count: 200, Mean: 1.01, Median: 1.02,
				Percentiles: []metrics.PercentileValue{{P: 50, Value: 1.02}}},
		},
	}
}
