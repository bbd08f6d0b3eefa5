//go:build unix

package bench

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/canned"
	"github.com/goodput-dev/goodput/internal/cpuload"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// idleWatch is an Observer that notes this process's CPU time when the
// run's one request leaves and when its exchange is over.
type idleWatch struct {
	mu         sync.Mutex // guards the fields below
	cpu0, cpu1 time.Duration
	t0, t1     time.Time
}

func (w *idleWatch) Begin(RunInfo) RunObserver { return w }
func (w *idleWatch) Sending() {
	w.mu.Lock()
	w.cpu0, w.t0 = cpuload.Self(), time.Now()
	w.mu.Unlock()
}
func (w *idleWatch) Done() {
	w.mu.Lock()
	w.cpu1, w.t1 = cpuload.Self(), time.Now()
	w.mu.Unlock()
}
func (*idleWatch) Record(*record.Record) {}
func (*idleWatch) End()                  {}

// BenchmarkIdle measures what a run costs while no token arrives: one
// request whose first token the canned server (a child process) writes
// 30 s after the request arrived, the progress line redrawn twice a
// second as on a terminal, the server's metrics not scraped. idle-ms/s is
// this process's CPU time (user and system) per second from the request's
// send to the end of its exchange: the self-check, the progress view, the
// transport and the runtime while they wait.
func BenchmarkIdle(b *testing.B) {
	for _, kind := range transport.Kinds() {
		b.Run(strings.ReplaceAll(string(kind), "/", ""), func(b *testing.B) {
			for b.Loop() {
				r := canned.StartChild(b, canned.Options{TTFT: 30 * time.Second, Tokens: 1})
				w := &idleWatch{}
				cfg := DefaultConfig()
				cfg.BaseURL = r.URL
				cfg.Transport = kind
				cfg.Arrival.NumPrompts = 1
				cfg.Arrival.MaxConcurrency = 1
				cfg.Workload.Random.InputLen, cfg.Workload.Random.OutputLen = 16, 1
				cfg.PromptFormat, cfg.NoCalibrate, cfg.NoServerMetrics = PromptText, true, true
				cfg.Metrics = metrics.Options{}
				cfg.Observer = w
				out, err := Run(b.Context(), cfg, io.Discard, true)
				if _, serr := r.Stop(); err == nil {
					err = serr
				}
				if err != nil {
					b.Fatal(err)
				}
				if out.Result.Counts.Completed != 1 {
					b.Fatalf("counts %+v", out.Result.Counts)
				}
				w.mu.Lock()
				b.ReportMetric(float64(w.cpu1-w.cpu0)/1e6/w.t1.Sub(w.t0).Seconds(), "idle-ms/s")
				w.mu.Unlock()
			}
		})
	}
}
