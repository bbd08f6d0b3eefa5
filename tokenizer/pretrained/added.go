package pretrained

import (
	"unicode"
	"unicode/utf8"
)

// addedToken is a token matched in raw text before any other processing:
// Hugging Face's added tokens, llama.cpp's control and user-defined tokens.
type addedToken struct {
	id   int32
	text string
	// special tokens (BOS, <|im_start|>, …) are matched only while special
	// parsing is on; the others always are, as in both references.
	special bool
	// lstrip and rstrip absorb the whitespace before or after a match.
	lstrip, rstrip bool
	// singleWord tokens match only between word boundaries.
	singleWord bool
}

// matcher finds added tokens in text: at the leftmost position where one
// matches, the longest one (Hugging Face's leftmost-longest matching).
type matcher struct {
	tokens []addedToken
	first  [256]bool        // bytes that start some token
	edges  map[uint32]int32 // node<<8 | byte → child node; node 0 is the root
	term   []int32          // node → index in tokens, or -1
	// asciiSpace strips only ASCII whitespace (llama.cpp's isspace), not
	// every Unicode space (Hugging Face).
	asciiSpace bool
}

func newMatcher(tokens []addedToken, asciiSpace bool) *matcher {
	m := &matcher{edges: make(map[uint32]int32), term: []int32{-1}, asciiSpace: asciiSpace}
	for _, t := range tokens {
		if t.text == "" {
			continue
		}
		node := int32(0)
		for i := 0; i < len(t.text); i++ {
			k := uint32(node)<<8 | uint32(t.text[i])
			next, ok := m.edges[k]
			if !ok {
				next = int32(len(m.term))
				m.term = append(m.term, -1)
				m.edges[k] = next
			}
			node = next
		}
		if m.term[node] >= 0 {
			continue // the same text twice: the first one wins
		}
		m.term[node] = int32(len(m.tokens))
		m.tokens = append(m.tokens, t)
		m.first[t.text[0]] = true
	}
	if len(m.tokens) == 0 {
		return nil
	}
	return m
}

// next finds the first added token in s at or after from. It returns where
// the text before it ends (whitespace absorbed by lstrip excluded), the
// token's id, and where the text after it resumes (rstrip's whitespace
// skipped); ok is false when there is none.
func (m *matcher) next(s string, from int, special bool) (textEnd int, id int32, resume int, ok bool) {
	for i := from; i < len(s); i++ {
		if !m.first[s[i]] {
			continue
		}
		best, end := int32(-1), 0
		node := int32(0)
		for j := i; j < len(s); j++ {
			n, ok := m.edges[uint32(node)<<8|uint32(s[j])]
			if !ok {
				break
			}
			node = n
			if t := m.term[node]; t >= 0 && (special || !m.tokens[t].special) {
				best, end = t, j+1
			}
		}
		if best < 0 {
			continue
		}
		t := &m.tokens[best]
		if t.singleWord && (wordBefore(s, i) || wordAfter(s, end)) {
			continue
		}
		start := i
		if t.lstrip {
			for start > from {
				r, n := utf8.DecodeLastRuneInString(s[from:start])
				if !m.isSpace(r) {
					break
				}
				start -= n
			}
		}
		if t.rstrip {
			for end < len(s) {
				r, n := utf8.DecodeRuneInString(s[end:])
				if !m.isSpace(r) {
					break
				}
				end += n
			}
		}
		return start, t.id, end, true
	}
	return 0, 0, 0, false
}

func (m *matcher) isSpace(r rune) bool {
	if m.asciiSpace {
		return r == ' ' || r >= '\t' && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// wordBefore and wordAfter report whether a word character touches
// position i from the left or the right.
func wordBefore(s string, i int) bool {
	r, n := utf8.DecodeLastRuneInString(s[:i])
	return n > 0 && isWordChar(r)
}

func wordAfter(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return n > 0 && isWordChar(r)
}

func isWordChar(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r)
}
