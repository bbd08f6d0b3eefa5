package serverview

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/promscrape"
)

// exposition is a small vLLM exposition whose generation counter reads
// 100·n: each scrape of a counting target sees 100 more tokens.
func exposition(n int64) string {
	return fmt.Sprintf(`# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 4
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="m"} %d
`, 100*n)
}

// countingTarget serves exposition(n) on its n-th scrape (from 1).
func countingTarget(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, exposition(n.Add(1)))
	}))
	t.Cleanup(ts.Close)
	return ts, &n
}

// downURL returns a loopback URL nothing listens on.
func downURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/metrics"
}

// TestRecorderBracketsWindow checks that Stop's closing scrape brackets a
// window that ended after the last periodic scrape, so the counters span
// it, and that OnSample saw every scrape.
func TestRecorderBracketsWindow(t *testing.T) {
	ts, _ := countingTarget(t)
	var seen atomic.Int64
	// An interval far longer than the test: only the first scrape is periodic.
	r := Start(context.Background(), ts.URL+"/metrics", Options{Interval: time.Hour, OnSample: func(promscrape.Sample) { seen.Add(1) }})
	for seen.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	time.Sleep(5 * time.Millisecond)
	end := time.Now()
	s := r.Stop()
	if len(s.Samples) != 2 || seen.Load() != 2 {
		t.Fatalf("%d samples, OnSample called %d times; want 2 and 2", len(s.Samples), seen.Load())
	}
	if s.Samples[1].Snapshot == nil || s.Samples[1].At.Before(end) {
		t.Fatalf("closing scrape %+v does not bracket the window end %v", s.Samples[1], end)
	}
	c, err := Compare(s, start, end, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Scrape 1 read 100 tokens, scrape 2 read 200: 100 generated between.
	if g := c.GenerationTokens; g == nil || g.Count != 100 {
		t.Errorf("generation tokens = %+v, want 100", g)
	}
	for _, n := range c.Notes {
		if strings.Contains(n, "missed") || strings.Contains(n, "only one") {
			t.Errorf("note %q: the window should be bracketed", n)
		}
	}
	if again := r.Stop(); again != s {
		t.Errorf("second Stop returned a different series")
	}
}

// A run shorter than the scrape interval still has a scrape of the
// gauges inside it: the second scrape comes EarlyScrape after the first.
func TestRecorderScrapesEarlyInAShortRun(t *testing.T) {
	ts, _ := countingTarget(t)
	r := Start(context.Background(), ts.URL+"/metrics", Options{Interval: time.Hour})
	start := time.Now()
	time.Sleep(EarlyScrape + 150*time.Millisecond)
	end := time.Now()
	s := r.Stop()
	if len(s.Samples) != 3 {
		t.Fatalf("%d samples, want the first, the early one and the closing one", len(s.Samples))
	}
	c, err := Compare(s, start, end, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Running == nil || c.Running.Samples != 1 || c.Running.Mean != 4 {
		t.Errorf("running %+v: want the one early scrape's 4", c.Running)
	}
}

// TestRecorderStopAfterCancel checks that a run interrupted through its
// context still gets its closing scrape.
func TestRecorderStopAfterCancel(t *testing.T) {
	ts, n := countingTarget(t)
	ctx, cancel := context.WithCancel(context.Background())
	r := Start(ctx, ts.URL+"/metrics", Options{Interval: 20 * time.Millisecond})
	time.Sleep(70 * time.Millisecond)
	cancel()
	s := r.Stop()
	last := s.Samples[len(s.Samples)-1]
	if last.Snapshot == nil {
		t.Fatalf("closing scrape failed after cancel: %s", last.Err)
	}
	if got, ok := last.Snapshot.Counter(promscrape.GenerationTokens); !ok || got != float64(100*n.Load()) {
		t.Errorf("closing scrape read %v tokens, want the latest, %d", got, 100*n.Load())
	}
	if s.End.Before(last.At) {
		t.Errorf("series end %v before its last scrape %v", s.End, last.At)
	}
}

// An interrupted run's closing scrape of a server that stopped answering
// waits interruptedScrape, not the whole scrape timeout.
func TestRecorderStopAfterCancelDoesNotWaitOutTheTimeout(t *testing.T) {
	var stopped atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stopped.Load() {
			<-r.Context().Done() // a server stopped mid-run (kill -STOP)
			return
		}
		io.WriteString(w, exposition(1))
	}))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithCancel(context.Background())
	r := Start(ctx, ts.URL+"/metrics", Options{Interval: time.Hour, Timeout: 30 * time.Second})
	stopped.Store(true)
	cancel()
	start := time.Now()
	s := r.Stop()
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("Stop took %v after the run was interrupted; want about %v, far below the 30 s timeout", took, interruptedScrape)
	}
	if last := s.Samples[len(s.Samples)-1]; last.OK() {
		t.Errorf("the closing scrape of a silent server succeeded: %+v", last)
	}
}

// TestRecorderBadTargets points the recorder at targets that are down,
// slow, garbled or huge, and checks that scraping carries on, Stop returns
// within about a scrape timeout, and the comparison says what was missing.
func TestRecorderBadTargets(t *testing.T) {
	// Slow targets time out after 100 ms, so that a few scrapes fit the
	// run; the others get 2 s, so that a busy machine reading 10 MB is not
	// mistaken for a slow server.
	const slowTimeout, timeout = 100 * time.Millisecond, 2 * time.Second
	slowDone := make(chan struct{}) // closed before the servers close, so no handler holds them up
	handler := func(h http.HandlerFunc) string {
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		return ts.URL + "/metrics"
	}
	tenMB := strings.Repeat("# padding line of a very large exposition, sixty-four bytes...\n", 10<<20/64)
	var flip atomic.Int64
	tests := []struct {
		name    string
		url     string
		timeout time.Duration
		kind    promscrape.FailureKind
		missing string // fragment of the comparison's first Missing item
		someOK  bool   // some scrapes succeed
	}{
		// Nothing listens: connection refused.
		{"down", downURL(t), timeout, promscrape.FailDown, "scrapes failed", false},
		// Headers never come within the timeout.
		{"slow", handler(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-slowDone:
			}
		}), slowTimeout, promscrape.FailTimeout, "timeout", false},
		// Not a Prometheus exposition.
		{"garbage", handler(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "<html><body>{{{ not metrics \x00\x01\x02")
		}), timeout, promscrape.FailMalformed, "malformed", false},
		// 10 MB announced by Content-Length: refused before reading.
		{"10 MB announced", handler(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(tenMB)))
			io.WriteString(w, tenMB)
		}), timeout, promscrape.FailTooLarge, "too_large", false},
		// 10 MB streamed without a length: cut off at the limit.
		{"10 MB streamed", handler(func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i < len(tenMB); i += 1 << 20 {
				if _, err := io.WriteString(w, tenMB[i:min(i+1<<20, len(tenMB))]); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}), timeout, promscrape.FailTooLarge, "too_large", false},
		// Errors between good scrapes: the server's numbers survive.
		{"every other scrape fails", handler(func(w http.ResponseWriter, r *http.Request) {
			k := flip.Add(1)
			if k%2 == 0 {
				http.Error(w, "engine not ready", http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, exposition(k))
		}), timeout, promscrape.FailStatus, "status", true},
	}
	t.Cleanup(func() { close(slowDone) }) // cleanups run last first: before the servers' Close
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen atomic.Int64
			r := Start(context.Background(), tt.url, Options{Interval: 40 * time.Millisecond, Timeout: tt.timeout,
				OnSample: func(promscrape.Sample) { seen.Add(1) }})
			start := time.Now()
			// Until two scrapes inside the window have been recorded
			// (a busy machine reads 10 MB slowly), or a deadline.
			for deadline := time.Now().Add(10 * time.Second); seen.Load() < 3 && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			end := time.Now()
			stopAt := time.Now()
			s := r.Stop()
			// Generous: a scrape timeout plus scheduling on a busy machine.
			if took := time.Since(stopAt); took > tt.timeout+2*time.Second {
				t.Errorf("Stop took %v, want about one scrape timeout (%v) at most", took, tt.timeout)
			}
			cov := s.Coverage()
			if cov.Failed[tt.kind] == 0 {
				t.Fatalf("coverage %s: no %s failure", cov, tt.kind)
			}
			if cov.Scrapes < 2 {
				t.Errorf("%d scrapes, want scraping to carry on after failures", cov.Scrapes)
			}
			if got := cov.OK > 0; got != tt.someOK {
				t.Errorf("%d scrapes succeeded, want some: %v", cov.OK, tt.someOK)
			}
			c, err := Compare(s, start, end, runResult())
			if err != nil {
				t.Fatalf("Compare: %v", err)
			}
			if len(c.Missing) == 0 || !strings.Contains(c.Missing[0], tt.missing) {
				t.Errorf("missing = %q, want a first item containing %q", c.Missing, tt.missing)
			}
			if c.FailedScrapes == 0 {
				t.Errorf("comparison counts no failed scrape in the window")
			}
			if tt.someOK {
				if c.Running == nil || c.Running.Peak != 4 || c.Status.Level != LevelOK {
					t.Errorf("running = %+v, status %+v; want the good scrapes' numbers", c.Running, c.Status)
				}
			} else if c.Status.Level != LevelUnknown {
				t.Errorf("status = %+v, want unknown", c.Status)
			}
			// The client side is never lost.
			if c.TTFT.P50 == nil || c.TTFT.P50.Client == nil {
				t.Errorf("client ttft lost: %+v", c.TTFT)
			}
		})
	}
}

// TestRecorderInvalidURL checks that a URL that cannot work gives failed
// scrapes that say why, not a panic or an error.
func TestRecorderInvalidURL(t *testing.T) {
	r := Start(context.Background(), "ftp://nowhere/metrics", Options{Interval: 10 * time.Millisecond})
	time.Sleep(30 * time.Millisecond)
	s := r.Stop()
	if len(s.Samples) < 2 || !slices.ContainsFunc(s.Samples, func(x promscrape.Sample) bool {
		return strings.Contains(x.Err, `metrics url "ftp://nowhere/metrics": scheme must be http or https`)
	}) {
		t.Fatalf("samples = %+v, want failures naming the URL's scheme", s.Samples)
	}
}
