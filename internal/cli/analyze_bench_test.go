package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// writeRun writes n records of 128 one-token chunks each, a long-output run
// of an H100 serving an 8B model at about 11 ms per token.
func writeRun(b *testing.B, path string, n int) int64 {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	h, _ := record.NewHeader("goodput bench", nil)
	w, err := record.NewWriter(f, h)
	if err != nil {
		b.Fatal(err)
	}
	r := record.Record{InputTokens: 512, OutputTokens: 128, TokenSource: record.SourceUsage, Status: 200, Finish: "length"}
	r.Chunks = make([]record.Chunk, 128)
	for i := range n {
		r.Seq = int64(i)
		r.Scheduled = int64(i) * 2_000_000 // 500 req/s
		r.Sent = r.Scheduled + 40_000
		at := r.Sent + 120_000_000 + int64(i%97)*1_000_000
		for j := range r.Chunks {
			r.Chunks[j] = record.Chunk{At: at, Tokens: 1}
			at += 10_000_000 + int64((i*31+j*7)%2_000_000)
		}
		r.End = at
		if err := w.Write(&r); err != nil {
			b.Fatal(err)
		}
	}
	st, _ := f.Stat()
	return st.Size()
}

// BenchmarkAnalyze1M is `goodput analyze` on a million 128-token records:
// decode, metrics, percentiles. It reports the file size and the process's
// peak resident memory.
func BenchmarkAnalyze1M(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "run.jsonl")
	size := writeRun(b, path, n)
	env := &Env{}
	b.ResetTimer()
	for b.Loop() {
		a, err := analyzeFiles(env, []string{path}, metrics.Options{Percentiles: []float64{50, 90, 99}}, runDefaults{})
		if err != nil {
			b.Fatal(err)
		}
		if a.Result.Counts.Completed != n || a.Result.Latency.ITL.Count != n*127 {
			b.Fatalf("completed %d, itl count %d", a.Result.Counts.Completed, a.Result.Latency.ITL.Count)
		}
	}
	b.StopTimer()
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
	b.ReportMetric(float64(size)/1e6, "file-MB")
}
