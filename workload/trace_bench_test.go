package workload

import (
	"fmt"
	"os"
	"testing"

	"github.com/goodput-dev/goodput/internal/tracefiles"
)

// BenchmarkTraceItems1M replays the items of a 1,000,000-row Mooncake
// trace in order, as a run's requests ask for them: NewTrace reads the file
// once to check and summarise it, then every item is built from the rows
// streamed again. Lengths are scaled by 1/64 (blocks of 8 tokens, prompts
// of about 94) so that the benchmark measures the streaming, not the
// building of long prompts (BenchmarkTraceItem measures that). It reports
// the peak live heap above the start (peak-heap-MB): it must not grow with
// the file.
func BenchmarkTraceItems1M(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) { traceItems(b, n) })
	}
}

func traceItems(b *testing.B, n int) {
	dir := b.TempDir()
	path := tracefiles.WriteMooncake(b, dir, n)
	defer os.Remove(path)
	c := DefaultConfig()
	c.Dataset, c.Path, c.Trace.LengthScale = DatasetTrace, path, 1.0/64
	var peak uint64
	var tokens int64
	for b.Loop() {
		peak = max(peak, tracefiles.PeakHeap(func() {
			src, err := NewTrace(c)
			if err != nil {
				b.Fatal(err)
			}
			tokens = 0
			for i := range src.Len() {
				tokens += int64(src.Item(int64(i)).InputTokens)
			}
			if src.rereads != 0 || src.Len() != n {
				b.Fatalf("%d rows, %d rereads", src.Len(), src.rereads)
			}
		}))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	b.ReportMetric(float64(tokens)/1e6, "prompt-Mtokens")
}

// BenchmarkTraceItem builds the requests of Mooncake's conversation
// excerpt at their full lengths (13,721 prompt tokens on average, from 512-
// token blocks), in order, as a replay's preparer does ahead of each send.
func BenchmarkTraceItem(b *testing.B) {
	c := DefaultConfig()
	c.Dataset, c.Path = DatasetTrace, tracefiles.Path(b, tracefiles.MooncakeConversation)
	src, err := NewTrace(c)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	seq := int64(0)
	var tokens int64
	for b.Loop() {
		tokens += int64(src.Item(seq).InputTokens)
		seq++
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds()/1e6, "Mtokens/s")
}
