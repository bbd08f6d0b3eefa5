package load

import (
	"slices"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/internal/tracefiles"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/workload"
)

// BenchmarkReplayDispatch replays the first 500 rows of each shipped trace
// excerpt (and 500 arrivals generated from ServeGen's m-large), sped up to
// last about two seconds, against a Doer that answers at once, and compares
// when each request left with its row's timestamp over the speed-up. It
// reports, in ms, the runner's dispatch lag as BenchmarkDispatchLag does
// (lag-*), and the error of each send against the trace's time (err-*),
// which for the requests of a burst that share one timestamp also counts
// their wait behind the ones before them.
func BenchmarkReplayDispatch(b *testing.B) {
	for _, tt := range []struct{ name, dataset, file string }{
		{"mooncake-conversation", workload.DatasetTrace, tracefiles.MooncakeConversation},
		{"mooncake-synthetic", workload.DatasetTrace, tracefiles.MooncakeSynthetic},
		{"azure-code", workload.DatasetTrace, tracefiles.AzureCode},
		{"azure-conv", workload.DatasetTrace, tracefiles.AzureConv},
		{"servegen-m-large", workload.DatasetServeGen, tracefiles.ServeGenLanguage},
	} {
		b.Run(tt.name, func(b *testing.B) {
			w := workload.DefaultConfig()
			w.Dataset, w.Path = tt.dataset, tracefiles.Path(b, tt.file)
			a := arrival.DefaultConfig()
			a.Replay, a.NumPrompts = w.Arrivals(), 500
			times, err := a.Replay.Times(500, 0)
			if err != nil {
				b.Fatal(err)
			}
			a.Speedup = times[len(times)-1].Seconds() / 2
			p, err := a.Plan()
			if err != nil {
				b.Fatal(err)
			}
			var lag, miss []time.Duration
			for b.Loop() {
				out := make(chan *record.Record, p.Open.Len())
				res, err := Run(b.Context(), Plan{Offsets: p.Open.Offsets}, noop{}, out)
				if err != nil {
					b.Fatal(err)
				}
				close(out)
				lag = append(lag, res.Lag...)
				for r := range out {
					// The trace's own time over the speed-up, unrounded.
					due := time.Duration(float64(times[r.Seq]) / a.Speedup)
					miss = append(miss, max(0, time.Duration(r.Sent)-due))
				}
			}
			report := func(d []time.Duration, unit string) {
				slices.Sort(d)
				ms := func(v time.Duration) float64 { return v.Seconds() * 1e3 }
				b.ReportMetric(ms(d[len(d)/2]), unit+"-p50-ms")
				b.ReportMetric(ms(d[len(d)*99/100]), unit+"-p99-ms")
				b.ReportMetric(ms(d[len(d)-1]), unit+"-max-ms")
			}
			report(lag, "lag")
			report(miss, "err")
			b.ReportMetric(a.Speedup, "speedup")
		})
	}
}
