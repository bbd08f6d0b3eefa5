package promscrape

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Model names used by the fixtures.
const (
	llama = "meta-llama/Llama-3.1-8B-Instruct"
	qwen  = "Qwen/Qwen2.5-7B-Instruct"
)

// parseFile parses a fixture from testdata, failing the test on error.
func parseFile(t testing.TB, name string, opts Options) Snapshot {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Parse(f, opts)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	return s
}

// near reports whether a and b agree to 1e-9, relative to their size.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// at returns the instant sec seconds after a fixed epoch.
func at(sec float64) time.Time {
	return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(sec * float64(time.Second)))
}

// snap builds a snapshot at sec seconds holding single-series counters.
func snap(sec float64, gauges map[Gauge]float64, counters map[Counter]float64) *Snapshot {
	s := &Snapshot{At: at(sec), Engine: VLLM, Gauges: gauges}
	for c, v := range counters {
		if s.Counters == nil {
			s.Counters = make(map[Counter]map[string]float64)
		}
		s.Counters[c] = map[string]float64{"": v}
	}
	return s
}
