package serverview

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
)

// realSeries loads a series recorded from the real llama.cpp server
// (testdata/README.md).
func realSeries(t *testing.T, name string) *promscrape.Series {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var s promscrape.Series
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// One slot, 32 requests: the server's view (31 deferred for 1 running)
// and the client's (TTFT p99 1.79 s against a prefill of milliseconds)
// both show the queue, and the status says so in bench and in watch.
func TestRealServerOverload(t *testing.T) {
	s := realSeries(t, "real_llamacpp_overload.server.json")
	smp := s.Samples
	start, end := smp[1].At, smp[len(smp)-2].At
	client := &metrics.Result{Percentiles: []float64{50, 99}, Latency: metrics.Latency{
		TTFT: metrics.Distribution{Count: 128, Mean: 1.4, Median: 1.437,
			Percentiles: []metrics.PercentileValue{{P: 50, Value: 1.437}, {P: 99, Value: 1.785}}},
	}}
	for _, tt := range []struct {
		name   string
		client *metrics.Result
		want   string
	}{
		{"with the client's TTFT", client, "queueing: 31 waiting for 1 running, TTFT p99 1.8 s: requests wait for a free slot — at capacity"},
		{"server side only", nil, "queueing: 31 waiting for 1 running: requests wait for a free slot — at capacity"},
	} {
		c, err := Compare(s, start, end, tt.client)
		if err != nil {
			t.Fatal(err)
		}
		if c.Status.Level != LevelWarn || c.Status.Text != tt.want {
			t.Errorf("%s: status %s %q\nwant %q", tt.name, c.Status.Level, c.Status.Text, tt.want)
		}
		if c.Waiting == nil || c.Waiting.Peak != 31 || c.Running == nil || c.Running.Peak != 1 {
			t.Errorf("%s: running %+v, waiting %+v", tt.name, c.Running, c.Waiting)
		}
		// Between the scrapes that bracket the window (the first and the
		// sixth): 6,817 − 33 tokens over 4.65 − 0.014 s decoding, in
		// 6,835 − 33 steps; 6,848 − 7 prompt tokens in 0.161 − 0.003 s.
		sp := c.Speeds
		if sp == nil || sp.DecodeTokensPerSecond == nil || !near(*sp.DecodeTokensPerSecond, (6817.0-33)/(4.65-0.014)) ||
			sp.TokensPerStep == nil || !near(*sp.TokensPerStep, (6817.0-33)/(6835-33)) ||
			sp.PrefillTokensPerSecond == nil || !near(*sp.PrefillTokensPerSecond, (6848.0-7)/(0.161-0.003)) {
			t.Errorf("%s: speeds %v %v %v", tt.name, orNeg(sp.DecodeTokensPerSecond), orNeg(sp.TokensPerStep), orNeg(sp.PrefillTokensPerSecond))
		}
	}
	// watch, scrape by scrape: never healthy once the queue is there.
	m := NewMonitor(s.URL, "", 0)
	for i, x := range smp {
		m.Add(x)
		v := m.View()
		if strings.HasPrefix(v.Status.Text, "healthy") {
			t.Errorf("scrape %d (%v waiting for %v running): %q", i, orNeg(v.Waiting), orNeg(v.Running), v.Status.Text)
		}
		if w := orNeg(v.Waiting); w >= 20 && v.Status.Level != LevelWarn && v.Status.Level != LevelCritical {
			t.Errorf("scrape %d: %v waiting, status %s %q", i, w, v.Status.Level, v.Status.Text)
		}
	}
}

// A server killed mid-run: the status is its unreachability, from the
// first refused scrape, never the queue the scrapes before it saw.
func TestRealServerKilled(t *testing.T) {
	s := realSeries(t, "real_llamacpp_killed.server.json")
	smp := s.Samples
	firstDown := smp[4].At
	want := "unreachable since " + firstDown.Local().Format("15:04:05") + " (3 s): scrape " + s.URL + ": server down"
	c, err := Compare(s, smp[0].At, s.End, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status.Level != LevelCritical || !strings.HasPrefix(c.Status.Text, want) {
		t.Errorf("bench status %s %q\nwant it to start %q", c.Status.Level, c.Status.Text, want)
	}
	m := NewMonitor(s.URL, "", 0)
	for _, x := range smp {
		m.Add(x)
	}
	if v := m.View(); v.Status.Level != LevelCritical || !strings.HasPrefix(v.Status.Text, want) {
		t.Errorf("watch status %s %q\nwant it to start %q", v.Status.Level, v.Status.Text, want)
	}
	// Killed as the run ended: the scrapes inside the window all answered,
	// and only the one taken as the run stopped, after its last request,
	// found the server gone. The status is still its unreachability.
	late := *s
	late.Samples = smp[:5]
	c, err = Compare(&late, smp[0].At, smp[4].At.Add(-time.Millisecond), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "unreachable since " + firstDown.Local().Format("15:04:05"); c.Status.Level != LevelCritical || !strings.HasPrefix(c.Status.Text, want) {
		t.Errorf("killed at the end: status %s %q\nwant it to start %q", c.Status.Level, c.Status.Text, want)
	}
	// Before the kill, the queue of 16 requests for 4 slots was queueing.
	before, err := Compare(s, smp[1].At, smp[3].At, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(before.Status.Text, "queueing: 11 waiting for 4 running") {
		t.Errorf("before the kill: %q", before.Status.Text)
	}
}

// orNeg is *p, or -1 for nil.
func orNeg(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// For a server without latency histograms the block sets its per-response
// prefill beside the client's TTFT, its speeds, and the cache hits its
// responses reported beside its own hit rate.
func TestTextShowsTheServersOwnAccount(t *testing.T) {
	s := realSeries(t, "real_llamacpp_overload.server.json")
	client := &metrics.Result{Percentiles: []float64{50, 99},
		PromptCache: &metrics.PromptCache{Requests: 128, PromptTokens: 8192, CachedTokens: 4, HitRate: 4.0 / 8192},
		ServerTimings: &metrics.ServerTimings{Requests: 128,
			Prefill: metrics.Distribution{Count: 128, Median: 0.00196, Percentiles: []metrics.PercentileValue{{P: 50, Value: 0.00196}, {P: 99, Value: 0.00299}}}},
	}
	c, err := Compare(s, s.Samples[1].At, s.Samples[5].At, client)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Text(&b, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Server prefill, per response P50 / P99 (ms): 1.96 / 2.99",
		"Server decode speed (tok/s per stream):  1463.33",
		"Output tokens per engine step:           1.00",
		"Prompt cache hits, per response:         0.05%",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("server block lacks %q:\n%s", want, b.String())
		}
	}
}
