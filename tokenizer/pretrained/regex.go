package pretrained

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Tokenizer files write their patterns for Oniguruma (Hugging Face) or
// llama.cpp's engine, where \s, \d and \w are Unicode classes; in Go's
// regexp they are ASCII. compilePattern rewrites them, and emulates the one
// look-ahead these patterns use, \s+(?!\S), which Go's regexp does not have.

// Unicode renderings of the Perl classes, inside a bracket expression.
const (
	uniSpace = `\t-\r\x{85}\pZ` // White_Space: the controls TAB…CR, NEL, and categories Zs, Zl, Zp
	uniDigit = `\p{Nd}`
	uniWord  = `\p{L}\p{M}\p{Nd}\p{Pc}`
)

// wsGroup names the capture group that stands for \s+(?!\S).
const wsGroup = "goodputws"

// pattern is a compiled split pattern.
type pattern struct {
	re *regexp.Regexp
	ws int // submatch index of wsGroup, or -1 when the pattern has no \s+(?!\S)
	// sliced is whether matches may be searched for in a suffix of the
	// text: true unless the pattern has anchors that a cut would move.
	sliced bool
	// fast is the same pattern as a classSeq, when it has that shape.
	fast *classSeq
}

// compilePattern compiles a tokenizer file's split pattern.
func compilePattern(src string) (*pattern, error) {
	alts := topLevelAlternatives(src)
	ws := false
	out := make([]string, 0, len(alts))
	for i := 0; i < len(alts); i++ {
		a := alts[i]
		if a == `\s+(?!\S)` {
			// \s+(?!\S)|\s+ and a final \s+(?!\S) (whose lone spaces
			// before text are left to the gaps, giving the same pieces)
			// both become one group, trimmed after matching.
			if i+1 < len(alts) && alts[i+1] == `\s+` {
				i++
			}
			out = append(out, `(?P<`+wsGroup+`>\s+)`)
			ws = true
			continue
		}
		out = append(out, a)
	}
	joined := strings.Join(out, "|")
	if strings.Contains(joined, "(?=") || strings.Contains(joined, "(?!") || strings.Contains(joined, "(?<=") || strings.Contains(joined, "(?<!") {
		return nil, fmt.Errorf("split pattern %q uses look-around, which is supported only as \\s+(?!\\S)", src)
	}
	uni, err := unicodeClasses(joined)
	if err != nil {
		return nil, fmt.Errorf("split pattern %q: %w", src, err)
	}
	re, err := regexp.Compile(uni)
	if err != nil {
		return nil, fmt.Errorf("split pattern %q: %w", src, err)
	}
	p := &pattern{re: re, ws: -1, sliced: !hasStartAnchor(uni)}
	if !ws && p.sliced {
		p.fast, _ = compileClassSeq(uni)
	}
	if ws {
		p.ws = re.SubexpIndex(wsGroup)
		if !p.sliced {
			return nil, fmt.Errorf("split pattern %q mixes \\s+(?!\\S) with ^, \\A or \\b, which is not supported", src)
		}
	}
	return p, nil
}

// find returns the first match in s at or after pos.
//
// Each search reads from pos through a RuneReader, which runs Go's
// automaton only as far as the match needs. Searching the whole string for
// each match (as FindAll on a string does) would restart a backtracker
// whose set-up costs the length of the text, making a long piece
// quadratic. Patterns with ^ or \b must see the whole text, and do.
func (p *pattern) find(s string, pos int) (int, int, bool) {
	if !p.sliced {
		for _, m := range p.re.FindAllStringIndex(s, -1) {
			if m[0] >= pos {
				return m[0], m[1], true
			}
		}
		return 0, 0, false
	}
	loc := p.re.FindReaderSubmatchIndex(strings.NewReader(s[pos:]))
	if loc == nil {
		return 0, 0, false
	}
	a, b := pos+loc[0], pos+loc[1]
	if p.ws >= 0 && loc[2*p.ws] >= 0 && b < len(s) {
		// The run is followed by text: (?!\S) holds only one character
		// short of it, if the run has two or more.
		if _, n := utf8.DecodeLastRuneInString(s[a:b]); b-n > a {
			b -= n
		}
	}
	return a, b, true
}

// topLevelAlternatives splits a pattern at the | that are outside groups
// and bracket expressions.
func topLevelAlternatives(src string) []string {
	var alts []string
	depth, start := 0, 0
	inClass := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			// A ']' right after '[' or '[^' is a literal.
			if i+1 < len(src) && src[i+1] == '^' {
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			alts = append(alts, src[start:i])
			start = i + 1
		}
	}
	return append(alts, src[start:])
}

// unicodeClasses rewrites \s \S \d \D \w \W to their Unicode meaning.
func unicodeClasses(src string) (string, error) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\\' && i+1 < len(src) {
			e := src[i+1]
			i++
			var out string
			switch {
			case e == 's' && inClass:
				out = uniSpace
			case e == 's':
				out = "[" + uniSpace + "]"
			case e == 'S' && !inClass:
				out = "[^" + uniSpace + "]"
			case e == 'd':
				out = uniDigit
			case e == 'D':
				out = `\P{Nd}`
			case e == 'w' && inClass:
				out = uniWord
			case e == 'w':
				out = "[" + uniWord + "]"
			case e == 'W' && !inClass:
				out = "[^" + uniWord + "]"
			case (e == 'S' || e == 'W') && inClass:
				return "", fmt.Errorf(`\%c inside a bracket expression is not supported`, e)
			default:
				out = src[i-1 : i+1]
			}
			b.WriteString(out)
			continue
		}
		switch {
		case inClass && c == ']':
			inClass = false
		case !inClass && c == '[':
			inClass = true
			b.WriteByte(c)
			if i+1 < len(src) && src[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// hasStartAnchor reports whether a pattern uses ^, \A, \b or \B outside
// bracket expressions: searching a suffix of the text would move them.
func hasStartAnchor(src string) bool {
	inClass := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\' && i+1 < len(src):
			if !inClass && strings.IndexByte("AbB", src[i+1]) >= 0 {
				return true
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(src) && src[i+1] == '^' {
				i++
			}
			if i+1 < len(src) && src[i+1] == ']' {
				i++
			}
		case c == '^':
			return true
		}
	}
	return false
}
