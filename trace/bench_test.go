package trace

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/goodput-dev/goodput/internal/tracefiles"
)

var (
	millionOnce sync.Once
	millionPath string
)

// millionTrace returns a 1,000,000-row trace, written once per process to
// a temporary directory that the process removes when it ends.
func millionTrace(b *testing.B) string {
	millionOnce.Do(func() {
		dir, err := os.MkdirTemp("", "goodput-trace-bench")
		if err != nil {
			b.Fatal(err)
		}
		millionPath = tracefiles.WriteMooncake(b, dir, 1_000_000)
	})
	return millionPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if millionPath != "" {
		os.RemoveAll(filepath.Dir(millionPath))
	}
	os.Exit(code)
}

// BenchmarkStream1M reads a 1,000,000-row Mooncake trace row by row, as a
// replay's requests do: its memory must not grow with the file. It reports
// the peak live heap above the start (peak-heap-MB), rows per second and
// the file's size.
func BenchmarkStream1M(b *testing.B) {
	b.Run("rows=100000", func(b *testing.B) {
		stream(b, tracefiles.WriteMooncake(b, b.TempDir(), 100_000), 100_000)
	})
	b.Run("rows=1000000", func(b *testing.B) { stream(b, millionTrace(b), 1_000_000) })
}

func stream(b *testing.B, path string, n int) {
	fi, _ := os.Stat(path)
	var peak uint64
	var rows int
	for b.Loop() {
		peak = max(peak, tracefiles.PeakHeap(func() {
			r, err := Open(path, FormatAuto)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			rows = 0
			for {
				_, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				rows++
			}
		}))
	}
	if rows != n {
		b.Fatalf("read %d rows, want %d", rows, n)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(fi.Size())/(1<<20), "file-MB")
}

// BenchmarkScan1M reads the same trace as a replay's plan does: every
// row's arrival time kept (8 bytes a row, the schedule), the theoretical
// prefix reuse followed with one bit per id.
func BenchmarkScan1M(b *testing.B) {
	path := millionTrace(b)
	var peak uint64
	var s *Summary
	for b.Loop() {
		peak = max(peak, tracefiles.PeakHeap(func() {
			var err error
			if s, err = Scan(Config{Path: path}, true); err != nil {
				b.Fatal(err)
			}
		}))
	}
	if s.Rows != 1_000_000 || len(s.Times) != s.Rows {
		b.Fatalf("scanned %d rows, %d times", s.Rows, len(s.Times))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(s.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(100*s.HitRate(), "hit-%")
}
