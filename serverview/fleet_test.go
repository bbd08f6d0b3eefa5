package serverview

import (
	"math"
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
	if f.Waiting != nil || f.Preemptions.Count != 2 || f.Scrapes != 8 || f.Engine != promscrape.VLLM || len(f.Missing) != 1 || f.URL != "2 endpoints" || f.Endpoints != 2 {
		t.Errorf("fleet %+v", f)
	}
	if Fleet([]*Comparison{nil}) != nil {
		t.Error("a fleet of no account")
	}
}
