package jsonerr

import (
	"encoding/json"
	"errors"
	"testing"
)

// Decoding errors read as the file's JSON, not as Go types.
func TestPlain(t *testing.T) {
	var v struct {
		Name  string    `json:"name"`
		N     int       `json:"n"`
		X     float64   `json:"x"`
		On    bool      `json:"on"`
		List  []string  `json:"list"`
		Inner struct{}  `json:"inner"`
		Ptr   *int      `json:"ptr"`
		Arr   [2]string `json:"arr"`
	}
	tests := []struct{ in, want string }{
		{`{"name": 1}`, `"name": want a string, got a JSON number`},
		{`{"n": "x"}`, `"n": want an integer, got a JSON string`},
		{`{"n": 1.5}`, `"n": want an integer, got a JSON number 1.5`},
		{`{"x": true}`, `"x": want a number, got a JSON bool`},
		{`{"on": 1}`, `"on": want true or false, got a JSON number`},
		{`{"list": {}}`, `"list": want a JSON array, got a JSON object`},
		{`{"inner": []}`, `"inner": want a JSON object, got a JSON array`},
		{`{"ptr": "x"}`, `"ptr": want an integer, got a JSON string`},
		{`{"arr": 3}`, `"arr": want a JSON array, got a JSON number`},
		{`[1]`, `want a JSON object, got a JSON array`},
	}
	for _, tt := range tests {
		err := Plain(json.Unmarshal([]byte(tt.in), &v))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", tt.in, err, tt.want)
		}
	}
	// Other errors pass unchanged.
	syntax := json.Unmarshal([]byte(`{`), &v)
	if got := Plain(syntax); !errors.Is(got, syntax) {
		t.Errorf("a syntax error became %v", got)
	}
}

// Position names the line and column of the byte a syntax error stopped at.
func TestPosition(t *testing.T) {
	b := []byte("[{\"a\": 1},\n {\"b\": 2,}]")
	var v any
	err := json.Unmarshal(b, &v)
	if line, col, ok := Position(b, err); !ok || line != 2 || col != 10 {
		t.Errorf("Position = %d:%d %v, want 2:10 (the '}')", line, col, ok)
	}
	if _, _, ok := Position(b, errors.New("other")); ok {
		t.Error("an error that is no syntax error has no position")
	}
}
