//go:build unix

package load

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/canned"
	"github.com/goodput-dev/goodput/transport"
)

// BenchmarkTimingPrecision drives streams concurrent streams whose canned
// server writes a token every 50 ms and measures how much later than the
// server's write the client timestamps each chunk (client-added error:
// loopback, the kernel, the Go scheduler and the client's own work). The
// server runs in this process (same-process) or in a child
// (server-process). Stream starts are spread over 500 ms and each stream
// lasts 2 s. Reported, in ms: p50, p99 and max over every chunk of every
// stream; p99 over the chunks written while every stream was open
// (inflight-p99), which leaves out the ramp and the tail; and the p99 of
// the client's own dispatch lag.
func BenchmarkTimingPrecision(b *testing.B) {
	for _, rig := range []struct {
		name  string
		child bool
	}{{"same-process", false}, {"server-process", true}} {
		for _, streams := range []int{500, 5000} {
			b.Run(rig.name+"/"+streamsName(streams), func(b *testing.B) {
				for b.Loop() {
					benchPrecision(b, rig.child, streams, 40, 50*time.Millisecond)
				}
			})
		}
	}
}

func benchPrecision(b *testing.B, child bool, streams, tokens int, gap time.Duration) {
	r := newRig(b, child, canned.Options{TTFT: gap, ITL: gap, Tokens: tokens})
	const ramp = 500 * time.Millisecond
	offs := make([]time.Duration, streams)
	for i := range offs {
		offs[i] = time.Duration(i) * ramp / time.Duration(streams)
	}
	m := runCanned(b, r, ClientOptions{Kind: transport.Auto, Conns: streams}, Plan{Offsets: offs}, tokens)
	// The window in which every stream was open: from the last stream's
	// first write to the first stream's last.
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	for _, st := range m.streams {
		lo, hi = max(lo, st.Flushed[0]), min(hi, st.Flushed[len(st.Flushed)-1])
	}
	epoch := m.res.Epoch.UnixNano()
	var all, inflight []float64
	for _, rec := range m.recs {
		st := m.streams[rec.Seq]
		for i, c := range rec.Chunks {
			e := float64(c.At+epoch-st.Flushed[i]) / 1e6
			all = append(all, e)
			if st.Flushed[i] >= lo && st.Flushed[i] <= hi {
				inflight = append(inflight, e)
			}
		}
	}
	slices.Sort(all)
	slices.Sort(inflight)
	b.ReportMetric(all[len(all)/2], "p50-ms")
	b.ReportMetric(all[len(all)*99/100], "p99-ms")
	b.ReportMetric(all[len(all)-1], "max-ms")
	if len(inflight) > 0 {
		b.ReportMetric(inflight[len(inflight)*99/100], "inflight-p99-ms")
	} else {
		// The server fell so far behind that streams never all overlapped.
		b.ReportMetric(math.NaN(), "inflight-p99-ms")
	}
	lag := slices.Clone(m.res.Lag)
	slices.Sort(lag)
	b.ReportMetric(float64(lag[len(lag)*99/100])/1e6, "dispatch-p99-ms")
}
