package pretrained

import "unicode/utf8"

// bpe is rank-ordered byte-pair encoding, as in Hugging Face's BPE model
// and llama.cpp's "gpt2" vocabularies: a word starts as its characters (or
// bytes), and the adjacent pair that comes first in the merge list merges
// first, leftmost on ties, until no pair is in the list.
type bpe struct {
	// merges maps a pair of token ids (left<<32 | right) to the merge's
	// rank<<32 | the merged token's id.
	merges map[uint64]uint64
	// vocab maps a token's text to its id: raw bytes for byte-level
	// vocabularies, the stored text otherwise.
	vocab map[string]int32

	// byteLevel words start as one symbol per byte (GPT-2's alphabet);
	// otherwise as one per character, looked up in vocab.
	byteLevel bool
	byteIDs   [256]int32 // byte-level: each byte's token, -1 where absent

	ignoreMerges bool // a word that is a token is that token (Llama 3)

	// For character-level vocabularies:
	byteFallback bool       // a character with no token becomes its bytes' <0xXX> tokens
	fallback     [256]int32 // those tokens, -1 where absent
	unk          int32      // else the unknown token, -1 where there is none (the character is dropped)
	fuseUnk      bool       // consecutive unknown characters become one unknown token
	prefix       string     // continuing_subword_prefix of characters after the first
	suffix       string     // end_of_word_suffix of the last character

	cache *wordCache // nil when words are whole texts (no pre-tokenizer)
}

var _ wordEncoder = (*bpe)(nil)

func (e *bpe) pair(m *merger, a, b int32) (candidate, bool) {
	sa, sb := &m.syms[a], &m.syms[b]
	v, ok := e.merges[uint64(uint32(sa.id))<<32|uint64(uint32(sb.id))]
	if !ok {
		return candidate{}, false
	}
	return candidate{key: rankKey(uint32(v>>32), a), left: a, mid: sa.end, end: sb.end, id: int32(uint32(v))}, true
}

func (e *bpe) encodeWord(dst []int, w string, m *merger) []int {
	if w == "" {
		return dst
	}
	if e.byteLevel && len(w) == 1 {
		if id := e.byteIDs[w[0]]; id >= 0 {
			return append(dst, int(id))
		}
		return dst
	}
	if e.ignoreMerges {
		if id, ok := e.vocab[w]; ok {
			return append(dst, int(id))
		}
	}
	if e.cache != nil {
		var hit bool
		if dst, hit = e.cache.appendCached(dst, w); hit {
			return dst
		}
	}
	// Symbols are numbered by position; a symbol's [start, end) counts
	// initial symbols, which is all the merger needs to tell pairs apart.
	m.reset(w)
	if e.byteLevel {
		for i := 0; i < len(w); i++ {
			if id := e.byteIDs[w[i]]; id >= 0 {
				n := int32(len(m.syms))
				m.add(n, n+1, id)
			}
		}
	} else {
		e.initChars(m, w)
	}
	if len(m.syms) == 0 {
		return dst
	}
	m.link()
	m.run(e)
	first := len(dst)
	for i := int32(0); i >= 0; i = m.syms[i].next {
		dst = append(dst, int(m.syms[i].id))
	}
	if e.cache != nil {
		e.cache.put(w, dst[first:])
	}
	return dst
}

// initChars adds the initial symbols of a character-level word.
func (e *bpe) initChars(m *merger, w string) {
	add := func(id int32) {
		n := int32(len(m.syms))
		m.add(n, n+1, id)
	}
	pendingUnk := false
	flush := func() {
		if pendingUnk {
			add(e.unk)
			pendingUnk = false
		}
	}
	for i := 0; i < len(w); {
		_, n := utf8.DecodeRuneInString(w[i:])
		key := w[i : i+n]
		if i > 0 && e.prefix != "" {
			key = e.prefix + key
		}
		if i+n == len(w) && e.suffix != "" {
			key += e.suffix
		}
		i += n
		if id, ok := e.vocab[key]; ok {
			flush()
			add(id)
			continue
		}
		if e.byteFallback && e.hasFallback(key) {
			flush()
			for j := 0; j < len(key); j++ {
				add(e.fallback[key[j]])
			}
			continue
		}
		if e.unk < 0 {
			continue // no unknown token: the character is dropped, as in Hugging Face
		}
		if !pendingUnk || !e.fuseUnk {
			flush()
			pendingUnk = true
		}
	}
	flush()
}

func (e *bpe) hasFallback(s string) bool {
	for j := 0; j < len(s); j++ {
		if e.fallback[s[j]] < 0 {
			return false
		}
	}
	return true
}
