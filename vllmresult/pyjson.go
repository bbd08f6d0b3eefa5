package vllmresult

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Object is a JSON object whose keys keep their order, as a Python dict
// does.
type Object []Member

// Member is one key of an Object.
type Member struct {
	Key   string
	Value any
}

// Get returns the value of key and whether the object has it.
func (o Object) Get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// set replaces key's value, or appends the key.
func (o *Object) set(key string, v any) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, Member{key, v})
}

// del removes key.
func (o *Object) del(key string) {
	for i := range *o {
		if (*o)[i].Key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// appendPython appends v encoded as Python's json.dump encodes it with its
// defaults: ", " and ": " separators, ASCII only, NaN and Infinity allowed,
// floats in repr form (1.0, 0.0001, 1e-05). Supported values are nil,
// bool, int, int64, float64, string, Object and slices of those.
func appendPython(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case float64:
		return append(dst, pyFloat(x)...)
	case string:
		return appendASCIIString(dst, x)
	case Object:
		dst = append(dst, '{')
		for i, m := range x {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendASCIIString(dst, m.Key)
			dst = append(dst, ": "...)
			dst = appendPython(dst, m.Value)
		}
		return append(dst, '}')
	case []any:
		return appendList(dst, len(x), func(d []byte, i int) []byte { return appendPython(d, x[i]) })
	case []float64:
		return appendList(dst, len(x), func(d []byte, i int) []byte { return append(d, pyFloat(x[i])...) })
	case [][]float64:
		return appendList(dst, len(x), func(d []byte, i int) []byte { return appendPython(d, x[i]) })
	case []int:
		return appendList(dst, len(x), func(d []byte, i int) []byte { return strconv.AppendInt(d, int64(x[i]), 10) })
	case []string:
		return appendList(dst, len(x), func(d []byte, i int) []byte { return appendASCIIString(d, x[i]) })
	case []Object:
		return appendList(dst, len(x), func(d []byte, i int) []byte { return appendPython(d, x[i]) })
	}
	panic(fmt.Sprintf("vllmresult: cannot encode %T", v))
}

func appendList(dst []byte, n int, elem func([]byte, int) []byte) []byte {
	dst = append(dst, '[')
	for i := range n {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = elem(dst, i)
	}
	return append(dst, ']')
}

// pyFloat formats v as Python's repr does: the shortest digits that read
// back as v, in fixed notation for exponents from -4 to 15 (always with a
// fractional part) and in scientific notation with a signed two-digit
// exponent otherwise.
func pyFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	s := strconv.FormatFloat(v, 'e', -1, 64) // e.g. -1.2345e+06
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, expText, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		return fmt.Sprintf("%s%se%+03d", sign, m, exp)
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	point := exp + 1
	if len(digits) <= point {
		return sign + digits + strings.Repeat("0", point-len(digits)) + ".0"
	}
	return sign + digits[:point] + "." + digits[point:]
}

// appendASCIIString appends s as a JSON string with every non-ASCII
// character escaped (\u00e9, surrogate pairs above U+FFFF), as Python's
// ensure_ascii does; invalid UTF-8 becomes U+FFFD.
func appendASCIIString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u := func(d []byte, r rune) []byte {
		return append(d, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			dst = append(dst, `\"`...)
		case r == '\\':
			dst = append(dst, `\\`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r == '\t':
			dst = append(dst, `\t`...)
		case r == '\b':
			dst = append(dst, `\b`...)
		case r == '\f':
			dst = append(dst, `\f`...)
		case r < 0x20 || r == 0x7f: // Python escapes everything outside " "…"~"
			dst = u(dst, r)
		case r < utf8.RuneSelf:
			dst = append(dst, byte(r))
		case r > 0xffff:
			r -= 0x10000
			dst = u(dst, 0xd800+(r>>10))
			dst = u(dst, 0xdc00+(r&0x3ff))
		default:
			dst = u(dst, r)
		}
	}
	return append(dst, '"')
}
