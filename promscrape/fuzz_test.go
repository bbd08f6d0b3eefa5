package promscrape

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary text to Parse. Whatever it accepts must hold the
// invariants every later step relies on: finite numbers (JSON cannot carry
// others), histograms with strictly increasing finite bounds and monotone
// counts, and quantiles that lie inside their bucket. The seeds are the
// fixtures and a few hand-made edge cases, so plain `go test` runs them.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.prom"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"\n\n",
		"garbage",
		"vllm:num_requests_running NaN\n",
		"vllm:num_requests_running{model_name=\"m\"} +Inf\n",
		"# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_bucket{le=\"NaN\"} 1\n",
		"# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_bucket{le=\"-Inf\"} 1\n",
		"# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_bucket{le=\"1\"} 5\nvllm:e2e_request_latency_seconds_bucket{le=\"0.5\"} 9\nvllm:e2e_request_latency_seconds_count 2\n",
		"# TYPE vllm:e2e_request_latency_seconds histogram\nvllm:e2e_request_latency_seconds_bucket{le=\"1e308\"} 1.5\nvllm:e2e_request_latency_seconds_sum 1e308\n",
		"# TYPE tgi_request_duration histogram\ntgi_request_duration_bucket{le=\"+Inf\"} 3\ntgi_request_duration_count 3\n",
		"vllm:prompt_tokens_total{engine=\"0\"} 1\nvllm:prompt_tokens_total{engine=\"0\"} 2\n",
		"{\"__name__\"=\"vllm:num_requests_waiting\"} 4\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []Options{{}, {Model: "m"}} {
			s, err := Parse(bytes.NewReader(data), opts)
			if err != nil {
				continue
			}
			if _, err := json.Marshal(s); err != nil {
				t.Fatalf("snapshot does not encode: %v", err)
			}
			for g, v := range s.Gauges {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("gauge %s = %v", g, v)
				}
			}
			for c, per := range s.Counters {
				for k, v := range per {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("counter %s{%s} = %v", c, k, v)
					}
				}
			}
			for name, per := range s.Histograms {
				for k, h := range per {
					checkHistogram(t, string(name)+"{"+k+"}", h)
				}
				if sum, ok := s.Histogram(name); ok {
					checkHistogram(t, string(name), sum)
				}
			}
		}
	})
}

func checkHistogram(t *testing.T, name string, h Histogram) {
	t.Helper()
	if len(h.Bounds) != len(h.Counts) {
		t.Fatalf("%s: %d bounds, %d counts", name, len(h.Bounds), len(h.Counts))
	}
	if math.IsNaN(h.Count) || math.IsInf(h.Count, 0) || h.Count < 0 || math.IsNaN(h.Sum) {
		t.Fatalf("%s: count %v sum %v", name, h.Count, h.Sum)
	}
	for i, b := range h.Bounds {
		if math.IsNaN(b) || math.IsInf(b, 0) || i > 0 && b <= h.Bounds[i-1] {
			t.Fatalf("%s: bounds %v not finite and increasing", name, h.Bounds)
		}
		if c := h.Counts[i]; c < 0 || c > h.Count || i > 0 && c < h.Counts[i-1] {
			t.Fatalf("%s: counts %v (count %v) not monotone", name, h.Counts, h.Count)
		}
	}
	for _, q := range []float64{0, 0.5, 0.99, 1} {
		e, err := h.Quantile(q)
		if h.Count == 0 || len(h.Bounds) == 0 {
			if err == nil {
				t.Fatalf("%s: quantile of nothing gave %+v", name, e)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: quantile %v: %v", name, q, err)
		}
		if math.IsNaN(e.Value) || e.Value < e.Lower || e.Value > e.Upper {
			t.Fatalf("%s: quantile %v = %+v, outside its bucket", name, q, e)
		}
	}
}
