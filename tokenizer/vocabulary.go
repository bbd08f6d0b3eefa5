package tokenizer

import (
	"fmt"
	"strings"
	"sync"
)

// VocabSize is the number of token ids; valid ids are 0 ≤ id < VocabSize.
const VocabSize = 32000

// Layout of the id space.
const (
	numBytes  = 256                   // ids 0–255: byte fallbacks
	numConts  = 2048                  // continuation pieces follow the bytes
	firstCont = numBytes              // first continuation id
	firstWord = numBytes + numConts   // first word-piece id
	numWords  = VocabSize - firstWord // word pieces fill the rest
)

// maxWordLetters bounds generated word pieces, keeping them word-like.
const maxWordLetters = 10

// vocabulary is the built table. It is immutable once built and shared by
// every caller.
type vocabulary struct {
	text string   // every piece concatenated in id order
	off  []uint32 // piece id spans text[off[id]:off[id+1]]

	words trie // word pieces, keyed by the letters after the leading space
	conts trie // continuation pieces

	common  []int32 // lowercase commonWords ids, most frequent first
	capital []int32 // capitalised commonWords ids
	coined  [2]int  // ids in [coined[0], coined[1]) are syllable-made words
}

// vocab returns the vocabulary, building it on first use so that programs
// which never tokenize pay nothing at start-up.
var vocab = sync.OnceValue(buildVocabulary)

func buildVocabulary() *vocabulary {
	v := &vocabulary{off: make([]uint32, 0, VocabSize+1)}
	var text strings.Builder
	add := func(piece string) {
		v.off = append(v.off, uint32(text.Len()))
		text.WriteString(piece)
	}
	for b := 0; b < numBytes; b++ {
		add(string([]byte{byte(b)}))
	}

	conts := pieceSet{want: numConts, minLen: 2}
	conts.addAll(suffixes[:])
	for _, n := range nuclei { // rimes: "an", "eed", …
		for _, c := range codas[1:] {
			conts.add(n + c)
		}
	}
	for _, o := range onsets[1:] { // open syllables: "ba", "tre", …
		for _, n := range nuclei {
			conts.add(o + n)
		}
	}
	for _, o := range onsets[1:] { // capitalised onsets start bare words: "Th", "Wh", …
		conts.add(strings.ToUpper(o[:1]) + o[1:])
		for _, n := range nuclei {
			conts.add(strings.ToUpper(o[:1]) + o[1:] + n)
		}
	}
	eachSyllable(func(s string) bool { conts.add(s); return !conts.full() })
	contKeys := make([]trieKey, 0, numConts)
	for i, p := range conts.pieces {
		add(p)
		contKeys = append(contKeys, trieKey{p, int32(firstCont + i)})
	}

	words := pieceSet{want: numWords, minLen: 1}
	// commonWords holds distinct lowercase words (a test checks it), so
	// each add below keeps its word and the id is the last one assigned.
	for _, w := range commonWords {
		words.add(w)
		v.common = append(v.common, int32(firstWord+len(words.pieces)-1))
	}
	words.add("I")
	for _, w := range commonWords[:capitalWords] {
		words.add(strings.ToUpper(w[:1]) + w[1:])
		v.capital = append(v.capital, int32(firstWord+len(words.pieces)-1))
	}
	v.coined[0] = firstWord + len(words.pieces)
	eachSyllable(func(s string) bool { words.add(s); return !words.full() })
	eachTwoSyllables(func(s string) bool { words.add(s); return !words.full() })
	v.coined[1] = firstWord + len(words.pieces)
	wordKeys := make([]trieKey, 0, numWords)
	for i, w := range words.pieces {
		add(" " + w)
		wordKeys = append(wordKeys, trieKey{w, int32(firstWord + i)})
	}

	if len(v.off) != VocabSize {
		// The tables in tables.go are too small for the id layout: a
		// programming error that the package tests catch, never users.
		panic(fmt.Sprintf("tokenizer: vocabulary tables yield %d pieces, want %d", len(v.off), VocabSize))
	}
	v.off = append(v.off, uint32(text.Len()))
	v.text = text.String()
	v.conts = newTrie(contKeys)
	v.words = newTrie(wordKeys)
	return v
}

// pieceSet collects distinct pieces in insertion order up to a quota.
type pieceSet struct {
	want   int // quota
	minLen int // shortest piece kept
	pieces []string
	seen   map[string]bool
}

// add keeps p if it is new, between minLen and maxWordLetters long, and
// within the quota. It reports whether p was kept.
func (s *pieceSet) add(p string) bool {
	if s.full() {
		return false
	}
	if s.seen == nil {
		s.seen = make(map[string]bool, s.want)
	}
	if !s.seen[p] && len(p) >= s.minLen && len(p) <= maxWordLetters {
		s.seen[p] = true
		s.pieces = append(s.pieces, p)
		return true
	}
	return false
}

// full reports whether the quota is reached.
func (s *pieceSet) full() bool { return len(s.pieces) >= s.want }

func (s *pieceSet) addAll(ps []string) {
	for _, p := range ps {
		s.add(p)
	}
}

// eachSyllable calls f with every closed or open syllable, visiting them in
// a fixed scattered order (a stride through the index space) so that any
// prefix of the sequence mixes all onsets, nuclei and codas. It stops early
// when f returns false.
func eachSyllable(f func(string) bool) {
	no, nn, nc := len(onsets), len(nuclei), len(codas)
	total := no * nn * nc
	stride := coprimeStride(total)
	for k := 0; k < total; k++ {
		p := k * stride % total
		s := onsets[p/(nn*nc)] + nuclei[p/nc%nn] + codas[p%nc]
		if !f(s) {
			return
		}
	}
}

// eachTwoSyllables calls f with two-syllable words: an open syllable with an
// onset, then a full syllable with an onset (no vowel clashes), in a fixed
// scattered order. It stops when f returns false.
func eachTwoSyllables(f func(string) bool) {
	no, nn, nc := len(onsets)-1, len(nuclei), len(codas) // onsets[0] == "" is skipped
	total := no * nn * no * nn * nc
	stride := coprimeStride(total)
	for k := 0; k < total; k++ {
		p := k * stride % total
		c := p % nc
		p /= nc
		n2 := p % nn
		p /= nn
		o2 := p % no
		p /= no
		n1 := p % nn
		o1 := p / nn
		s := onsets[1+o1] + nuclei[n1] + onsets[1+o2] + nuclei[n2] + codas[c]
		if !f(s) {
			return
		}
	}
}

// coprimeStride returns a stride near 61.8% of n that is coprime with n, so
// that k·stride mod n visits every index once.
func coprimeStride(n int) int {
	s := n*618/1000 + 1
	for gcd(s, n) != 1 {
		s++
	}
	return s
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
