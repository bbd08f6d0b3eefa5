//go:build linux

package transport_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/goodput-dev/goodput/metrics"
)

// BenchmarkSendFloor is the machine's floor for a start-up burst: the
// soonest streams requests, due at one instant, can reach a canned server
// in a child process over connections already open and accepted (it
// waits floorSettle after dialling them). Nothing but the write is done
// per request: the same small request for every stream, written with one
// system call, by one goroutine in a loop (serial) or by a goroutine per
// request, each started and waiting before the instant (per-request, as
// the load generator's crew sends). Reported, from the
// instant to each request's arrival at the server (the kernel's receive
// time of its last bytes, on the wall clock both processes share): the
// mean (arrive-mean-ms), the 99th percentile (arrive-p99-ms) and the last
// (arrive-last-ms), each the median over the runs. Compare
// BenchmarkStartBurst (load) at the same -benchtime, which sends the same
// burst through the load generator. Run it with -benchtime 20x or more.
func BenchmarkSendFloor(b *testing.B) {
	for _, how := range []string{"serial", "per-request"} {
		for _, streams := range []int{64, 256, 1000} {
			b.Run(fmt.Sprint(how, "/", streams, "-streams"), func(b *testing.B) {
				var mean, p99, last []float64
				for b.Loop() {
					f := dialFloor(b, streams, false)
					// One token each: the run is the burst.
					f.req = floorRequest(strings.TrimPrefix(f.remote.URL, "http://"), 1)
					// The server accepts the connections after the client's
					// connects return: let it, so that the burst meets a
					// settled server, as BenchmarkStartBurst's does.
					time.Sleep(floorSettle)
					var t0 int64
					if how == "serial" {
						t0 = time.Now().UnixNano()
						f.send()
					} else {
						t0 = sendPerRequest(f)
					}
					f.sent = true
					readFloor(b, f, true, 0)
					seen, err := f.remote.Stop()
					for _, fd := range f.fds {
						unix.Close(fd)
					}
					if err != nil {
						b.Fatal(err)
					}
					if len(seen) != streams {
						b.Fatalf("the server finished %d streams of %d", len(seen), streams)
					}
					var arrive []float64
					var sum float64
					for _, st := range seen {
						ms := float64(st.Arrived-t0) / 1e6
						arrive = append(arrive, ms)
						sum += ms
					}
					slices.Sort(arrive)
					mean = append(mean, sum/float64(streams))
					p99 = append(p99, arrive[len(arrive)*99/100])
					last = append(last, arrive[len(arrive)-1])
				}
				b.ReportMetric(median(mean), "arrive-mean-ms")
				b.ReportMetric(median(p99), "arrive-p99-ms")
				b.ReportMetric(median(last), "arrive-last-ms")
			})
		}
	}
}

// median returns the median of xs, which it sorts.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return metrics.Percentile(xs, 50, metrics.Linear)
}

// floorSettle is how long the send floor waits after dialling before its
// burst, for the server to accept every connection.
const floorSettle = 250 * time.Millisecond

// sendPerRequest writes f's requests from a goroutine each, every one
// started and waiting before the instant it returns.
func sendPerRequest(f *floorRun) int64 {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for _, fd := range f.fds {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			unix.Write(fd, f.req)
		}()
	}
	ready.Wait()
	t0 := time.Now().UnixNano()
	close(start)
	done.Wait()
	return t0
}
