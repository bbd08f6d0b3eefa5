package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sample() []Record {
	return []Record{
		{ // a plain success, one token per chunk
			Seq: 0, Scheduled: 0, Sent: 1_000, End: 90_000_000,
			Chunks:      []Chunk{{At: 20_000_000, Tokens: 1}, {At: 45_000_000, Tokens: 1}, {At: 89_999_999, Tokens: 1}},
			InputTokens: 12, OutputTokens: 3, TokenSource: SourceUsage, Status: 200, Finish: "length",
		},
		{ // multi-token chunks, labels, warm-up
			Seq: 1, Scheduled: 5, Sent: 7, End: 100,
			Chunks:      []Chunk{{At: 50, Tokens: 2}, {At: 80, Tokens: 3}},
			InputTokens: 1, OutputTokens: 5, TokenSource: SourceChunks, Status: 200, Finish: "stop",
			Warmup: true, Labels: map[string]string{"point": "c16", "z": "quote\" and \\ and \n"},
			RequestID: "bench-0a1b2c3d-1",
		},
		{ // a reasoning model: two reasoning chunks, the answer, reasoning again
			Seq: 3, Scheduled: 200, Sent: 210, End: 900,
			Chunks: []Chunk{{At: 300, Tokens: 1, Reasoning: true}, {At: 400, Tokens: 2, Reasoning: true},
				{At: 500, Tokens: 1}, {At: 600, Tokens: 1, Reasoning: true}, {At: 700, Tokens: 1}},
			InputTokens: 9, OutputTokens: 6, TokenSource: SourceUsage, ReasoningTokens: 4, ReasoningSource: SourceChunks,
			Status: 200, Finish: "stop",
		},
		{ // a failure with no tokens and an awkward message
			Seq: 2, Scheduled: 10, Sent: 10, End: 30, Status: 503,
			Error: ErrUnavailable, Msg: "busy \x01 \t ünïcode",
		},
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	h := Header{Start: time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC), Tool: "goodput test", Config: json.RawMessage(`{"rate":5}`)}
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	in := sample()
	for i := range in {
		if err := w.Write(&in[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(Trailer{Interrupted: true, Reason: "signal", End: 123}); err != nil {
		t.Fatal(err)
	}

	d := NewDecoder(&buf, "run.jsonl")
	gotH, err := d.Header()
	if err != nil {
		t.Fatal(err)
	}
	if gotH.Kind != KindHeader || gotH.Schema != SchemaVersion || !gotH.Start.Equal(h.Start) || gotH.Tool != h.Tool || string(gotH.Config) != `{"rate":5}` {
		t.Errorf("header = %+v", gotH)
	}
	var got []Record
	var r Record
	for {
		err := d.Next(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		c := r
		c.Chunks = append([]Chunk(nil), r.Chunks...)
		if len(c.Chunks) == 0 {
			c.Chunks = nil
		}
		got = append(got, c)
	}
	want := sample()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records differ:\n got %+v\nwant %+v", got, want)
	}
	tr, ok := d.Trailer()
	if !ok || tr.Records != 4 || !tr.Interrupted || tr.Reason != "signal" || tr.End != 123 {
		t.Errorf("trailer = %+v, %v", tr, ok)
	}
}

func TestEncodingIsCompactAndDeltaCoded(t *testing.T) {
	r := sample()[0]
	got := string(AppendJSON(nil, &r))
	want := `{"seq":0,"s":0,"t0":1000,"te":90000000,"ct":[19999000,25000000,44999999],"in":12,"out":3,"src":"usage","status":200,"fin":"length"}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Error("not valid JSON")
	}
}

// The reasoning chunks are written as run lengths beside the chunk times,
// and only when a chunk was reasoning: a record of a model that does not
// reason is written exactly as before.
func TestReasoningRunsEncoding(t *testing.T) {
	flags := func(fs ...bool) []Chunk {
		cs := make([]Chunk, len(fs))
		for i, f := range fs {
			cs[i] = Chunk{At: int64(10 * (i + 1)), Tokens: 1, Reasoning: f}
		}
		return cs
	}
	tests := []struct {
		name   string
		chunks []Chunk
		want   string // the "cr" key as written, "" for none
	}{
		// no reasoning: no key at all
		{"none", flags(false, false, false), ""},
		// think, then answer: one run, the answer left implicit
		{"think then answer", flags(true, true, true, false, false), `,"cr":[3]`},
		// a reply cut off while thinking: every chunk reasoning
		{"only reasoning", flags(true, true), `,"cr":[2]`},
		// an answer first, then thinking: an empty reasoning run leads
		{"answer first", flags(false, false, true, true, true, false), `,"cr":[0,2,3]`},
		// thinking that resumes after part of the answer
		{"interleaved", flags(true, false, true, true, false), `,"cr":[1,1,2]`},
		// one reasoning chunk
		{"single", flags(true), `,"cr":[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Record{Seq: 1, Sent: 0, End: 100, Chunks: tt.chunks, OutputTokens: len(tt.chunks), TokenSource: SourceChunks}
			for _, c := range tt.chunks {
				if c.Reasoning {
					r.ReasoningTokens++
				}
			}
			if r.ReasoningTokens > 0 {
				r.ReasoningSource = SourceChunks
			}
			line := AppendJSON(nil, &r)
			got := ""
			if i := bytes.Index(line, []byte(`,"cr":`)); i >= 0 {
				j := bytes.IndexByte(line[i:], ']')
				got = string(line[i : i+j+1])
			}
			if got != tt.want {
				t.Errorf("wrote %s; want the key %q", line, tt.want)
			}
			var back Record
			if err := NewDecoder(bytes.NewReader(line), "r.jsonl").Next(&back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, r) {
				t.Errorf("read back %+v, want %+v", back, r)
			}
		})
	}
}

// Files written before reasoning was recorded have no "cr", "rt" or
// "rsrc": their chunks read as answer, their replies as without
// reasoning. A file from another writer may put "cr" before "ct".
func TestReasoningKeysOldAndReordered(t *testing.T) {
	lines := []struct {
		name, line string
		flags      []bool
		rt         int
		src        Source
	}{
		// an old line: nothing says reasoning
		{"old", `{"seq":0,"s":0,"t0":5,"te":40,"ct":[5,10,10],"in":3,"out":3,"src":"usage"}`, []bool{false, false, false}, 0, ""},
		// keys sorted by another tool: cr before ct, rt before src
		{"sorted keys", `{"cr":[2],"ct":[5,10,10],"in":3,"out":3,"rsrc":"usage","rt":3,"s":0,"seq":0,"src":"usage","t0":5,"te":40}`, []bool{true, true, false}, 3, SourceUsage},
		// null means absent, for the new keys too
		{"nulls", `{"seq":0,"t0":5,"te":40,"ct":[5],"cr":null,"rt":null,"rsrc":null,"out":1}`, []bool{false}, 0, ""},
	}
	for _, tt := range lines {
		t.Run(tt.name, func(t *testing.T) {
			var r Record
			if err := NewDecoder(strings.NewReader(tt.line), "old.jsonl").Next(&r); err != nil {
				t.Fatal(err)
			}
			var flags []bool
			for _, c := range r.Chunks {
				flags = append(flags, c.Reasoning)
			}
			if !reflect.DeepEqual(flags, tt.flags) || r.ReasoningTokens != tt.rt || r.ReasoningSource != tt.src {
				t.Errorf("reasoning %v, rt %d, rsrc %q; want %v, %d, %q", flags, r.ReasoningTokens, r.ReasoningSource, tt.flags, tt.rt, tt.src)
			}
		})
	}
}

// Bad "cr" values name the key and what is wrong, with the file and line.
func TestReasoningRunsErrors(t *testing.T) {
	tests := []struct{ line, want string }{
		// more reasoning chunks than chunks
		{`{"seq":0,"t0":5,"te":40,"ct":[5,10],"cr":[1,0,2],"out":2,"rt":2}`, `old.jsonl:1: "cr" covers 3 chunks but "ct" has 2`},
		// a negative run
		{`{"seq":0,"ct":[5],"cr":[-1],"out":1}`, "reasoning run -1 out of range"},
		// not an array
		{`{"seq":0,"ct":[5],"cr":"1","out":1}`, "old.jsonl:1: "},
		// reasoning chunks but no reasoning count: impossible
		{`{"seq":0,"t0":5,"te":40,"ct":[5],"cr":[1],"out":1}`, `"rt" 0 is less than the 1 reasoning chunks`},
	}
	for _, tt := range tests {
		var r Record
		err := NewDecoder(strings.NewReader(tt.line), "old.jsonl").Next(&r)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to say %q", tt.line, err, tt.want)
		}
	}
}

func TestInvalidUTF8BecomesReplacement(t *testing.T) {
	r := Record{Seq: 1, Error: ErrMalformed, Msg: "bad \xff\xfe bytes"}
	b := AppendJSON(nil, &r)
	if !json.Valid(b) {
		t.Fatalf("invalid JSON: %s", b)
	}
	var back Record
	d := NewDecoder(bytes.NewReader(append(b, '\n')), "x")
	if err := d.Next(&back); err != nil {
		t.Fatal(err)
	}
	if back.Msg != "bad \ufffd\ufffd bytes" {
		t.Errorf("msg = %q", back.Msg)
	}
}

func TestDecoderToleratesUnknownFieldsAndNulls(t *testing.T) {
	in := `{"kind":"goodput.run","schema":1,"start":"2026-11-29T08:00:00Z","tool":"x","future":{"a":[1,2]}}

{"seq":4,"extra":{"nested":[1,{"x":null}],"s":"str\"ing"},"s":1e3,"t0":1000,"ct":[5,5],"te":1010,"src":null,"fin":null,"new":true,"f":-1.5e-3}
`
	d := NewDecoder(strings.NewReader(in), "f.jsonl")
	var r Record
	if err := d.Next(&r); err != nil {
		t.Fatal(err)
	}
	if r.Seq != 4 || r.Scheduled != 1000 || r.Sent != 1000 || len(r.Chunks) != 2 || r.Chunks[0].At != 1005 || r.Chunks[1].At != 1010 || r.End != 1010 || r.Finish != "" {
		t.Errorf("record = %+v", r)
	}
	if err := d.Next(&r); err != io.EOF {
		t.Errorf("want EOF, got %v", err)
	}
}

func TestDecoderWithoutHeader(t *testing.T) {
	d := NewDecoder(strings.NewReader(`{"seq":1}`), "bare.jsonl")
	h, err := d.Header()
	if err != nil || h.Kind != "" {
		t.Fatalf("header = %+v, %v", h, err)
	}
	var r Record
	if err := d.Next(&r); err != nil || r.Seq != 1 {
		t.Fatalf("record = %+v, %v", r, err)
	}
}

func TestDecoderErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		// a record that is not an object
		{"not object", `{"kind":"goodput.run","schema":1}` + "\n" + `[1]`, "runs.jsonl:2: column 1: expected '{'"},
		// a line cut short, with more after it
		{"truncated", "\n\n" + `{"seq":1,"ct":[1,2` + "\n" + `{"seq":2}`, "runs.jsonl:3: column 19: expected ',' or ']'"},
		// the last line, complete but bad, without a newline: not a cut
		{"bad last line", `{"seq":1}` + "\n" + `{"seq":2,"s":"x"}`, "runs.jsonl:2: column 14: expected a number"},
		// a string where a number belongs
		{"string for int", `{"seq":"one"}`, "runs.jsonl:1: column 8: expected a number"},
		// fractional time
		{"fraction", `{"seq":1,"s":1.5}`, `runs.jsonl:1: column 14: "1.5" is not an integer`},
		// 2⁶³ does not fit an int64: refused, not wrapped to −2⁶³
		{"2^63", `{"seq":1,"s":9223372036854775808}`, `runs.jsonl:1: column 14: "9223372036854775808" is out of range: no time or count of a record comes near 2^63`},
		{"2^63-1", `{"seq":1,"te":9223372036854775807}`, `runs.jsonl:1: column 15: "9223372036854775807" is out of range`},
		{"a fraction", `{"seq":1,"s":1.5}`, `runs.jsonl:1: column 14: "1.5" is not an integer`},
		// ck and ct disagree
		{"ck length", `{"seq":1,"ct":[1,2],"ck":[1]}`, `runs.jsonl:1: "ck" has 1 entries but "ct" has 2`},
		// negative token count
		{"negative ck", `{"seq":1,"ct":[1],"ck":[-1]}`, "chunk token count -1 out of range"},
		// missing seq
		{"no seq", `{"s":1}`, `runs.jsonl:1: record has no "seq"`},
		// garbage after the object
		{"trailing", `{"seq":1} x`, "runs.jsonl:1: column 11: unexpected data"},
		// a newer schema
		{"schema", `{"kind":"goodput.run","schema":99}`, "runs.jsonl:1: record schema 99 is newer"},
		// two headers
		{"two headers", `{"kind":"goodput.run","schema":1}` + "\n" + `{"kind":"goodput.run","schema":1}`, "runs.jsonl:2: a second run header"},
		// unknown kind
		{"kind", `{"seq":1}` + "\n" + `{"kind":"what"}`, `runs.jsonl:2: unknown line kind "what"`},
		// deep nesting in an unknown field
		{"deep", `{"seq":1,"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "nesting too deep"},
		// control character inside a string
		{"control", "{\"seq\":1,\"msg\":\"a\x01b\"}", "control character"},
		// empty object
		{"empty", `{}`, "empty record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tc.in), "runs.jsonl")
			var r Record
			var err error
			for err == nil {
				err = d.Next(&r)
			}
			if err == io.EOF || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// A writer killed in the middle of a record leaves a last line with no
// newline that breaks off: the records before it are read, the file ends
// there, and Cut names the line.
func TestDecoderDropsALastLineCutShort(t *testing.T) {
	in := `{"kind":"goodput.run","schema":1}` + "\n" + `{"seq":1}` + "\n" + `{"seq":2}` + "\n" + `{"seq":3,"ct":[1,2`
	seqs, d, err := readSeqs(in)
	if err != io.EOF || len(seqs) != 2 || d.Cut() != 4 {
		t.Errorf("read %v, then %v, Cut %d; want seqs 1 and 2, io.EOF and line 4", seqs, err, d.Cut())
	}
	// A whole file has no cut line.
	if _, d, err = readSeqs(`{"seq":1}`); err != io.EOF || d.Cut() != 0 {
		t.Errorf("whole file: %v, Cut %d; want io.EOF and 0", err, d.Cut())
	}
}

// A file's end marker is held to the records before it: a marker cut off
// as it was written ends the file like a record cut off (every whole
// record is read); records after the marker, or fewer or more records
// than it counts, are lines lost or added since the run wrote the file.
func TestDecoderHoldsTheEndMarkerToTheRecords(t *testing.T) {
	const head = `{"kind":"goodput.run","schema":1}` + "\n" + `{"seq":1,"te":5}` + "\n" + `{"seq":2,"te":6}` + "\n"
	seqs, d, err := readSeqs(head + `{"kind":"goodput.end","records":2,"en`)
	if err != io.EOF || len(seqs) != 2 || d.Cut() != 4 {
		t.Errorf("a cut end marker: read %v, then %v, Cut %d; want seqs 1 and 2, io.EOF and line 4", seqs, err, d.Cut())
	}
	if _, ok := d.Trailer(); ok {
		t.Error("a cut end marker was read as one")
	}
	cases := []struct{ name, in, want string }{
		{"a record after the marker", head + `{"kind":"goodput.end","records":2,"end":9}` + "\n" + `{"seq":3,"te":7}` + "\n",
			"runs.jsonl:5: a record after the file's end marker (line 4): records were added after the run ended"},
		{"a record lost", head + `{"kind":"goodput.end","records":3,"end":9}` + "\n",
			"runs.jsonl: its end marker (line 4) counts 3 records, but the file holds 2: lines were lost or added after the run wrote it"},
		{"a record added", head + `{"seq":3,"te":7}` + "\n" + `{"kind":"goodput.end","records":2,"end":9}` + "\n",
			"runs.jsonl: its end marker (line 5) counts 2 records, but the file holds 3"},
	}
	for _, c := range cases {
		if _, _, err := readSeqs(c.in); err == nil || err == io.EOF || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// A marker that counts the records ends the file.
	if seqs, _, err := readSeqs(head + `{"kind":"goodput.end","records":2,"end":9}`); err != io.EOF || len(seqs) != 2 {
		t.Errorf("a whole file: %v, %v", seqs, err)
	}
}

func TestDecoderLongLines(t *testing.T) {
	r := Record{Seq: 9, Sent: 0}
	for i := range 300_000 { // about 2.4 MB on one line: beyond the bufio buffer
		r.Chunks = append(r.Chunks, Chunk{At: int64(i+1) * 7_000_000, Tokens: 1})
	}
	r.End = 300_000 * 7_000_000
	b := append(AppendJSON(nil, &r), '\n')
	b = append(b, AppendJSON(nil, &Record{Seq: 10})...)
	d := NewDecoder(bytes.NewReader(b), "long.jsonl")
	var got Record
	if err := d.Next(&got); err != nil {
		t.Fatal(err)
	}
	if len(got.Chunks) != 300_000 || got.Chunks[299_999].At != 300_000*7_000_000 {
		t.Errorf("got %d chunks, last %v", len(got.Chunks), got.Chunks[len(got.Chunks)-1])
	}
	if err := d.Next(&got); err != nil || got.Seq != 10 {
		t.Errorf("second record: %+v %v", got.Seq, err)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriterReportsWriteErrors(t *testing.T) {
	w, err := NewWriter(&failWriter{n: 1}, Header{})
	if err != nil {
		t.Fatal(err)
	}
	r := Record{Seq: 7}
	if err := w.Write(&r); err == nil || !strings.Contains(err.Error(), "record 7: disk full") {
		t.Errorf("err = %v", err)
	}
	if err := w.Close(Trailer{}); err == nil {
		t.Error("Close after a failed write must fail")
	}
	if _, err := NewWriter(&failWriter{}, Header{}); err == nil {
		t.Error("header write error not reported")
	}
}

func FuzzDecode(f *testing.F) {
	for _, r := range sample() {
		f.Add(AppendJSON(nil, &r))
	}
	f.Add([]byte(`{"kind":"goodput.run","schema":1}` + "\n" + `{"seq":1,"ct":[1,2],"ck":[2,3]}`))
	f.Add([]byte(`{"seq":1,"x":[{"a":"\u00e9"}],"labels":{"a\"b":"c"}}`))
	f.Add([]byte(`{"seq":-0,"s":-9223372036854775808,"t0":9.2e18}`))
	f.Add([]byte(`{"seq":2,"ct":[1,2,3],"cr":[0,1,1],"rt":1,"rsrc":"chunks","out":3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(bytes.NewReader(data), "fuzz")
		var r Record
		for range 1000 {
			err := d.Next(&r)
			if err != nil {
				return
			}
			// Whatever decoded must re-encode to valid JSON that decodes
			// to the same record.
			b := AppendJSON(nil, &r)
			if !json.Valid(b) {
				t.Fatalf("re-encoding is not JSON: %s", b)
			}
			var back Record
			if err := NewDecoder(bytes.NewReader(b), "again").Next(&back); err != nil {
				t.Fatalf("re-decoding %s: %v", b, err)
			}
			if back.Seq != r.Seq || back.End != r.End || len(back.Chunks) != len(r.Chunks) || back.ReasoningTokens != r.ReasoningTokens {
				t.Fatalf("round trip changed the record: %+v vs %+v", back, r)
			}
		}
	})
}

func TestGeneratedTextStaysOutOfFiles(t *testing.T) {
	r := sample()[0]
	r.Text = "the model's answer"
	r.RequestID = "id-7"
	got := string(AppendJSON(nil, &r))
	if strings.Contains(got, "answer") {
		t.Errorf("the encoding holds the text: %s", got)
	}
	if !strings.HasSuffix(got, `"fin":"length","rid":"id-7"}`) {
		t.Errorf("the encoding lacks the request id: %s", got)
	}
}

// readSeqs decodes in as the file runs.jsonl to its end and returns the
// records' sequence numbers, the decoder and the error that ended it.
func readSeqs(in string) ([]int64, *Decoder, error) {
	d := NewDecoder(strings.NewReader(in), "runs.jsonl")
	var r Record
	var seqs []int64
	var err error
	for err = d.Next(&r); err == nil; err = d.Next(&r) {
		seqs = append(seqs, r.Seq)
	}
	return seqs, d, err
}
