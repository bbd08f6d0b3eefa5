//go:build unix

package realtest

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
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

// readCalls is how many read system calls this process has made, from
// /proc/self/io (Linux; 0 elsewhere): most of a streaming client's CPU
// time is in them.
func readCalls(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "syscr: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	return 0
}

// BenchmarkRealServerC16 runs goodput bench in-process against the real
// llama-server with 16 slots, a closed loop of 16 requests of 64 prompt
// and 64 output tokens (--ignore-eos), 128 requests a run, and reports the
// client's CPU time per output token and the output tokens per second it
// measured. Each iteration makes two runs side by side, in alternating
// order: one with keep-alive (connections reused; a request the server's
// closed connection failed is sent again, counted in retried/run), one
// with --keepalive=false (a connection per request).
func BenchmarkRealServerC16(b *testing.B) {
	e := Need(b)
	s := Start(b, e, Options{Parallel: 16})
	type tally struct {
		tokens, retried, reads int64
		rate                   float64
		cpu                    time.Duration
	}
	var on, off tally
	run := func(seed int, flag string, t *tally) {
		c0, r0 := cpuTime(b), readCalls(b)
		out, errOut, code := goodput(b.Context(), "bench", "--base-url", s.URL, "--max-concurrency", "16", "--num-prompts", "128",
			"--random-input-len", "64", "--random-output-len", "64", "--ignore-eos", "--prompt-format", "ids",
			"--no-server-metrics", "--quiet", "--format", "json", "--seed", fmt.Sprint(seed), flag)
		t.cpu += cpuTime(b) - c0
		t.reads += readCalls(b) - r0
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
		t.tokens += r.Result.Tokens.Output
		t.retried += r.Result.Counts.Retried
		t.rate += r.Result.Throughput.Output
	}
	for i := range b.N {
		if i%2 == 0 {
			run(i, "--keepalive=true", &on)
			run(i, "--keepalive=false", &off)
		} else {
			run(i, "--keepalive=false", &off)
			run(i, "--keepalive=true", &on)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(on.cpu)/float64(on.tokens), "keepalive-cpu-ns/token")
	b.ReportMetric(float64(off.cpu)/float64(off.tokens), "no-keepalive-cpu-ns/token")
	b.ReportMetric(on.rate/n, "keepalive-tok/s")
	b.ReportMetric(off.rate/n, "no-keepalive-tok/s")
	b.ReportMetric(float64(on.retried)/n, "keepalive-retried/run")
	b.ReportMetric(float64(on.reads)/float64(on.tokens), "keepalive-reads/token")
}
