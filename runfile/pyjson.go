package runfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
)

// pythonNumbers returns b with the bare words NaN, Infinity and -Infinity
// that Python's json module writes for non-finite floats (and JSON lacks)
// turned into the strings "NaN", "Infinity" and "-Infinity", so that
// encoding/json can read the document and pyFloat can give them back.
// Strings are left alone. b is returned as it is when it holds none.
func pythonNumbers(b []byte) []byte {
	if !bytes.Contains(b, []byte("NaN")) && !bytes.Contains(b, []byte("Infinity")) {
		return b
	}
	out := make([]byte, 0, len(b)+64)
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			out = append(out, c)
			switch c {
			case '\\':
				if i+1 < len(b) {
					i++
					out = append(out, b[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		word := ""
		for _, w := range []string{"NaN", "Infinity", "-Infinity"} {
			if bytes.HasPrefix(b[i:], []byte(w)) {
				word = w
				break
			}
		}
		if word == "" {
			out = append(out, c)
			continue
		}
		out = append(out, '"')
		out = append(out, word...)
		out = append(out, '"')
		i += len(word) - 1
	}
	return out
}

// pyFloat is a float64 that also reads the strings pythonNumbers makes of
// Python's NaN and infinities. Whoever uses one must check it is finite.
type pyFloat float64

// nullBits is the NaN a pyFloat holds for JSON's null, which Python never
// writes for a number it measured: finite refuses it as null, not as NaN.
const nullBits = 0x7ff8_0000_0000_0b0b

func (f *pyFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*f = pyFloat(math.NaN())
		return nil
	case `"Infinity"`:
		*f = pyFloat(math.Inf(1))
		return nil
	case `"-Infinity"`:
		*f = pyFloat(math.Inf(-1))
		return nil
	case "null":
		*f = pyFloat(math.Float64frombits(nullBits))
		return nil
	}
	if len(b) > 0 && b[0] != '-' && (b[0] < '0' || b[0] > '9') {
		return &json.UnmarshalTypeError{Value: jsonKind(b[0]), Type: reflect.TypeFor[float64]()}
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = pyFloat(v)
	return nil
}

// jsonKind names the JSON value that starts with c, as the decoder's
// type errors do.
func jsonKind(c byte) string {
	switch c {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	}
	return "value"
}

// finite returns f as a float64, or an error naming key when it is NaN or
// infinite.
func (f pyFloat) finite(key string) (float64, error) {
	v := float64(f)
	switch {
	case math.Float64bits(v) == nullBits:
		return 0, fmt.Errorf("%s is null", key)
	case math.IsNaN(v):
		return 0, fmt.Errorf("%s is NaN", key)
	case math.IsInf(v, 1):
		return 0, fmt.Errorf("%s is Infinity", key)
	case math.IsInf(v, -1):
		return 0, fmt.Errorf("%s is -Infinity", key)
	}
	return v, nil
}
