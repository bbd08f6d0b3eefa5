package serverview

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/promscrape"
)

// Two endpoints of one run: 30 TTFT observations of mean 0.1 s and 10 of
// mean 0.5 s are 40 of mean 0.2 s; 3 and 5 requests running on average
// are 8; the fuller KV cache is the fleet's; preemptions add up; the
// phases weigh by the requests each endpoint finished.
func TestFleet(t *testing.T) {
	a := &Comparison{Engine: promscrape.VLLM, Scrapes: 4,
		TTFT:         LatencyComparison{ServerObservations: 30, ServerMean: ptr(0.1), ClientCount: 30, P99: &QuantileComparison{}},
		E2E:          LatencyComparison{ServerObservations: 30, ServerMean: ptr(1)},
		Phases:       []promscrape.Phase{{Name: promscrape.Queue, Mean: 0.2}, {Name: promscrape.Decode, Mean: 0.8}},
		Running:      &GaugeSummary{Peak: 4, Mean: 3, Samples: 4},
		KVCacheUsage: &GaugeSummary{Peak: 0.5, Mean: 0.3, Samples: 4},
		Preemptions:  &CounterSummary{Count: 2, PerSecond: 0.5},
		Missing:      []string{"prefix cache hit rate: not exported by the server"}}
	b := &Comparison{Engine: promscrape.VLLM, Scrapes: 4,
		TTFT:         LatencyComparison{ServerObservations: 10, ServerMean: ptr(0.5), ClientCount: 10},
		E2E:          LatencyComparison{ServerObservations: 10, ServerMean: ptr(2)},
		Phases:       []promscrape.Phase{{Name: promscrape.Queue, Mean: 0.6}, {Name: promscrape.Decode, Mean: 1.4}},
		Running:      &GaugeSummary{Peak: 6, Mean: 5, Samples: 4},
		KVCacheUsage: &GaugeSummary{Peak: 0.9, Mean: 0.7, Samples: 4},
		Missing:      []string{"prefix cache hit rate: not exported by the server"}}
	f := Fleet([]*Comparison{a, nil, b})
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }
	if f.TTFT.ServerObservations != 40 || !near(*f.TTFT.ServerMean, 0.2) || f.TTFT.ClientCount != 40 || f.TTFT.P99 != nil {
		t.Errorf("TTFT %+v: want 40 observations of mean 0.2 s, 40 client requests, no p99", f.TTFT)
	}
	if !near(*f.E2E.ServerMean, 1.25) {
		t.Errorf("e2e mean %v, want (30×1 + 10×2) ÷ 40 = 1.25", *f.E2E.ServerMean)
	}
	// Queue (30×0.2 + 10×0.6) ÷ 40 = 0.3; decode (30×0.8 + 10×1.4) ÷ 40 = 0.95.
	if len(f.Phases) != 2 || !near(f.Phases[0].Mean, 0.3) || !near(f.Phases[1].Mean, 0.95) || !near(f.Phases[0].Share, 0.3/1.25) {
		t.Errorf("phases %+v", f.Phases)
	}
	if f.Running.Mean != 8 || f.Running.Peak != 10 || f.KVCacheUsage.Peak != 0.9 || f.KVCacheUsage.Mean != 0.7 {
		t.Errorf("running %+v, kv %+v", f.Running, f.KVCacheUsage)
	}
	if f.Waiting != nil || f.Preemptions.Count != 2 || f.Scrapes != 8 || f.Engine != promscrape.VLLM || f.URL != "2 endpoints" || f.Endpoints != 2 {
		t.Errorf("fleet %+v", f)
	}
	// What both endpoints miss is said once; neither kept its histograms
	// (these accounts are as summaries written before they were kept had
	// them), so the fleet has no percentile, and says so.
	wantMissing := []string{
		"prefix cache hit rate: not exported by the server",
		"server ttft p50 and p99: the endpoints keep no histogram (summaries written before they were kept), so there is none to add up: no fleet percentile",
		"server e2e p50 and p99: the endpoints keep no histogram (summaries written before they were kept), so there is none to add up: no fleet percentile",
	}
	if !slices.Equal(f.Missing, wantMissing) {
		t.Errorf("missing %q, want %q", f.Missing, wantMissing)
	}
	if Fleet([]*Comparison{nil}) != nil {
		t.Error("a fleet of no account")
	}
}

// fleetTTFTBounds are the TTFT buckets of the endpoints in the tests below.
var fleetTTFTBounds = []float64{0.05, 0.1, 0.25, 0.5, 1}

// withTTFT is an endpoint's account whose server TTFT is h, as Compare
// writes it.
func withTTFT(h promscrape.Histogram) *Comparison {
	m, _ := h.Mean()
	return &Comparison{Engine: promscrape.VLLM, TTFT: LatencyComparison{ServerObservations: h.Count, ServerMean: &m, ServerHistogram: &h}}
}

// TestFleetPercentiles reads the fleet's TTFT percentiles from its
// endpoints' histograms. The fast endpoint saw 150 first tokens, 60 within
// 50 ms, 140 within 100 ms, all 150 within 250 ms (sum 10.5 s); the slow one
// 50: 0, 10, 30, 46, 50 within 50, 100, 250, 500, 1000 ms (sum 17.5 s).
// Together, 200 observations: 60, 150, 180, 196, 200, summing to 28 s.
//
//   - p50: rank 100 lies in (50, 100] ms, 40 of its 90 in:
//     50 + 50 × 40/90 ≈ 72.2 ms.
//   - p99: rank 198 lies in (500, 1000] ms, 2 of its 4 in:
//     500 + 500 × 2/4 = 750 ms.
//
// Neither endpoint's own p99 is that (227.5 ms and 937.5 ms), nor their
// mean (582.5 ms).
func TestFleetPercentiles(t *testing.T) {
	fast := promscrape.Histogram{Bounds: fleetTTFTBounds, Counts: []float64{60, 140, 150, 150, 150}, Count: 150, Sum: 10.5}
	slow := promscrape.Histogram{Bounds: fleetTTFTBounds, Counts: []float64{0, 10, 30, 46, 50}, Count: 50, Sum: 17.5}
	// The slow endpoint on another engine version, whose buckets are not
	// the fast one's: the same observations, counted otherwise.
	otherBounds := []float64{0.05, 0.1, 0.2, 0.5, 1}
	slowElsewhere := promscrape.Histogram{Bounds: otherBounds, Counts: []float64{0, 10, 25, 46, 50}, Count: 50, Sum: 17.5}
	unkept := withTTFT(slow)
	unkept.TTFT.ServerHistogram = nil
	tests := []struct {
		name      string
		endpoints []*Comparison
		p50, p99  float64 // 0: no percentile
		lo, hi    float64 // p99's bucket
		why       string  // what Missing says of the fleet's TTFT percentiles
	}{
		// The same buckets: the sum is the fleet's histogram.
		{name: "same buckets", endpoints: []*Comparison{withTTFT(fast), withTTFT(slow)},
			p50: 0.05 + 0.05*40/90, p99: 0.75, lo: 0.5, hi: 1},
		// An endpoint that observed nothing (its scrapes failed: no
		// histogram) holds nothing back.
		{name: "one observed nothing", endpoints: []*Comparison{withTTFT(fast), {Engine: promscrape.VLLM}, withTTFT(slow)},
			p50: 0.05 + 0.05*40/90, p99: 0.75, lo: 0.5, hi: 1},
		// Buckets that differ do not add up.
		{name: "buckets differ", endpoints: []*Comparison{withTTFT(fast), withTTFT(slowElsewhere)},
			why: "server ttft p50 and p99: the endpoints' buckets differ, so their histograms do not add up: no fleet percentile"},
		// One endpoint's summary predates the histograms: the other's
		// alone is not the fleet's.
		{name: "one keeps no histogram", endpoints: []*Comparison{withTTFT(fast), unkept},
			why: "server ttft p50 and p99: 1 of the 2 endpoints that observed it keeps no histogram (a summary written before they were kept), so theirs do not add up to the fleet's: no fleet percentile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Fleet(tt.endpoints)
			// The mean adds up whatever the buckets: 28 s over 200.
			if f.TTFT.ServerObservations != 200 || !near(*f.TTFT.ServerMean, 0.14) {
				t.Errorf("ttft: %v observations of mean %v, want 200 of mean 0.14 s", f.TTFT.ServerObservations, *f.TTFT.ServerMean)
			}
			var why []string
			for _, m := range f.Missing {
				if strings.HasPrefix(m, "server ttft p50 and p99:") {
					why = append(why, m)
				}
			}
			if tt.p99 == 0 {
				if f.TTFT.P50 != nil || f.TTFT.P99 != nil || f.TTFT.ServerHistogram != nil {
					t.Errorf("ttft p50 %+v, p99 %+v, histogram %+v; want none", f.TTFT.P50, f.TTFT.P99, f.TTFT.ServerHistogram)
				}
				if len(why) != 1 || why[0] != tt.why {
					t.Errorf("missing says %q, want %q", why, tt.why)
				}
				return
			}
			if len(why) != 0 {
				t.Errorf("missing says %q of percentiles the fleet has", why)
			}
			h := f.TTFT.ServerHistogram
			if h == nil || !slices.Equal(h.Bounds, fleetTTFTBounds) || !slices.Equal(h.Counts, []float64{60, 150, 180, 196, 200}) || h.Count != 200 || !near(h.Sum, 28) {
				t.Fatalf("fleet histogram %+v, want counts 60 150 180 196 200 of 200, sum 28 s", h)
			}
			if f.TTFT.P50 == nil || f.TTFT.P99 == nil {
				t.Fatalf("ttft p50 %+v, p99 %+v; want both", f.TTFT.P50, f.TTFT.P99)
			}
			checkEstimate(t, "fleet ttft p50", f.TTFT.P50.Server, tt.p50, 0.05, 0.1)
			checkEstimate(t, "fleet ttft p99", f.TTFT.P99.Server, tt.p99, tt.lo, tt.hi)
			// No client side: each endpoint's client percentile is its own.
			if f.TTFT.P99.Client != nil || f.TTFT.P99.Gap != nil {
				t.Errorf("fleet ttft p99 client %v gap %+v; want none", f.TTFT.P99.Client, f.TTFT.P99.Gap)
			}
			// ITL and e2e: no endpoint observed them, no reason to give.
			if f.ITL.P99 != nil || f.E2E.P99 != nil || f.ITL.ServerHistogram != nil || len(f.Missing) != 0 {
				t.Errorf("itl %+v, e2e %+v, missing %q; want nothing", f.ITL, f.E2E, f.Missing)
			}
		})
	}
}

// The fleet's histogram is its own: the endpoints' are left as they were.
func TestFleetDoesNotAliasHistograms(t *testing.T) {
	a := withTTFT(promscrape.Histogram{Bounds: []float64{1}, Counts: []float64{1}, Count: 1, Sum: 0.5})
	b := withTTFT(promscrape.Histogram{Bounds: []float64{1}, Counts: []float64{2}, Count: 2, Sum: 1})
	f := Fleet([]*Comparison{a, b})
	f.TTFT.ServerHistogram.Counts[0] = 99
	if a.TTFT.ServerHistogram.Counts[0] != 1 || b.TTFT.ServerHistogram.Counts[0] != 2 {
		t.Errorf("the fleet's histogram aliases an endpoint's: %v, %v", a.TTFT.ServerHistogram.Counts, b.TTFT.ServerHistogram.Counts)
	}
}
