package jsonerr

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The filter lets a document pass only when no two keys of one object are
// alike in any case; whatever could be a duplicate goes on to the walk.
func TestDistinctKeys(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"a":1,"b":[1,2],"c":{"a":1}}`, true},
		{`[{"a":1},{"a":2}]`, true},         // one key in each of two objects
		{`{"a":"a","b":"a"}`, true},         // values are no keys
		{`{"a":"x\"y","b":"\\"}`, true},     // escapes inside values
		{`{"a":{"b":{"c":1}},"b":2}`, true}, // a nested object's keys are its own
		{`{"a":1,"a":2}`, false},            // written twice
		{`{"a":{"x":1},"a":2}`, false},      // twice around a nested object
		{`{"ttft":1,"TTFT":2}`, false},      // alike but for case
		{`{"a":1,"\u0062":2}`, false},       // an escape in a key
		{`{"a":1,"b":2`, false},             // cut short
		{`{"a":1]`, false},                  // not followed
		{strings.Repeat(`[`, 40) + `{"a":1,"a":2}` + strings.Repeat(`]`, 40), false},
	}
	for _, tt := range tests {
		if got := distinctKeys([]byte(tt.in)); got != tt.want {
			t.Errorf("distinctKeys(%s) = %v, want %v", tt.in, got, tt.want)
		}
	}
	var many strings.Builder
	many.WriteString("{")
	for i := range maxQuickKeys + 1 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`"k` + strings.Repeat("x", i) + `":1`)
	}
	many.WriteString("}")
	if distinctKeys([]byte(many.String())) {
		t.Error("an object of more keys than the filter compares passed it")
	}
}

// FuzzDistinctKeys holds the filter to the walk: a document the walk finds
// a key twice in never passes the filter.
func FuzzDistinctKeys(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1,"B":2}}`, `[{"x":1},{"x":1,"y":{"x":2}}]`, `{"\u0061":1,"a":2}`, `{"a":"\"","a":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		type doc struct {
			A int            `json:"a"`
			B map[string]any `json:"b"`
		}
		for _, into := range []any{nil, &doc{}} {
			var de *DuplicateKeyError
			if err := walkKeys(b, into); errors.As(err, &de) && distinctKeys(b) {
				t.Fatalf("%s: the walk finds %v, the filter lets it pass", s, err)
			}
		}
	})
}
