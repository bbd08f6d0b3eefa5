package slo

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// SyntaxError says where an SLO or gate expression is wrong. Column counts
// characters from 1.
type SyntaxError struct {
	Kind   string // "slo" or "gate"
	Input  string
	Column int
	Err    error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s %q: at column %d: %v", e.Kind, e.Input, e.Column, e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Errors wrapped by a SyntaxError, for callers that want to tell them apart.
var (
	ErrUnknownMetric = errors.New("unknown metric")
	ErrUnknownUnit   = errors.New("unknown unit")
	ErrRange         = errors.New("out of range")
)

// unitsHelp lists the duration units in error messages.
const unitsHelp = "want ns, us, ms, s, m"

// units maps a duration unit to its length.
var units = map[string]time.Duration{
	"ns":      time.Nanosecond,
	"us":      time.Microsecond,
	"\u00b5s": time.Microsecond, // micro sign
	"\u03bcs": time.Microsecond, // Greek mu
	"ms":      time.Millisecond,
	"s":       time.Second,
	"m":       time.Minute,
}

// scanner walks an expression a character at a time, keeping the position
// for errors.
type scanner struct {
	kind  string // "slo" or "gate", for errors
	input string
	rs    []rune
	pos   int
}

func newScanner(kind, input string) *scanner {
	return &scanner{kind: kind, input: input, rs: []rune(input)}
}

// errAt returns a SyntaxError at character index pos.
func (s *scanner) errAt(pos int, err error) error {
	return &SyntaxError{Kind: s.kind, Input: s.input, Column: pos + 1, Err: err}
}

func (s *scanner) errorf(pos int, format string, args ...any) error {
	return s.errAt(pos, fmt.Errorf(format, args...))
}

func (s *scanner) eof() bool { return s.pos >= len(s.rs) }

// peek returns the current character, or 0 at the end.
func (s *scanner) peek() rune {
	if s.eof() {
		return 0
	}
	return s.rs[s.pos]
}

func (s *scanner) skipSpace() {
	for !s.eof() && unicode.IsSpace(s.rs[s.pos]) {
		s.pos++
	}
}

// describe names the character at the position for an error message.
func (s *scanner) describe() string {
	if s.eof() {
		return "end of input"
	}
	return strconv.QuoteRune(s.peek())
}

// word reads a name: a letter, then letters, digits and underscores,
// lower-cased.
func (s *scanner) word() string {
	start := s.pos
	for !s.eof() {
		c := s.rs[s.pos]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || s.pos > start && c >= '0' && c <= '9') {
			break
		}
		s.pos++
	}
	return strings.ToLower(string(s.rs[start:s.pos]))
}

// op reads a comparison operator.
func (s *scanner) op() (Op, error) {
	start := s.pos
	var o Op
	switch s.peek() {
	case '<':
		o = LT
	case '>':
		o = GT
	case '=':
		return 0, s.errorf(start, "want <=, <, >= or >, not %s", s.describe())
	default:
		return 0, s.errorf(start, "want <=, <, >= or > here, found %s", s.describe())
	}
	s.pos++
	if s.peek() == '=' {
		s.pos++
		o = map[Op]Op{LT: LE, GT: GE}[o]
	}
	return o, nil
}

// decimal reads a plain non-negative decimal: digits, optionally a point
// and more digits. No sign, exponent, or special value.
func (s *scanner) decimal() (whole, frac string, err error) {
	start := s.pos
	for !s.eof() && s.rs[s.pos] >= '0' && s.rs[s.pos] <= '9' {
		s.pos++
	}
	whole = string(s.rs[start:s.pos])
	if whole == "" {
		if s.peek() == '-' || s.peek() == '+' {
			return "", "", s.errorf(start, "want a number without a sign, found %s", s.describe())
		}
		return "", "", s.errorf(start, "want a number, found %s", s.describe())
	}
	if s.peek() == '.' {
		s.pos++
		fs := s.pos
		for !s.eof() && s.rs[s.pos] >= '0' && s.rs[s.pos] <= '9' {
			s.pos++
		}
		frac = string(s.rs[fs:s.pos])
		if frac == "" {
			return "", "", s.errorf(s.pos, "want digits after the decimal point, found %s", s.describe())
		}
	}
	return whole, frac, nil
}

// number reads a decimal as a float64.
func (s *scanner) number() (float64, error) {
	start := s.pos
	whole, frac, err := s.decimal()
	if err != nil {
		return 0, err
	}
	lit := whole
	if frac != "" {
		lit += "." + frac
	}
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, s.errAt(start, fmt.Errorf("%s: %w", lit, ErrRange))
	}
	return v, nil
}

// duration reads a decimal followed at once by a unit, such as 500ms or
// 1.5s, exactly to the nanosecond.
func (s *scanner) duration() (time.Duration, error) {
	start := s.pos
	whole, frac, err := s.decimal()
	if err != nil {
		return 0, err
	}
	us := s.pos
	for !s.eof() && (unicode.IsLetter(s.rs[s.pos])) {
		s.pos++
	}
	u := string(s.rs[us:s.pos])
	if u == "" {
		return 0, s.errorf(us, "missing unit after %s (%s)", string(s.rs[start:us]), unitsHelp)
	}
	unit, ok := units[u]
	if !ok {
		return 0, s.errAt(us, fmt.Errorf("%w %q (%s)", ErrUnknownUnit, u, unitsHelp))
	}
	d, err := exactDuration(whole, frac, unit)
	if err != nil {
		return 0, s.errAt(start, fmt.Errorf("%s: %w", string(s.rs[start:s.pos]), err))
	}
	return d, nil
}

// exactDuration converts whole.frac units to nanoseconds without rounding:
// it fails if the value is finer than a nanosecond or does not fit.
func exactDuration(whole, frac string, unit time.Duration) (time.Duration, error) {
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if len(whole) > 19 {
		return 0, ErrRange
	}
	w, err := strconv.ParseUint("0"+whole, 10, 64)
	if err != nil {
		return 0, ErrRange
	}
	hi, total := bits.Mul64(w, uint64(unit))
	if hi != 0 || total > math.MaxInt64 {
		return 0, ErrRange
	}
	if frac != "" {
		scale := uint64(1)
		for range len(frac) {
			scale *= 10
			if uint64(unit)%scale != 0 {
				return 0, errors.New("finer than a nanosecond")
			}
		}
		f, _ := strconv.ParseUint(frac, 10, 64) // at most 10 digits here
		total += f * (uint64(unit) / scale)
		if total > math.MaxInt64 {
			return 0, ErrRange
		}
	}
	return time.Duration(total), nil
}

// formatDuration writes d (≥ 0) so that the scanner reads it back exactly:
// whole minutes as "10m", otherwise in the largest of s, ms, us and ns that
// d reaches, with as many decimals as it takes ("1.5s", "250ms", "1.234567ms").
func formatDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	if d%time.Minute == 0 {
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"s", time.Second}, {"ms", time.Millisecond}, {"us", time.Microsecond}} {
		if d >= u.d {
			return decimalString(int64(d/u.d), int64(d%u.d), int64(u.d)) + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// decimalString writes whole + rem/unit (unit a power of ten) in decimal,
// without trailing zeros.
func decimalString(whole, rem, unit int64) string {
	s := strconv.FormatInt(whole, 10)
	if rem == 0 {
		return s
	}
	width := len(strconv.FormatInt(unit, 10)) - 1
	f := fmt.Sprintf("%0*d", width, rem)
	return s + "." + strings.TrimRight(f, "0")
}

// formatNumber writes v so that strconv.ParseFloat reads it back exactly,
// in plain decimal (no exponent), which the scanner accepts.
func formatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
