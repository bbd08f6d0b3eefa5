package record

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s to dst as a JSON string literal and returns the
// extended slice. Quotes, backslashes and control characters are escaped and
// invalid UTF-8 becomes U+FFFD, so the output is valid JSON whatever bytes a
// server sent; everything else is copied as is, as encoding/json does
// without HTML escaping. It takes a string or a byte slice so that callers
// holding either (record fields, a simulator's token text) avoid a copy,
// and it allocates only when dst must grow.
func AppendJSONString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		// A rune is at most UTFMax bytes; converting only those keeps the
		// byte-slice instantiation free of allocations.
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
