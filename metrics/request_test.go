package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

func TestCompute(t *testing.T) {
	msd := func(v float64) time.Duration { return time.Duration(ms(v)) }
	tests := []struct {
		name string
		r    *record.Record
		want Request
	}{
		{
			// Seed request A: TTFT .20, TPOT .05, e2e .40.
			name: "seed A, one token per chunk",
			r:    streamed(0, 200, 250, 300, 350, 400),
			want: Request{OK: true, OutputTokens: 5, Chunks: 5, HasSent: true,
				HasFirstToken: true, TTFT: msd(200), TTFTSent: msd(200),
				HasTPOT: true, TPOT: msd(50), HasE2E: true, E2E: msd(400),
				HasGaps: true, ITLMin: msd(50), ITLMax: msd(50), ChunkGapMin: msd(50), ChunkGapMax: msd(50)},
		},
		{
			// Client queue and ttft_sent split TTFT at the send time.
			name: "sent late: client queue and ttft_sent",
			r: &record.Record{Scheduled: ms(100), Sent: ms(130), End: ms(400),
				Chunks: oneTokenChunks(300, 350), OutputTokens: 2},
			want: Request{OK: true, OutputTokens: 2, Chunks: 2, HasSent: true, ClientQueue: msd(30),
				HasFirstToken: true, TTFT: msd(200), TTFTSent: msd(170),
				HasTPOT: true, TPOT: msd(50), HasE2E: true, E2E: msd(250),
				HasGaps: true, ITLMin: msd(50), ITLMax: msd(50), ChunkGapMin: msd(50), ChunkGapMax: msd(50)},
		},
		{
			// N = 1: no TPOT, no gaps; e2e is the first token.
			name: "one token: TPOT undefined",
			r:    streamed(0, 120),
			want: Request{OK: true, OutputTokens: 1, Chunks: 1, HasSent: true,
				HasFirstToken: true, TTFT: msd(120), TTFTSent: msd(120), HasE2E: true, E2E: msd(120)},
		},
		{
			// An answer that was not streamed: its 4 tokens came at once
			// with its end, so TTFT is its e2e and TPOT is not measured
			// (a streamed chunk of 4 would give a TPOT of 0).
			name: "whole answer: TPOT undefined",
			r: &record.Record{End: ms(300), OutputTokens: 4, Whole: true, Status: 200,
				Chunks: []record.Chunk{{At: ms(300), Tokens: 4}}},
			want: Request{OK: true, OutputTokens: 4, Chunks: 1, HasSent: true,
				HasFirstToken: true, TTFT: msd(300), TTFTSent: msd(300), HasE2E: true, E2E: msd(300)},
		},
		{
			// Chunks of 1, 3 and 2 tokens at 100, 160, 200 ms: gaps 60 and
			// 40 ms; per token 20 ms (3 tokens) and 20 ms (2 tokens); TPOT
			// over N = 6 is 100/5 = 20 ms.
			name: "multi-token chunks: ITL per token, gaps per chunk",
			r: &record.Record{End: ms(210), OutputTokens: 6, Chunks: []record.Chunk{
				{At: ms(100), Tokens: 1}, {At: ms(160), Tokens: 3}, {At: ms(200), Tokens: 2}}},
			want: Request{OK: true, OutputTokens: 6, Chunks: 3, HasSent: true,
				HasFirstToken: true, TTFT: msd(100), TTFTSent: msd(100),
				HasTPOT: true, TPOT: msd(20), HasE2E: true, E2E: msd(200),
				HasGaps: true, ITLMin: msd(20), ITLMax: msd(20), ChunkGapMin: msd(40), ChunkGapMax: msd(60)},
		},
		{
			// A zero-token chunk first (defensive: the parser never emits
			// one) is not the first token and ends no gap; a negative
			// one in the middle is skipped the same way.
			name: "zero-token and negative-token chunks are ignored",
			r: &record.Record{End: ms(300), Chunks: []record.Chunk{
				{At: ms(50), Tokens: 0}, {At: ms(100), Tokens: 1}, {At: ms(150), Tokens: -4}, {At: ms(200), Tokens: 1}}},
			want: Request{OK: true, OutputTokens: 2, Chunks: 2, HasSent: true,
				HasFirstToken: true, TTFT: msd(100), TTFTSent: msd(100),
				HasTPOT: true, TPOT: msd(100), HasE2E: true, E2E: msd(200),
				HasGaps: true, ITLMin: msd(100), ITLMax: msd(100), ChunkGapMin: msd(100), ChunkGapMax: msd(100)},
		},
		{
			// N comes from OutputTokens (usage) when it is set, even if
			// the chunks count fewer: TPOT = 100 ms / (11 − 1).
			name: "usage count wins over chunk count",
			r:    &record.Record{End: ms(200), OutputTokens: 11, Chunks: oneTokenChunks(100, 200)},
			want: Request{OK: true, OutputTokens: 11, Chunks: 2, HasSent: true,
				HasFirstToken: true, TTFT: msd(100), TTFTSent: msd(100),
				HasTPOT: true, TPOT: msd(10), HasE2E: true, E2E: msd(200),
				HasGaps: true, ITLMin: msd(100), ITLMax: msd(100), ChunkGapMin: msd(100), ChunkGapMax: msd(100)},
		},
		{
			// A success with no token at all ends at te: e2e = te − s.
			name: "success without tokens: e2e is the end",
			r:    &record.Record{Scheduled: ms(10), Sent: ms(10), End: ms(90)},
			want: Request{OK: true, HasSent: true, HasE2E: true, E2E: msd(80)},
		},
		{
			// A failure keeps what it measured; the Summary ignores it.
			name: "failed mid-stream",
			r:    &record.Record{End: ms(500), Error: record.ErrReset, Chunks: oneTokenChunks(100, 150)},
			want: Request{Error: record.ErrReset, OutputTokens: 2, Chunks: 2, HasSent: true,
				HasFirstToken: true, TTFT: msd(100), TTFTSent: msd(100),
				HasTPOT: true, TPOT: msd(50), HasE2E: true, E2E: msd(150),
				HasGaps: true, ITLMin: msd(50), ITLMax: msd(50), ChunkGapMin: msd(50), ChunkGapMax: msd(50)},
		},
		{
			// Never sent: no client queue, no e2e.
			name: "dropped",
			r:    &record.Record{Scheduled: ms(10), End: ms(10), Error: record.ErrDropped, Warmup: true, InputTokens: 9},
			want: Request{Error: record.ErrDropped, Warmup: true, InputTokens: 9},
		},
		{
			// Arrivals out of order (bad data) give a negative gap rather
			// than a panic or a wrapped-around huge value.
			name: "out-of-order arrivals",
			r:    &record.Record{End: ms(300), Chunks: oneTokenChunks(100, 300, 250)},
			want: Request{OK: true, OutputTokens: 3, Chunks: 3, HasSent: true,
				HasFirstToken: true, TTFT: msd(100), TTFTSent: msd(100),
				HasTPOT: true, TPOT: msd(75), HasE2E: true, E2E: msd(250),
				HasGaps: true, ITLMin: msd(-50), ITLMax: msd(200), ChunkGapMin: msd(-50), ChunkGapMax: msd(200)},
		},
		{
			// A gap of 10 ns over 3 tokens rounds to 3 ns a token.
			name: "per-token ITL rounds to the nanosecond",
			r:    &record.Record{End: 20, Chunks: []record.Chunk{{At: 0, Tokens: 1}, {At: 10, Tokens: 3}}},
			want: Request{OK: true, OutputTokens: 4, Chunks: 2, HasSent: true,
				HasFirstToken: true, HasTPOT: true, TPOT: 3, HasE2E: true, E2E: 10,
				HasGaps: true, ITLMin: 3, ITLMax: 3, ChunkGapMin: 10, ChunkGapMax: 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// None of these replies reasoned: the answer is the whole
			// output, so TTFA is TTFT and TPOT over the answer is TPOT.
			w := tt.want
			w.AnswerTokens = w.OutputTokens
			w.HasTTFA, w.TTFA = w.HasFirstToken, w.TTFT
			w.HasTPOTAnswer, w.TPOTAnswer = w.HasTPOT, w.TPOT
			got := Compute(tt.r)
			if got != w {
				t.Errorf("Compute =\n%+v\nwant\n%+v", got, w)
			}
		})
	}
}

// TestComputeE2EIdentity checks e2e = TTFT + (N − 1)·TPOT when N is the
// chunk count, for a few shapes.
func TestComputeE2EIdentity(t *testing.T) {
	for _, r := range []*record.Record{
		streamed(0, 200, 250, 300, 350, 400),
		streamed(100, 600, 640, 680, 720, 760, 800),
		streamed(200, 900, 1000, 1100),
	} {
		q := Compute(r)
		if got := q.TTFT + time.Duration(q.OutputTokens-1)*q.TPOT; got != q.E2E {
			t.Errorf("TTFT + (N−1)·TPOT = %v, e2e = %v", got, q.E2E)
		}
	}
}

func TestDivRound(t *testing.T) {
	tests := []struct{ a, k, want int64 }{
		{10, 3, 3},   // 3.33 → 3
		{11, 3, 4},   // 3.67 → 4
		{3, 2, 2},    // 1.5 → 2: halves away from zero
		{-3, 2, -2},  // −1.5 → −2
		{-10, 3, -3}, // −3.33 → −3
		{0, 7, 0},
		{7, 1, 7},
		{math.MaxInt64, 2, math.MaxInt64/2 + 1}, // no overflow near the top
		{math.MinInt64, 3, math.MinInt64/3 - 1}, // −…602.67 rounds to −…603
	}
	for _, tt := range tests {
		if got := divRound(tt.a, tt.k); got != tt.want {
			t.Errorf("divRound(%d, %d) = %d, want %d", tt.a, tt.k, got, tt.want)
		}
	}
}
