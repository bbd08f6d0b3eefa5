package serverview

import (
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/promscrape"
)

func TestCompareInvertedWindow(t *testing.T) {
	_, err := Compare(runSeries(), at(5), at(4), runResult())
	if err == nil || !strings.Contains(err.Error(), "window end") || !strings.Contains(err.Error(), "before its start") {
		t.Fatalf("Compare with end before start: err = %v, want one naming the window", err)
	}
}

// TestCompareMissing feeds Compare series that lack something and checks
// that it never fails, says what is missing, and keeps what it can.
func TestCompareMissing(t *testing.T) {
	vllmGauges := func() promscrape.Snapshot {
		return promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: map[promscrape.Gauge]float64{promscrape.Running: 4, promscrape.Waiting: 0, promscrape.KVCacheUsage: 0.1}}
	}
	tests := []struct {
		name        string
		series      *promscrape.Series
		from, to    float64
		level       Level
		status      string   // fragment of the status text
		missing     []string // fragments that must each be in some Missing item
		notes       []string // fragments that must each be in some note
		clientTTFT  bool     // the client's TTFT p50 is still reported
		serverTTFT  bool     // a server TTFT p50 estimate is reported
		overflowP99 bool     // the server's TTFT p99 fell in the +Inf bucket
	}{
		// Scraping was off: nothing on the server side, the client's kept.
		{name: "not scraped", series: nil, from: 0.5, to: 9.5, level: LevelUnknown,
			status: "no metrics: server metrics were not scraped", missing: []string{"server metrics were not scraped"}, clientTTFT: true},
		// The server was down for the whole run: every scrape failed.
		{name: "down", series: &promscrape.Series{URL: fixtureURL, Samples: []promscrape.Sample{
			failed(0, promscrape.FailDown, "scrape http://127.0.0.1:8000/metrics: server down: connection refused"),
			failed(5, promscrape.FailDown, "scrape http://127.0.0.1:8000/metrics: server down: connection refused"),
			failed(10, promscrape.FailDown, "scrape http://127.0.0.1:8000/metrics: server down: connection refused"),
		}}, from: 0.5, to: 9.5, level: LevelUnknown,
			status:     "no metrics: scrape http://127.0.0.1:8000/metrics: server down: connection refused",
			missing:    []string{"3 of 3 scrapes failed (3 down); first: scrape http://127.0.0.1:8000/metrics: server down", "no successful scrape around the window"},
			clientTTFT: true},
		// A series with no scrape at all (stopped before the first).
		{name: "no scrapes", series: &promscrape.Series{URL: fixtureURL}, from: 0.5, to: 9.5, level: LevelUnknown,
			status: "no successful scrape around the window", missing: []string{"no scrape was made"}, clientTTFT: true},
		// The target answered with metrics of no known engine.
		{name: "unknown engine", series: &promscrape.Series{URL: fixtureURL, Samples: []promscrape.Sample{
			scraped(0, promscrape.Snapshot{Engine: promscrape.Unknown}), scraped(10, promscrape.Snapshot{Engine: promscrape.Unknown}),
		}}, from: 0.5, to: 9.5, level: LevelUnknown,
			status:     "no known engine metrics",
			missing:    []string{"no known engine metrics (vllm:, sglang:, tgi_, llamacpp:) at " + fixtureURL, "server ttft: not exported by the server", "running: not exported by the server"},
			clientTTFT: true},
		// Timeouts in the middle of the run: the bracketing scrapes still
		// give the differences, and the failures are counted and listed.
		{name: "slow in the middle", series: func() *promscrape.Series {
			s := runSeries()
			for i := 3; i <= 6; i++ {
				s.Samples[i] = failed(float64(i), promscrape.FailTimeout, "scrape http://127.0.0.1:8000/metrics: no complete response within 5s")
			}
			return s
		}(), from: 0.5, to: 9.5, level: LevelCritical, status: "queue has grown",
			missing:    []string{"4 of 11 scrapes failed (4 timeout); first: scrape http://127.0.0.1:8000/metrics: no complete response within 5s"},
			clientTTFT: true, serverTTFT: true},
		// A window after the last scrape: one snapshot anchors it, which
		// cannot give differences; the notes say why.
		{name: "window after the series", series: runSeries(), from: 20, to: 30, level: LevelUnknown,
			missing: []string{"server ttft: not measured in the window (see notes)", "preemptions: not measured in the window (see notes)"},
			notes:   []string{"only one successful scrape around the window"}, clientTTFT: true},
		// A counter and histogram reset (server restart) inside the window.
		{name: "restart", series: &promscrape.Series{URL: fixtureURL, Samples: []promscrape.Sample{
			scraped(0, promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: vllmGauges().Gauges, Counters: map[promscrape.Counter]map[string]float64{promscrape.GenerationTokens: one(500)},
				Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{promscrape.TTFT: hist(ttftBounds, []float64{5, 5, 5, 5, 5}, 5, 0.05)}}),
			scraped(5, promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: vllmGauges().Gauges, Counters: map[promscrape.Counter]map[string]float64{promscrape.GenerationTokens: one(100)},
				Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{promscrape.TTFT: hist(ttftBounds, []float64{1, 2, 2, 2, 2}, 2, 0.05)}}),
			scraped(10, promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: vllmGauges().Gauges, Counters: map[promscrape.Counter]map[string]float64{promscrape.GenerationTokens: one(300)},
				Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{promscrape.TTFT: hist(ttftBounds, []float64{2, 4, 4, 4, 4}, 4, 0.1)}}),
		}}, from: 0.5, to: 9.5, level: LevelOK, status: "healthy",
			notes:      []string{"counter generation_tokens reset once", "histogram ttft reset once"},
			clientTTFT: true, serverTTFT: true},
		// Most first tokens took longer than the last bucket: p99 is beyond
		// it, so no gap can be bounded.
		{name: "overflow", series: &promscrape.Series{URL: fixtureURL, Samples: []promscrape.Sample{
			scraped(0, promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: vllmGauges().Gauges, Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{promscrape.TTFT: hist(ttftBounds, []float64{0, 0, 0, 0, 0}, 0, 0)}}),
			scraped(5, vllmGauges()),
			scraped(10, promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: vllmGauges().Gauges, Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{promscrape.TTFT: hist(ttftBounds, []float64{60, 60, 60, 60, 60}, 100, 50)}}),
		}}, from: 0.5, to: 9.5, level: LevelOK,
			missing:    []string{"server ttft p99: above the highest bucket (100.00), no gap"},
			clientTTFT: true, serverTTFT: true, overflowP99: true},
		// A run shorter than the scrape interval: no scrape inside it, so
		// no gauge to judge by, though the bracketing scrapes give the
		// differences.
		{name: "no scrape inside", series: runSeries(), from: 1.2, to: 1.8, level: LevelUnknown,
			status:  "no scrape inside the window",
			missing: []string{"running: not measured in the window (see notes)"},
			notes:   []string{"no successful scrape inside the window"}, clientTTFT: true},
		// A model filter that matches none of the server's models.
		{name: "wrong model", series: func() *promscrape.Series {
			s := runSeries()
			s.Model = "Qwen/Qwen2.5-7B-Instruct"
			for _, smp := range s.Samples {
				smp.Snapshot.Models = []string{"meta-llama/Llama-3.1-8B-Instruct"}
			}
			return s
		}(), from: 0.5, to: 9.5, level: LevelUnknown,
			status:     `no metrics: model "Qwen/Qwen2.5-7B-Instruct" is not in the server's metrics (it reports meta-llama/Llama-3.1-8B-Instruct)`,
			missing:    []string{`model "Qwen/Qwen2.5-7B-Instruct" is not in the server's metrics`},
			clientTTFT: true},
		// A series left out by the parser is named.
		{name: "skipped series", series: &promscrape.Series{URL: fixtureURL, Samples: []promscrape.Sample{
			scraped(0, promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: vllmGauges().Gauges, Skipped: []string{`vllm:kv_cache_usage_perc{engine="1"}: value is NaN`}}),
			scraped(5, vllmGauges()),
			scraped(10, vllmGauges()),
		}}, from: 0.5, to: 9.5, level: LevelOK,
			missing: []string{`series left out: vllm:kv_cache_usage_perc{engine="1"}: value is NaN`}, clientTTFT: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Compare(tt.series, at(tt.from), at(tt.to), runResult())
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			if c.Status.Level != tt.level || !strings.Contains(c.Status.Text, tt.status) {
				t.Errorf("status = %s %q, want %s containing %q", c.Status.Level, c.Status.Text, tt.level, tt.status)
			}
			for _, m := range tt.missing {
				if !slices.ContainsFunc(c.Missing, func(s string) bool { return strings.Contains(s, m) }) {
					t.Errorf("missing = %q\nlacks %q", c.Missing, m)
				}
			}
			for _, n := range tt.notes {
				if !slices.ContainsFunc(c.Notes, func(s string) bool { return strings.Contains(s, n) }) {
					t.Errorf("notes = %q\nlack %q", c.Notes, n)
				}
			}
			if got := c.TTFT.P50 != nil && c.TTFT.P50.Client != nil; got != tt.clientTTFT {
				t.Errorf("client ttft p50 reported = %v, want %v", got, tt.clientTTFT)
			}
			if got := c.TTFT.P50 != nil && c.TTFT.P50.Server != nil; got != tt.serverTTFT {
				t.Errorf("server ttft p50 reported = %v, want %v", got, tt.serverTTFT)
			}
			if tt.overflowP99 && (c.TTFT.P99 == nil || c.TTFT.P99.Server == nil || !c.TTFT.P99.Server.Overflow || c.TTFT.P99.Gap != nil) {
				t.Errorf("ttft p99 = %+v, want an overflowed estimate and no gap", c.TTFT.P99)
			}
		})
	}
}

// TestCompareRestartNumbers checks the arithmetic across a restart: tokens
// 500 → 100 (reset: 100 new) → 300 (200 more) is 300 generated; TTFT gained
// 2 after the reset and 2 more, all in the first bucket.
func TestCompareRestartNumbers(t *testing.T) {
	g := map[promscrape.Gauge]float64{promscrape.Running: 1, promscrape.Waiting: 0}
	s := &promscrape.Series{URL: fixtureURL, Samples: []promscrape.Sample{
		scraped(0, promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: g, Counters: map[promscrape.Counter]map[string]float64{promscrape.GenerationTokens: one(500)},
			Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{promscrape.TTFT: hist(ttftBounds, []float64{5, 5, 5, 5, 5}, 5, 0.05)}}),
		scraped(5, promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: g, Counters: map[promscrape.Counter]map[string]float64{promscrape.GenerationTokens: one(100)},
			Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{promscrape.TTFT: hist(ttftBounds, []float64{2, 2, 2, 2, 2}, 2, 0.02)}}),
		scraped(10, promscrape.Snapshot{Engine: promscrape.VLLM, Gauges: g, Counters: map[promscrape.Counter]map[string]float64{promscrape.GenerationTokens: one(300)},
			Histograms: map[promscrape.Hist]map[string]promscrape.Histogram{promscrape.TTFT: hist(ttftBounds, []float64{4, 4, 4, 4, 4}, 4, 0.04)}}),
	}}
	c, err := Compare(s, at(0.5), at(9.5), nil)
	if err != nil {
		t.Fatal(err)
	}
	if g := c.GenerationTokens; g == nil || g.Count != 300 || !near(g.PerSecond, 30) {
		t.Errorf("generation tokens = %+v, want 300 at 30/s", g)
	}
	if c.TTFT.ServerObservations != 4 {
		t.Errorf("server ttft observations = %v, want 4", c.TTFT.ServerObservations)
	}
	// Rank 2 of 4, all in (0, 20 ms]: 20·2/4 = 10 ms.
	checkEstimate(t, "server ttft p50", c.TTFT.P50.Server, 0.01, 0, 0.02)
	// No client: nothing on its side, and nothing said missing about it.
	if c.ClientOutputTokens != nil || c.TTFT.P50.Client != nil || c.TTFT.ClientCount != 0 {
		t.Errorf("client side filled without a client result: %+v", c.TTFT)
	}
	for _, m := range c.Missing {
		if strings.HasPrefix(m, "client") {
			t.Errorf("missing names the client: %q", m)
		}
	}
}
