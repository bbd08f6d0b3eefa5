package sweeprun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
)

// httpConfig is a small sweep over HTTP against the server at url: short
// prompts, 16-token answers, 8 requests a point (more at high
// concurrency), the first 2 warm-up.
func httpConfig(url, dir string) Config {
	cfg := Config{Bench: bench.DefaultConfig(), Dir: dir, MinRounds: 2, IdleTimeout: 10 * time.Second}
	cfg.Bench.BaseURL = url
	cfg.Bench.Arrival.NumPrompts = 8
	cfg.Bench.Workload.Random.InputLen = 32
	cfg.Bench.Workload.Random.OutputLen = 16
	cfg.Bench.Workload.Request.IgnoreEOS = true
	cfg.Bench.Warmups = 2
	cfg.Bench.NoCalibrate = true
	cfg.Bench.Labels = map[string]string{"team": "serving"}
	return cfg
}

func TestHTTPSweep(t *testing.T) {
	url, _ := serveSim(t, sim.Options{Seed: 1})
	dir := t.TempDir()
	cfg := httpConfig(url, dir)
	var log logBuf
	cfg.Log = &log
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(1, 2, 8)})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if got := measuredPoints(log.String()); !slices.Equal(got, []string{"c1", "c2", "c8"}) {
		t.Errorf("measured %v", got)
	}
	if strings.Contains(log.String(), "not waiting") {
		t.Errorf("the simulator exports its gauges, yet the sweep did not wait for it:\n%s", log.String())
	}
	// 2 rounds of 8 slots: 16 requests at c8.
	for name, n := range map[string]int{"c1": 8, "c2": 8, "c8": 16} {
		checkMeasurementFiles(t, dir, name, Measurement{Load: sweep.Concurrency(int(name[1] - '0')), Repeat: 1}, n)
	}
	pts := out.Summary.Points
	if len(pts) != 3 {
		t.Fatalf("%d points", len(pts))
	}
	// More slots, more tokens per second: the simulator batches.
	if !(pts[2].Mean.OutputThroughput > 2*pts[0].Mean.OutputThroughput) {
		t.Errorf("throughput %v at c1, %v at c8", pts[0].Mean.OutputThroughput, pts[2].Mean.OutputThroughput)
	}
	if _, err := sweep.ReadFile(filepath.Join(dir, SweepJSON)); err != nil {
		t.Error(err)
	}
}

// TestHTTPWaitsForStragglers leaves a long request running on the server
// and checks that the next point starts only once it is done, so that it
// cannot load the point.
func TestHTTPWaitsForStragglers(t *testing.T) {
	url, _ := serveSim(t, sim.Options{Seed: 2})
	body := `{"model": "Llama-3.1-8B", "prompt": "a straggler", "max_tokens": 120, "ignore_eos": true}`
	done := make(chan time.Time, 1)
	go func() {
		resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(body))
		if err == nil {
			var v any
			json.NewDecoder(resp.Body).Decode(&v)
			resp.Body.Close()
		}
		done <- time.Now()
	}()
	// Wait until the server holds it.
	for deadline := time.Now().Add(10 * time.Second); ; {
		snap, err := promscrape.Scrape(t.Context(), nil, url+"/metrics")
		if v, _ := snap.Gauge(promscrape.Running); err == nil && v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the straggler never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cfg := httpConfig(url, "")
	var log logBuf
	cfg.Log = &log
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Measure(t.Context(), sweep.Concurrency(1)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "waited for 1 requests left on the server before c1") {
		t.Errorf("log:\n%s", log.String())
	}
	select {
	case <-done:
	default:
		t.Error("the point was measured while the straggler still ran")
	}
}

func TestHTTPInterruptedPointIsMeasuredAgain(t *testing.T) {
	url, _ := serveSim(t, sim.Options{Seed: 3})
	dir := t.TempDir()
	cfg := httpConfig(url, dir)
	// One point of about 3 s (24 requests of 16 tokens, one at a time),
	// interrupted well inside it.
	cfg.Bench.Arrival.NumPrompts = 24
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	time.AfterFunc(500*time.Millisecond, cancel)
	_, err = r.Run(ctx, sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(1)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	// bench keeps what it measured, in a summary marked interrupted.
	if b, err := os.ReadFile(filepath.Join(dir, "c1.summary.json")); err == nil && !bytes.Contains(b, []byte(`"interrupted": true`)) {
		t.Fatal("an interrupted point left a summary that looks finished")
	}
	cfg.Resume = true
	var log logBuf
	cfg.Log = &log
	r, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(1)}); err != nil {
		t.Fatal(err)
	}
	if got := measuredPoints(log.String()); !slices.Equal(got, []string{"c1"}) {
		t.Errorf("resume measured %v, want c1 again", got)
	}
}

// promptRecorder answers OpenAI completions and keeps every prompt of
// the runs it was sent.
type promptRecorder struct {
	mu      sync.Mutex
	prompts []string
}

func (p *promptRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/models":
		io.WriteString(w, `{"data":[{"id":"m"}]}`)
		return
	case "/v1/completions":
	default:
		http.NotFound(w, r)
		return
	}
	var body struct {
		Prompt    json.RawMessage `json:"prompt"`
		MaxTokens int             `json:"max_tokens"`
	}
	json.NewDecoder(r.Body).Decode(&body)
	if body.MaxTokens > 1 { // not the one-token check before a point
		p.mu.Lock()
		p.prompts = append(p.prompts, string(body.Prompt))
		p.mu.Unlock()
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for range body.MaxTokens {
		io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`+"\n\n")
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// take returns the prompts received since the last call.
func (p *promptRecorder) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.prompts
	p.prompts = nil
	return out
}

// Each load of a sweep over HTTP sends prompts of its own, so that a
// server's prefix cache holds none of them from an earlier load; with
// --same-prompts every load sends the same ones.
func TestHTTPLoadsGetPromptsOfTheirOwn(t *testing.T) {
	for _, same := range []bool{false, true} {
		rec := &promptRecorder{}
		ts := httptest.NewServer(rec)
		cfg := httpConfig(ts.URL, t.TempDir())
		cfg.Bench.NoServerMetrics, cfg.IdleTimeout, cfg.SamePrompts = true, 0, same
		cfg.Bench.Warmups = 0
		byLoad := map[int][]string{}
		for _, c := range []int{1, 2} {
			r, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(c)}); err != nil {
				t.Fatal(err)
			}
			byLoad[c] = rec.take()
			cfg.Dir = t.TempDir()
		}
		ts.Close()
		if len(byLoad[1]) != 8 || len(byLoad[2]) != 8 {
			t.Fatalf("same %v: %d and %d prompts, want 8 a load", same, len(byLoad[1]), len(byLoad[2]))
		}
		shared := 0
		for _, a := range byLoad[1] {
			if slices.Contains(byLoad[2], a) {
				shared++
			}
		}
		switch {
		case !same && shared != 0:
			t.Errorf("%d of c2's prompts were c1's: a prefix cache would have them", shared)
		case same && shared != 8:
			t.Errorf("--same-prompts: %d of 8 prompts shared", shared)
		}
	}
}

// A point whose requests failed says how many and why in the sweep's log:
// its table row counts them, and only the log can say why.
func TestHTTPPointFailuresAreLogged(t *testing.T) {
	opts := sim.Options{Seed: 1}
	if err := opts.Faults.ParseFault("error-rate=1"); err != nil {
		t.Fatal(err)
	}
	url, _ := serveSim(t, opts)
	cfg := httpConfig(url, t.TempDir())
	cfg.Bench.Warmups = 0
	var log logBuf
	cfg.Log = &log
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(t.Context(), sweep.Plan{Mode: sweep.ModeConcurrency, Loads: concurrencies(1)}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "sweep: c1: 8 of 8 requests failed, 8 ") || !strings.Contains(log.String(), "(first: ") {
		t.Errorf("log:\n%s", log.String())
	}
}
