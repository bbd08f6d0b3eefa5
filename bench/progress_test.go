package bench

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

func TestProgressLineReadsTTFTAndTPOT(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, false, 3)
	// TTFT 120 ms; 5 tokens over 40 ms after the first: TPOT 10 ms.
	ok := &record.Record{Scheduled: 0, Sent: 1e6, OutputTokens: 5, Chunks: []record.Chunk{
		{At: 120e6, Tokens: 1}, {At: 140e6, Tokens: 2}, {At: 160e6, Tokens: 2}}}
	one := &record.Record{Scheduled: 0, OutputTokens: 1, Chunks: []record.Chunk{{At: 120e6, Tokens: 1}}} // no TPOT
	failed := &record.Record{Error: record.ErrHTTP}
	p.add(ok)
	p.add(one)
	p.add(failed)
	line := p.line()
	for _, want := range []string{"[3/3]", "failed 1", "TTFT p50 120ms p99 120ms", "TPOT p50 10ms p99 10ms"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
}
