package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeSample writes sample() as a complete record file.
func writeSample(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	h := Header{Start: time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC), Tool: "goodput test",
		Config: json.RawMessage(`{"rate":5}`), Labels: map[string]string{"point": "c16"}}
	w, err := NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sample() {
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(Trailer{Interrupted: true, Reason: "interrupted", End: 777}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// eachLine rewrites every line of file with f.
func eachLine(t *testing.T, file []byte, f func(map[string]any) []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(file))
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber() // keep integers exact
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out.Write(f(m))
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// sortedKeys is what `jq -c -S .` and Python's json.dumps(sort_keys=True)
// make of a line: the same object, keys in alphabetical order.
func sortedKeys(m map[string]any) []byte {
	b, _ := json.Marshal(m) // encoding/json writes map keys sorted
	return b
}

// unknownFirst puts a key no reader knows before every other key, as a
// newer writer or another tool might.
func unknownFirst(m map[string]any) []byte {
	b, _ := json.Marshal(m)
	return append([]byte(`{"aaa_added_later":{"x":[1,2]},`), b[1:]...)
}

// spaced is Python's default separators: a space after every colon and
// comma.
func spaced(m map[string]any) []byte {
	b := sortedKeys(m)
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", ""); err != nil {
		panic(err)
	}
	return bytes.ReplaceAll(bytes.ReplaceAll(bytes.ReplaceAll(out.Bytes(), []byte("\n"), nil), []byte(`":`), []byte(`": `)), []byte(`,"`), []byte(`, "`))
}

type decoded struct {
	header  Header
	records []Record
	trailer Trailer
	hasEnd  bool
}

func decodeAll(t *testing.T, file []byte) decoded {
	t.Helper()
	var out decoded
	d := NewDecoder(bytes.NewReader(file), "run.jsonl")
	h, err := d.Header()
	if err != nil {
		t.Fatalf("header: %v", err)
	}
	out.header = h
	for {
		var r Record
		err := d.Next(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("record %d: %v", len(out.records), err)
		}
		if len(r.Chunks) == 0 {
			r.Chunks = nil
		}
		out.records = append(out.records, r)
	}
	out.trailer, out.hasEnd = d.Trailer()
	return out
}

// JSON objects are unordered: a record file whose keys were sorted, or
// that carries unknown keys before the known ones, reads exactly as the
// file goodput wrote, header and trailer included.
func TestKeyOrderDoesNotMatter(t *testing.T) {
	orig := writeSample(t)
	rewrites := []struct {
		name string
		f    func(map[string]any) []byte
	}{
		{"sorted keys", sortedKeys},              // jq -S, Python sort_keys
		{"unknown key first", unknownFirst},      // a newer writer's field
		{"python separators and sorted", spaced}, // json.dumps(sort_keys=True)
	}
	want := decodeAll(t, orig)
	if len(want.records) != len(sample()) || !want.hasEnd || want.header.Kind != KindHeader {
		t.Fatalf("the original file reads as %+v", want)
	}
	for _, rw := range rewrites {
		t.Run(rw.name, func(t *testing.T) {
			file := eachLine(t, orig, rw.f)
			if bytes.HasPrefix(file, []byte(`{"kind"`)) {
				t.Fatalf("the rewrite left the header's kind first:\n%s", file)
			}
			got := decodeAll(t, file)
			if !got.header.Start.Equal(want.header.Start) || got.header.Tool != want.header.Tool ||
				got.header.Kind != KindHeader || !reflect.DeepEqual(got.header.Labels, want.header.Labels) {
				t.Errorf("header = %+v, want %+v", got.header, want.header)
			}
			if !reflect.DeepEqual(got.records, want.records) {
				t.Errorf("records differ:\n got %+v\nwant %+v", got.records, want.records)
			}
			if !got.hasEnd || got.trailer != want.trailer {
				t.Errorf("trailer = %+v (%v), want %+v", got.trailer, got.hasEnd, want.trailer)
			}
		})
	}
}

// A record line cannot pass for a header, nor a header for a record,
// wherever "kind" is.
func TestKindAnywhereMarksAMetaLine(t *testing.T) {
	in := strings.Join([]string{
		`{"tool":"x","schema":1,"kind":"goodput.run"}`,
		`{"te":9,"seq":1,"s":2,"t0":3}`,
		`{"records":1,"end":10,"kind":"goodput.end"}`,
	}, "\n")
	d := NewDecoder(strings.NewReader(in), "k.jsonl")
	h, err := d.Header()
	if err != nil || h.Kind != KindHeader || h.Tool != "x" {
		t.Fatalf("header = %+v, %v", h, err)
	}
	var r Record
	if err := d.Next(&r); err != nil || r.Seq != 1 || r.End != 9 {
		t.Fatalf("record = %+v, %v", r, err)
	}
	if err := d.Next(&r); err != io.EOF {
		t.Fatalf("after the trailer: %v", err)
	}
	if tr, ok := d.Trailer(); !ok || tr.End != 10 {
		t.Errorf("trailer = %+v, %v", tr, ok)
	}
	// An unknown kind is still an error, wherever the key is.
	d = NewDecoder(strings.NewReader(`{"seq":1}`+"\n"+`{"x":1,"kind":"what"}`), "k.jsonl")
	d.Next(&r)
	if err := d.Next(&r); err == nil || !strings.Contains(err.Error(), `k.jsonl:2: unknown line kind "what"`) {
		t.Errorf("unknown kind: %v", err)
	}
}

func TestHasKind(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{`{"kind":"goodput.run"}`, true},          // first
		{`{"a":[1,{"kind":2}],"kind":"x"}`, true}, // after a value that nests one
		{`{"a":{"kind":"x"}}`, false},             // only nested
		{`{"kind":null,"seq":1}`, false},          // null means absent
		{`{"kind":null,"x":1,"kind":"y"}`, true},  // a later one counts
		{`{}`, false},                             // empty
		{`{"seq":1,"kind"`, false},                // cut short
		{`[1]`, false},                            // not an object
		{`{"k\u0069nd":"goodput.end"}`, true},     // an escaped key is the same key
	}
	for _, tc := range tests {
		if got := hasKind([]byte(tc.line)); got != tc.want {
			t.Errorf("hasKind(%s) = %v, want %v", tc.line, got, tc.want)
		}
	}
}
