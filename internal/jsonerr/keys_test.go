package jsonerr

import (
	"encoding/json"
	"errors"
	"testing"
)

// Keys refuses a key that one object holds twice, and names where.
func TestKeys(t *testing.T) {
	type latency struct {
		TTFT float64 `json:"ttft"`
	}
	type doc struct {
		Name     string             `json:"name"`
		Requests []latency          `json:"requests"`
		Labels   map[string]string  `json:"labels"`
		Raw      json.RawMessage    `json:"raw"`
		Any      any                `json:"any"`
		Ptr      *latency           `json:"ptr"`
		ByName   map[string]latency `json:"by_name"`
	}
	tests := []struct {
		name, in string
		want     string // "" for none
	}{
		{"no duplicate", `{"name":"a","requests":[{"ttft":1}]}`, ""},
		{"top level", `{"name":"a","name":"b"}`, `key "name" appears twice: which value is meant cannot be told`},
		{"nested in an array", `{"requests":[{"ttft":1},{"ttft":1,"ttft":2}]}`,
			`key "ttft" in requests[1] appears twice: which value is meant cannot be told`},
		// "\u0061" is "a" once unescaped: one key, written twice.
		{"escaped", `{"labels":{"a":"x","\u0061":"y"}}`, `key "a" in labels appears twice: which value is meant cannot be told`},
		// Keys of a map that differ in case are two keys.
		{"map case", `{"labels":{"a":"x","A":"y"}}`, ""},
		// encoding/json puts "TTFT" and "ttft" into one field.
		{"field case", `{"ptr":{"ttft":1,"TTFT":2}}`,
			`keys "ttft" and "TTFT" in ptr name the same field (keys are matched regardless of case): which value is meant cannot be told`},
		{"field case in a map's struct", `{"by_name":{"x y":{"Ttft":1,"ttft":2}}}`,
			`keys "Ttft" and "ttft" in by_name["x y"] name the same field (keys are matched regardless of case): which value is meant cannot be told`},
		// A key the struct has no field for, in a case the field's
		// differs from, is still distinct from keys of other names.
		{"unknown keys differing in case", `{"extra":1,"Extra":2}`, ""},
		{"unknown key twice", `{"extra":1,"extra":2}`, `key "extra" appears twice: which value is meant cannot be told`},
		{"raw message", `{"raw":{"k":{"z":1,"z":2}}}`, `key "z" in raw.k appears twice: which value is meant cannot be told`},
		{"raw message case", `{"raw":{"z":1,"Z":2}}`, ""},
		{"any", `{"any":[{"q":1},{"q":1,"q":1}]}`, `key "q" in any[1] appears twice: which value is meant cannot be told`},
	}
	for _, tt := range tests {
		var v doc
		err := Unmarshal([]byte(tt.in), &v)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("%s: %v,\nwant %s", tt.name, err, tt.want)
		}
	}
}

// In a document of several lines the error names the second key's line.
func TestKeysLine(t *testing.T) {
	in := "{\n \"a\": 1,\n \"b\": {\n  \"c\": 2,\n  \"c\": 3\n }\n}\n"
	err := Keys([]byte(in), nil)
	var de *DuplicateKeyError
	if !errors.As(err, &de) || de.Line != 5 || de.Path != "b" || de.Key != "c" {
		t.Fatalf("Keys = %#v, want line 5, path b, key c", err)
	}
	if got, want := err.Error(), `line 5: key "c" in b appears twice: which value is meant cannot be told`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	// A syntax error is the decoder's.
	var se *json.SyntaxError
	var m map[string]any
	if err := Unmarshal([]byte(`{"a":}`), &m); !errors.As(err, &se) {
		t.Errorf("bad JSON: %v, want a syntax error", err)
	}
}

// Embedded structs' fields are the outer struct's, as encoding/json has them.
func TestKeysEmbedded(t *testing.T) {
	type Inner struct {
		N int `json:"n"`
	}
	type outer struct {
		Inner
		M int `json:"m"`
	}
	var v outer
	err := Unmarshal([]byte(`{"n":1,"N":2}`), &v)
	if err == nil || err.Error() != `keys "n" and "N" name the same field (keys are matched regardless of case): which value is meant cannot be told` {
		t.Errorf("embedded field: %v", err)
	}
}
