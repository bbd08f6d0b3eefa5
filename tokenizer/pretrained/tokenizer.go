package pretrained

import (
	"strconv"
	"sync"
)

// Tokenizer is the tokenizer of one model, loaded by Open. It is immutable
// and safe for concurrent use; the With methods return adjusted copies that
// share the loaded vocabulary.
type Tokenizer struct {
	m *model

	prefix, suffix []int // added around every encoded text (BOS, EOS)
	parseSpecial   bool  // special-token text in the input becomes those tokens
}

// wordEncoder turns one pre-tokenized word into token ids.
type wordEncoder interface {
	encodeWord(dst []int, word string, m *merger) []int
}

// normalizer rewrites a segment of text (the text between added tokens)
// before pre-tokenization.
type normalizer interface {
	normalize(s string) string
}

// kind is what a token is, which decides how it is matched and rendered.
type kind uint8

const (
	normal      kind = iota
	control          // special tokens: BOS, EOS, <|im_start|>
	userDefined      // added tokens that are not special: always matched in text
	byteToken        // <0xXX>: one byte of a character no token covers
	unknown          // <unk>
	unused           // reserved slots
)

// model is everything loaded from a file. It never changes after loading.
type model struct {
	name   string
	format string // "tokenizer.json" or "gguf"
	kind   string // "SentencePiece BPE" or "byte-level BPE", for Describe
	kinds  []kind

	added     *matcher   // tokens cut out of raw text first; nil when none
	addedNorm *matcher   // Hugging Face's normalized added tokens, matched after normalization
	norm      normalizer // nil: text is not rewritten
	pre       []preStep  // empty: each segment is one word
	enc       wordEncoder

	dec decoder

	bos, eos       int   // -1 when the model has none
	prefix, suffix []int // what the file adds around every text by default
}

// state is the scratch space of one Encode call.
type state struct {
	merger merger
	pieces [][]string // per pre-tokenization step: the pieces of the current piece
	ids    []int

	// counting lets Count drop ids as it goes, keeping only their number.
	counting bool
	counted  int
}

var statePool = sync.Pool{New: func() any { return new(state) }}

func getState() *state { return statePool.Get().(*state) }

func putState(st *state) {
	// A huge word would pin its buffers for ever; let those go.
	if cap(st.ids) > 1<<16 || cap(st.merger.syms) > 1<<16 || cap(st.merger.heap) > 1<<16 {
		return
	}
	st.merger.word = ""
	st.counting, st.counted = false, 0
	statePool.Put(st)
}

// Encode returns the token ids of text: with the model's BOS (and EOS)
// where its file asks for them (see WithBOS), and with special-token text
// such as "<|im_start|>" encoded as those tokens (see WithSpecialTokens).
// It never fails: bytes no token covers become byte-fallback or unknown
// tokens, as the model's own tokenizer does.
func (t *Tokenizer) Encode(text string) []int {
	return t.AppendEncode(make([]int, 0, len(text)/3+len(t.prefix)+len(t.suffix)+1), text)
}

// AppendEncode appends the token ids of text to dst and returns the
// extended slice, for callers that reuse a buffer.
func (t *Tokenizer) AppendEncode(dst []int, text string) []int {
	st := getState()
	dst = t.appendEncode(dst, text, st)
	putState(st)
	return dst
}

// Count returns len(Encode(text)) without keeping the ids.
func (t *Tokenizer) Count(text string) int {
	st := getState()
	st.counting = true
	ids := t.appendEncode(st.ids[:0], text, st)
	n := st.counted + len(ids)
	st.ids = ids[:0]
	putState(st)
	return n
}

func (t *Tokenizer) appendEncode(dst []int, text string, st *state) []int {
	m := t.m
	dst = append(dst, t.prefix...)
	for pos := 0; pos <= len(text); {
		if m.added == nil {
			dst = m.encodeSegment(dst, text[pos:], pos == 0, t.parseSpecial, st)
			break
		}
		end, id, resume, ok := m.added.next(text, pos, t.parseSpecial)
		if !ok {
			dst = m.encodeSegment(dst, text[pos:], pos == 0, t.parseSpecial, st)
			break
		}
		dst = m.encodeSegment(dst, text[pos:end], pos == 0, t.parseSpecial, st)
		dst = append(dst, int(id))
		pos = resume
	}
	return append(dst, t.suffix...)
}

// encodeSegment encodes text that holds no added token of the raw text.
func (m *model) encodeSegment(dst []int, s string, atStart, special bool, st *state) []int {
	if s == "" {
		return dst
	}
	if m.norm != nil {
		s = m.norm.normalize(s)
	}
	if m.addedNorm == nil {
		return m.encodeNormalized(dst, s, atStart, st)
	}
	for pos := 0; pos <= len(s); {
		end, id, resume, ok := m.addedNorm.next(s, pos, special)
		if !ok {
			return m.encodeNormalized(dst, s[pos:], atStart && pos == 0, st)
		}
		dst = m.encodeNormalized(dst, s[pos:end], atStart && pos == 0, st)
		dst = append(dst, int(id))
		pos = resume
	}
	return dst
}

// encodeNormalized pre-tokenizes a normalized segment and encodes its words.
func (m *model) encodeNormalized(dst []int, s string, atStart bool, st *state) []int {
	return m.encodePieces(dst, s, atStart, 0, st)
}

// encodePieces runs the pre-tokenization steps from depth on, depth first:
// each piece goes through every step and into the model before the next
// piece is cut, so no step holds more than the pieces of one parent piece.
func (m *model) encodePieces(dst []int, s string, atStart bool, depth int, st *state) []int {
	if s == "" {
		return dst
	}
	if depth == len(m.pre) {
		dst = m.enc.encodeWord(dst, s, &st.merger)
		if st.counting && len(dst) >= 4096 {
			st.counted += len(dst)
			dst = dst[:0]
		}
		return dst
	}
	if sc, ok := m.pre[depth].(scanSplit); ok {
		for i := 0; i < len(s); {
			j := sc.next(s, i)
			dst = m.encodePieces(dst, s[i:j], atStart && i == 0, depth+1, st)
			i = j
		}
		return dst
	}
	for len(st.pieces) <= depth {
		st.pieces = append(st.pieces, nil)
	}
	pieces := m.pre[depth].apply(st.pieces[depth][:0], s, atStart)
	st.pieces[depth] = pieces
	for i, w := range pieces {
		dst = m.encodePieces(dst, w, atStart && i == 0, depth+1, st)
	}
	clear(pieces) // the pooled state must not keep the text alive
	return dst
}

// Decode returns the text of ids, as the model's file says to render it:
// special tokens as their text, byte tokens as their bytes. The bytes are
// exact: ids that end inside a multi-byte character leave its partial
// bytes (the Hugging Face library would show U+FFFD). Ids outside the
// vocabulary contribute nothing.
func (t *Tokenizer) Decode(ids []int) string {
	return t.m.dec.decode(ids)
}

// Name is the model's name: the GGUF file's general.name, the model id it
// was found by in the Hugging Face cache, or the name of the directory (or
// file) that held tokenizer.json.
func (t *Tokenizer) Name() string { return t.m.name }

// VocabSize is the number of token ids; valid ids are 0 ≤ id < VocabSize.
func (t *Tokenizer) VocabSize() int { return len(t.m.kinds) }

// BOS returns the model's beginning-of-sequence token, if it has one.
func (t *Tokenizer) BOS() (id int, ok bool) { return t.m.bos, t.m.bos >= 0 }

// EOS returns the model's end-of-sequence token, if it has one.
func (t *Tokenizer) EOS() (id int, ok bool) { return t.m.eos, t.m.eos >= 0 }

// Special reports whether id is a control or added token (BOS,
// <|im_start|>, a reserved slot) rather than a piece of ordinary text.
// Callers that build text from random ids should skip them: they decode to
// markup that a server would read as a control token.
func (t *Tokenizer) Special(id int) bool {
	if id < 0 || id >= len(t.m.kinds) {
		return false
	}
	k := t.m.kinds[id]
	return k == control || k == userDefined || k == unknown || k == unused
}

// Describe says what was loaded, for logs: the file format and the
// algorithm, e.g. "gguf, SentencePiece BPE, 32000 tokens".
func (t *Tokenizer) Describe() string {
	return t.m.format + ", " + t.m.kind + ", " + strconv.Itoa(len(t.m.kinds)) + " tokens"
}

// WithBOS returns a copy that adds the model's BOS token (or whatever its
// file puts before every text) when add is true, and nothing when false.
// A model without a BOS token adds nothing either way.
func (t *Tokenizer) WithBOS(add bool) *Tokenizer {
	c := *t
	switch {
	case !add:
		c.prefix = nil
	case len(t.m.prefix) > 0:
		c.prefix = t.m.prefix
	case t.m.bos >= 0:
		c.prefix = []int{t.m.bos}
	}
	return &c
}

// WithEOS returns a copy that adds the model's EOS token (or whatever its
// file puts after every text) when add is true, and nothing when false.
func (t *Tokenizer) WithEOS(add bool) *Tokenizer {
	c := *t
	switch {
	case !add:
		c.suffix = nil
	case len(t.m.suffix) > 0:
		c.suffix = t.m.suffix
	case t.m.eos >= 0:
		c.suffix = []int{t.m.eos}
	}
	return &c
}

// WithSpecialTokens returns a copy that reads special-token text in the
// input ("<|im_start|>", "<s>") as those tokens when parse is true (the
// default, as Hugging Face and llama-server do), or encodes it as ordinary
// text when false. Added tokens that are not special are always matched,
// in both references.
func (t *Tokenizer) WithSpecialTokens(parse bool) *Tokenizer {
	c := *t
	c.parseSpecial = parse
	return &c
}

func newTokenizer(m *model) *Tokenizer {
	return &Tokenizer{m: m, prefix: m.prefix, suffix: m.suffix, parseSpecial: true}
}
