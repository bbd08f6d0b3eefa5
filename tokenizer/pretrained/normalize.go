package pretrained

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// spmEscape is llama.cpp's SentencePiece preparation: a space before the
// segment (add_space_prefix), then every space written as "▁".
type spmEscape struct {
	prefix bool
}

func (n spmEscape) normalize(s string) string {
	if n.prefix {
		s = " " + s
	}
	return strings.ReplaceAll(s, " ", "▁")
}

// The Hugging Face normalizers.

type normSequence []normalizer

func (q normSequence) normalize(s string) string {
	for _, n := range q {
		s = n.normalize(s)
	}
	return s
}

type unicodeForm struct{ f norm.Form }

func (n unicodeForm) normalize(s string) string { return n.f.String(s) }

type lowercase struct{}

func (lowercase) normalize(s string) string { return strings.ToLower(s) }

// prepend adds its text before a non-empty segment.
type prepend struct{ text string }

func (n prepend) normalize(s string) string {
	if s == "" {
		return s
	}
	return n.text + s
}

type replaceString struct{ old, new string }

func (n replaceString) normalize(s string) string {
	if n.old == "" {
		return s
	}
	return strings.ReplaceAll(s, n.old, n.new)
}

type replaceRegexp struct {
	re  *regexp.Regexp
	new string
}

func (n replaceRegexp) normalize(s string) string { return n.re.ReplaceAllLiteralString(s, n.new) }

type strip struct{ left, right bool }

func (n strip) normalize(s string) string {
	if n.left {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
	}
	if n.right {
		s = strings.TrimRightFunc(s, unicode.IsSpace)
	}
	return s
}
