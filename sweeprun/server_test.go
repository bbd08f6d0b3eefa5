package sweeprun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/bench"
	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/sim"
	"github.com/goodput-dev/goodput/sweep"
)

// Past the knee requests wait in the server's queue: a sweep across it shows
// the server's own queue time rising, read from each point's saved /metrics
// view.
func TestSweepServerQueueRisesPastTheKnee(t *testing.T) {
	// At most 4 sequences run at once: beyond 4 concurrent requests the
	// rest queue inside the server.
	_, url := simtest.Serve(t, sim.Options{Seed: 5, MaxNumSeqs: 4})
	cfg := bench.DefaultConfig()
	cfg.BaseURL = url
	cfg.Arrival.NumPrompts = 24
	cfg.Workload.Random.InputLen = 32
	cfg.Workload.Random.OutputLen = 24
	cfg.Workload.Request.IgnoreEOS = true
	cfg.ScrapeInterval = 100 * time.Millisecond // several scrapes per point
	dir := t.TempDir()
	r, err := New(Config{Bench: cfg, Dir: dir, MinRounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	plan := sweep.Plan{Mode: sweep.ModeConcurrency, Loads: []sweep.Load{sweep.Concurrency(2), sweep.Concurrency(16)}}
	if _, err := r.Run(t.Context(), plan); err != nil {
		t.Fatal(err)
	}
	queue := map[int]float64{}
	for _, c := range []int{2, 16} {
		name := Measurement{Load: sweep.Concurrency(c), Repeat: 1}.Name()
		b, err := os.ReadFile(filepath.Join(dir, name+".summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s bench.SummaryFile
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s.Server == nil {
			t.Fatalf("%s: no server view in the summary", name)
		}
		found := false
		for _, p := range s.Server.Phases {
			if p.Name == promscrape.Queue {
				queue[c], found = p.Share, true
			}
		}
		if !found {
			t.Fatalf("%s: no queue phase in %+v", name, s.Server.Phases)
		}
	}
	// Below the cap nothing waits; at 4× the cap most of a request's time is
	// spent queued.
	if queue[2] > 0.05 || queue[16] < 0.4 {
		t.Errorf("queue share %.3f at c2, %.3f at c16: want ≤ 0.05, then ≥ 0.4", queue[2], queue[16])
	}
}
