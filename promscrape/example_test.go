package promscrape_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

func ExampleParse() {
	exposition := `# TYPE tgi_queue_size gauge
tgi_queue_size 7
# TYPE tgi_request_duration histogram
tgi_request_duration_bucket{le="1"} 10
tgi_request_duration_bucket{le="2"} 40
tgi_request_duration_bucket{le="5"} 110
tgi_request_duration_bucket{le="+Inf"} 120
tgi_request_duration_sum 300
tgi_request_duration_count 120
`
	s, err := promscrape.Parse(strings.NewReader(exposition), promscrape.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	e2e, _ := s.Histogram(promscrape.E2E)
	p50, _ := e2e.Quantile(0.5)
	fmt.Printf("%s: %v waiting, e2e p50 ≈ %.2f s (between %v and %v s)\n",
		s.Engine, s.Gauges[promscrape.Waiting], p50.Value, p50.Lower, p50.Upper)
	// Output: tgi: 7 waiting, e2e p50 ≈ 2.86 s (between 2 and 5 s)
}

// ExampleSeries_Between reads a run's window from two scrapes of a vLLM
// server taken ten seconds apart (in a real run, Scraper.Run records them).
func ExampleSeries_Between() {
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	series := &promscrape.Series{}
	for i, name := range []string{"testdata/vllm.prom", "testdata/vllm_later.prom"} {
		f, err := os.Open(name)
		if err != nil {
			fmt.Println(err)
			return
		}
		snap, err := promscrape.Parse(f, promscrape.Options{})
		f.Close()
		if err != nil {
			fmt.Println(err)
			return
		}
		snap.At = t0.Add(time.Duration(i) * 10 * time.Second)
		series.Samples = append(series.Samples, promscrape.Sample{At: snap.At, Snapshot: &snap})
	}

	w, err := series.Between(t0, t0.Add(10*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	ttft, _ := w.Quantile(promscrape.TTFT, 0.99)
	fmt.Printf("server TTFT p99 ≈ %.0f ms (between %.0f and %.0f ms)\n", ttft.Value*1000, ttft.Lower*1000, ttft.Upper*1000)
	for _, p := range w.Phases() {
		fmt.Printf("%-7s %4.1f%% of request latency\n", p.Name, 100*p.Share)
	}
	kv := w.Gauges[promscrape.KVCacheUsage]
	fmt.Printf("KV cache: mean %.0f%%, peak %.0f%%\n", 100*kv.Mean, 100*kv.Peak)
	fmt.Printf("peak running %v, peak waiting %v\n", w.Gauges[promscrape.Running].Peak, w.Gauges[promscrape.Waiting].Peak)
	hit, _ := w.PrefixHitRate()
	fmt.Printf("preemptions %v, prefix-cache hit rate %.1f%%\n", w.Counters[promscrape.Preemptions], 100*hit)
	// Output:
	// server TTFT p99 ≈ 459 ms (between 250 and 500 ms)
	// queue    5.8% of request latency
	// prefill  1.9% of request latency
	// decode  90.2% of request latency
	// KV cache: mean 45%, peak 50%
	// peak running 15, peak waiting 6
	// preemptions 1, prefix-cache hit rate 48.1%
}
