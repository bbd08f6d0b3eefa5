package runfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

func readAll(t *testing.T, path string) (*File, []record.Record) {
	t.Helper()
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record.Record
	for {
		var r record.Record
		err := f.Next(&r)
		if err == io.EOF {
			return f, out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

func ms(v float64) int64 { return int64(v * 1e6) }

func TestOpenSeedsExample(t *testing.T) {
	for _, name := range []string{"seeds_example.json", "seeds_example.jsonl"} {
		t.Run(name, func(t *testing.T) {
			f, recs := readAll(t, filepath.Join("testdata", name))
			if f.Format != "seeds" || len(recs) != 3 {
				t.Fatalf("format %q, %d records", f.Format, len(recs))
			}
			c := recs[2] // request C: arrival 0.20, tokens at 0.90, 1.00, 1.10
			if c.Scheduled != ms(200) || c.Sent != ms(200) || c.End != ms(1100) || c.OutputTokens != 3 {
				t.Errorf("C = %+v", c)
			}
			want := []record.Chunk{{At: ms(900), Tokens: 1}, {At: ms(1000), Tokens: 1}, {At: ms(1100), Tokens: 1}}
			if !reflect.DeepEqual(c.Chunks, want) {
				t.Errorf("C chunks = %v, want %v", c.Chunks, want)
			}
			if recs[1].Chunks[3].At != ms(720) {
				t.Errorf("0.72 s became %d ns", recs[1].Chunks[3].At)
			}
		})
	}
}

func TestOpenVLLMDetailed(t *testing.T) {
	f, recs := readAll(t, filepath.Join("testdata", "vllm_detailed.json"))
	if f.Format != "vllm" || len(recs) != 3 {
		t.Fatalf("format %q, %d records", f.Format, len(recs))
	}
	// Request 0 started first (epoch); TTFT 125 ms, gaps 20, 30, 25 ms.
	r0 := recs[0]
	if r0.Sent != 0 || r0.InputTokens != 32 || r0.OutputTokens != 4 {
		t.Errorf("r0 = %+v", r0)
	}
	want0 := []record.Chunk{{At: ms(125), Tokens: 1}, {At: ms(145), Tokens: 1}, {At: ms(175), Tokens: 1}, {At: ms(200), Tokens: 1}}
	if !reflect.DeepEqual(r0.Chunks, want0) {
		t.Errorf("r0 chunks = %v, want %v", r0.Chunks, want0)
	}
	// Request 1 started 250 ms later; 3 chunks for 4 tokens: the first
	// chunk carries the extra token.
	r1 := recs[1]
	want1 := []record.Chunk{{At: ms(250 + 175), Tokens: 2}, {At: ms(250 + 225), Tokens: 1}, {At: ms(250 + 235), Tokens: 1}}
	if r1.Sent != ms(250) || !reflect.DeepEqual(r1.Chunks, want1) {
		t.Errorf("r1 = %+v", r1)
	}
	// Request 2 failed.
	if recs[2].OK() || recs[2].Msg != "Bad Request: prompt too long" || len(recs[2].Chunks) != 0 {
		t.Errorf("r2 = %+v", recs[2])
	}
	if !strings.Contains(string(f.Header().Config), "Qwen2.5-7B") {
		t.Errorf("header config = %s", f.Header().Config)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, content, want string
	}{
		// plain text
		{"text.txt", "hello\n", "text.txt:1: not a record file"},
		// a seeds line with a bad token time order
		{"order.jsonl", `{"arrival":0,"token_times":[0.2,0.1]}`, "order.jsonl:1: token_times[1] = 0.1 s goes back in time"},
		// token before arrival
		{"before.json", `[{"arrival":1,"token_times":[0.5]}]`, "before.json: request 0: token_times[0] = 0.5 s is before the arrival 1 s"},
		// seeds line missing arrival
		{"noarrival.jsonl", `{"token_times":[1]}` + "\n", `noarrival.jsonl:1: missing "arrival"`},
		// a JSON object that is not a vLLM result
		{"other.json", `{"hello": 1}`, `other.json: JSON object without "ttfts"`},
		// arrays of different lengths
		{"mismatch.json", `{"ttfts":[0.1],"itls":[[]],"input_lens":[1,2],"output_lens":[1]}`, `"input_lens" has 2 entries but "ttfts" has 1`},
		// negative ITL
		{"neg.json", `{"ttfts":[0.1],"itls":[[-0.5]],"input_lens":[1],"output_lens":[2]}`, "itls[0] = -0.5 is not a valid gap"},
		// a vLLM result with a field of the wrong type: said in JSON's words
		{"types.json", `{"ttfts":"x"}`, `types.json: not a goodput record file, request log or vLLM result: "ttfts": want a JSON array, got a JSON string`},
		// a seeds line with a string for a time
		{"time.jsonl", `{"arrival":"0","token_times":[1]}`, `time.jsonl:1: "arrival": want a number, got a JSON string`},
		// a corrupt first record is still reported as a record
		{"first.jsonl", `{"seq":1,"ct":[1,x]}`, "first.jsonl:1: column 18: expected a number"},
		// goodput export's rows fed back: never requests that took no time
		{"export.jsonl", `{"seq":0,"outcome":"fail","status":500,"scheduled_s":0,"input_tokens":10,"ttft_ms":null,"e2e_ms":null}`,
			"export.jsonl:1: a row of goodput export's table, not a record: give the record file the run wrote"},
		// some other JSON Lines file that has a "seq"
		{"other.jsonl", `{"seq":3,"user":"ann","score":0.5}`, `other.jsonl:1: not a record: keys no record has, and no "te"`},
		// goodput record with an error on line 3
		{"bad.jsonl", `{"kind":"goodput.run","schema":1}` + "\n" + `{"seq":0}` + "\n" + `{"seq":1,"s":"x"}`, "bad.jsonl:3: column 14: expected a number"},
		// The imports go through the same check as records: a vLLM result
		// whose numbers describe an impossible request is refused, naming
		// where. A TTFT that is negative: the first token before the send.
		{"ttft.json", `{"ttfts":[0.1,-0.05],"itls":[[],[0.01]],"input_lens":[1,1],"output_lens":[1,2]}`,
			`ttft.json: request 1: "ttfts" -0.05 is negative`},
		// negative prompt lengths
		{"input.json", `{"ttfts":[0.1],"itls":[[]],"input_lens":[-4],"output_lens":[1]}`,
			`input.json: request 0: "input_lens" -4 is negative`},
		// a TTFT left null, where vLLM always writes a number
		{"null.json", `{"ttfts":[0.1,null],"itls":[[],[0.01]],"input_lens":[1,1],"output_lens":[1,2]}`,
			`null.json: request 1: "ttfts" is null`},
		// a latency that is negative, or shorter than its tokens took
		{"neglat.json", `{"ttfts":[0.1],"itls":[[0.01]],"latencies":[-1],"input_lens":[1],"output_lens":[2]}`,
			`neglat.json: request 0: "latencies" -1 is not a latency`},
		{"shortlat.json", `{"ttfts":[10],"itls":[[0.5]],"latencies":[1.32],"input_lens":[1],"output_lens":[2]}`,
			`shortlat.json: request 0: "latencies" 1.32 s is shorter than its tokens took (ttft and itls: 10.5 s)`},
		// negative output lengths
		{"output.json", `{"ttfts":[0.1],"itls":[[]],"input_lens":[4],"output_lens":[-1]}`,
			`output.json: request 0: "output_lens" -1 is negative`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path, nil)
			if err == nil {
				var r record.Record
				for err == nil {
					err = f.Next(&r)
				}
				f.Close()
			}
			if err == nil || err == io.EOF || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Open(filepath.Join(dir, "missing.jsonl"), nil); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}

func TestOpenStdinAndEmpty(t *testing.T) {
	f, err := Open("-", strings.NewReader(`{"seq":3,"ct":[5],"te":5}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var r record.Record
	if err := f.Next(&r); err != nil || r.Seq != 3 || r.Chunks[0].At != 5 {
		t.Fatalf("%+v %v", r, err)
	}
}

// A file, or standard input, that holds no request is an error for every
// reader: nothing was measured, and a summary of zero requests would
// pass for a result.
func TestOpenNoRequests(t *testing.T) {
	dir := t.TempDir()
	header := `{"kind":"goodput.run","schema":1,"start":"2026-11-29T08:00:00Z"}` + "\n"
	tests := []struct {
		name, content, want string
	}{
		{"empty.jsonl", "", "no requests in "},                                                           // zero bytes
		{"blank.jsonl", " \n\n\t\n", "no requests in "},                                                  // white space only
		{"header.jsonl", header, "no requests in "},                                                      // a run killed before its first record
		{"ended.jsonl", header + `{"kind":"goodput.end","records":0,"end":5}` + "\n", "no requests in "}, // a run that sent nothing
		{"cut.jsonl", header + `{"seq":0,"s":1,"t0`, "its only record line was cut off"},                 // the one record cut short
		{"seeds.json", "[]", "no requests in "},                                                          // an empty request log
		{"vllm.json", `{"ttfts":[],"itls":[],"input_lens":[],"output_lens":[]}`, "no requests in "},      // an empty vLLM result
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path, nil)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			defer f.Close()
			var r record.Record
			err = f.Next(&r)
			if !errors.Is(err, ErrNoRecords) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Next = %v, want ErrNoRecords naming %s and saying %q", err, path, tc.want)
			}
		})
	}
	f, err := Open("-", strings.NewReader("  \n"))
	if err != nil {
		t.Fatal(err)
	}
	var r record.Record
	if err := f.Next(&r); !errors.Is(err, ErrNoRecords) || err.Error() != "no requests in standard input" {
		t.Errorf("empty stdin: %v", err)
	}
	// Once a record was read, the end is io.EOF as usual.
	f, _ = Open("-", strings.NewReader(`{"seq":0}`))
	if err := f.Next(&r); err != nil {
		t.Fatal(err)
	}
	if err := f.Next(&r); err != io.EOF {
		t.Errorf("after one record: %v, want io.EOF", err)
	}
}

// Notes say how a goodput record file ended when that was not a clean
// finish: cut off with no end marker (a killed run), a last line cut
// short, or an interrupted run.
func TestFileNotesSayHowTheRunEnded(t *testing.T) {
	dir := t.TempDir()
	header := `{"kind":"goodput.run","schema":1,"start":"2026-11-29T08:00:00Z"}` + "\n"
	rec := `{"seq":0,"s":1,"t0":2,"te":3}` + "\n"
	tests := []struct {
		name, content string
		want          []string
	}{
		// a finished run: nothing to say
		{"done.jsonl", header + rec + `{"kind":"goodput.end","records":1,"end":5}` + "\n", nil},
		// killed: no end marker
		{"killed.jsonl", header + rec + `{"seq":1,"s":1,"t0":2,"te":3}` + "\n", []string{"killed.jsonl has no end marker: the run that wrote it was cut off (killed, or still running); its 2 records are read"}},
		// killed mid-record: both said
		{"mid.jsonl", header + rec + `{"seq":1,"s":`, []string{"mid.jsonl:3: the last line is incomplete", "mid.jsonl has no end marker"}},
		// interrupted: said with the reason, and how many requests it
		// canceled
		{"int.jsonl", header + rec + `{"kind":"goodput.end","records":1,"interrupted":true,"reason":"interrupted","end":5}` + "\n",
			[]string{"int.jsonl: the run was interrupted (interrupted): none was still in flight"}},
		{"int2.jsonl", header + rec + `{"seq":1,"s":1,"t0":2,"te":4,"err":"canceled"}` + "\n" + `{"seq":2,"s":1,"t0":2,"te":4,"err":"canceled"}` + "\n" + `{"kind":"goodput.end","records":3,"interrupted":true,"reason":"SIGTERM","end":5}` + "\n",
			[]string{"int2.jsonl: the run was interrupted (SIGTERM): 2 requests still in flight were canceled"}},
		// a file without a header is not a goodput run: no end is expected
		{"bare.jsonl", rec, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, _ := readAll(t, path)
			notes := f.Notes()
			if len(notes) != len(tc.want) {
				t.Fatalf("notes %q, want %d like %q", notes, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.Contains(notes[i], w) {
					t.Errorf("note %d = %q, want it to hold %q", i, notes[i], w)
				}
			}
		})
	}
}

// Python's json module writes NaN and Infinity as bare words, which JSON
// does not have. A vLLM result holding them reads when they sit where
// nothing is taken from (the aggregate figures); where a request's time
// is one, the error names the request and the key.
func TestOpenVLLMWithNaNAndInfinity(t *testing.T) {
	dir := t.TempDir()
	base := `"input_lens":[3,3],"output_lens":[2,2],"itls":[[0.01],[0.02]],"start_times":[5.0,5.5]`
	tests := []struct {
		name, content, want string
	}{
		// unused aggregates: read, nothing taken from them
		{"aggregates.json", `{"model_id":"NaN-model","mean_ttft_ms":NaN,"std_itl_ms":Infinity,"p99_e2el_ms":-Infinity,"ttfts":[0.1,0.2],` + base + `}`, ""},
		// a failed request's TTFT is not used: NaN there is fine
		{"failed.json", `{"ttfts":[0.1,NaN],"errors":["","timeout"],` + base + `}`, ""},
		// a NaN in a request's TTFT
		{"ttft.json", `{"ttfts":[0.1,NaN],` + base + `}`, `request 1: "ttfts" is NaN`},
		// an infinite gap
		{"itl.json", `{"ttfts":[0.1,0.2],"input_lens":[3,3],"output_lens":[2,2],"itls":[[Infinity],[0.02]]}`, `request 0: "itls"[0] is Infinity`},
		// a start time
		{"start.json", `{"ttfts":[0.1,0.2],"input_lens":[3,3],"output_lens":[2,2],"itls":[[0.01],[0.02]],"start_times":[-Infinity,5]}`, `request 0: "start_times" is -Infinity`},
		// an end-to-end latency
		{"e2el.json", `{"ttfts":[0.1,0.2],"e2els":[0.2,NaN],` + base + `}`, `request 1: "e2els" is NaN`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path, nil)
			var n int
			if err == nil {
				var r record.Record
				for err = f.Next(&r); err == nil; err = f.Next(&r) {
					n++
				}
				f.Close()
			}
			if tc.want == "" {
				if err != io.EOF || n != 2 || f.Format != "vllm" {
					t.Errorf("read %d records, then %v; want 2 and io.EOF", n, err)
				}
				if tc.name == "aggregates.json" && !strings.Contains(string(f.Header().Config), "NaN-model") {
					t.Errorf("a string holding NaN changed: %s", f.Header().Config)
				}
				return
			}
			if err == nil || err == io.EOF || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestPythonNumbers(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[NaN,Infinity,-Infinity]`, `["NaN","Infinity","-Infinity"]`},         // all three
		{`{"a":"NaN","b":"x\"NaN"}`, `{"a":"NaN","b":"x\"NaN"}`},               // inside strings: untouched
		{`{"a": NaN , "b":[ -Infinity]}`, `{"a": "NaN" , "b":[ "-Infinity"]}`}, // spacing kept
		{`[1,-2.5e3,true,null]`, `[1,-2.5e3,true,null]`},                       // nothing to do
		{`["\\",NaN]`, `["\\","NaN"]`},                                         // an escaped backslash ends the string
		{`[Nope]`, `[Nope]`},                                                   // not the word: left for the decoder to refuse
	}
	for _, tc := range tests {
		if got := string(pythonNumbers([]byte(tc.in))); got != tc.want {
			t.Errorf("pythonNumbers(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// A file saved with a UTF-8 byte-order mark (PowerShell's Out-File, some
// editors) reads as the same file without it, in every format.
func TestOpenSkipsAByteOrderMark(t *testing.T) {
	for _, name := range []string{"seeds_example.json", "seeds_example.jsonl"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, append([]byte("\xef\xbb\xbf"), b...), 0o644); err != nil {
				t.Fatal(err)
			}
			_, want := readAll(t, filepath.Join("testdata", name))
			_, got := readAll(t, path)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("with a BOM: %d records %v, want %v", len(got), got, want)
			}
		})
	}
	// And goodput's own records, through the run header.
	var buf strings.Builder
	w, err := record.NewWriter(&buf, record.Header{Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Tool: "goodput test"})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&record.Record{Seq: 0, Scheduled: 0, Sent: 1, End: 5, OutputTokens: 1, Chunks: []record.Chunk{{At: 5, Tokens: 1}}, Status: 200})
	w.Close(record.Trailer{End: 5})
	path := filepath.Join(t.TempDir(), "run.jsonl")
	os.WriteFile(path, []byte("\xef\xbb\xbf"+buf.String()), 0o644)
	if f, recs := readAll(t, path); f.Format != "goodput" || len(recs) != 1 {
		t.Errorf("goodput records with a BOM: format %q, %d records", f.Format, len(recs))
	}
}

// Every format is told from its content alone, and no file is taken for
// another format: the fixtures of each, and files of goodput's own from
// elsewhere in the tree, open as what they are.
func TestOpenTellsFormatsApart(t *testing.T) {
	var buf strings.Builder
	w, err := record.NewWriter(&buf, record.Header{Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Tool: "goodput test"})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&record.Record{Seq: 0, Sent: 1, End: 5, OutputTokens: 1, Chunks: []record.Chunk{{At: 5, Tokens: 1}}, Status: 200})
	w.Close(record.Trailer{End: 5})
	written := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(written, []byte(buf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, format string
	}{
		{written, "goodput"}, // goodput's writer
		{"../sim/fit/testdata/llamacpp/c1-r1.jsonl", "goodput"},      // a real run's records
		{"testdata/seeds_example.json", "seeds"},                     // the seeds' log as an array
		{"testdata/seeds_example.jsonl", "seeds"},                    // and as lines
		{"testdata/vllm_detailed.json", "vllm"},                      // vLLM's result
		{"../vllmresult/testdata/vllm_v0.5.4_detailed.json", "vllm"}, // an older vLLM's
		{"testdata/aiperf_profile_export.jsonl", "aiperf"},           // AIPerf's export
		{"testdata/aiperf_profile_export_2025.jsonl", "aiperf"},      // in its earlier layout
		{"testdata/guidellm_benchmarks.json#2", "guidellm"},          // GuideLLM's report
		{"testdata/guidellm_benchmarks.yaml", "guidellm"},            // as YAML
		{"testdata/guidellm_benchmarks_v0.2.json", "guidellm"},       // in GuideLLM 0.2's layout
	}
	for _, tt := range tests {
		f, recs := readAll(t, tt.path)
		if f.Format != tt.format || len(recs) == 0 {
			t.Errorf("%s: format %q with %d records, want %q", tt.path, f.Format, len(recs), tt.format)
		}
	}
}

// A record file whose keys were sorted (jq -S, Python's sort_keys) or
// that puts a key no reader knows first is still told as goodput's, and
// reads as written, trailer included: the format is not told by "kind" or
// "seq" coming first.
func TestOpenTellsRecordsWhateverTheirKeyOrder(t *testing.T) {
	var buf bytes.Buffer
	h := record.Header{Start: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Tool: "goodput test", Config: json.RawMessage(`{"rate":5}`)}
	w, err := record.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&record.Record{Seq: 0, Sent: 1, End: 5, OutputTokens: 2, Chunks: []record.Chunk{{At: 3, Tokens: 1}, {At: 5, Tokens: 1}}, Status: 200})
	w.Write(&record.Record{Seq: 1, Sent: 2, End: 9, Error: record.ErrHTTP, Status: 503})
	w.Close(record.Trailer{Records: 2, End: 9})
	rewrite := func(first string) []byte {
		var out bytes.Buffer
		for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.UseNumber() // keep integers exact
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(m) // map keys come out sorted
			out.WriteString(first)
			if first != "" {
				b = b[1:]
			}
			out.Write(append(b, '\n'))
		}
		return out.Bytes()
	}
	read := func(name string, b []byte) ([]record.Record, record.Trailer) {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		f, recs := readAll(t, path)
		tr, ok := f.Trailer()
		if f.Format != "goodput" || !ok {
			t.Fatalf("%s: format %q, trailer %v", name, f.Format, ok)
		}
		return recs, tr
	}
	want, wantEnd := read("as-written.jsonl", buf.Bytes())
	if len(want) != 2 || wantEnd.End != 9 {
		t.Fatalf("the written file reads as %+v, %+v", want, wantEnd)
	}
	for name, b := range map[string][]byte{
		"sorted.jsonl":        rewrite(""),
		"unknown-first.jsonl": rewrite(`{"aaa_added_later":[1,2],`),
	} {
		if bytes.HasPrefix(b, []byte(`{"kind"`)) || bytes.Contains(b, []byte("\n{\"seq\"")) {
			t.Fatalf("%s: the rewrite left kind or seq first:\n%s", name, b)
		}
		got, end := read(name, b)
		if !reflect.DeepEqual(got, want) || end != wantEnd {
			t.Errorf("%s: read %+v, %+v; want %+v, %+v", name, got, end, want, wantEnd)
		}
	}
}

func TestSplitRun(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd#2")
	os.WriteFile(odd, nil, 0o644)
	tests := []struct {
		path, file string
		run        int
	}{
		{"bench.json#2", "bench.json", 2},   // a run of a file
		{"bench.json#12", "bench.json", 12}, // any number
		{"bench.json", "bench.json", 0},     // the file
		{"bench.json#0", "bench.json#0", 0}, // runs count from 1
		{"bench.json#x", "bench.json#x", 0}, // not a number
		{"bench.json#", "bench.json#", 0},   // nothing after
		{"#2", "#2", 0},                     // no file before
		{odd, odd, 0},                       // a file whose name ends so is that file
	}
	for _, tt := range tests {
		if file, run := SplitRun(tt.path); file != tt.file || run != tt.run {
			t.Errorf("SplitRun(%q) = %q, %d; want %q, %d", tt.path, file, run, tt.file, tt.run)
		}
	}
}

// A file of another tool's format has no trailer.
func TestImportHasNoTrailer(t *testing.T) {
	f, err := Open("testdata/seeds_example.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := f.Trailer(); ok {
		t.Error("an import has a trailer")
	}
}
