package report

import (
	"io"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// BenchmarkRunBuilderAdd measures folding one record of 40 one-token
// chunks into a Run (the summary, histograms, bootstrap samples and lag).
func BenchmarkRunBuilderAdd(b *testing.B) {
	recs := fixedRecords(1000, 10*time.Millisecond, time.Millisecond, 40, 15*time.Millisecond, func(i int) time.Duration {
		return time.Duration(20+i%50) * time.Millisecond
	})
	rb := NewRunBuilder(record.Header{}, RunOptions{SLO: mustSLO(b, "ttft<=50ms,tpot<=20ms")})
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		r := recs[i%len(recs)]
		shift := int64(i/len(recs)) * int64(10*time.Second)
		r.Scheduled += shift
		r.Sent += shift
		r.End += shift
		rb.Add(&r)
	}
}

// BenchmarkWriteRunHTML100k measures rendering the HTML report of a
// 100,000-request run (the run is built once, outside the timing).
func BenchmarkWriteRunHTML100k(b *testing.B) {
	run := largeRun(b, 100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := WriteRunHTML(io.Discard, run, HTMLOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompare100k measures comparing two 100,000-request runs with
// the default 1,000 resamples each.
func BenchmarkCompare100k(b *testing.B) {
	runs := []*Run{largeRun(b, 100_000), largeRun(b, 100_000)}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Compare(runs, CompareOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
