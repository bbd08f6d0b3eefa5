package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// ms converts milliseconds to record nanoseconds.
func ms(v float64) int64 { return int64(math.Round(v * 1e6)) }

// oneTokenChunks returns one-token chunks at the given times (ms).
func oneTokenChunks(at ...float64) []record.Chunk {
	cs := make([]record.Chunk, len(at))
	for i, a := range at {
		cs[i] = record.Chunk{At: ms(a), Tokens: 1}
	}
	return cs
}

// streamed builds a successful record scheduled and sent at s (ms) whose
// tokens arrive one per chunk at the given times (ms) and that ends with its
// last token, as the seed documents' RequestLog does.
func streamed(s float64, at ...float64) *record.Record {
	cs := oneTokenChunks(at...)
	return &record.Record{
		Scheduled: ms(s), Sent: ms(s), End: cs[len(cs)-1].At,
		Chunks: cs, OutputTokens: len(cs), TokenSource: record.SourceChunks,
	}
}

// seedRequests are the three requests of the seed's worked example.
func seedRequests() []*record.Record {
	return []*record.Record{
		streamed(0, 200, 250, 300, 350, 400),        // A: TTFT .20, TPOT .05
		streamed(100, 600, 640, 680, 720, 760, 800), // B: TTFT .50, TPOT .04
		streamed(200, 900, 1000, 1100),              // C: TTFT .70, TPOT .10
	}
}

// seedSLO is the seed's SLO: TTFT ≤ 0.5 s and TPOT ≤ 0.05 s (a TPOT that is
// undefined holds vacuously).
func seedSLO(q Request) bool {
	return q.TTFT <= 500*time.Millisecond && (!q.HasTPOT || q.TPOT <= 50*time.Millisecond)
}

func summarize(t testing.TB, o Options, rs ...*record.Record) *Result {
	t.Helper()
	s := NewSummary(o)
	for _, r := range rs {
		s.Add(r)
	}
	return s.Close()
}

// near reports whether a and b agree to 1e-9 relative (or absolute near 0).
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b))
}

func checkNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !near(got, want) {
		t.Errorf("%s = %.12g, want %.12g", what, got, want)
	}
}
