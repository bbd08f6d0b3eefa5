package trace

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// readAll reads every row of text in format f, copying hash ids.
func readAll(t *testing.T, text string, f Format) ([]Row, *Reader, error) {
	t.Helper()
	r, err := NewReader(strings.NewReader(text), "t", f)
	if err != nil {
		return nil, nil, err
	}
	var rows []Row
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, r, nil
		}
		if err != nil {
			return rows, r, err
		}
		row.HashIDs = slices.Clone(row.HashIDs)
		rows = append(rows, row)
	}
}

func TestSniff(t *testing.T) {
	tests := []struct {
		name, first string
		want        Format
	}{
		{"mooncake", `{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1]}`, FormatMooncake},
		// Other tools' Mooncake files may put the keys in another order.
		{"mooncake reordered", `{"hash_ids": [3], "output_length": 5, "input_length": 9, "timestamp": 1.5}`, FormatMooncake},
		{"goodput", `{"time": 1.5, "input_tokens": 10, "output_tokens": 4}`, FormatJSONL},
		{"azure", "TIMESTAMP,ContextTokens,GeneratedTokens\r", FormatAzure},
		// A byte-order mark and other column orders still sniff.
		{"azure with BOM", "\ufeffContextTokens,TIMESTAMP,GeneratedTokens", FormatAzure},
		{"burstgpt", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type", FormatBurstGPT},
	}
	for _, tt := range tests {
		got, err := Sniff([]byte(tt.first))
		if err != nil || got != tt.want {
			t.Errorf("%s: Sniff = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	for _, bad := range []struct{ first, want string }{
		{"", "empty"},
		{"   ", "empty"},
		{`{"prompt": "hi"}`, "give --trace-format"},
		{"a,b,c", `"a,b,c" is neither JSON nor`},
		{"[1, 2]", "neither JSON nor"},
	} {
		if _, err := Sniff([]byte(bad.first)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Sniff(%q) error %v, want one containing %q", bad.first, err, bad.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatAuto, "auto": FormatAuto, "Mooncake": FormatMooncake, " azure ": FormatAzure, "burstgpt": FormatBurstGPT, "jsonl": FormatJSONL} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFormat("sharegpt"); err == nil || !strings.Contains(err.Error(), `--trace-format "sharegpt" is unknown: want mooncake, azure, burstgpt or jsonl`) {
		t.Errorf("unknown format: %v", err)
	}
}

func TestReadEachFormat(t *testing.T) {
	s := time.Second
	tests := []struct {
		name, text string
		format     Format
		want       []Row
		skipped    map[string]int
	}{
		{
			"mooncake: ms from 0, ids kept",
			`{"timestamp": 0, "input_length": 600, "output_length": 20, "hash_ids": [0, 1]}
{"timestamp": 1500.5, "input_length": 512, "output_length": 1, "hash_ids": [0]}
`, FormatAuto,
			[]Row{{Line: 1, At: 0, Input: 600, Output: 20, HashIDs: []int64{0, 1}}, {Line: 2, At: 1500500 * time.Microsecond, Input: 512, Output: 1, HashIDs: []int64{0}}},
			map[string]int{},
		},
		{
			// A Mooncake-style file without ids replays lengths only, and
			// a row with no output is skipped but still starts the clock.
			"mooncake without ids",
			`{"timestamp": 2000, "input_length": 10, "output_length": 0}
{"timestamp": 2500, "input_length": 10, "output_length": 3, "hash_ids": []}
`, FormatMooncake,
			[]Row{{Line: 2, At: 500 * time.Millisecond, Input: 10, Output: 3}},
			map[string]int{skipNoOutput: 1},
		},
		{
			"azure: wall clock from the first row, CR LF",
			"TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:17:03.9799600,4808,10\r\n2023-11-16 18:17:04.0319600,3180,8\r\n2023-11-16 18:18:04.0000000,1,1\r\n",
			FormatAuto,
			[]Row{{Line: 2, Input: 4808, Output: 10}, {Line: 3, At: 52 * time.Millisecond, Input: 3180, Output: 8}, {Line: 4, At: 60*s + 20040*time.Microsecond, Input: 1, Output: 1}},
			map[string]int{},
		},
		{
			// The 2024 traces' times carry their zone, as pandas writes them.
			"azure 2024: times with a zone",
			"TIMESTAMP,ContextTokens,GeneratedTokens\n2024-05-10 00:00:00.009930+00:00,1531,20\n2024-05-10 00:00:00.259930+00:00,712,9\n",
			FormatAuto,
			[]Row{{Line: 2, Input: 1531, Output: 20}, {Line: 3, At: 250 * time.Millisecond, Input: 712, Output: 9}},
			map[string]int{},
		},
		{
			"burstgpt: seconds, failed rows skipped",
			"Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n45,ChatGPT,1087,0,1087,Conversation log\n45.5,GPT-4,417,276,693,API log\n",
			FormatAuto,
			[]Row{{Line: 2, Input: 472, Output: 18}, {Line: 4, At: 40500 * time.Millisecond, Input: 417, Output: 276}},
			map[string]int{skipNoOutput: 1},
		},
		{
			"goodput jsonl: prompt counted, blank lines skipped",
			`{"time": 10, "input_tokens": 600, "output_tokens": 20, "hash_ids": [7, 8]}

{"time": 10.25, "prompt": "Write a haiku about a warm cache.", "output_tokens": 64}
{"time": 11, "prompt": "Hello", "input_tokens": 40, "output_tokens": 2}
`, FormatAuto,
			[]Row{
				{Line: 1, Input: 600, Output: 20, HashIDs: []int64{7, 8}},
				// The built-in tokenizer counts 11 tokens in the prompt.
				{Line: 3, At: 250 * time.Millisecond, Input: 11, Output: 64, Prompt: "Write a haiku about a warm cache."},
				// A given count wins over the built-in tokenizer's.
				{Line: 4, At: s, Input: 40, Output: 2, Prompt: "Hello"},
			},
			map[string]int{},
		},
	}
	for _, tt := range tests {
		rows, r, err := readAll(t, tt.text, tt.format)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(rows) != len(tt.want) {
			t.Fatalf("%s: %d rows %+v, want %d", tt.name, len(rows), rows, len(tt.want))
		}
		for i, w := range tt.want {
			g := rows[i]
			if g.Line != w.Line || g.At != w.At || g.Input != w.Input || g.Output != w.Output || g.Prompt != w.Prompt || !slices.Equal(g.HashIDs, w.HashIDs) {
				t.Errorf("%s: row %d = %+v, want %+v", tt.name, i, g, w)
			}
		}
		if !mapsEqual(r.Skipped(), tt.skipped) {
			t.Errorf("%s: skipped %v, want %v", tt.name, r.Skipped(), tt.skipped)
		}
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestReaderRejects(t *testing.T) {
	moon := func(lines ...string) string { return strings.Join(lines, "\n") + "\n" }
	const azureHead = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
	const burstHead = "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
	tests := []struct {
		name, text string
		format     Format
		want       string
	}{
		{"empty file", "", FormatAuto, "t: the file is empty"},
		{"not JSON", moon(`{"timestamp": 0, "input_length": 5, "output_length": 1}`, `{"timestamp": 1,`), FormatAuto, "t:2: "},
		{"missing timestamp", moon(`{"input_length": 5, "output_length": 1}`), FormatMooncake, `t:1: missing "timestamp"`},
		{"missing input", moon(`{"timestamp": 0, "output_length": 1}`), FormatMooncake, `t:1: missing "input_length"`},
		{"missing output", moon(`{"timestamp": 0, "input_length": 1}`), FormatMooncake, `t:1: missing "output_length"`},
		{"negative length", moon(`{"timestamp": 0, "input_length": -5, "output_length": 1}`), FormatMooncake, `"input_length" -5 is outside`},
		{"huge length", moon(`{"timestamp": 0, "input_length": 5, "output_length": 99999999999}`), FormatMooncake, `"output_length" 99999999999 is outside`},
		{"negative time", moon(`{"timestamp": -1, "input_length": 5, "output_length": 1}`), FormatMooncake, "timestamp -0.001 s is outside"},
		{"time goes back", moon(
			`{"timestamp": 0, "input_length": 5, "output_length": 1}`,
			`{"timestamp": 2000, "input_length": 5, "output_length": 1}`,
			`{"timestamp": 1500, "input_length": 5, "output_length": 1}`), FormatMooncake, "t:3: arrives 500ms before the row on line 2: a trace must be sorted by time"},
		{"ids not numbers", moon(`{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": ["a"]}`), FormatMooncake, "t:1: "},
		{"goodput without time", moon(`{"input_tokens": 5, "output_tokens": 1}`), FormatJSONL, `t:1: missing "time"`},
		{"goodput without input", moon(`{"time": 0, "output_tokens": 1}`), FormatJSONL, `missing "input_tokens" (or a "prompt" to count)`},
		{"goodput with an empty prompt", moon(`{"time": 0, "output_tokens": 1, "prompt": ""}`), FormatJSONL, `"prompt" is empty, and there is no "input_tokens"`},
		{"goodput prompt and ids", moon(`{"time": 0, "prompt": "x", "output_tokens": 1, "hash_ids": [1]}`), FormatJSONL, `"prompt" or "hash_ids", not both`},
		{"azure column missing", "TIMESTAMP,ContextTokens\n", FormatAzure, `t:1: no "GeneratedTokens" column`},
		{"azure bad time", azureHead + "yesterday,5,5\n", FormatAzure, `t:2: TIMESTAMP "yesterday"`},
		{"azure bad count", azureHead + "2023-11-16 18:17:03.97,5.5,5\n", FormatAzure, `t:2: ContextTokens "5.5" is not a whole number`},
		{"azure short row", azureHead + "2023-11-16 18:17:03.97,5\n", FormatAzure, "t:2: wrong number of fields"},
		{"azure time goes back", azureHead + "2023-11-16 18:17:03.97,5,5\n2023-11-16 18:17:02.97,5,5\n", FormatAzure, "t:3: arrives 1s before"},
		{"azure empty", "", FormatAzure, "t: the file is empty, want a CSV"},
		{"burstgpt bad time", burstHead + "noon,GPT-4,5,5,10,API log\n", FormatBurstGPT, `t:2: Timestamp "noon"`},
		{"burstgpt negative count", burstHead + "1,GPT-4,-5,5,0,API log\n", FormatBurstGPT, "Request tokens -5 is outside"},
		{"unknown format", "x", "parquet", `--trace-format "parquet" is unknown`},
	}
	for _, tt := range tests {
		_, _, err := readAll(t, tt.text, tt.format)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// A file an editor saved with a byte-order mark reads as one without.
func TestReaderSkipsAByteOrderMark(t *testing.T) {
	for _, f := range []Format{FormatAuto, FormatMooncake} {
		rows, _, err := readAll(t, "\xef\xbb\xbf"+`{"timestamp":0,"input_length":10,"output_length":5}`+"\n", f)
		if err != nil || len(rows) != 1 || rows[0].Input != 10 {
			t.Errorf("%s: %+v, %v; want the one row", f, rows, err)
		}
	}
}

func TestReaderLongLine(t *testing.T) {
	// A line past the limit is refused with its number, not read whole.
	long := `{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [` + strings.Repeat("1, ", maxLine/3) + "1]}\n"
	_, _, err := readAll(t, `{"timestamp": 0, "input_length": 5, "output_length": 1}`+"\n"+long, FormatMooncake)
	if err == nil || !strings.Contains(err.Error(), "t:2: line longer than 64 MiB") {
		t.Errorf("long line: %v", err)
	}
}
