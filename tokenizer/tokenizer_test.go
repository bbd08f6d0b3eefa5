package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// pieces renders ids as their texts, so expectations read as text.
func pieces(ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = piece(id)
	}
	return out
}

func TestEncode(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		// Empty text has no tokens.
		{"", []string{}},
		// A known word with its leading space is one token.
		{" the", []string{" the"}},
		// Known words and punctuation: one token each.
		{" the cache, the queue.", []string{" the", " cache", ",", " the", " queue", "."}},
		// A double space: the first is a lone space, the second leads the word.
		{"  the", []string{" ", " the"}},
		// A trailing space is its own token.
		{" the ", []string{" the", " "}},
		// Text that starts without a space uses continuation pieces.
		{"the", []string{"the"}},
		// An unknown word takes the longest word-piece prefix, then continuations.
		{" serving", []string{" ser", "vi", "n", "g"}},
		// Capitalised common words have their own pieces.
		{" The model", []string{" The", " model"}},
		// An unknown capitalised word falls back piece by piece.
		{" Xq", []string{" ", "X", "q"}},
		// Digits and symbols are byte fallbacks, one per byte.
		{" 42%", []string{" ", "4", "2", "%"}},
		// Newlines and tabs are bytes; the word after a newline has no space.
		{"\n\tthe", []string{"\n", "\t", "the"}},
		// Multi-byte UTF-8 costs one token per byte.
		{"é", []string{"\xc3", "\xa9"}},
		// Invalid UTF-8 is encoded byte by byte, never rejected.
		{"\xff\xfe the", []string{"\xff", "\xfe", " the"}},
		// An apostrophe splits a contraction.
		{" don't", []string{" don", "'", "t"}},
	}
	for _, tt := range tests {
		got := pieces(Encode(tt.text))
		if !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if n := Count(tt.text); n != len(tt.want) {
			t.Errorf("Count(%q) = %d, want %d", tt.text, n, len(tt.want))
		}
		if back := Decode(Encode(tt.text)); back != tt.text {
			t.Errorf("Decode(Encode(%q)) = %q: encoding must be lossless", tt.text, back)
		}
	}
}

func TestEveryIDRoundTripsAlone(t *testing.T) {
	for id := 0; id < VocabSize; id++ {
		text := Decode([]int{id})
		got := Encode(text)
		if len(got) != 1 || got[0] != id {
			t.Fatalf("Encode(Decode([%d])) = %v (text %q), want [%d]", id, got, text, id)
		}
		if n := Count(text); n != 1 {
			t.Fatalf("Count(Decode([%d])) = %d, want 1", id, n)
		}
	}
}

func TestComposableSequencesRoundTrip(t *testing.T) {
	var composable []int
	for id := 0; id < VocabSize; id++ {
		if Composable(id) {
			composable = append(composable, id)
		}
	}
	// 204 non-letter bytes + every word piece.
	if want := 256 - 52 + numWords; len(composable) != want {
		t.Fatalf("%d composable ids, want %d", len(composable), want)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 2000; trial++ {
		ids := make([]int, rng.IntN(40))
		for i := range ids {
			// Half the draws come from the bytes, so that spaces,
			// newlines and punctuation meet words often.
			if rng.IntN(2) == 0 {
				ids[i] = composable[rng.IntN(256-52)]
			} else {
				ids[i] = composable[rng.IntN(len(composable))]
			}
		}
		text := Decode(ids)
		if got := Encode(text); !slices.Equal(got, ids) {
			t.Fatalf("Encode(Decode(%v)) = %v (text %q)", ids, got, text)
		}
		if n := Count(text); n != len(ids) {
			t.Fatalf("Count(Decode(%v)) = %d, want %d", ids, n, len(ids))
		}
	}
}

func TestComposable(t *testing.T) {
	the := Encode(" the")[0]
	tests := []struct {
		id   int
		want bool
	}{
		{-1, false},            // invalid
		{VocabSize, false},     // invalid: one past the end
		{' ', true},            // a lone space never merges: words bring their own
		{',', true},            // punctuation
		{0xff, true},           // a non-ASCII byte
		{'a', false},           // a letter would extend a preceding word
		{'Z', false},           // capitals are letters too
		{firstCont, false},     // "ing" would extend a preceding word
		{firstWord - 1, false}, // last continuation
		{firstWord, true},      // first word piece
		{the, true},            // " the"
		{VocabSize - 1, true},  // last word piece
	}
	for _, tt := range tests {
		if got := Composable(tt.id); got != tt.want {
			t.Errorf("Composable(%d %q) = %v, want %v", tt.id, piece(tt.id), got, tt.want)
		}
	}
}

// TestNonComposableMerges shows why Composable excludes letters: " the"
// followed by "n" is the text " then", which is one token.
func TestNonComposableMerges(t *testing.T) {
	ids := []int{Encode(" the")[0], 'n'}
	if got := Count(Decode(ids)); got != 1 {
		t.Fatalf("Count(%q) = %d, want 1 (the two ids merge into %q)", Decode(ids), got, " then")
	}
}

func TestInvalidIDsDecodeToNothing(t *testing.T) {
	tests := []struct {
		name string
		ids  []int
		want string
	}{
		{"nil", nil, ""},
		{"negative", []int{-1}, ""},
		{"one past the end", []int{VocabSize}, ""},
		{"huge", []int{1 << 40}, ""},
		{"invalid between valid", []int{'a', -7, 'b'}, "ab"},
	}
	for _, tt := range tests {
		if got := Decode(tt.ids); got != tt.want {
			t.Errorf("%s: Decode(%v) = %q, want %q", tt.name, tt.ids, got, tt.want)
		}
		var b []byte
		for _, id := range tt.ids {
			b = AppendText(b, id)
		}
		if string(b) != tt.want {
			t.Errorf("%s: AppendText over %v = %q, want %q", tt.name, tt.ids, b, tt.want)
		}
	}
	if Valid(-1) || Valid(VocabSize) || !Valid(0) || !Valid(VocabSize-1) {
		t.Error("Valid must accept exactly [0, VocabSize)")
	}
}

func TestAppendTextConcatenatesToDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ids := make([]int, 500)
	for i := range ids {
		ids[i] = rng.IntN(VocabSize) // any ids, composable or not
	}
	buf := []byte("prefix:")
	for _, id := range ids {
		buf = AppendText(buf, id)
	}
	if got, want := string(buf), "prefix:"+Decode(ids); got != want {
		t.Fatalf("AppendText concatenation differs from Decode:\n got %q\nwant %q", got, want)
	}
}

func TestAppendEncodeKeepsPrefix(t *testing.T) {
	got := AppendEncode([]int{7, 8}, " the cat")
	want := append([]int{7, 8}, Encode(" the cat")...)
	if !slices.Equal(got, want) {
		t.Fatalf("AppendEncode = %v, want %v", got, want)
	}
}

// TestCountOfProse keeps the tokens-per-byte ratio of English text in the
// range of real BPE vocabularies (about 4 bytes per token), so that lengths
// in tokens mean roughly what users expect.
func TestCountOfProse(t *testing.T) {
	text := strings.Repeat(" The server streams tokens to each user, and the scheduler keeps the cache warm while requests wait in the queue.", 20)
	n := Count(text)
	perToken := float64(len(text)) / float64(n)
	if perToken < 3.5 || perToken > 7 {
		t.Fatalf("%d bytes → %d tokens = %.2f bytes/token, want 3.5–7", len(text), n, perToken)
	}
}
