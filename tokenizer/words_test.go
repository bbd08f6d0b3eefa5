package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestWordsLength(t *testing.T) {
	tests := []struct {
		n    int
		want int
	}{
		{-5, 0},      // negative: nothing
		{0, 0},       // zero: nothing
		{1, 1},       // a lone capitalised word
		{2, 2},       // never a dangling comma
		{17, 17},     // across a sentence end
		{5000, 5000}, // long prompts
	}
	for _, tt := range tests {
		ids := Words(tt.n, rand.New(rand.NewPCG(9, uint64(tt.n+100))))
		if len(ids) != tt.want {
			t.Errorf("len(Words(%d)) = %d, want %d", tt.n, len(ids), tt.want)
		}
		text := Decode(ids)
		if got := Count(text); got != tt.want {
			t.Errorf("Count(Decode(Words(%d))) = %d, want %d; text %q", tt.n, got, tt.want, text)
		}
		for _, id := range ids {
			if !Composable(id) {
				t.Fatalf("Words(%d) emitted non-composable id %d %q", tt.n, id, piece(id))
			}
		}
	}
}

func TestAppendWordsAfterPrefix(t *testing.T) {
	prefix := Words(30, rand.New(rand.NewPCG(1, 1)))
	ids := AppendWords(slices.Clone(prefix), 70, rand.New(rand.NewPCG(2, 2)))
	if !slices.Equal(ids[:30], prefix) {
		t.Fatal("AppendWords changed the prefix it was given")
	}
	if got := Count(Decode(ids)); got != 100 {
		t.Fatalf("prefix of 30 + 70 words counts %d tokens, want 100", got)
	}
	if got := AppendWords([]int{5}, -3, rand.New(rand.NewPCG(2, 2))); !slices.Equal(got, []int{5}) {
		t.Fatalf("AppendWords with n < 0 = %v, want the input unchanged", got)
	}
}

func TestWordsDeterministic(t *testing.T) {
	a := Words(300, rand.New(rand.NewPCG(42, 0)))
	b := Words(300, rand.New(rand.NewPCG(42, 0)))
	c := Words(300, rand.New(rand.NewPCG(43, 0)))
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different words")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same words")
	}
}

// TestWordsReadLikeProse checks the shape that makes generated prompts look
// like text: sentences that start with a capital and end with a full stop,
// mostly common words, a few commas.
func TestWordsReadLikeProse(t *testing.T) {
	ids := Words(20000, rand.New(rand.NewPCG(7, 7)))
	text := Decode(ids)
	v := vocab()
	common := map[int]bool{}
	for _, id := range v.common {
		common[int(id)] = true
	}
	var words, commonN, periods, commas int
	for _, id := range ids {
		switch {
		case id == idPeriod:
			periods++
		case id == idComma:
			commas++
		case id >= firstWord:
			words++
			if common[id] {
				commonN++
			}
		}
	}
	// Sentences hold 5–18 words, so between 1/19 and 1/6 of tokens end one.
	if r := float64(periods) / float64(len(ids)); r < 1.0/19 || r > 1.0/6 {
		t.Errorf("full stops are %.3f of tokens, want 1/19–1/6", r)
	}
	if r := float64(commonN) / float64(words); r < 0.65 || r > 0.85 {
		t.Errorf("common words are %.3f of words, want about %.2f", r, 1-coinedShare)
	}
	if r := float64(commas) / float64(words); r < 0.02 || r > 0.10 {
		t.Errorf("commas follow %.3f of words, want about %.2f", r, commaChance)
	}
	for i, s := range strings.Split(text, ".")[1:] {
		s = strings.TrimLeft(s, "\n")
		if s == "" {
			continue
		}
		if len(s) < 2 || s[0] != ' ' || s[1] < 'A' || s[1] > 'Z' {
			t.Fatalf("sentence %d does not start with a capitalised word: %q", i+1, s)
		}
	}
	if !strings.HasPrefix(text, " ") || text[1] < 'A' || text[1] > 'Z' {
		t.Fatalf("text does not open with a capitalised word: %.20q", text)
	}
}

func TestZipf(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const n, draws = 100, 200000
	var hist [n]int
	for i := 0; i < draws; i++ {
		k := zipf(rng, n)
		if k < 0 || k >= n {
			t.Fatalf("zipf(%d) = %d, out of range", n, k)
		}
		hist[k]++
	}
	// Under the continuous 1/x law, index k has probability
	// ln((k+2)/(k+1)) / ln(n+1): 15.0% for k = 0, 8.8% for k = 1.
	tests := []struct {
		k    int
		want float64
	}{
		{0, 0.1502},  // the most frequent word
		{1, 0.0879},  // the second: about half as often
		{9, 0.0206},  // the tenth
		{99, 0.0021}, // the last
	}
	for _, tt := range tests {
		got := float64(hist[tt.k]) / draws
		if got < tt.want*0.85 || got > tt.want*1.15 {
			t.Errorf("P(zipf = %d) = %.4f, want %.4f ± 15%%", tt.k, got, tt.want)
		}
	}
	if got := zipf(rng, 1); got != 0 {
		t.Errorf("zipf(1) = %d, want 0", got)
	}
}
