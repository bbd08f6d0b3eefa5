package pretrained

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// preStep is one stage of pre-tokenization: it cuts (and may rewrite) a
// piece of text into the pieces that the next stage, or the model, sees.
// atStart tells whether s begins the input text, which Metaspace's "first"
// scheme needs.
type preStep interface {
	apply(dst []string, s string, atStart bool) []string
}

// scanSplit cuts text with a hand-written scanner (see splitters.go).
type scanSplit struct {
	next func(s string, i int) int
}

func (p scanSplit) apply(dst []string, s string, _ bool) []string {
	for i := 0; i < len(s); {
		j := p.next(s, i)
		dst = append(dst, s[i:j])
		i = j
	}
	return dst
}

// splitBehavior is what happens to the text a split pattern matches.
type splitBehavior uint8

const (
	isolated           splitBehavior = iota // matches and gaps are pieces of their own
	removed                                 // matches are dropped
	mergedWithPrevious                      // each match joins the gap before it
	mergedWithNext                          // each match joins the gap after it
	contiguous                              // runs of matches join into one piece
)

// span is a part of a piece: a match of the split pattern, or a gap.
type span struct {
	a, b  int
	match bool
}

// finder finds the first match of a split pattern in s at or after pos.
type finder interface {
	find(s string, pos int) (a, b int, ok bool)
}

// literal is a split pattern given as a plain string.
type literal string

func (l literal) find(s string, pos int) (int, int, bool) {
	if l == "" {
		return 0, 0, false
	}
	k := strings.Index(s[pos:], string(l))
	if k < 0 {
		return 0, 0, false
	}
	return pos + k, pos + k + len(l), true
}

// splitter cuts text at the matches of a pattern (a regexp or a literal
// string), as Hugging Face's Split pre-tokenizer does.
type splitter struct {
	f        finder
	behavior splitBehavior
	invert   bool // the pattern describes the pieces, not the delimiters
}

func regexSplitter(p *pattern, b splitBehavior, invert bool) *splitter {
	var f finder = p
	if p.fast != nil {
		f = fastPattern{p.fast, p}
	}
	return &splitter{f: f, behavior: b, invert: invert}
}

func literalSplitter(lit string, b splitBehavior, invert bool) *splitter {
	return &splitter{f: literal(lit), behavior: b, invert: invert}
}

// next returns the next non-empty match at or after pos.
func (p *splitter) next(s string, pos int) (int, int, bool) {
	for pos < len(s) {
		a, b, ok := p.f.find(s, pos)
		if !ok {
			return 0, 0, false
		}
		if b > a {
			return a, b, true
		}
		_, n := utf8.DecodeRuneInString(s[b:])
		pos = b + max(n, 1)
	}
	return 0, 0, false
}

func (p *splitter) apply(dst []string, s string, _ bool) []string {
	if p.behavior == isolated && !p.invert {
		prev := 0
		for prev < len(s) {
			a, b, ok := p.next(s, prev)
			if !ok {
				break
			}
			if a > prev {
				dst = append(dst, s[prev:a])
			}
			dst = append(dst, s[a:b])
			prev = b
		}
		if prev < len(s) {
			dst = append(dst, s[prev:])
		}
		return dst
	}
	var spans []span
	prev := 0
	for prev < len(s) {
		a, b, ok := p.next(s, prev)
		if !ok {
			break
		}
		if a > prev {
			spans = append(spans, span{prev, a, false})
		}
		spans = append(spans, span{a, b, true})
		prev = b
	}
	if prev < len(s) {
		spans = append(spans, span{prev, len(s), false})
	}
	if p.invert {
		for i := range spans {
			spans[i].match = !spans[i].match
		}
	}
	switch p.behavior {
	case removed:
		spans = deleteMatches(spans)
	case mergedWithPrevious:
		out := spans[:0]
		prevMatch := false
		for _, sp := range spans {
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].b = sp.b
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
		spans = out
	case mergedWithNext:
		var out []span
		prevMatch := false
		for i := len(spans) - 1; i >= 0; i-- {
			sp := spans[i]
			if sp.match && !prevMatch && len(out) > 0 {
				out[len(out)-1].a = sp.a
			} else {
				out = append(out, sp)
			}
			prevMatch = sp.match
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		spans = out
	case contiguous:
		out := spans[:0]
		for i, sp := range spans {
			if i > 0 && sp.match == out[len(out)-1].match {
				out[len(out)-1].b = sp.b
			} else {
				out = append(out, sp)
			}
		}
		spans = out
	}
	for _, sp := range spans {
		if sp.b > sp.a {
			dst = append(dst, s[sp.a:sp.b])
		}
	}
	return dst
}

func deleteMatches(spans []span) []span {
	out := spans[:0]
	for _, sp := range spans {
		if !sp.match {
			out = append(out, sp)
		}
	}
	return out
}

// byteLevelStep is Hugging Face's ByteLevel pre-tokenizer: an optional
// leading space, then GPT-2's split. The byte-to-character mapping is not
// done here: byte-level vocabularies are kept as raw bytes (see bpe).
type byteLevelStep struct {
	addPrefixSpace bool
	useRegex       bool
}

func (p byteLevelStep) apply(dst []string, s string, _ bool) []string {
	if p.addPrefixSpace && !strings.HasPrefix(s, " ") {
		s = " " + s
	}
	if !p.useRegex {
		return append(dst, s)
	}
	return scanSplit{gpt2Next}.apply(dst, s, false)
}

// spaceMarkNext cuts SentencePiece text before each run of "▁" that
// follows other text: a word and the spaces before it. It is no part of any
// file; it is added to SentencePiece vocabularies whose tokens hold "▁"
// only as a leading run, and which have a "▁" token (both checked at
// load): no merge can then cross such a cut, nor an unknown run be split by
// it, so the ids are the same and a long text merges word by word instead
// of as one huge word.
func spaceMarkNext(s string, i int) int {
	const mark = "▁"
	j := i
	for strings.HasPrefix(s[j:], mark) {
		j += len(mark)
	}
	if k := strings.Index(s[j:], mark); k >= 0 {
		return j + k
	}
	return len(s)
}

// marksOnlyLead reports whether every token holds "▁" only in a leading
// run, which makes spaceMarkNext's cuts safe.
func marksOnlyLead(tokens []string) bool {
	for _, t := range tokens {
		rest := strings.TrimLeft(t, "▁")
		if strings.Contains(rest, "▁") {
			return false
		}
	}
	return true
}

// prependScheme is when Metaspace adds its replacement before a piece.
type prependScheme uint8

const (
	prependAlways prependScheme = iota
	prependFirst                // only before the piece that starts the text
	prependNever
)

// metaspaceStep is Hugging Face's Metaspace pre-tokenizer: spaces become
// the replacement character ("▁"), one is prepended per the scheme unless
// the piece already starts with one, and each replacement may start a new
// piece.
type metaspaceStep struct {
	repl   string
	scheme prependScheme
	split  bool
}

func (p metaspaceStep) apply(dst []string, s string, atStart bool) []string {
	s = strings.ReplaceAll(s, " ", p.repl)
	if (p.scheme == prependAlways || p.scheme == prependFirst && atStart) && !strings.HasPrefix(s, p.repl) {
		s = p.repl + s
	}
	if !p.split {
		return append(dst, s)
	}
	start := 0
	for i := 1; i < len(s); {
		k := strings.Index(s[i:], p.repl)
		if k < 0 {
			break
		}
		if i+k > start {
			dst = append(dst, s[start:i+k])
		}
		start = i + k
		i = start + len(p.repl)
	}
	if start < len(s) {
		dst = append(dst, s[start:])
	}
	return dst
}

// digitsStep is Hugging Face's Digits pre-tokenizer: numeric characters
// are cut out, one by one or in runs.
type digitsStep struct {
	individual bool
}

func (p digitsStep) apply(dst []string, s string, _ bool) []string {
	start, inDigits := 0, false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		d := unicode.IsNumber(r)
		if i > start && (d != inDigits || d && p.individual) {
			dst = append(dst, s[start:i])
			start = i
		}
		inDigits = d
		i += n
	}
	if start < len(s) {
		dst = append(dst, s[start:])
	}
	return dst
}
