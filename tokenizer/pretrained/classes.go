package pretrained

import (
	"unicode"
	"unicode/utf8"
)

// class is what the pre-tokenizer patterns ask of a character: \p{L},
// \p{N}, \s (Unicode White_Space, as Oniguruma and llama.cpp define it), or
// anything else.
type class uint8

const (
	other class = iota
	letter
	number
	space
)

var asciiClass [128]class

func init() {
	for c := range 128 {
		r := rune(c)
		switch {
		case unicode.IsLetter(r):
			asciiClass[c] = letter
		case unicode.IsNumber(r):
			asciiClass[c] = number
		case unicode.IsSpace(r):
			asciiClass[c] = space
		}
	}
}

func classOf(r rune) class {
	if r < utf8.RuneSelf {
		return asciiClass[r]
	}
	switch {
	case unicode.IsLetter(r):
		return letter
	case unicode.IsNumber(r):
		return number
	case unicode.IsSpace(r):
		return space
	}
	return other // including U+FFFD, which invalid bytes decode to
}

// runeAt decodes the character at s[i]; the caller ensures i < len(s).
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// runOf returns the end of the run of characters of class c starting at i.
func runOf(s string, i int, c class) int {
	for i < len(s) {
		r, n := runeAt(s, i)
		if classOf(r) != c {
			break
		}
		i += n
	}
	return i
}
