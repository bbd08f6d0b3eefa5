package tokenizer

import (
	"math"
	"math/rand/v2"
)

// Prose shape used by AppendWords. The numbers only need to make text look
// like sentences; nothing downstream depends on them.
const (
	minSentence   = 5    // words per sentence, inclusive bounds
	maxSentence   = 18   //
	coinedShare   = 0.25 // share of words drawn from the syllable-made words
	commaChance   = 0.06 // chance of a comma after a word inside a sentence
	newlineChance = 0.10 // chance of a line break after a sentence
)

// Byte-fallback ids of the punctuation AppendWords emits; all composable.
const (
	idComma   = ','
	idPeriod  = '.'
	idNewline = '\n'
)

// Words returns n composable token ids that decode to prose-like text of
// exactly n tokens: capitalised sentences of common and made-up words with
// commas and full stops. It returns nil when n ≤ 0. The same rng state gives
// the same ids; rng must not be nil.
func Words(n int, rng *rand.Rand) []int {
	if n <= 0 {
		return nil
	}
	return AppendWords(make([]int, 0, n), n, rng)
}

// AppendWords appends the ids Words(n, rng) would return to dst and returns
// the extended slice. Because every id it emits is composable, a prefix
// followed by generated words still counts as len(prefix)+n tokens.
func AppendWords(dst []int, n int, rng *rand.Rand) []int {
	v := vocab()
	end := len(dst) + max(n, 0)
	for len(dst) < end {
		words := minSentence + rng.IntN(maxSentence-minSentence+1)
		dst = append(dst, int(v.capital[zipf(rng, len(v.capital))]))
		for w := 1; w < words && len(dst) < end; w++ {
			// A comma needs room for the word after it.
			if len(dst) < end-1 && rng.Float64() < commaChance {
				dst = append(dst, idComma)
			}
			dst = append(dst, v.word(rng))
		}
		if len(dst) < end {
			dst = append(dst, idPeriod)
		}
		if len(dst) < end && rng.Float64() < newlineChance {
			dst = append(dst, idNewline)
		}
	}
	return dst
}

// word draws one lowercase word id.
func (v *vocabulary) word(rng *rand.Rand) int {
	if rng.Float64() < coinedShare {
		return v.coined[0] + rng.IntN(v.coined[1]-v.coined[0])
	}
	return int(v.common[zipf(rng, len(v.common))])
}

// zipf draws an index in [0, n) with probability roughly proportional to
// 1/(index+1), the rank-frequency law of natural language, by inverting the
// continuous 1/x distribution.
func zipf(rng *rand.Rand, n int) int {
	i := int(math.Exp(rng.Float64()*math.Log(float64(n+1)))) - 1
	return min(max(i, 0), n-1)
}
