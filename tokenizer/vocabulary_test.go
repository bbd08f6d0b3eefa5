package tokenizer

import (
	"strings"
	"testing"
)

// piece returns the text of one id, for readable test expectations.
func piece(id int) string { return string(AppendText(nil, id)) }

func TestVocabularyLayout(t *testing.T) {
	seen := make(map[string]int, VocabSize)
	for id := 0; id < VocabSize; id++ {
		p := piece(id)
		if prev, dup := seen[p]; dup {
			t.Fatalf("ids %d and %d share the piece %q: ids ↔ pieces must be a bijection", prev, id, p)
		}
		seen[p] = id
		switch {
		case id < numBytes:
			if p != string([]byte{byte(id)}) {
				t.Errorf("byte fallback %d = %q, want the single byte %#x", id, p, id)
			}
		case id < firstWord:
			if len(p) < 2 || !allLetters(p) {
				t.Errorf("continuation %d = %q, want two or more ASCII letters", id, p)
			}
		default:
			if len(p) < 2 || p[0] != ' ' || !allLetters(p[1:]) {
				t.Errorf("word piece %d = %q, want a space then ASCII letters", id, p)
			}
		}
	}
	if len(seen) != VocabSize {
		t.Fatalf("vocabulary has %d pieces, want %d", len(seen), VocabSize)
	}
}

// TestVocabularyPinned pins a few ids, so that an accidental edit of the
// tables (which silently changes every count ever recorded) fails loudly.
func TestVocabularyPinned(t *testing.T) {
	tests := []struct {
		id   int
		want string
	}{
		{0, "\x00"},                  // first byte fallback
		{' ', " "},                   // the space is a byte fallback too
		{255, "\xff"},                // last byte fallback
		{firstCont, "ing"},           // first continuation: the first suffix
		{firstWord, " the"},          // first word: the most frequent English word
		{firstWord + 1, " of"},       // second most frequent
		{VocabSize - 1, " grieplor"}, // last word: a coined two-syllable word
	}
	for _, tt := range tests {
		if got := piece(tt.id); got != tt.want {
			t.Errorf("piece(%d) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestCommonWordsAreDistinctLowercase(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range commonWords {
		if seen[w] {
			t.Errorf("commonWords lists %q twice", w)
		}
		seen[w] = true
		if strings.ToLower(w) != w || !allLetters(w) {
			t.Errorf("commonWords entry %q must be lowercase ASCII letters", w)
		}
		if len(w) > maxWordLetters {
			t.Errorf("commonWords entry %q is longer than %d letters and would be dropped", w, maxWordLetters)
		}
	}
	if capitalWords > len(commonWords) {
		t.Errorf("capitalWords = %d exceeds len(commonWords) = %d", capitalWords, len(commonWords))
	}
	v := vocab()
	if len(v.common) != len(commonWords) || len(v.capital) != capitalWords {
		t.Fatalf("vocabulary keeps %d common and %d capital ids, want %d and %d",
			len(v.common), len(v.capital), len(commonWords), capitalWords)
	}
	for i, id := range v.common {
		if got := piece(int(id)); got != " "+commonWords[i] {
			t.Errorf("common id %d = %q, want %q", i, got, " "+commonWords[i])
		}
	}
}

func TestCoprimeStride(t *testing.T) {
	tests := []struct {
		n, want int
	}{
		{1, 1},              // degenerate: a single index
		{10, 7},             // 618·10/1000+1 = 7 is already coprime with 10
		{12, 11},            // 8, 9 and 10 share a factor with 12
		{19712, 12183},      // the one-syllable space: 2⁸·7·11, so even strides are skipped
		{11596928, 7166903}, // the two-syllable space: 43·14·43·14·32
	}
	for _, tt := range tests {
		got := coprimeStride(tt.n)
		if got != tt.want {
			t.Errorf("coprimeStride(%d) = %d, want %d", tt.n, got, tt.want)
		}
		if gcd(got, tt.n) != 1 {
			t.Errorf("coprimeStride(%d) = %d is not coprime with it: the walk would skip indexes", tt.n, got)
		}
	}
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return true
}
