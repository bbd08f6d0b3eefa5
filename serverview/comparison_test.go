package serverview

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/promscrape"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// near reports whether a and b agree to 1e-9.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9 }

// checkEstimate fails t unless e is the estimate (value, lower, upper).
func checkEstimate(t *testing.T, what string, e *promscrape.Estimate, value, lower, upper float64) {
	t.Helper()
	if e == nil {
		t.Errorf("%s: no estimate, want %v in [%v, %v]", what, value, lower, upper)
		return
	}
	if !near(e.Value, value) || !near(e.Lower, lower) || !near(e.Upper, upper) || e.Overflow {
		t.Errorf("%s = %v in [%v, %v] (overflow %v), want %v in [%v, %v]", what, e.Value, e.Lower, e.Upper, e.Overflow, value, lower, upper)
	}
}

// checkRange fails t unless r is (value, lower, upper).
func checkRange(t *testing.T, what string, r *Range, value, lower, upper float64) {
	t.Helper()
	if r == nil {
		t.Errorf("%s: no range, want %v in [%v, %v]", what, value, lower, upper)
		return
	}
	if !near(r.Value, value) || !near(r.Lower, lower) || !near(r.Upper, upper) {
		t.Errorf("%s = %v in [%v, %v], want %v in [%v, %v]", what, r.Value, r.Lower, r.Upper, value, lower, upper)
	}
}

func checkFloat(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil || !near(*got, want) {
		t.Errorf("%s = %v, want %v", what, deref(got), want)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestCompareFixture checks every number of a comparison against values
// worked out by hand from runSeries and runResult (see their comments).
func TestCompareFixture(t *testing.T) {
	c, err := Compare(runSeries(), at(0.5), at(9.5), runResult())
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != fixtureURL || c.Engine != promscrape.VLLM {
		t.Errorf("url, engine = %q, %q", c.URL, c.Engine)
	}
	// Scrapes at t = 0 and t = 10 bracket the window; t = 1..9 lie inside.
	if c.CoveredSeconds != 10 || c.Scrapes != 9 || c.FailedScrapes != 0 {
		t.Errorf("covered %v s, %d scrapes, %d failed; want 10 s, 9, 0", c.CoveredSeconds, c.Scrapes, c.FailedScrapes)
	}

	// TTFT: 200 new observations, cumulative 20, 80, 160, 190, 199. p50's
	// rank 100 falls in (40, 60] ms: 40 + 20·(100−80)/(160−80) = 45 ms.
	// p99's rank 198 falls in (80, 100]: 80 + 20·(198−190)/(199−190) ms.
	ttft := c.TTFT
	if ttft.ServerObservations != 200 || ttft.ClientCount != 200 {
		t.Errorf("ttft counts: server %v, client %d; want 200, 200", ttft.ServerObservations, ttft.ClientCount)
	}
	checkFloat(t, "server ttft mean", ttft.ServerMean, 0.05)
	checkFloat(t, "client ttft mean", ttft.ClientMean, 0.055)
	p99 := 0.08 + 0.02*8.0/9.0
	checkEstimate(t, "server ttft p50", ttft.P50.Server, 0.045, 0.04, 0.06)
	checkEstimate(t, "server ttft p99", ttft.P99.Server, p99, 0.08, 0.1)
	checkFloat(t, "client ttft p50", ttft.P50.Client, 0.05)
	checkFloat(t, "client ttft p99", ttft.P99.Client, 0.105)
	// Gap = client − server, bounded by client − upper and client − lower.
	checkRange(t, "ttft p50 gap", ttft.P50.Gap, 0.005, -0.01, 0.01)
	checkRange(t, "ttft p99 gap", ttft.P99.Gap, 0.105-p99, 0.005, 0.025)

	// e2e: cumulative 10, 150, 200 over bounds 0.5, 1, 2 s. p50: 0.5 +
	// 0.5·90/140; p99: 1 + 48/50. The client has no p99: no gap there.
	e2e := c.E2E
	checkEstimate(t, "server e2e p50", e2e.P50.Server, 0.5+0.5*90/140, 0.5, 1)
	checkEstimate(t, "server e2e p99", e2e.P99.Server, 1.96, 1, 2)
	checkRange(t, "e2e p50 gap", e2e.P50.Gap, 1.02-(0.5+0.5*90/140), 0.02, 0.52)
	if e2e.P99.Client != nil || e2e.P99.Gap != nil {
		t.Errorf("e2e p99 client %v gap %v; want none (the client did not compute p99)", deref(e2e.P99.Client), e2e.P99.Gap)
	}

	// No ITL on either side.
	if c.ITL.P50 != nil || c.ITL.P99 != nil || c.ITL.ServerMean != nil {
		t.Errorf("itl = %+v, want empty", c.ITL)
	}

	// Phases: sums 20, 10, 160 s over e2e's 200 s, means over 200 requests.
	wantPhases := []promscrape.Phase{{Name: promscrape.Queue, Mean: 0.1, Share: 0.1},
		{Name: promscrape.Prefill, Mean: 0.05, Share: 0.05}, {Name: promscrape.Decode, Mean: 0.8, Share: 0.8}}
	if len(c.Phases) != len(wantPhases) {
		t.Fatalf("phases = %+v, want %+v", c.Phases, wantPhases)
	}
	for i, p := range c.Phases {
		if w := wantPhases[i]; p.Name != w.Name || !near(p.Mean, w.Mean) || !near(p.Share, w.Share) {
			t.Errorf("phase %d = %+v, want %+v", i, p, w)
		}
	}

	// Gauges over the nine scrapes inside the window.
	for _, g := range []struct {
		name       string
		got        *GaugeSummary
		peak, mean float64
	}{
		{"running", c.Running, 32, 252.0 / 9},
		{"waiting", c.Waiting, 11, 36.0 / 9},
		{"kv", c.KVCacheUsage, 0.6, 3.8 / 9},
	} {
		if g.got == nil || !near(g.got.Peak, g.peak) || !near(g.got.Mean, g.mean) || g.got.Samples != 9 {
			t.Errorf("%s = %+v, want peak %v mean %v over 9", g.name, g.got, g.peak, g.mean)
		}
	}

	// Counters over the covered 10 s.
	if p := c.Preemptions; p == nil || p.Count != 3 || !near(p.PerSecond, 0.3) {
		t.Errorf("preemptions = %+v, want 3 at 0.3/s", p)
	}
	if g := c.GenerationTokens; g == nil || g.Count != 20000 || !near(g.PerSecond, 2000) {
		t.Errorf("generation tokens = %+v, want 20000 at 2000/s", g)
	}
	if g := c.ClientOutputTokens; g == nil || g.Count != 19800 || g.PerSecond != 2200 {
		t.Errorf("client output tokens = %+v, want 19800 at 2200/s", g)
	}
	checkFloat(t, "prefix hit rate", c.PrefixCacheHitRate, 0.25)

	// The queue held requests from t = 4 to 9, rising 2 a second: by 10
	// over 5 s. TTFT p99 was 59.2 ms over the first half (rank 79.2 of 80
	// in (40, 60]) and 80 + 20·8.8/9 ms over the second: 1.68×.
	want := Status{LevelCritical, "queue has grown by 10 over 5 s while TTFT p99 rose 1.7×: past the knee — scale out"}
	if c.Status != want {
		t.Errorf("status = %+v\nwant     %+v", c.Status, want)
	}
	wantMissing := []string{
		"server itl: not exported by the server",
		"client e2e p99: not computed (add 99 to --metric-percentiles)",
	}
	if !slices.Equal(c.Missing, wantMissing) {
		t.Errorf("missing = %q\nwant      %q", c.Missing, wantMissing)
	}
	if len(c.Notes) != 0 {
		t.Errorf("notes = %q, want none", c.Notes)
	}
}

// TestCompareJSON pins the JSON keys the bench summary file will carry and
// checks that a Comparison survives a round trip.
func TestCompareJSON(t *testing.T) {
	c, err := Compare(runSeries(), at(0.5), at(9.5), runResult())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"url", "engine", "window_start", "window_end", "covered_seconds", "scrapes", "failed_scrapes",
		"ttft", "itl", "e2e", "phases", "running", "waiting", "kv_cache_usage", "preemptions", "prefix_cache_hit_rate",
		"generation_tokens", "client_output_tokens", "status", "missing", "scrape_coverage"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	p50 := m["ttft"].(map[string]any)["p50"].(map[string]any)
	for _, k := range []string{"server", "client_s", "gap"} {
		if _, ok := p50[k]; !ok {
			t.Errorf("ttft.p50 lacks %q: %v", k, p50)
		}
	}
	if gap := p50["gap"].(map[string]any); !near(gap["lower_s"].(float64), -0.01) {
		t.Errorf("ttft.p50.gap = %v, want lower_s -0.01", gap)
	}
	var back Comparison
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, err := json.Marshal(&back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Errorf("round trip changed the JSON:\n%s\n%s", b, b2)
	}
}

// A Comparison keeps the server's window histogram each latency was read
// from, and keeps it through the summary file: the fixture's TTFT gained
// cumulative 20, 80, 160, 190, 199 of 200 observations summing to 10 s,
// and reading it back gives the same p99. It had no ITL histogram: none is
// kept, and the key is left out.
func TestCompareJSONKeepsTheHistogram(t *testing.T) {
	c, err := Compare(runSeries(), at(0.5), at(9.5), runResult())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		TTFT, ITL map[string]json.RawMessage
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw.TTFT["server_histogram"]; !ok {
		t.Errorf("ttft lacks server_histogram: %s", b)
	}
	if _, ok := raw.ITL["server_histogram"]; ok {
		t.Errorf("itl has a server_histogram the server never exported: %s", raw.ITL["server_histogram"])
	}
	var back Comparison
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	h := back.TTFT.ServerHistogram
	if h == nil {
		t.Fatal("ttft histogram lost in the round trip")
	}
	if !slices.Equal(h.Bounds, ttftBounds) || !slices.Equal(h.Counts, []float64{20, 80, 160, 190, 199}) || h.Count != 200 || !near(h.Sum, 10) {
		t.Errorf("ttft histogram read back %+v, want bounds %v, counts 20 80 160 190 199 of 200, sum 10 s", *h, ttftBounds)
	}
	if back.ITL.ServerHistogram != nil {
		t.Errorf("itl histogram %+v, want none", *back.ITL.ServerHistogram)
	}
	e, err := h.Quantile(0.99)
	if err != nil {
		t.Fatal(err)
	}
	checkEstimate(t, "p99 of the histogram read back", &e, c.TTFT.P99.Server.Value, 0.08, 0.1)
}

// A summary written before the histograms were kept still loads: its
// latencies have none, and keep what they had.
func TestCompareJSONWithoutHistogram(t *testing.T) {
	old := `{"url":"http://a/metrics","engine":"vllm","ttft":{"server_observations":40,"server_mean_s":0.2,"client_count":40,
		"p99":{"server":{"q":0.99,"value":0.5,"lower":0.4,"upper":0.6}}}}`
	var c Comparison
	if err := json.Unmarshal([]byte(old), &c); err != nil {
		t.Fatal(err)
	}
	if c.TTFT.ServerHistogram != nil || c.TTFT.ServerObservations != 40 || c.TTFT.P99 == nil || c.TTFT.P99.Server.Value != 0.5 {
		t.Errorf("ttft read as %+v, want 40 observations, p99 0.5 s, no histogram", c.TTFT)
	}
}

// TestText compares the terminal block of the fixture comparison with its
// golden file; run with -update to rewrite it after a deliberate change.
func TestText(t *testing.T) {
	c, err := Compare(runSeries(), at(0.5), at(9.5), runResult())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Text(&buf, c); err != nil {
		t.Fatal(err)
	}
	golden(t, "comparison.golden", buf.Bytes())
	// Every line after the heading is a key padded to 40 columns, a space
	// and a value (a list's continuation lines have an empty key).
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")[1:] {
		if len(line) < 42 || line[40] != ' ' || line[41] == ' ' {
			t.Errorf("line not in the 40-column layout: %q", line)
		}
	}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file:\n--- got\n%s--- want\n%s", name, got, want)
	}
}
