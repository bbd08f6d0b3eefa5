//go:build unix

package backend

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/childproc"
	"github.com/goodput-dev/goodput/record"
)

// benchServerEnv, when set, makes the test binary serve canned streams on
// loopback instead of running tests. BenchmarkClientCPU starts it so that
// the server's work lands in another process and the client's CPU time can
// be measured alone.
const benchServerEnv = "GOODPUT_BACKEND_BENCH_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(benchServerEnv) != "" {
		os.Exit(serveBenchStreams())
	}
	os.Exit(m.Run())
}

// serveBenchStreams serves the benchmark stream until its stdin closes
// (the parent is done or gone), ten minutes at most. A request path ending
// in /flush gets one flush per event; any other, the stream in one write.
func serveBenchStreams() int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	stream := vllmCompletionStream(benchChunks)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if !strings.HasSuffix(r.URL.Path, "/flush") {
			_, _ = w.Write(stream)
			return
		}
		fl := w.(http.Flusher)
		for rest := stream; len(rest) > 0; {
			i := bytes.Index(rest, []byte("\n\n")) + 2
			_, _ = w.Write(rest[:i])
			fl.Flush()
			rest = rest[i:]
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println(ln.Addr())
	childproc.WaitForParent(10 * time.Minute)
	return 0
}

// cpuTime is the process's user plus system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkClientCPU measures the client's own CPU time per streamed
// chunk, HTTP read included: each iteration is one request (BuildRequest,
// Do, ReadStream) for 1,000 vLLM completion chunks with continuous usage,
// served by a child process on loopback. cpu-ns/chunk is this process's
// user+system time (syscalls, runtime and GC included) per chunk;
// allocs/chunk counts only this process's allocations.
//
//   - canned: the stream arrives in large reads (many events per Read);
//   - flush-per-chunk: the server flushes each event, so most Reads carry
//     one event, as when a server streams in real time.
func BenchmarkClientCPU(b *testing.B) {
	child := childproc.Start(b, benchServerEnv+"=1")
	defer child.Stop()
	base := "http://" + child.Addr

	for _, mode := range []struct{ name, endpoint string }{
		{"canned", "/v1/completions"},
		{"flush-per-chunk", "/v1/completions/flush"},
	} {
		b.Run(mode.name, func(b *testing.B) {
			client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 1}}
			defer client.CloseIdleConnections()
			a := mustLookup(b, "openai")
			req := &Request{Model: "meta-llama/Llama-3.1-8B-Instruct", Prompt: "hello", MaxTokens: benchChunks}
			epoch := time.Now()
			now := func() int64 { return int64(time.Since(epoch)) }
			var reads int
			b.ReportAllocs()
			m0, c0 := mallocs(), cpuTime(b)
			b.ResetTimer()
			for range b.N {
				hreq, err := a.BuildRequest(context.Background(), base, mode.endpoint, req)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := client.Do(hreq)
				if err != nil {
					b.Fatal(err)
				}
				rec := &record.Record{}
				st := a.ReadStream(resp, now, rec)
				if !rec.OK() || len(rec.Chunks) != benchChunks {
					b.Fatalf("record %s %s, %d chunks", rec.Error, rec.Msg, len(rec.Chunks))
				}
				reads += st.Reads
			}
			b.StopTimer()
			n := float64(b.N) * benchChunks
			b.ReportMetric(float64(cpuTime(b)-c0)/n, "cpu-ns/chunk")
			b.ReportMetric(float64(mallocs()-m0)/n, "allocs/chunk")
			b.ReportMetric(float64(reads)/n, "reads/chunk")
		})
	}
}
