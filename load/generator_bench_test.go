//go:build unix

package load

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/canned"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/transport"
)

// BenchmarkGenerator measures the load generator at the machine's floor,
// against a canned server in a child process whose token times are known:
// a closed loop of streams workers, three waves of requests for 128
// tokens each, the first 50 ms after the request's arrival and the rest
// 20 ms apart (paced), or all at once after the first (bulk, twenty
// waves). Each transport configuration runs side by side in one
// benchmark. Reported per run:
//
//   - cpu-µs/token: the client's CPU time (user and system, getrusage;
//     the server's is its own process's) over the output tokens read;
//   - ttft-err-p99-ms: the 99th percentile, over every request, first
//     wave included, of the TTFT the client added: its TTFT less the
//     server's own, from the request's arrival (the kernel's receive
//     time) to its first token's write;
//   - wave1-ms and later-ms: that error's mean over the first wave (every
//     worker's first request, due at the run's start) and over the rest;
//   - wave1-p99-ms: its 99th percentile over the first wave alone, to
//     set beside BenchmarkSendFloor's arrive-p99-ms;
//   - chunk-err-p99-ms: the 99th percentile of how long after the
//     server's write the client timestamped each chunk;
//   - wave1-send-ms, wave1-wire-ms, wave1-read-ms: where the first
//     wave's error went, on average: from the request's due time to its
//     send (the runner and the Doer), from the send to its arrival at
//     the server (connecting and writing), and from the server's write of
//     its first token to the client's timestamp;
//   - late-dials: connections dialled when their request was due.
func BenchmarkGenerator(b *testing.B) {
	for _, mode := range []struct {
		name  string
		itl   time.Duration
		waves int
	}{{"paced", 20 * time.Millisecond, 3}, {"bulk", 0, 20}} {
		for _, streams := range []int{64, 256, 1000} {
			if mode.itl == 0 && streams > 256 {
				continue // at 1,000 the bulk server, not the client, sets the pace
			}
			for _, tr := range benchTransports {
				if tr.name == "nethttp-ahead" {
					continue // BenchmarkFirstWave isolates dialling ahead
				}
				b.Run(mode.name+"/"+streamsName(streams)+"/"+tr.name, func(b *testing.B) {
					for b.Loop() {
						opts := tr.opts
						opts.Conns = streams
						r := newRig(b, true, canned.Options{TTFT: 50 * time.Millisecond, ITL: mode.itl})
						m := runCanned(b, r, opts, Plan{Concurrency: streams, Count: mode.waves * streams}, 128)
						reportGenerator(b, &m, streams)
					}
				})
			}
		}
	}
}

// BenchmarkFirstWave isolates the start of a 256-stream closed loop: two
// waves of paced requests with each transport, with and without dialling
// ahead, so that what the first wave pays for its connections shows
// against the second.
func BenchmarkFirstWave(b *testing.B) {
	const streams = 256
	for _, tr := range benchTransports {
		b.Run(tr.name, func(b *testing.B) {
			for b.Loop() {
				opts := tr.opts
				opts.Conns = streams
				r := newRig(b, true, canned.Options{TTFT: 50 * time.Millisecond, ITL: 20 * time.Millisecond})
				m := runCanned(b, r, opts, Plan{Concurrency: streams, Count: 2 * streams}, 128)
				reportGenerator(b, &m, streams)
			}
		})
	}
}

// BenchmarkStartBurst is the start-up burst and little else: a closed
// loop of streams workers with one request each, for one token 50 ms after
// its arrival, against a canned server in a child process, on the event
// loop, due once the server has accepted the connections (burstSettle).
// A run takes a third of a second, so that many fit: it reports the
// medians over the runs of the first wave's mean and 99th percentile added
// TTFT (wave1-ms, wave1-p99-ms) and of the time the burst took to go out
// (burst-drain-ms). Compare BenchmarkSendFloor at the same -benchtime,
// which sends the same burst with nothing but the write. Run it with
// -benchtime 20x or more: single bursts on a shared machine vary by 2×.
func BenchmarkStartBurst(b *testing.B) {
	for _, streams := range []int{64, 256, 1000} {
		b.Run(streamsName(streams), func(b *testing.B) {
			var mean, p99, drain []float64
			for b.Loop() {
				r := newRig(b, true, canned.Options{TTFT: 50 * time.Millisecond, ITL: 20 * time.Millisecond})
				opts := ClientOptions{Kind: transport.EventLoop, Conns: streams}
				// The epoch leaves the server time to accept the connections
				// Run opens before it, so that the burst meets a settled server.
				plan := Plan{Concurrency: streams, Count: streams, Epoch: time.Now().Add(burstSettle)}
				m := runCanned(b, r, opts, plan, 1)
				var errs []float64
				var sum float64
				for _, rec := range m.recs {
					e := float64(m.ttftError(rec)) / 1e6
					errs = append(errs, e)
					sum += e
				}
				slices.Sort(errs)
				mean = append(mean, sum/float64(len(errs)))
				p99 = append(p99, errs[len(errs)*99/100])
				drain = append(drain, float64(m.res.Burst.Drain)/1e6)
			}
			b.ReportMetric(median(mean), "wave1-ms")
			b.ReportMetric(median(p99), "wave1-p99-ms")
			b.ReportMetric(median(drain), "burst-drain-ms")
		})
	}
}

// burstSettle is how long after a burst benchmark's start its burst is
// due: time for its connections to be opened and for the server to have
// accepted them all (the client's connect returns once the kernel has,
// before the server's accept).
const burstSettle = 250 * time.Millisecond

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return metrics.Percentile(xs, 50, metrics.Linear)
}

// reportGenerator reports BenchmarkGenerator's metrics for one run whose
// first wave is its first streams requests.
func reportGenerator(b *testing.B, m *measured, streams int) {
	var errs, errs1 []float64
	var wave1, later, n1, n2, send, wire, read float64
	epoch := m.res.Epoch.UnixNano()
	for _, rec := range m.recs {
		e := float64(m.ttftError(rec)) / 1e6
		errs = append(errs, e)
		if rec.Seq < int64(streams) {
			errs1 = append(errs1, e)
			wave1 += e
			n1++
			st := m.streams[rec.Seq]
			send += float64(rec.Sent-rec.Scheduled) / 1e6
			wire += float64(st.Arrived-(epoch+rec.Sent)) / 1e6
			read += float64(rec.Chunks[0].At+epoch-st.Flushed[0]) / 1e6
		} else {
			later += e
			n2++
		}
	}
	slices.Sort(errs)
	slices.Sort(errs1)
	chunks := m.chunkErrors()
	slices.Sort(chunks)
	b.ReportMetric(float64(m.cpu.Nanoseconds())/1e3/float64(m.tokens), "cpu-µs/token")
	b.ReportMetric(errs[len(errs)*99/100], "ttft-err-p99-ms")
	b.ReportMetric(wave1/max(n1, 1), "wave1-ms")
	if len(errs1) > 0 {
		b.ReportMetric(errs1[len(errs1)*99/100], "wave1-p99-ms")
	}
	b.ReportMetric(later/max(n2, 1), "later-ms")
	b.ReportMetric(chunks[len(chunks)*99/100], "chunk-err-p99-ms")
	b.ReportMetric(send/max(n1, 1), "wave1-send-ms")
	b.ReportMetric(wire/max(n1, 1), "wave1-wire-ms")
	b.ReportMetric(read/max(n1, 1), "wave1-read-ms")
	b.ReportMetric(float64(m.conns.Late), "late-dials")
	b.ReportMetric(float64(m.res.Burst.Drain)/1e6, "burst-drain-ms")
}

// BenchmarkLoops compares one event loop with two on the streams of
// BenchmarkGenerator (paced at 64, 256 and 1,000 streams, bulk at 256):
// how many loops read the responses is a trade between wake-ups (CPU per
// token) and how long a burst of tokens due at once waits for one core.
func BenchmarkLoops(b *testing.B) {
	for _, c := range []struct {
		mode    string
		itl     time.Duration
		streams int
		waves   int
	}{{"paced", 20 * time.Millisecond, 64, 3}, {"paced", 20 * time.Millisecond, 256, 3},
		{"paced", 20 * time.Millisecond, 1000, 3}, {"bulk", 0, 256, 20}} {
		for _, loops := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/%s/loops-%d", c.mode, streamsName(c.streams), loops), func(b *testing.B) {
				for b.Loop() {
					r := newRig(b, true, canned.Options{TTFT: 50 * time.Millisecond, ITL: c.itl})
					opts := ClientOptions{Kind: transport.EventLoop, Conns: c.streams, Loops: loops}
					m := runCanned(b, r, opts, Plan{Concurrency: c.streams, Count: c.waves * c.streams}, 128)
					reportGenerator(b, &m, c.streams)
				}
			})
		}
	}
}
