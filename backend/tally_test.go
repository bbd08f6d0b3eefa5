package backend

import (
	"math"
	"reflect"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// no marks an absent usage count in tally tests.
const no = -1

// ev builds an event for tally tests.
type ev struct {
	tokens  int
	ids     bool // tokens are token ids
	choices bool
	usage   int // -1 none
	finish  string
	done    bool
}

func (e ev) event() *event {
	var x event
	x.reset()
	x.tokens, x.exact, x.choices, x.usage, x.done = e.tokens, e.ids, e.choices, e.usage, e.done
	if e.finish != "" {
		x.finish = []byte(e.finish)
	}
	return &x
}

func TestTally(t *testing.T) {
	text := func(usage int) ev { return ev{tokens: 1, choices: true, usage: usage} }
	tests := []struct {
		name   string
		events []ev
		want   []int32 // chunk tokens after close
		at     []int64 // chunk times (event index)
		source record.Source
	}{
		{"continuous usage, one token per chunk",
			[]ev{text(1), text(2), text(3)}, []int32{1, 1, 1}, []int64{0, 1, 2}, record.SourceUsage},
		{"continuous usage rising by 3 in one chunk",
			[]ev{text(1), text(4), text(5)}, []int32{1, 3, 1}, []int64{0, 1, 2}, record.SourceUsage},
		{"role-only chunk (usage 0) then content",
			[]ev{{choices: true, usage: 0}, text(1), text(2)}, []int32{1, 1}, []int64{1, 2}, record.SourceUsage},
		{"role-only chunk without usage (SGLang) then running counts",
			[]ev{{choices: true, usage: no}, text(1), {tokens: 1, choices: true, usage: 4}, text(5)}, []int32{1, 3, 1}, []int64{1, 2, 3}, record.SourceUsage},
		{"a rise without text is a token (EOS)",
			[]ev{text(1), {choices: true, usage: 2, finish: "stop"}}, []int32{1, 1}, []int64{0, 1}, record.SourceUsage},
		{"usage-only chunk after continuous: not a chunk",
			[]ev{text(1), text(2), {usage: 2}, {done: true, usage: -1}}, []int32{1, 1}, []int64{0, 1}, record.SourceUsage},
		{"N=1",
			[]ev{text(1), {usage: 1}}, []int32{1}, []int64{0}, record.SourceUsage},
		{"final usage spread evenly",
			[]ev{text(-1), text(-1), text(-1), {usage: 9}}, []int32{3, 3, 3}, []int64{0, 1, 2}, record.SourceUsage},
		{"final usage spread with a remainder",
			[]ev{text(-1), text(-1), text(-1), text(-1), {usage: 6}}, []int32{1, 2, 1, 2}, []int64{0, 1, 2, 3}, record.SourceUsage},
		{"final usage equal to the chunks",
			[]ev{text(-1), text(-1), {usage: 2}}, []int32{1, 1}, []int64{0, 1}, record.SourceUsage},
		{"final usage below the chunks: one each",
			[]ev{text(-1), text(-1), text(-1), {usage: 2}}, []int32{1, 1, 1}, []int64{0, 1, 2}, record.SourceChunks},
		{"final usage zero with chunks: one each",
			[]ev{text(-1), {usage: 0}}, []int32{1}, []int64{0}, record.SourceChunks},
		{"no usage at all",
			[]ev{text(-1), text(-1)}, []int32{1, 1}, []int64{0, 1}, record.SourceChunks},
		{"token ids without a total are exact",
			[]ev{{tokens: 2, ids: true, usage: no}, {tokens: 1, ids: true, usage: no}}, []int32{2, 1}, []int64{0, 1}, record.SourceUsage},
		{"token ids agreeing with the total",
			[]ev{{tokens: 2, ids: true, usage: no}, {tokens: 1, ids: true, usage: no}, {usage: 3, done: true}}, []int32{2, 1}, []int64{0, 1}, record.SourceUsage},
		{"token ids disagreeing with the total: spread by weight",
			[]ev{{tokens: 3, ids: true, usage: no}, {tokens: 1, ids: true, usage: no}, {usage: 8, done: true}}, []int32{5, 3}, []int64{0, 1}, record.SourceUsage},
		{"mixed ids and text without a total: one each",
			[]ev{{tokens: 3, ids: true, usage: no}, {tokens: 1, usage: no}}, []int32{1, 1}, []int64{0, 1}, record.SourceChunks},
		{"usage on the last content chunk only is a total, not a rise",
			[]ev{{choices: true, usage: -1}, text(-1), text(-1), {choices: true, usage: 5, finish: "stop"}}, []int32{2, 3}, []int64{1, 2}, record.SourceUsage},
		{"a running count going backwards: the last count is spread",
			[]ev{text(2), text(1), text(3)}, []int32{1, 1, 1}, []int64{0, 1, 2}, record.SourceUsage},
		{"no chunks, no usage", nil, nil, nil, record.SourceChunks},
		{"no chunks, usage reported",
			[]ev{{choices: true, usage: 0}, {usage: 0}}, nil, nil, record.SourceUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &record.Record{}
			tl := newTally()
			for i, e := range tt.events {
				tl.add(e.event(), int64(i), rec)
			}
			tl.close(rec)
			var got []int32
			var at []int64
			sum := 0
			for _, c := range rec.Chunks {
				got, at = append(got, c.Tokens), append(at, c.At)
				sum += int(c.Tokens)
			}
			if !reflect.DeepEqual(got, tt.want) || !reflect.DeepEqual(at, tt.at) || rec.TokenSource != tt.source {
				t.Fatalf("tokens %v at %v source %q; want %v at %v source %q", got, at, rec.TokenSource, tt.want, tt.at, tt.source)
			}
			if rec.OutputTokens != sum {
				t.Fatalf("OutputTokens %d, Σ chunks %d", rec.OutputTokens, sum)
			}
		})
	}
}

func TestTallyFinishAndPrompt(t *testing.T) {
	rec := &record.Record{InputTokens: 42}
	tl := newTally()
	e := ev{tokens: 1, usage: -1}.event()
	tl.add(e, 1, rec)
	if rec.InputTokens != 42 || rec.Finish != "" || tl.finished {
		t.Fatalf("an event without prompt or finish changed them: %+v", rec)
	}
	e = ev{finish: "length", done: true, usage: -1}.event()
	e.prompt = 7
	tl.add(e, 2, rec)
	if rec.InputTokens != 7 || rec.Finish != "length" || !tl.finished || !tl.done {
		t.Fatalf("input %d finish %q finished %v done %v; want 7, length, true, true", rec.InputTokens, rec.Finish, tl.finished, tl.done)
	}
}

func TestSpread(t *testing.T) {
	tests := []struct {
		name    string
		weights []int32
		total   int
		want    []int32
	}{
		{"total equals chunks", []int32{1, 1, 1}, 3, []int32{1, 1, 1}},
		{"one chunk takes all", []int32{1}, 17, []int32{17}},
		{"even split", []int32{1, 1}, 10, []int32{5, 5}},
		{"remainder goes by cumulative rounding", []int32{1, 1, 1}, 5, []int32{1, 2, 2}},
		{"weights steer the rest", []int32{1, 3}, 8, []int32{2, 6}},
		{"huge total stays exact", []int32{1, 1, 1}, math.MaxInt32, []int32{715827882, 715827882, 715827883}},
		{"huge weights stay exact", []int32{math.MaxInt32, math.MaxInt32}, 10, []int32{5, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks := make([]record.Chunk, len(tt.weights))
			for i, w := range tt.weights {
				chunks[i].Tokens = w
			}
			spread(chunks, tt.total)
			got := make([]int32, len(chunks))
			sum := 0
			for i, c := range chunks {
				got[i] = c.Tokens
				sum += int(c.Tokens)
				if c.Tokens < 1 {
					t.Errorf("chunk %d got %d tokens, want ≥ 1", i, c.Tokens)
				}
			}
			if sum != tt.total || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("spread %v over %d = %v (Σ %d), want %v", tt.weights, tt.total, got, sum, tt.want)
			}
		})
	}
}
