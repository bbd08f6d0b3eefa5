package runfile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// A number converts to integer nanoseconds from the text it was written
// as, so that a Unix time in seconds keeps every digit a float64 would
// round away.
func TestDecimalScaled(t *testing.T) {
	tests := []struct {
		in   string
		unit int64
		want int64
		err  string
	}{
		// a Unix time in seconds: 1767225610.302 s is 302 ms past the
		// second, exactly (as a float64 it is 1767225610.3020000457…)
		{`1767225610.302`, 1e9, 1767225610302000000, ""},
		// a latency in milliseconds, as AIPerf writes them
		{`1680.543782`, 1e6, 1680543782, ""},
		// integer nanoseconds pass as they are, beyond 2^53
		{`1759522419154829652`, 1, 1759522419154829652, ""},
		// an exponent
		{`2.5e-3`, 1e9, 2500000, ""},
		// below a nanosecond: halves round away from zero
		{`0.0000000005`, 1e9, 1, ""},
		{`-0.0000000005`, 1e9, -1, ""},
		{`0.0000000004`, 1e9, 0, ""},
		// null: unset
		{`null`, 1e9, 0, "t is missing"},
		// Python's words for what is not a number
		{`NaN`, 1e9, 0, "t is NaN"},
		{`-Infinity`, 1e9, 0, "t is -Infinity"},
		// past what a time can be
		{`1e300`, 1e9, 0, "t = 1e300 is out of range"},
	}
	for _, tt := range tests {
		var d decimal
		if err := json.Unmarshal(pythonNumbers([]byte(tt.in)), &d); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		got, err := d.scaled(tt.unit, "t")
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.in, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case got != tt.want:
			t.Errorf("%s × %d = %d, want %d", tt.in, tt.unit, got, tt.want)
		}
	}
}

// A decimal is a number or nothing: a string or an object is refused in
// the decoder's words.
func TestDecimalRefusesOtherJSON(t *testing.T) {
	var v struct {
		T decimal `json:"t"`
	}
	for in, want := range map[string]string{
		`{"t":"12"}`:  `"t": want a number, got a JSON string`,
		`{"t":{}}`:    `"t": want a number, got a JSON object`,
		`{"t":true}`:  `"t": want a number, got a JSON bool`,
		`{"t":[1.5]}`: `"t": want a number, got a JSON array`,
	} {
		err := json.Unmarshal([]byte(in), &v)
		if err == nil {
			t.Errorf("%s: no error", in)
			continue
		}
		if got := jsonerr.Plain(err).Error(); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

func TestDecimalCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
		err  string
	}{
		{`7`, 7, ""},     // a count
		{`7.0`, 7, ""},   // written as a float
		{`7.5`, 0, "n"},  // not whole
		{`-1`, 0, "n"},   // negative
		{`1e12`, 0, "n"}, // more than a count can be
	}
	for _, tt := range tests {
		var d decimal
		if err := json.Unmarshal([]byte(tt.in), &d); err != nil {
			t.Fatal(err)
		}
		got, err := d.count("n")
		if tt.err != "" {
			if err == nil {
				t.Errorf("%s: %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}
