package backend

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting while skipping values. It matches
// encoding/json's limit, so the two accept the same documents.
const maxJSONDepth = 10000

// jsonError is a syntax or type error at a byte offset of one JSON text.
type jsonError struct {
	off int
	msg string
}

func (e *jsonError) Error() string { return fmt.Sprintf("%s at offset %d", e.msg, e.off) }

// scanner walks one JSON text in place, without building values.
//
// Decoders of stream events use it to pick out the handful of fields they
// need and skip the rest; every byte is still validated, so a document it
// accepts is one encoding/json accepts. It exists because encoding/json spends
// several microseconds and about ten allocations on each small stream chunk,
// which is most of the client's budget per token (see BenchmarkDecodeChunk).
type scanner struct {
	b     []byte
	i     int
	depth int
	key   []byte // scratch for object keys that contain escapes
}

func (s *scanner) reset(b []byte) {
	s.b, s.i, s.depth = b, 0, 0
}

func (s *scanner) errorf(format string, args ...any) error {
	return &jsonError{off: s.i, msg: fmt.Sprintf(format, args...)}
}

// unexpected reports the byte at the cursor (or the end of input) as wrong.
func (s *scanner) unexpected(want string) error {
	if s.i >= len(s.b) {
		return &jsonError{off: s.i, msg: "unexpected end of JSON, want " + want}
	}
	return s.errorf("invalid character %s, want %s", quoteByte(s.b[s.i]), want)
}

// quoteByte shows a byte for an error message; bytes past ASCII are shown
// in hex, since alone they are not characters.
func quoteByte(c byte) string {
	if c < utf8.RuneSelf {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf(`'\x%02x'`, c)
}

func (s *scanner) ws() {
	// Compact JSON, the common case, has no space between tokens.
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// end checks that only white space follows the value just read.
func (s *scanner) end() error {
	s.ws()
	if s.i != len(s.b) {
		return s.errorf("invalid character %s after top-level value", quoteByte(s.b[s.i]))
	}
	return nil
}

// null consumes a null literal if one is next and reports whether it did.
func (s *scanner) null() bool {
	if s.peek() == 'n' && len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// object consumes the '{' that opens an object. Callers then loop on field.
func (s *scanner) object() error {
	if s.peek() != '{' {
		return s.unexpected("'{'")
	}
	return s.open()
}

// array consumes the '[' that opens an array. Callers then loop on elem.
func (s *scanner) array() error {
	if s.peek() != '[' {
		return s.unexpected("'['")
	}
	return s.open()
}

func (s *scanner) open() error {
	s.depth++
	if s.depth > maxJSONDepth {
		return s.errorf("exceeded max depth")
	}
	s.i++
	return nil
}

// field reads the next key of an object and the ':' after it. first must be
// true on the first call for an object and false afterwards. At the closing
// '}' it returns ok=false. The key is valid until the next call.
func (s *scanner) field(first bool) (key []byte, ok bool, err error) {
	c := s.peek()
	if c == '}' && first {
		s.i++
		s.depth--
		return nil, false, nil
	}
	if !first {
		switch c {
		case '}':
			s.i++
			s.depth--
			return nil, false, nil
		case ',':
			s.i++
			s.ws()
		default:
			return nil, false, s.unexpected("',' or '}'")
		}
	}
	raw, escaped, err := s.str()
	if err != nil {
		return nil, false, err
	}
	if escaped {
		if s.key, err = unquote(s.key[:0], raw); err != nil {
			return nil, false, err
		}
		raw = s.key
	}
	if s.peek() != ':' {
		return nil, false, s.unexpected("':'")
	}
	s.i++
	return raw, true, nil
}

// elem advances to the next element of an array, returning false at ']'.
// first must be true on the first call for an array.
func (s *scanner) elem(first bool) (bool, error) {
	c := s.peek()
	if c == ']' {
		s.i++
		s.depth--
		return false, nil
	}
	if first {
		return true, nil
	}
	if c != ',' {
		return false, s.unexpected("',' or ']'")
	}
	s.i++
	return true, nil
}

// str reads a string and returns its raw contents between the quotes, and
// whether they contain escapes (then unquote gives the text).
func (s *scanner) str() (raw []byte, escaped bool, err error) {
	if s.peek() != '"' {
		return nil, false, s.unexpected("string")
	}
	start := s.i + 1
	for i := start; ; i++ {
		i += plainRun(s.b[i:])
		if i >= len(s.b) {
			break
		}
		switch c := s.b[i]; {
		case c == '"':
			s.i = i + 1
			return s.b[start:i], escaped, nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(s.b) {
				s.i = i
				return nil, false, s.unexpected("escape")
			}
			switch s.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(s.b)-i-1 < 4 {
					s.i = len(s.b)
					return nil, false, s.unexpected("four hex digits")
				}
				for _, h := range s.b[i+1 : i+5] {
					if hexVal(h) < 0 {
						s.i = i + 1
						return nil, false, s.errorf("invalid character %s in \\u escape", quoteByte(h))
					}
				}
				i += 4
			default:
				s.i = i
				return nil, false, s.errorf("invalid escape character %s", quoteByte(s.b[i]))
			}
		default: // a control character
			s.i = i
			return nil, false, s.errorf("invalid control character %s in string", quoteByte(c))
		}
	}
	s.i = len(s.b)
	return nil, false, s.unexpected("closing '\"'")
}

// text reads a string or null. It returns the raw contents and whether they
// have escapes; null gives nil.
func (s *scanner) text() (raw []byte, escaped bool, err error) {
	if s.null() {
		return nil, false, nil
	}
	return s.str()
}

// count reads a token count: a non-negative integer that fits in an
// int32, or null (-1: not reported). ok is false, and n -1, when the value
// is valid JSON but no such count (a string, a negative or fractional
// number, one past int32, an object): a server's bookkeeping gone wrong,
// which callers drop as not reported rather than fail a stream whose
// tokens all came (see decoder.count). err is for JSON that does not
// parse, and fails the event as before.
//
// A whole number written with a fraction or an exponent (3.0, 1e3, 2.5e1)
// is the count it denotes: JSON has one kind of number, and proxies that
// pass numbers through floats (JavaScript's, Python's json with floats)
// write them so. The test is exact, in decimal, not through a float, so
// 3.0000000000000001 is no count.
func (s *scanner) count() (n int, ok bool, err error) {
	if s.null() {
		return -1, true, nil
	}
	start := s.peekIndex()
	if c := s.peek(); c != '-' && !isDigit(c) {
		if err := s.skip(); err != nil {
			return 0, false, err
		}
		return -1, false, nil
	}
	if err := s.number(); err != nil {
		return 0, false, err
	}
	v := 0
	for _, c := range s.b[start:s.i] {
		if c < '0' || c > '9' {
			v, ok = wholeNumber(s.b[start:s.i])
			return v, ok, nil
		}
		v = v*10 + int(c-'0')
		if v > math.MaxInt32 {
			return -1, false, nil
		}
	}
	return v, true, nil
}

// wholeNumber returns the value of num, a valid JSON number, when it is a
// whole number from 0 to math.MaxInt32 however it is written, and -1,
// false when it is not. It reads num as digits d and a power of ten e
// (num = d·10^e): trailing zeros of d raise e, so that a whole number has
// e ≥ 0 once they are gone.
func wholeNumber(num []byte) (int, bool) {
	neg := num[0] == '-'
	if neg {
		num = num[1:]
	}
	mant, exp := num, int64(0)
	if i := bytes.IndexAny(num, "eE"); i >= 0 {
		mant = num[:i]
		e := num[i+1:]
		sign := int64(1)
		switch e[0] {
		case '-':
			sign, e = -1, e[1:]
		case '+':
			e = e[1:]
		}
		for _, c := range e {
			// Past any fraction a body can hold, the exponent only
			// tells a huge number from a tiny one.
			exp = min(exp*10+int64(c-'0'), 1<<40)
		}
		exp *= sign
	}
	whole, frac := mant, []byte(nil)
	if i := bytes.IndexByte(mant, '.'); i >= 0 {
		whole, frac = mant[:i], mant[i+1:]
	}
	exp -= int64(len(frac))
	// digit k of d, leading zeros and all.
	digit := func(k int) byte {
		if k < len(whole) {
			return whole[k]
		}
		return frac[k-len(whole)]
	}
	lo, hi := 0, len(whole)+len(frac)
	for lo < hi && digit(lo) == '0' {
		lo++
	}
	for hi > lo && digit(hi-1) == '0' {
		hi--
		exp++
	}
	switch {
	case lo == hi:
		return 0, true // zero, -0 and 0.0e5 among them
	case neg || exp < 0 || int64(hi-lo)+exp > 10:
		return -1, false
	}
	v := int64(0)
	for k := lo; k < hi; k++ {
		v = v*10 + int64(digit(k)-'0')
	}
	for ; exp > 0; exp-- {
		v *= 10
	}
	if v > math.MaxInt32 {
		return -1, false
	}
	return int(v), true
}

// duration reads a non-negative number of milliseconds, or null (-1): a
// server's own timing of a request.
func (s *scanner) duration() (float64, error) {
	if s.null() {
		return -1, nil
	}
	start := s.peekIndex()
	if err := s.number(); err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(string(s.b[start:s.i]), 64)
	if err != nil || v < 0 || v > maxMillis {
		return 0, &jsonError{off: start, msg: fmt.Sprintf("number %q is not a duration in milliseconds", s.b[start:s.i])}
	}
	return v, nil
}

// maxMillis bounds a server's timing of one request: a year, far beyond any
// request, and well inside what nanoseconds in an int64 hold.
const maxMillis = 365 * 24 * 3600 * 1e3

func (s *scanner) peekIndex() int {
	s.ws()
	return s.i
}

// boolean reads true, false or null (false).
func (s *scanner) boolean() (bool, error) {
	switch s.peek() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return false, s.literal("null")
	}
	return false, s.unexpected("boolean")
}

func (s *scanner) literal(lit string) error {
	if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return nil
	}
	// Point at the first byte that differs, as encoding/json does.
	for k := 0; k < len(lit); k++ {
		if s.i+k >= len(s.b) || s.b[s.i+k] != lit[k] {
			s.i += k
			return s.unexpected("literal " + lit)
		}
	}
	return nil
}

// number consumes one JSON number, validating its grammar.
func (s *scanner) number() error {
	s.ws()
	i := s.i
	if i < len(s.b) && s.b[i] == '-' {
		i++
	}
	switch {
	case i < len(s.b) && s.b[i] == '0':
		i++
	case i < len(s.b) && s.b[i] >= '1' && s.b[i] <= '9':
		for i < len(s.b) && isDigit(s.b[i]) {
			i++
		}
	default:
		s.i = i
		return s.unexpected("digit")
	}
	if i < len(s.b) && s.b[i] == '.' {
		i++
		if i >= len(s.b) || !isDigit(s.b[i]) {
			s.i = i
			return s.unexpected("digit after '.'")
		}
		for i < len(s.b) && isDigit(s.b[i]) {
			i++
		}
	}
	if i < len(s.b) && (s.b[i] == 'e' || s.b[i] == 'E') {
		i++
		if i < len(s.b) && (s.b[i] == '+' || s.b[i] == '-') {
			i++
		}
		if i >= len(s.b) || !isDigit(s.b[i]) {
			s.i = i
			return s.unexpected("digit in exponent")
		}
		for i < len(s.b) && isDigit(s.b[i]) {
			i++
		}
	}
	s.i = i
	return nil
}

// skip consumes any one value, validating it.
func (s *scanner) skip() error {
	switch c := s.peek(); {
	case c == '{':
		if err := s.object(); err != nil {
			return err
		}
		for first := true; ; first = false {
			_, ok, err := s.field(first)
			if err != nil || !ok {
				return err
			}
			if err := s.skip(); err != nil {
				return err
			}
		}
	case c == '[':
		if err := s.array(); err != nil {
			return err
		}
		for first := true; ; first = false {
			ok, err := s.elem(first)
			if err != nil || !ok {
				return err
			}
			if err := s.skip(); err != nil {
				return err
			}
		}
	case c == '"':
		_, _, err := s.str()
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || isDigit(c):
		return s.number()
	default:
		return s.unexpected("value")
	}
}

// plainStringByte marks the bytes that stand for themselves inside a JSON
// string: all but the quote, the backslash and control characters. One
// table lookup per byte keeps the scan of long ids and texts cheap.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainRun returns how many of b's leading bytes stand for themselves
// inside a JSON string (see plainStringByte), looking at eight at a time
// while eight are left. A word holds a quote, a backslash or a byte below
// 0x20 when the classic zero-byte test (x-1 borrows into bit 7 only when x
// is 0 and x < 0x80) finds a zero in the word xored with the quote, in the
// word xored with the backslash, or in the word less 0x20 in every byte.
// A borrow only carries upwards, so the lowest byte flagged is the first
// special one: the bytes are little-endian, the lowest the earliest.
func plainRun(b []byte) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	n := 0
	for ; len(b)-n >= 8; n += 8 {
		w := binary.LittleEndian.Uint64(b[n:])
		q, bs := w^('"'*ones), w^('\\'*ones)
		special := ((q - ones) &^ q) | ((bs - ones) &^ bs) | ((w - 0x20*ones) &^ w)
		if special &= highs; special != 0 {
			return n + bits.TrailingZeros64(special)/8
		}
	}
	for n < len(b) && plainStringByte[b[n]] {
		n++
	}
	return n
}

// validJSON reports whether b is exactly one JSON value.
func validJSON(b []byte) error {
	var s scanner
	s.reset(b)
	if err := s.skip(); err != nil {
		return err
	}
	return s.end()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hexVal(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// unquote appends the text of the raw string contents to dst, resolving
// escapes. raw must have been validated by scanner.str. Unpaired surrogates
// become U+FFFD, as in encoding/json.
func unquote(dst, raw []byte) ([]byte, error) {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(raw) {
			return dst, &jsonError{off: i, msg: "unterminated escape"}
		}
		switch raw[i] {
		case '"', '\\', '/':
			dst = append(dst, raw[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := hex4(raw[i+1:])
			if n < 0 {
				return dst, &jsonError{off: i, msg: "invalid \\u escape"}
			}
			i += 4
			if utf16.IsSurrogate(r) {
				// A high surrogate pairs with a following \uDC00..\uDFFF.
				if i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					if r2, n2 := hex4(raw[i+3:]); n2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							dst = utf8.AppendRune(dst, dec)
							i += 6
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, &jsonError{off: i, msg: "invalid escape character " + quoteByte(raw[i])}
		}
	}
	return dst, nil
}

// hex4 decodes four hex digits; n is -1 when they are not.
func hex4(b []byte) (r rune, n int) {
	if len(b) < 4 {
		return 0, -1
	}
	for _, c := range b[:4] {
		v := hexVal(c)
		if v < 0 {
			return 0, -1
		}
		r = r<<4 | v
	}
	return r, 4
}
