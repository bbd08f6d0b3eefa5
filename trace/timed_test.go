package trace

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// renamed are the fields of a timed trace written by a tool of its own:
// every label differs from vLLM's default, timestamps in milliseconds.
var renamed = Timed{Timestamp: "arrival_ms", InputLength: "isl", OutputLength: "osl", HashIDs: "blocks", SecMultiplier: 0.001}

// readTimed reads every row of text as a timed trace with the fields of
// tm, copying hash ids.
func readTimed(t *testing.T, text string, tm Timed) ([]Row, error) {
	t.Helper()
	r, err := NewTimedReader(strings.NewReader(text), "t.jsonl", tm)
	if err != nil {
		return nil, err
	}
	return r.rest()
}

// A timed trace's rows come in file order with their fields read under the
// names given: timestamps × the multiplier are seconds from the first row,
// lengths written as floats are whole tokens, hash ids past int64 keep
// their bits, a missing or null id list means none, and unknown fields are
// ignored.
func TestReadTimed(t *testing.T) {
	text := `{"arrival_ms": 0, "isl": 42, "osl": 8, "blocks": [981, 4412, 7]}
{"arrival_ms": 12.5, "isl": 512.0, "osl": 3.0, "blocks": [981, 18446744073709551615], "user": "u1"}

{"arrival_ms": 250, "isl": 20, "osl": 1}
{"osl": 2, "blocks": null, "isl": 16, "arrival_ms": 1250}
`
	rows, err := readTimed(t, text, renamed)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Line: 1, At: 0, Input: 42, Output: 8, HashIDs: []int64{981, 4412, 7}},
		// 18446744073709551615 is 2^64 − 1, whose bits are int64's −1.
		{Line: 2, At: 12500 * time.Microsecond, Input: 512, Output: 3, HashIDs: []int64{981, -1}},
		{Line: 4, At: 250 * time.Millisecond, Input: 20, Output: 1},
		{Line: 5, At: 1250 * time.Millisecond, Input: 16, Output: 2},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	for i := range want {
		g, w := rows[i], want[i]
		if g.Line != w.Line || g.At != w.At || g.Input != w.Input || g.Output != w.Output || !slices.Equal(g.HashIDs, w.HashIDs) || g.Prompt != "" {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
}

// vLLM's defaults read Mooncake's files, and a file that starts later
// than 0 still counts from its first row, as every format does.
func TestReadTimedDefaults(t *testing.T) {
	text := `{"timestamp": 3, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1]}
{"timestamp": 4.25, "input_length": 7322, "output_length": 490, "hash_ids": [0, 14]}
`
	rows, err := readTimed(t, text, Timed{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].At != 0 || rows[1].At != 1250*time.Millisecond || rows[1].Input != 7322 || !slices.Equal(rows[1].HashIDs, []int64{0, 14}) {
		t.Errorf("rows = %+v", rows)
	}
	// NewReader takes the format with vLLM's fields too.
	r, err := NewReader(strings.NewReader(text), "t", FormatTimed)
	if err != nil {
		t.Fatal(err)
	}
	if row, err := r.Next(); err != nil || row.Input != 6758 || r.Format() != FormatTimed {
		t.Errorf("NewReader: %+v, %v, format %q", row, err, r.Format())
	}
}

// Every wrong row is an error naming the file, the line and the field; a
// missing field names the flag that renames it.
func TestReadTimedErrors(t *testing.T) {
	ok := `{"arrival_ms": 0, "isl": 4, "osl": 1}` + "\n"
	tests := []struct {
		name, text string
		tm         Timed
		want       string
	}{
		{"missing timestamp", ok + `{"isl": 4, "osl": 1}`, renamed,
			`t.jsonl:2: missing "arrival_ms" (--timed-trace-label-timestamp names the field)`},
		{"missing input length", `{"arrival_ms": 0, "osl": 1}`, renamed,
			`t.jsonl:1: missing "isl" (--timed-trace-label-input-length names the field)`},
		// A file with vLLM's names read with other labels says which
		// flag to change.
		{"default names, other labels", `{"timestamp": 0, "input_length": 4, "output_length": 1}`, renamed,
			`t.jsonl:1: missing "arrival_ms" (--timed-trace-label-timestamp names the field)`},
		{"null output length", `{"arrival_ms": 0, "isl": 4, "osl": null}`, renamed,
			`t.jsonl:1: missing "osl" (--timed-trace-label-output-length names the field)`},
		// 1e306 ms × 1e3 overflows: not a number of seconds.
		{"non-finite timestamp", ok + `{"arrival_ms": 1e306, "isl": 4, "osl": 1}`, Timed{Timestamp: "arrival_ms", InputLength: "isl", OutputLength: "osl", SecMultiplier: 1e3},
			`t.jsonl:2: "arrival_ms" 1e306 × --timed-trace-sec-multiplier 1000 is not a finite number of seconds`},
		{"out of order", ok + `{"arrival_ms": 500, "isl": 4, "osl": 1}` + "\n" + `{"arrival_ms": 499, "isl": 4, "osl": 1}`, renamed,
			"t.jsonl:3: arrives 1ms before the row on line 2: a trace must be sorted by time"},
		{"negative timestamp", `{"arrival_ms": -5, "isl": 4, "osl": 1}`, renamed, "t.jsonl:1: timestamp -0.005 s is outside"},
		{"fractional length", `{"arrival_ms": 0, "isl": 4.5, "osl": 1}`, renamed, `t.jsonl:1: "isl" 4.5 is not a whole number of tokens`},
		{"negative length", `{"arrival_ms": 0, "isl": 4, "osl": -1}`, renamed, `t.jsonl:1: "osl" -1 is outside [0, 16777216]`},
		{"length too long", `{"arrival_ms": 0, "isl": 1e9, "osl": 1}`, renamed, `t.jsonl:1: "isl" 1e+09 is outside [0, 16777216]`},
		{"string timestamp", `{"arrival_ms": "0", "isl": 4, "osl": 1}`, renamed, `t.jsonl:1: "arrival_ms": want a number, got "0"`},
		{"ids not a list", `{"arrival_ms": 0, "isl": 4, "osl": 1, "blocks": 7}`, renamed, `t.jsonl:1: "blocks": want a JSON array of integers, got 7`},
		{"id a float", `{"arrival_ms": 0, "isl": 4, "osl": 1, "blocks": [1, 2.5]}`, renamed, `t.jsonl:1: "blocks": hash id 2.5 is not an integer of 64 bits`},
		{"id past 64 bits", `{"arrival_ms": 0, "isl": 4, "osl": 1, "blocks": [18446744073709551616]}`, renamed, `hash id 18446744073709551616 is not an integer of 64 bits`},
		{"id a string", `{"arrival_ms": 0, "isl": 4, "osl": 1, "blocks": ["a"]}`, renamed, `hash id "a" is not an integer`},
		{"not an object", `[0, 4, 1]`, renamed, "t.jsonl:1: want a JSON object, got a JSON array"},
		{"bad JSON", `{"arrival_ms": 0,`, renamed, "t.jsonl:1: unexpected end of JSON input"},
	}
	for _, tt := range tests {
		_, err := readTimed(t, tt.text, tt.tm)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// The options themselves are checked before the file is read.
func TestTimedValidate(t *testing.T) {
	tests := []struct {
		name string
		tm   Timed
		want string // "" when valid
	}{
		{"zero value: vLLM's defaults", Timed{}, ""},
		{"renamed", renamed, ""},
		{"negative multiplier", Timed{SecMultiplier: -1}, "--timed-trace-sec-multiplier must be a positive finite number of seconds per timestamp unit, got -1"},
		{"NaN multiplier", Timed{SecMultiplier: math.NaN()}, "got NaN"},
		{"infinite multiplier", Timed{SecMultiplier: math.Inf(1)}, "got +Inf"},
		// The default input field named again for the output.
		{"one field twice", Timed{OutputLength: "input_length"}, `--timed-trace-label-input-length and --timed-trace-label-output-length both name the field "input_length"`},
	}
	for _, tt := range tests {
		err := tt.tm.Validate()
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := NewTimedReader(strings.NewReader(""), "t", Timed{SecMultiplier: -1}); err == nil {
		t.Error("NewTimedReader took a negative multiplier")
	}
}

// A window of a timed trace is summarised with the file's name, the time
// unit and the chunk size, 16 tokens by default: the run's workload line.
func TestScanTimed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	text := `{"arrival_ms": 0, "isl": 40, "osl": 8, "blocks": [1, 2, 3]}
{"arrival_ms": 500, "isl": 40, "osl": 4, "blocks": [1, 2, 9]}
{"arrival_ms": 2000, "isl": 10, "osl": 2}
`
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Scan(Config{Path: path, Format: FormatTimed, Timed: renamed}, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 3 || s.BlockSize != 16 || !slices.Equal(s.Times, []time.Duration{0, 500 * time.Millisecond, 2 * time.Second}) {
		t.Errorf("summary %+v", s)
	}
	// The second prompt's first two 16-token chunks were the first's:
	// 32 of its 40 tokens, of the 80 prompt tokens of the rows with ids.
	if s.PromptTokens != 80 || s.ReusedTokens != 32 {
		t.Errorf("reuse %d of %d tokens, want 32 of 80", s.ReusedTokens, s.PromptTokens)
	}
	want := "vLLM's timed_trace of " + path + " (timestamps × 0.001 s, 16 prompt tokens per hash id): 3 rows over 2s (mean 1 req/s)"
	if got := s.String(); !strings.HasPrefix(got, want) {
		t.Errorf("String() = %q, want it to start %q", got, want)
	}
	// The chunk size is the config's when given.
	if s, err := Scan(Config{Path: path, Format: FormatTimed, Timed: renamed, BlockSize: 512}, false); err != nil || s.BlockSize != 512 {
		t.Errorf("block size %v, %v; want 512", s, err)
	}
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Format: FormatTimed}, "--dataset-name timed_trace needs --dataset-path"},
		{Config{Path: path, Format: FormatTimed, BlockSize: -1}, "--timed-trace-chunk-hash-size must be in [1, 16777216], got -1"},
		{Config{Path: path, Format: FormatTimed, Timed: Timed{SecMultiplier: -2}}, "--timed-trace-sec-multiplier must be a positive"},
	} {
		if err := tc.c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
}
