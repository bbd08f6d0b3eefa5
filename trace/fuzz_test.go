package trace

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzReader feeds arbitrary bytes to every format's reader: each must
// return rows that keep the Row invariants, in time order, or an error that
// names the file, never panic or hang.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		`{"timestamp": 0, "input_length": 600, "output_length": 20, "hash_ids": [0, 1]}` + "\n" + `{"timestamp": 5, "input_length": 1, "output_length": 1}`,
		`{"time": 1.5, "prompt": "hi there", "output_tokens": 3}`,
		"TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:17:03.9799600,4808,10\r\n",
		"Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n",
		`{"timestamp": 1e308, "input_length": 5, "output_length": 1}`,
		`{"timestamp": 1.5, "input_length": 512.0, "output_length": 2, "hash_ids": [18446744073709551615, -1, 7]}`,
		`{"time": -0, "input_tokens": 0, "output_tokens": 0}`,
		"\"\n\"",
		"",
	} {
		f.Add([]byte(s), uint8(0))
	}
	formats := []Format{FormatAuto, FormatMooncake, FormatAzure, FormatBurstGPT, FormatJSONL, FormatTimed}
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		r, err := NewReader(strings.NewReader(string(data)), "f", formats[int(which)%len(formats)])
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") && !strings.HasPrefix(err.Error(), "f ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		prev := int64(-1)
		for n := 0; ; n++ {
			row, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "f:") && !strings.HasPrefix(err.Error(), "f ") {
					t.Fatalf("error does not name the file: %v", err)
				}
				return
			}
			if row.Input < 1 || row.Output < 1 || row.Input > MaxTokens || row.Output > MaxTokens || row.At < 0 || row.At > maxTime || int64(row.At) < prev || row.Line < 1 {
				t.Fatalf("row %d breaks the invariants: %+v", n, row)
			}
			prev = int64(row.At)
		}
	})
}
