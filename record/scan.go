package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// scanner is a minimal JSON reader over one line, enough for the record
// layout: objects, integer arrays, strings, booleans, null, and skipping any
// other value.
type scanner struct {
	b []byte
	i int
}

// maxDepth bounds nesting when skipping unknown values.
const maxDepth = 64

// syntaxError is a line that is not the JSON the scanner expects.
type syntaxError struct {
	col   int  // 1-based column of the offending byte
	atEnd bool // the line ended where more was expected
	msg   string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("column %d: %s", e.col, e.msg) }

func (s *scanner) fail(msg string) error {
	return &syntaxError{col: s.i + 1, atEnd: s.i >= len(s.b), msg: msg}
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// consume skips white space and then c if it is next.
func (s *scanner) consume(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// null consumes a JSON null if it is next.
func (s *scanner) null() bool {
	s.ws()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// key reads an object key and its colon. The returned slice aliases the line
// unless the key had escapes.
func (s *scanner) key() ([]byte, error) {
	s.ws()
	raw, esc, err := s.rawString()
	if err != nil {
		return nil, err
	}
	if !s.consume(':') {
		return nil, s.fail("expected ':' after a key")
	}
	if esc {
		v, err := unquote(raw)
		return []byte(v), err
	}
	return raw[1 : len(raw)-1], nil
}

// rawString returns the quoted string at the cursor, quotes included, and
// whether it holds escapes.
func (s *scanner) rawString() ([]byte, bool, error) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, s.fail("expected a string")
	}
	start := s.i
	esc := false
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '\\':
			esc = true
			j++
		case c == '"':
			s.i = j + 1
			return s.b[start:s.i], esc, nil
		case c < 0x20:
			s.i = j
			return nil, false, s.fail("control character in a string")
		}
	}
	s.i = len(s.b)
	return nil, false, s.fail("unterminated string")
}

func unquote(raw []byte) (string, error) {
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("bad string %s: %w", raw, err)
	}
	return v, nil
}

func (s *scanner) string() (string, error) {
	s.ws()
	raw, esc, err := s.rawString()
	if err != nil {
		return "", err
	}
	if esc {
		return unquote(raw)
	}
	return string(raw[1 : len(raw)-1]), nil
}

func (s *scanner) bool() (bool, error) {
	s.ws()
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true, nil
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false, nil
	}
	return false, s.fail("expected true or false")
}

// int reads an integer. A number written with a fraction or exponent is
// accepted when it is integral and fits in int64 (other writers may emit
// 1e9 for a second).
func (s *scanner) int() (int64, error) {
	s.ws()
	start := s.i
	neg := false
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	var v uint64
	digits := 0
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c < '0' || c > '9' {
			break
		}
		if v > (math.MaxInt64-9)/10 {
			return s.slowInt(start)
		}
		v = v*10 + uint64(c-'0')
		s.i++
		digits++
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			return s.slowInt(start)
		}
	}
	if digits == 0 {
		return 0, s.fail("expected a number")
	}
	if neg {
		return -int64(v), nil
	}
	return int64(v), nil
}

func (s *scanner) slowInt(start int) (int64, error) {
	s.i = start
	end := s.numberEnd()
	f, err := strconv.ParseFloat(string(s.b[start:end]), 64)
	// 2⁶³ itself is out of range: float64(math.MaxInt64) rounds up to it,
	// and converting it wraps to −2⁶³.
	switch {
	case err == nil && f == math.Trunc(f) && (f >= 0x1p63 || f < -0x1p63), errors.Is(err, strconv.ErrRange):
		return 0, s.fail(fmt.Sprintf("%q is out of range: no time or count of a record comes near 2^63", s.b[start:end]))
	case err != nil || f != math.Trunc(f) || f >= 0x1p63 || f < -0x1p63:
		return 0, s.fail(fmt.Sprintf("%q is not an integer", s.b[start:end]))
	}
	s.i = end
	return int64(f), nil
}

func (s *scanner) numberEnd() int {
	j := s.i
	for j < len(s.b) {
		switch c := s.b[j]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			j++
		default:
			return j
		}
	}
	return j
}

// intArray reads an array of integers, calling f for each.
func (s *scanner) intArray(f func(int64) error) error {
	if !s.consume('[') {
		return s.fail("expected an array")
	}
	if s.consume(']') {
		return nil
	}
	for {
		v, err := s.int()
		if err != nil {
			return err
		}
		if err := f(v); err != nil {
			return s.fail(err.Error())
		}
		if s.consume(',') {
			continue
		}
		if s.consume(']') {
			return nil
		}
		return s.fail("expected ',' or ']' in an array")
	}
}

func (s *scanner) stringMap() (map[string]string, error) {
	if !s.consume('{') {
		return nil, s.fail("expected an object")
	}
	m := map[string]string{}
	if s.consume('}') {
		return m, nil
	}
	for {
		k, err := s.key()
		if err != nil {
			return nil, err
		}
		if _, dup := m[string(k)]; dup {
			return nil, fmt.Errorf("label %q appears twice: which value is meant cannot be told", k)
		}
		v, err := s.string()
		if err != nil {
			return nil, err
		}
		m[string(k)] = v
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			return m, nil
		}
		return nil, s.fail("expected ',' or '}' in an object")
	}
}

// skip passes over any JSON value.
func (s *scanner) skip(depth int) error {
	if depth > maxDepth {
		return s.fail("nesting too deep")
	}
	s.ws()
	if s.i >= len(s.b) {
		return s.fail("expected a value")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, _, err := s.rawString()
		return err
	case c == '{':
		s.i++
		if s.consume('}') {
			return nil
		}
		for {
			s.ws()
			if _, _, err := s.rawString(); err != nil {
				return err
			}
			if !s.consume(':') {
				return s.fail("expected ':' after a key")
			}
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if s.consume(',') {
				continue
			}
			if s.consume('}') {
				return nil
			}
			return s.fail("expected ',' or '}'")
		}
	case c == '[':
		s.i++
		if s.consume(']') {
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			if s.consume(',') {
				continue
			}
			if s.consume(']') {
				return nil
			}
			return s.fail("expected ',' or ']'")
		}
	case c == '-' || (c >= '0' && c <= '9'):
		end := s.numberEnd()
		if _, err := strconv.ParseFloat(string(s.b[s.i:end]), 64); err != nil && !errors.Is(err, strconv.ErrRange) {
			return s.fail("bad number")
		}
		s.i = end
		return nil
	case s.null():
		return nil
	default:
		_, err := s.bool()
		return err
	}
}
