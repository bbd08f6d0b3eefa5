package metrics

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// benchStreams is a generator of realistic streams: request i is scheduled
// i·spacing after the epoch, its first token comes 30–80 ms later and each
// of its one-token chunks 5–15 ms after the previous one. It fills one
// Record in place, as a decoder that reuses its record would.
type benchStreams struct {
	offsets [][]int64 // per template: chunk offsets from the schedule, ns
	spacing int64
	rec     record.Record
}

func newBenchStreams(templates, chunks int, spacing int64) *benchStreams {
	rng := rand.New(rand.NewPCG(1, 2))
	g := &benchStreams{spacing: spacing, rec: record.Record{Chunks: make([]record.Chunk, chunks)}}
	for range templates {
		off := make([]int64, chunks)
		t := 30e6 + rng.Int64N(50e6)
		for j := range off {
			off[j] = t
			t += 5e6 + rng.Int64N(10e6)
		}
		g.offsets = append(g.offsets, off)
	}
	return g
}

func (g *benchStreams) next(i int) *record.Record {
	off := g.offsets[i%len(g.offsets)]
	s := int64(i) * g.spacing
	r := &g.rec
	r.Seq, r.Scheduled, r.Sent = int64(i), s, s+50_000
	for j, o := range off {
		r.Chunks[j] = record.Chunk{At: s + o, Tokens: 1}
	}
	r.End = s + off[len(off)-1] + 1e6
	r.InputTokens, r.OutputTokens, r.TokenSource = 512, len(off), record.SourceUsage
	return r
}

// BenchmarkSummaryAdd measures Add per record of 128 one-token chunks
// (ns/op is per record; b.N records, then one Close).
func BenchmarkSummaryAdd(b *testing.B) {
	g := newBenchStreams(64, 128, 1e6)
	s := NewSummary(Options{Good: seedSLO})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.Add(g.next(i))
	}
	s.Close()
}

// BenchmarkSummary1M is the acceptance case: Add of 1,000,000 records of
// 128 one-token chunks, then Close, per op. It reports the heap in use just
// before Close (heap-MB), which bounds the Summary's peak.
func BenchmarkSummary1M(b *testing.B) {
	const n = 1_000_000
	g := newBenchStreams(64, 128, 1e6)
	b.ReportAllocs()
	for b.Loop() {
		s := NewSummary(Options{Good: seedSLO})
		for i := range n {
			s.Add(g.next(i))
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
		r := s.Close()
		if r.Latency.ITL.Count != n*127 {
			b.Fatalf("itl count = %d, want %d", r.Latency.ITL.Count, n*127)
		}
	}
}

// BenchmarkSnapshot measures the live view's cost on a run of 100,000
// records of 128 one-token chunks.
func BenchmarkSnapshot(b *testing.B) {
	g := newBenchStreams(64, 128, 1e6)
	s := NewSummary(Options{Good: seedSLO})
	for i := range 100_000 {
		s.Add(g.next(i))
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Snapshot()
	}
}
