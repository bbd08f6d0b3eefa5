package tokenizer

// next returns the id of the token that starts at s[i] and the index just
// past it. The caller must ensure i < len(s). This one function defines the
// segmentation, so Encode and Count cannot disagree.
func (v *vocabulary) next(s string, i int) (id, end int) {
	c := s[i]
	if c == ' ' && i+1 < len(s) && isLetter(s[i+1]) {
		if id, end := v.words.longest(s, i+1); end > 0 {
			return id, end
		}
		return ' ', i + 1
	}
	if isLetter(c) {
		if id, end := v.conts.longest(s, i); end > 0 {
			return id, end
		}
	}
	return int(c), i + 1
}

// Encode returns the token ids of text. It never fails: bytes that no piece
// covers, including invalid UTF-8, become byte-fallback ids, and
// Decode(Encode(text)) == text for every text.
func Encode(text string) []int {
	// English averages about four bytes per token here; the estimate
	// avoids most regrowth without overcommitting for long inputs.
	return AppendEncode(make([]int, 0, len(text)/4+1), text)
}

// AppendEncode appends the token ids of text to dst and returns the extended
// slice, for callers that reuse a buffer.
func AppendEncode(dst []int, text string) []int {
	v := vocab()
	for i := 0; i < len(text); {
		var id int
		id, i = v.next(text, i)
		dst = append(dst, id)
	}
	return dst
}

// Count returns len(Encode(text)) without allocating.
func Count(text string) int {
	v := vocab()
	n := 0
	for i := 0; i < len(text); n++ {
		_, i = v.next(text, i)
	}
	return n
}

// Decode returns the text of ids: the concatenation of each id's piece.
// Invalid ids (outside [0, VocabSize)) contribute nothing; callers that need
// Count(Decode(ids)) == len(ids) must pass valid, composable ids (see
// Composable).
func Decode(ids []int) string {
	v := vocab()
	n := 0
	for _, id := range ids {
		if Valid(id) {
			n += int(v.off[id+1] - v.off[id])
		}
	}
	b := make([]byte, 0, n)
	for _, id := range ids {
		b = appendPiece(v, b, id)
	}
	return string(b)
}

// AppendText appends the text of token id to dst and returns the extended
// slice; an invalid id appends nothing. Concatenating AppendText over ids
// yields exactly Decode(ids), so a streaming producer can emit one token at
// a time.
func AppendText(dst []byte, id int) []byte {
	return appendPiece(vocab(), dst, id)
}

func appendPiece(v *vocabulary, dst []byte, id int) []byte {
	if !Valid(id) {
		return dst
	}
	return append(dst, v.text[v.off[id]:v.off[id+1]]...)
}

// Valid reports whether id is a token id of the vocabulary.
func Valid(id int) bool { return id >= 0 && id < VocabSize }

// Composable reports whether id can be placed anywhere in a sequence without
// changing how its neighbours tokenize. For any sequence ids of composable
// ids, Encode(Decode(ids)) returns ids and Count(Decode(ids)) == len(ids).
//
// Word pieces (a space then letters) and the byte fallbacks of bytes other
// than ASCII letters are composable. Continuation pieces and letter bytes
// are not: placed after a word piece they would merge with it into a longer
// word. They still round-trip on their own and wherever Encode puts them.
func Composable(id int) bool {
	switch {
	case id < 0 || id >= VocabSize:
		return false
	case id < numBytes:
		return !isLetter(byte(id))
	default:
		return id >= firstWord
	}
}
