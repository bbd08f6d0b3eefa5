package vllmresult

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/vllmcheck"
	"github.com/goodput-dev/goodput/record"
)

const ms = int64(time.Millisecond)

// rec is a successful record sent at sent with one-token chunks at the
// given times, all in ms.
func rec(sent int64, chunks ...int64) *record.Record {
	r := &record.Record{Sent: sent * ms, OutputTokens: len(chunks)}
	for _, c := range chunks {
		r.Chunks = append(r.Chunks, record.Chunk{At: c * ms, Tokens: 1})
	}
	if len(chunks) > 0 {
		r.End = r.Chunks[len(r.Chunks)-1].At
	}
	return r
}

// The peaks are counted in seconds from the earliest successful send,
// however late that request ends; a request counts in every second it was
// active in, so three requests one after another in one second count as
// three.
func TestPeakCounterCountsVLLMsSeconds(t *testing.T) {
	a := rec(500, 600, 1400, 1600)
	failed := &record.Record{Sent: 100 * ms, End: 150 * ms, Error: record.ErrUnavailable}
	b := rec(200, 1100, 1300) // sent before a, ended after it: m = 200 ms
	e1 := rec(2210, 2220)
	e2 := rec(2230, 2240)
	whole := rec(2300, 2900)
	whole.Whole, whole.OutputTokens = true, 2
	warm := rec(10, 20, 30, 40, 50, 60, 70)
	warm.Warmup = true

	p := NewPeakCounter(0)
	for _, r := range []*record.Record{a, failed, b, e1, e2, whole, warm} {
		p.AddRecord(r)
	}
	tok, conc, ok := p.Figures()
	// Seconds from 200 ms: [0] a's 600, b's 1100; [1] a's 1400 and 1600,
	// b's 1300; [2] e1, e2 and the whole answer's two tokens.
	if !ok || tok != 4 {
		t.Errorf("tokens per second = %v (ok %v), want 4", tok, ok)
	}
	// a and b are active in seconds 0 and 1; e1, e2 and the whole answer
	// in second 2, though never two at once.
	if conc != 3 {
		t.Errorf("concurrent requests = %d, want 3", conc)
	}
}

// A token exactly one second after m is in the second bucket, one
// nanosecond earlier in the first.
func TestPeakCounterBucketEdges(t *testing.T) {
	p := NewPeakCounter(0)
	first := &record.Record{Sent: 300 * ms, Chunks: []record.Chunk{{At: 1300*ms - 1, Tokens: 1}}, OutputTokens: 1}
	second := &record.Record{Sent: 400 * ms, Chunks: []record.Chunk{{At: 1300 * ms, Tokens: 1}, {At: 1301 * ms, Tokens: 1}}, OutputTokens: 2}
	p.AddRecord(second) // ends first, so the bound starts at 400 ms
	p.AddRecord(first)
	tok, conc, _ := p.Figures()
	if tok != 2 || conc != 2 {
		t.Errorf("figures = %v, %d; want 2 tokens (1300 and 1301 ms), 2 requests (both in second 0)", tok, conc)
	}
}

// A token of a clock gone wrong, months after the send, is counted in its
// own second without a bucket for every second between.
func TestPeakCounterFarTimes(t *testing.T) {
	p := NewPeakCounter(0)
	far := int64(100*24*3600) * 1e9
	p.AddRecord(&record.Record{Sent: ms, Chunks: []record.Chunk{{At: 2 * ms, Tokens: 1}, {At: far + 500*ms, Tokens: 1}, {At: far + 600*ms, Tokens: 1}}, OutputTokens: 3})
	tok, conc, ok := p.Figures()
	if !ok || tok != 2 || conc != 1 {
		t.Errorf("figures = %v, %d, %v; want 2 tokens in the far second, 1 request", tok, conc, ok)
	}
	if n := len(p.counts[kindToken]); n > 1 {
		t.Errorf("%d buckets for a run of two seconds and one far one", n)
	}
}

func TestPeakCounterWithoutSuccess(t *testing.T) {
	p := NewPeakCounter(0)
	p.AddRecord(&record.Record{Sent: ms, Error: record.ErrTimeout})
	p.AddRecord(&record.Record{Sent: ms}) // no chunk: vLLM fails it
	if tok, conc, ok := p.Figures(); tok != 0 || conc != 0 || !ok {
		t.Errorf("figures = %v, %d, %v; want 0, 0, true", tok, conc, ok)
	}
}

// A send before the floor breaks the counter's premise: its figures are
// then unknown, never wrong.
func TestPeakCounterSendBeforeFloor(t *testing.T) {
	p := NewPeakCounter(100 * ms)
	p.AddRecord(rec(150, 200))
	p.AddRecord(rec(50, 300))
	if _, _, ok := p.Figures(); ok {
		t.Error("a send before the floor gave figures")
	}
}

// randomRun is n requests sent over about a minute from first on, each with
// up to 40 chunks, some failed, and some whole answers when whole is set;
// it returns them in the order they ended.
func randomRun(rng *rand.Rand, n int, first int64, whole bool) []*record.Record {
	var out []*record.Record
	for i := range n {
		sent := first + int64(i)*int64(rng.IntN(200))*ms + rng.Int64N(ms)
		if i == 0 {
			sent = first
		}
		r := &record.Record{Seq: int64(i), Sent: sent}
		t := sent
		for range 1 + rng.IntN(40) {
			t += rng.Int64N(300 * ms)
			r.Chunks = append(r.Chunks, record.Chunk{At: t, Tokens: 1})
		}
		r.OutputTokens, r.End = len(r.Chunks), t
		if rng.IntN(10) == 0 {
			r.Error, r.Chunks = record.ErrHTTP, nil
		}
		if whole && r.Chunks != nil && rng.IntN(5) == 0 {
			r.Whole, r.Chunks, r.OutputTokens = true, r.Chunks[:1], 1+rng.IntN(50)
		}
		out = append(out, r)
	}
	// End order, as a run hands its records over.
	for i := range out {
		j := i + rng.IntN(min(8, len(out)-i))
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// Counted as the records end, from a floor below the first send, the
// peaks are those of the whole run's requests counted at once, and those
// that vLLM's own definition gives on the file goodput writes. (A whole
// answer, which vLLM's streaming client never gets, brings all its tokens
// where vLLM's formula would count one.)
func TestPeakCounterAgreesWithTheWholeRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	for trial := range 200 {
		floor := rng.Int64N(2e9)
		first := floor + rng.Int64N(1e9) // up to a second after the floor
		whole := trial%2 == 1
		recs := randomRun(rng, 1+rng.IntN(60), first, whole)
		p := NewPeakCounter(floor)
		var reqs []Request
		for _, r := range recs {
			p.AddRecord(r)
			reqs = append(reqs, FromRecord(r, false))
		}
		tok, conc, ok := p.Figures()
		wantTok, wantConc := Peaks(reqs)
		if !ok || tok != wantTok || conc != wantConc {
			t.Fatalf("trial %d: streamed %v, %d (ok %v); whole run %v, %d", trial, tok, conc, ok, wantTok, wantConc)
		}
		if whole {
			continue
		}
		m := decode(t, Build(Run{Date: time.Now(), Backend: "vllm", Duration: 60, Metrics: AllMetrics, Percentiles: []float64{99}, Detailed: true}, reqs))
		for _, bad := range vllmcheck.Check(m).Bad {
			if strings.HasPrefix(bad, "max_") {
				t.Fatalf("trial %d: %s", trial, bad)
			}
		}
	}
}

// The times kept until m is known are those within the first send's lag
// after a second's boundary: a run whose first request went out 1 ms after
// the floor keeps about a thousandth of its tokens.
func TestPeakCounterKeepsFew(t *testing.T) {
	p := NewPeakCounter(0)
	tokens := 0
	for i := range 2000 {
		sent := 1*ms + int64(i)*50*ms
		r := &record.Record{Sent: sent}
		for k := range 100 {
			r.Chunks = append(r.Chunks, record.Chunk{At: sent + int64(k+1)*7*ms + 13, Tokens: 1})
		}
		r.OutputTokens = len(r.Chunks)
		tokens += len(r.Chunks)
		p.AddRecord(r)
	}
	if len(p.kept) > tokens/200 {
		t.Errorf("kept %d times of %d tokens, want at most %d", len(p.kept), tokens, tokens/200)
	}
	if len(p.kept) == 0 {
		t.Error("kept nothing: the tokens within 1 ms after a boundary must wait for m")
	}
}

// BenchmarkPeakCounter is the cost a run pays per record of 128 one-token
// chunks to count vLLM's peaks as it goes.
func BenchmarkPeakCounter(b *testing.B) {
	r := &record.Record{OutputTokens: 128}
	for k := range 128 {
		r.Chunks = append(r.Chunks, record.Chunk{At: int64(k+1) * 20 * ms, Tokens: 1})
	}
	p := NewPeakCounter(0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		// Sends 10 ms apart from 1 ms: a run of hours as b.N grows.
		off := ms + int64(i%100000)*10*ms
		r.Sent = off
		for k := range r.Chunks {
			r.Chunks[k].At = off + int64(k+1)*20*ms
		}
		p.AddRecord(r)
	}
}
