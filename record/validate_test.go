package record

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// ok is a success every test below starts from: s ≤ t0 ≤ c1 ≤ c2 ≤ te.
func ok() Record {
	return Record{
		Seq: 3, Scheduled: 100, Sent: 110, End: 400,
		Chunks:      []Chunk{{At: 200, Tokens: 1}, {At: 300, Tokens: 2}},
		InputTokens: 8, OutputTokens: 3, TokenSource: SourceChunks, Status: 200,
	}
}

func TestCheckAcceptsWhatWritersProduce(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *Record)
	}{
		// the plain success
		{"success", func(r *Record) {}},
		// every time equal: a request answered in no time at all
		{"all equal", func(r *Record) {
			r.Scheduled, r.Sent, r.End = 5, 5, 5
			r.Chunks = []Chunk{{At: 5, Tokens: 1}, {At: 5, Tokens: 2}}
		}},
		// a failure before any byte: no chunks, end at send
		{"failed at send", func(r *Record) {
			r.Chunks, r.OutputTokens, r.End, r.Error, r.Msg, r.Status = nil, 0, r.Sent, ErrConnect, "refused", 0
		}},
		// a zero-token success
		{"no tokens", func(r *Record) { r.Chunks, r.OutputTokens = nil, 0 }},
		// the server's count differs from the chunks: usage wins, no rule broken
		{"usage count", func(r *Record) { r.TokenSource, r.OutputTokens = SourceUsage, 7 }},
		// a chunk without tokens (tolerated, ignored by metrics)
		{"zero-token chunk", func(r *Record) { r.Chunks[0].Tokens = 0; r.OutputTokens = 2 }},
		// a dropped request: never sent, so neither sent nor end time
		{"dropped unset", func(r *Record) {
			*r = Record{Seq: 9, Scheduled: 2500, Error: ErrDropped, InputTokens: 4}
		}},
		// a dropped request whose end is its scheduled time
		{"dropped at schedule", func(r *Record) {
			*r = Record{Seq: 9, Scheduled: 2500, End: 2500, Error: ErrDropped}
		}},
		// canceled while waiting for a slot: sent and ended at once, later
		{"canceled in queue", func(r *Record) {
			r.Chunks, r.OutputTokens, r.Sent, r.End, r.Error = nil, 0, 900, 900, ErrCanceled
		}},
		// warm-up records obey the same rules, and pass
		{"warm-up", func(r *Record) { r.Warmup = true }},
		// an all-zero record (a hand-written minimal line)
		{"zero", func(r *Record) { *r = Record{} }},
		// a reasoning chunk, then the answer, counted over the chunks
		{"reasoning counted", func(r *Record) {
			r.Chunks[0].Reasoning = true
			r.ReasoningTokens, r.ReasoningSource = 1, SourceChunks
		}},
		// the server's reasoning count: more than the chunks show, no more than out
		{"reasoning reported", func(r *Record) {
			r.Chunks[0].Reasoning = true
			r.TokenSource, r.OutputTokens, r.ReasoningTokens, r.ReasoningSource = SourceUsage, 7, 7, SourceUsage
		}},
		// reasoning reported but never streamed (hidden reasoning)
		{"reasoning hidden", func(r *Record) { r.ReasoningTokens, r.ReasoningSource = 2, SourceUsage }},
		// a reply cut off while it was still reasoning: no answer chunk
		{"reasoning only", func(r *Record) {
			r.Chunks[0].Reasoning, r.Chunks[1].Reasoning = true, true
			r.ReasoningTokens, r.ReasoningSource = 3, SourceChunks
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ok()
			tc.edit(&r)
			if err := r.Check(); err != nil {
				t.Errorf("Check() = %v, want nil for %+v", err, r)
			}
		})
	}
}

// impossible lists records no writer can produce, each with the words its
// error must hold: the field (as the file names it) and what is wrong.
var impossible = []struct {
	name string
	edit func(r *Record)
	want string
}{
	// sent before it was scheduled
	{"sent early", func(r *Record) { r.Sent = 90 }, `"t0" 90 is before "s" 100`},
	// first token before the request left
	{"token before send", func(r *Record) { r.Chunks[0].At = 105 }, `"ct"[0]: chunk at 105 is before "t0" 110`},
	// a chunk gap that goes back in time
	{"negative gap", func(r *Record) { r.Chunks[1].At = 150 }, `"ct"[1]: chunk at 150 is before the chunk before it, at 200`},
	// the response ended before its last token
	{"end before last token", func(r *Record) { r.End = 250 }, `"te" 250 is before the last chunk, at 300`},
	// the response ended before it was sent
	{"end before send", func(r *Record) { r.Chunks, r.OutputTokens, r.End = nil, 0, 50 }, `"te" 50 is before "t0" 110`},
	// negative token counts
	{"negative out", func(r *Record) { r.OutputTokens = -3 }, `"out" -3 is negative`},
	{"negative in", func(r *Record) { r.InputTokens = -1 }, `"in" -1 is negative`},
	{"negative chunk tokens", func(r *Record) { r.Chunks[1].Tokens = -2 }, `"ck"[1] -2 is negative`},
	// counted one per chunk, yet a different count
	{"chunk count", func(r *Record) { r.OutputTokens = 9 }, `"out" 9 with "src" "chunks" must equal the chunks' 3 tokens`},
	// reasoning tokens are output tokens: never more than them
	{"reasoning over out", func(r *Record) {
		r.Chunks[0].Reasoning, r.ReasoningTokens, r.ReasoningSource = true, 4, SourceUsage
	}, `"rt" 4 is more than "out" 3`},
	{"negative reasoning", func(r *Record) { r.ReasoningTokens = -1 }, `"rt" -1 is negative`},
	// every reasoning chunk carried at least one reasoning token
	{"reasoning chunks uncounted", func(r *Record) {
		r.Chunks[0].Reasoning, r.Chunks[1].Reasoning = true, true
		r.ReasoningTokens, r.ReasoningSource = 1, SourceUsage
	}, `"rt" 1 is less than the 2 reasoning chunks ("cr")`},
	// counted over the chunks, yet another count
	{"reasoning count", func(r *Record) {
		r.Chunks[1].Reasoning, r.ReasoningTokens, r.ReasoningSource = true, 1, SourceChunks
	}, `"rt" 1 with "rsrc" "chunks" must equal the reasoning chunks' 2 tokens`},
	// a negative sequence number
	{"negative seq", func(r *Record) { r.Seq = -1 }, `"seq" -1 is negative`},
	// an HTTP status no server sends
	{"status", func(r *Record) { r.Status = -200 }, `"status" -200 is not an HTTP status`},
	// a dropped request cannot have received tokens
	{"dropped with tokens", func(r *Record) { r.Error = ErrDropped }, `a dropped request (never sent) has 2 chunks`},
	// times so far apart that their difference would overflow: a TTFT
	// of −2⁶³ ns, which every SLO would pass
	{"time out of range", func(r *Record) { r.Scheduled = -9223372036854000000 }, `a time ("s" -9223372036854000000, "t0" 110, "te" 400) is more than`},
	{"chunk time out of range", func(r *Record) { r.Chunks[1].At = 1<<62 + 1 }, `"ct"[1] 4611686018427387905 is more than`},
	// a dropped request ending before it was scheduled
	{"dropped end", func(r *Record) {
		*r = Record{Seq: 1, Scheduled: 500, End: 100, Error: ErrDropped}
	}, `"te" 100 is before "s" 500`},
}

func TestCheckRejectsImpossibleRecords(t *testing.T) {
	for _, tc := range impossible {
		t.Run(tc.name, func(t *testing.T) {
			r := ok()
			tc.edit(&r)
			err := r.Check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Check() = %v, want it to say %q", err, tc.want)
			}
		})
	}
}

// Every impossible record is refused by the decoder, with the file and
// the line, whatever comes before it.
func TestDecoderRejectsImpossibleRecordsWithFileAndLine(t *testing.T) {
	for _, tc := range impossible {
		t.Run(tc.name, func(t *testing.T) {
			good, bad := ok(), ok()
			tc.edit(&bad)
			if tc.name == "negative chunk tokens" {
				// The decoder refuses it while parsing "ck".
				return
			}
			var b bytes.Buffer
			b.WriteString(`{"kind":"goodput.run","schema":1}` + "\n")
			b.Write(append(AppendJSON(nil, &good), '\n'))
			b.Write(append(AppendJSON(nil, &bad), '\n'))
			d := NewDecoder(&b, "run.jsonl")
			var r Record
			if err := d.Next(&r); err != nil {
				t.Fatalf("good record: %v", err)
			}
			err := d.Next(&r)
			if err == nil || !strings.Contains(err.Error(), "run.jsonl:3: ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want run.jsonl:3 and %q", err, tc.want)
			}
		})
	}
}

// genRecord draws a record that keeps every invariant: any producer's
// output, in all its shapes.
func genRecord(rng *rand.Rand, seq int64) Record {
	s := rng.Int64N(1e12)
	r := Record{Seq: seq, Scheduled: s, Sent: s + rng.Int64N(1e6), InputTokens: rng.IntN(9000),
		Warmup: rng.IntN(10) == 0}
	at := r.Sent
	switch rng.IntN(6) {
	case 0: // failed before any byte
		r.Error, r.Msg, r.End = []ErrorKind{ErrConnect, ErrTimeout, ErrReset, ErrHTTP}[rng.IntN(4)], "failed", r.Sent+rng.Int64N(1e9)
		if r.Error == ErrHTTP {
			r.Status = 500 + rng.IntN(4)
		}
		return r
	case 1: // dropped
		return Record{Seq: seq, Scheduled: s, Error: ErrDropped, Msg: "no worker free"}
	}
	n := rng.IntN(40)
	tokens := 0
	multi := rng.IntN(3) == 0
	for range n {
		at += rng.Int64N(1e8) // gaps of zero included
		k := int32(1)
		if multi {
			k = int32(1 + rng.IntN(4))
		}
		r.Chunks = append(r.Chunks, Chunk{At: at, Tokens: k})
		tokens += int(k)
	}
	r.End = at + rng.Int64N(1e6)
	r.OutputTokens, r.TokenSource = tokens, SourceChunks
	if rng.IntN(2) == 0 {
		r.TokenSource = SourceUsage
		r.OutputTokens = tokens + rng.IntN(3)
	}
	r.Status, r.Finish = 200, "length"
	if rng.IntN(3) == 0 {
		reason(rng, &r)
	}
	if rng.IntN(8) == 0 {
		r.Error, r.Msg = ErrReset, "cut mid-stream"
	}
	return r
}

// reason makes r a reasoning model's reply: runs of reasoning chunks (a
// leading one, sometimes more between answer chunks), counted over the
// chunks or reported by the server, or reasoning reported but never
// streamed.
func reason(rng *rand.Rand, r *Record) {
	var sum int
	interleave := rng.IntN(4) == 0
	lead := rng.IntN(len(r.Chunks) + 1)
	for i := range r.Chunks {
		if i < lead || interleave && rng.IntN(3) == 0 {
			r.Chunks[i].Reasoning = true
			sum += int(r.Chunks[i].Tokens)
		}
	}
	r.ReasoningTokens, r.ReasoningSource = sum, SourceChunks
	if rng.IntN(2) == 0 { // the server's own count, at least the chunks'
		r.ReasoningSource = SourceUsage
		r.ReasoningTokens = sum + rng.IntN(r.OutputTokens-sum+1)
	}
	if r.ReasoningTokens == 0 && rng.IntN(2) == 0 {
		r.ReasoningSource = "" // a reply without reasoning says nothing
	}
}

// breakRecord makes one invariant of r false, in one of the ways a
// corrupt or hand-edited file breaks it, and says which.
func breakRecord(rng *rand.Rand, r *Record) string {
	for {
		switch rng.IntN(11) {
		case 0:
			if r.Error == ErrDropped {
				continue
			}
			r.Sent = r.Scheduled - 1 - rng.Int64N(1e9)
			return "sent before scheduled"
		case 1:
			if len(r.Chunks) == 0 {
				continue
			}
			r.Chunks[0].At = r.Sent - 1 - rng.Int64N(1e9)
			return "first chunk before sent"
		case 2:
			if len(r.Chunks) < 2 {
				continue
			}
			i := 1 + rng.IntN(len(r.Chunks)-1)
			r.Chunks[i].At = r.Chunks[i-1].At - 1 - rng.Int64N(1e9)
			return "a chunk before the one before it"
		case 3:
			if r.Error == ErrDropped && r.End == 0 {
				continue
			}
			last := max(r.Sent, r.Scheduled)
			if c, ok := r.LastToken(); ok {
				last = c
			}
			r.End = last - 1 - rng.Int64N(1e9)
			return "end before the last event"
		case 4:
			r.OutputTokens = -1 - rng.IntN(1000)
			return "negative output tokens"
		case 5:
			r.InputTokens = -1 - rng.IntN(1000)
			return "negative input tokens"
		case 6:
			if r.TokenSource != SourceChunks || len(r.Chunks) == 0 {
				continue
			}
			r.OutputTokens += 1 + rng.IntN(5)
			return "a chunk count that is not the chunks'"
		case 7:
			r.ReasoningTokens = r.OutputTokens + 1 + rng.IntN(5)
			return "more reasoning tokens than output tokens"
		case 8:
			if r.ReasoningSource != SourceChunks || r.ReasoningTokens == 0 {
				continue
			}
			r.ReasoningTokens--
			return "a reasoning count that is not the reasoning chunks'"
		case 9:
			r.ReasoningTokens = -1 - rng.IntN(1000)
			return "negative reasoning tokens"
		case 10:
			// A count past any request's, whose sums would overflow.
			n := MaxTokens + 1 + rng.IntN(1<<40)
			switch rng.IntN(3) {
			case 0:
				r.InputTokens = n
			case 1:
				r.CachedTokens, r.CacheReported = n, true
			default:
				r.OutputTokens = n
			}
			return "a token count past MaxTokens"
		}
	}
}

// Property: every generated record passes Check and survives a trip
// through the file format unchanged; the same record with any one
// invariant broken fails Check, and the decoder refuses its line.
func TestCheckPropertyOverGeneratedRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 2026))
	for i := range 3000 {
		r := genRecord(rng, int64(i))
		if err := r.Check(); err != nil {
			t.Fatalf("generated record %d fails: %v\n%+v", i, err, r)
		}
		line := AppendJSON(nil, &r)
		var back Record
		if err := NewDecoder(bytes.NewReader(line), "gen").Next(&back); err != nil {
			t.Fatalf("record %d: %s: %v", i, line, err)
		}
		if len(back.Chunks) == 0 {
			back.Chunks = nil
		}
		if !reflect.DeepEqual(back, r) {
			t.Fatalf("record %d changed in the file:\n got %+v\nwant %+v", i, back, r)
		}

		bad := r
		bad.Chunks = append([]Chunk(nil), r.Chunks...)
		how := breakRecord(rng, &bad)
		if err := bad.Check(); err == nil {
			t.Fatalf("record %d with %s passes Check: %+v", i, how, bad)
		}
		line = AppendJSON(nil, &bad)
		err := NewDecoder(bytes.NewReader(append([]byte("{\"seq\":0}\n"), line...)), "gen.jsonl").Next(&back)
		if err != nil {
			t.Fatalf("first line refused: %v", err)
		}
		d := NewDecoder(bytes.NewReader(append([]byte("{\"seq\":0}\n"), line...)), "gen.jsonl")
		d.Next(&back)
		if err := d.Next(&back); err == nil || !strings.HasPrefix(err.Error(), "gen.jsonl:2: ") {
			t.Fatalf("record %d with %s: decoder said %v, want an error at gen.jsonl:2", i, how, err)
		}
	}
}

// A record line whose chunk deltas overflow int64 cannot come back as a
// valid record, however it wraps.
func TestDecoderRefusesOverflowingChunkTimes(t *testing.T) {
	for _, line := range []string{
		`{"seq":0,"t0":9000000000000000000,"ct":[9000000000000000000],"te":9223372036854775807}`,
		`{"seq":0,"ct":[9000000000000000000,9000000000000000000,9000000000000000000]}`,
	} {
		var r Record
		err := NewDecoder(strings.NewReader(line), "big.jsonl").Next(&r)
		if err == nil {
			t.Errorf("%s decoded to %+v", line, r)
		}
	}
}

func ExampleRecord_Check() {
	r := Record{Seq: 1, Scheduled: 100, Sent: 90, End: 200}
	fmt.Println(r.Check())
	fmt.Println(errors.Is(r.Check(), ErrImpossible))
	// Output:
	// impossible record: "t0" 90 is before "s" 100: time goes backwards
	// true
}
