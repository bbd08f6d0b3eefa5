package bench

import (
	"context"
	"fmt"

	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// Observer follows runs as they go, for a view outside the process such
// as goodput's live Prometheus metrics. Run calls Begin once per run,
// before its first request; a sweep's points are runs of one Observer.
type Observer interface {
	Begin(run RunInfo) RunObserver
}

// RunInfo says which run a RunObserver follows.
type RunInfo struct {
	// Name is the run's name: the file name stem of its records
	// (--run-name, a sweep's point name, or goodput-<time>).
	Name    string
	Header  record.Header // its start, labels and configuration
	BaseURL string
	Model   string
	// Good is the run's per-request SLO, nil without one (as
	// metrics.Options.Good).
	Good func(metrics.Request) bool
	SLO  string // Good in words
}

// RunObserver receives the events of one run. Sending and Done are called
// from the goroutines that send requests, concurrently, as a request
// leaves and when its exchange is over; Record from one goroutine for each
// finished record, in the order the run writes them, with the run's labels
// set; End once, after the last record. None may block for long: the run
// waits for them.
type RunObserver interface {
	Sending()
	Done()
	Record(r *record.Record)
	End()
}

// observe begins the run with cfg.Observer, or returns an observer that
// does nothing.
func (c Config) observe(h record.Header, model string) RunObserver {
	if c.Observer == nil {
		return nopObserver{}
	}
	name := c.RunName
	if name == "" {
		name = "goodput-" + h.Start.Format("20060102-150405")
		if a := c.Arrival; a.Shards > 1 {
			name += fmt.Sprintf("-shard%d-of-%d", a.Shard, a.Shards)
		}
	}
	return c.Observer.Begin(RunInfo{Name: name, Header: h, BaseURL: c.BaseURL, Model: model, Good: c.Metrics.Good, SLO: c.Metrics.SLO})
}

type nopObserver struct{}

func (nopObserver) Sending()              {}
func (nopObserver) Done()                 {}
func (nopObserver) Record(*record.Record) {}
func (nopObserver) End()                  {}

// observedDoer tells its observer when each request leaves and when its
// exchange is over.
type observedDoer struct {
	load.Doer
	obs RunObserver
}

func (d observedDoer) Do(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
	d.obs.Sending()
	defer d.obs.Done()
	d.Doer.Do(ctx, seq, rec, now)
}

// observed wraps d for obs; without an observer it is d itself.
func observed(d load.Doer, obs RunObserver) load.Doer {
	if _, none := obs.(nopObserver); none {
		return d
	}
	return observedDoer{d, obs}
}
