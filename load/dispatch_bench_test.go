package load

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// noop is a Doer whose server answers at once.
type noop struct{}

func (noop) Do(_ context.Context, _ int64, rec *record.Record, now func() int64) {
	rec.Sent = now()
	rec.End = rec.Sent
}

// BenchmarkDispatchLag runs an open loop of 200 requests, one every 10 ms,
// against a Doer that answers at once, and reports the dispatch lag's p50,
// p99 and max in ms: how late the runner handed each request over, on an
// otherwise idle process. fine-wait is Plan.FineWait's default: the last
// millisecond on the kernel's timer; timer-only waits on Go timers alone.
func BenchmarkDispatchLag(b *testing.B) {
	offs := make([]time.Duration, 200)
	for i := range offs {
		offs[i] = time.Duration(i) * 10 * time.Millisecond
	}
	for _, mode := range []struct {
		name string
		fine time.Duration
	}{{"fine-wait", 0}, {"timer-only", -1}} {
		b.Run(mode.name, func(b *testing.B) {
			var lag []time.Duration
			for b.Loop() {
				out := make(chan *record.Record, len(offs))
				res, err := Run(b.Context(), Plan{Offsets: offs, FineWait: mode.fine}, noop{}, out)
				if err != nil {
					b.Fatal(err)
				}
				lag = append(lag, res.Lag...)
			}
			slices.Sort(lag)
			ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 }
			b.ReportMetric(ms(lag[len(lag)/2]), "p50-ms")
			b.ReportMetric(ms(lag[len(lag)*99/100]), "p99-ms")
			b.ReportMetric(ms(lag[len(lag)-1]), "max-ms")
		})
	}
}
