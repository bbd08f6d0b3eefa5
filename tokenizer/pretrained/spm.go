package pretrained

import "unicode/utf8"

// spm is the SentencePiece BPE of llama.cpp's "llama" vocabularies
// (Llama 2, Phi-3, Mistral, Gemma): a word starts as its characters, and
// the adjacent pair whose concatenation is the highest-scoring token merges
// first, leftmost on ties, until no pair is a token. A character that no
// token covers falls back to its bytes' <0xXX> tokens.
type spm struct {
	pieces map[string]int32 // normal tokens only: never control or byte tokens
	scores []float32
	bytes  [256]int32 // <0xXX> token of each byte, -1 where absent
	unk    int32      // for bytes without a token, -1 where absent

	cache *wordCache // nil unless words are short (see spaceMarkNext)
}

var _ wordEncoder = (*spm)(nil)

func (e *spm) pair(m *merger, a, b int32) (candidate, bool) {
	sa, sb := &m.syms[a], &m.syms[b]
	id, ok := e.pieces[m.word[sa.start:sb.end]]
	if !ok {
		return candidate{}, false
	}
	return candidate{key: scoreKey(e.scores[id], a), left: a, mid: sa.end, end: sb.end, id: id}, true
}

func (e *spm) encodeWord(dst []int, w string, m *merger) []int {
	if w == "" {
		return dst
	}
	if e.cache != nil {
		var hit bool
		if dst, hit = e.cache.appendCached(dst, w); hit {
			return dst
		}
	}
	first := len(dst)
	m.reset(w)
	for i := 0; i < len(w); {
		// An invalid byte is a symbol of its own; it can only fall back
		// to its byte token.
		_, n := utf8.DecodeRuneInString(w[i:])
		m.add(int32(i), int32(i+n), -1)
		i += n
	}
	m.link()
	m.run(e)
	for i := int32(0); i >= 0; i = m.syms[i].next {
		s := m.syms[i]
		if s.id >= 0 {
			dst = append(dst, int(s.id))
			continue
		}
		if id, ok := e.pieces[w[s.start:s.end]]; ok {
			dst = append(dst, int(id))
			continue
		}
		for j := s.start; j < s.end; j++ {
			if id := e.bytes[w[j]]; id >= 0 {
				dst = append(dst, int(id))
			} else if e.unk >= 0 {
				dst = append(dst, int(e.unk))
			}
		}
	}
	if e.cache != nil {
		e.cache.put(w, dst[first:])
	}
	return dst
}
