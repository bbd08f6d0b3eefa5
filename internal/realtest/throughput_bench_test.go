//go:build unix

package realtest

import (
	"encoding/json"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// cpuTime is this process's user plus system CPU time: the client's alone,
// since the server runs in its own process.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRealServerC16 runs goodput bench in-process against the real
// llama-server with 16 slots, a closed loop of 16 requests of 64 prompt
// and 64 output tokens (--ignore-eos), 128 requests per iteration, and
// reports the client's CPU time per output token and the output tokens
// per second it measured. keepalive reuses connections (and resends a
// request when the server closed its connection first); no-keepalive opens
// one per request. Run it with -count to set the two side by side.
func BenchmarkRealServerC16(b *testing.B) {
	e := Need(b)
	s := Start(b, e, Options{Parallel: 16})
	for _, mode := range []struct {
		name string
		flag string
	}{{"keepalive", "--keepalive=true"}, {"no-keepalive", "--keepalive=false"}} {
		b.Run(mode.name, func(b *testing.B) {
			var tokens, retried int64
			var rate float64
			var cpu time.Duration
			for i := range b.N {
				c0 := cpuTime(b)
				out, errOut, code := goodput(b.Context(), "bench", "--base-url", s.URL, "--max-concurrency", "16", "--num-prompts", "128",
					"--random-input-len", "64", "--random-output-len", "64", "--ignore-eos", "--prompt-format", "ids",
					"--no-server-metrics", "--quiet", "--format", "json", "--seed", fmt.Sprint(i), mode.flag)
				cpu += cpuTime(b) - c0
				if code != 0 {
					b.Fatalf("exit %d: %s", code, errOut)
				}
				var r struct {
					Result struct {
						Counts     struct{ Failed, Retried int64 }
						Tokens     struct{ Output int64 }
						Throughput struct {
							Output float64 `json:"output_tokens_per_second"`
						}
					}
				}
				if err := json.Unmarshal([]byte(out), &r); err != nil || r.Result.Counts.Failed != 0 {
					b.Fatalf("%v; %+v", err, r.Result.Counts)
				}
				tokens += r.Result.Tokens.Output
				retried += r.Result.Counts.Retried
				rate += r.Result.Throughput.Output
			}
			b.ReportMetric(float64(cpu)/float64(tokens), "cpu-ns/token")
			b.ReportMetric(rate/float64(b.N), "tok/s")
			b.ReportMetric(float64(retried)/float64(b.N), "retried/run")
		})
	}
}
