package sweeprun

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestMetricsURL(t *testing.T) {
	tests := []struct{ base, want string }{
		{"http://127.0.0.1:8000", "http://127.0.0.1:8000/metrics"},
		{"http://127.0.0.1:8000/", "http://127.0.0.1:8000/metrics"},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/metrics"},  // as OpenAI clients write it
		{"http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/metrics"}, // with a slash
		{"http://h/api/v1", "http://h/api/metrics"},                    // behind a path prefix
		{"http://h/v10", "http://h/v10/metrics"},                       // not a /v1 suffix
	}
	for _, tt := range tests {
		if got := metricsURL(tt.base); got != tt.want {
			t.Errorf("metricsURL(%q) = %q, want %q", tt.base, got, tt.want)
		}
	}
}

// gaugeServer serves vLLM's running and waiting gauges from the values
// busy returns, one call per scrape.
func gaugeServer(t *testing.T, busy func(scrape int) (running, waiting int)) (*httptest.Server, *atomic.Int32) {
	var scrapes atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		run, wait := busy(int(scrapes.Add(1)))
		fmt.Fprintf(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} %d\n", run)
		fmt.Fprintf(w, "# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{model_name=\"m\"} %d\n", wait)
	}))
	t.Cleanup(srv.Close)
	return srv, &scrapes
}

func TestWaitIdle(t *testing.T) {
	tests := []struct {
		name    string
		busy    func(int) (int, int)
		first   float64 // busy requests seen by the first scrape
		scrapes int32   // scrapes until idle
	}{
		{"idle at once", func(int) (int, int) { return 0, 0 }, 0, 1},
		// Stragglers drain: 2 running and 1 waiting, then 1 running, then none.
		{"drains", func(n int) (int, int) { return max(0, 3-n), max(0, 2-n) }, 3, 3},
		// Waiting alone counts too.
		{"queue only", func(n int) (int, int) { return 0, max(0, 2-n) }, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, scrapes := gaugeServer(t, tt.busy)
			first, err := waitIdle(t.Context(), srv.Client(), srv.URL+"/metrics", 10*time.Second, time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if first != tt.first || scrapes.Load() != tt.scrapes {
				t.Errorf("first %v after %d scrapes, want %v after %d", first, scrapes.Load(), tt.first, tt.scrapes)
			}
		})
	}
}

func TestWaitIdleFailures(t *testing.T) {
	t.Run("never idle", func(t *testing.T) {
		srv, scrapes := gaugeServer(t, func(int) (int, int) { return 4, 2 })
		_, err := waitIdle(t.Context(), srv.Client(), srv.URL+"/metrics", 30*time.Millisecond, 5*time.Millisecond)
		if err == nil || errors.Is(err, errNoGauges) || !strings.Contains(err.Error(), "still busy after 30ms (4 running, 2 waiting") ||
			!strings.Contains(err.Error(), "--idle-timeout") {
			t.Fatalf("error %v", err)
		}
		if scrapes.Load() < 2 {
			t.Errorf("gave up after %d scrapes", scrapes.Load())
		}
	})
	t.Run("no metrics endpoint", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		defer srv.Close()
		_, err := waitIdle(t.Context(), srv.Client(), srv.URL+"/metrics", time.Second, time.Millisecond)
		if !errors.Is(err, errNoGauges) {
			t.Fatalf("error %v, want errNoGauges", err)
		}
	})
	t.Run("no gauges", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 1\n")
		}))
		defer srv.Close()
		_, err := waitIdle(t.Context(), srv.Client(), srv.URL+"/metrics", time.Second, time.Millisecond)
		if !errors.Is(err, errNoGauges) || !strings.Contains(err.Error(), srv.URL) {
			t.Fatalf("error %v, want errNoGauges naming the URL", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		srv, _ := gaugeServer(t, func(int) (int, int) { return 1, 0 })
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := waitIdle(ctx, srv.Client(), srv.URL+"/metrics", time.Minute, time.Millisecond)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
	})
}
