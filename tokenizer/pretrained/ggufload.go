package pretrained

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/tokenizer/gguf"
)

// GGUF token types (tokenizer.ggml.token_type).
const (
	ggufNormal      = 1
	ggufUnknown     = 2
	ggufControl     = 3
	ggufUserDefined = 4
	ggufUnused      = 5
	ggufByte        = 6
)

// eogTexts are tokens that llama.cpp treats as control tokens whatever
// their stored type, since converters often mark them normal.
var eogTexts = map[string]bool{
	"<|eot_id|>": true, "<|im_end|>": true, "<|end|>": true, "<end_of_turn>": true,
	"<|endoftext|>": true, "<|end_of_text|>": true, "<EOT>": true, "_<EOT>": true,
	"<｜end▁of▁sentence｜>": true, "<|eom_id|>": true,
}

// ggufVocab is a GGUF file's token table.
type ggufVocab struct {
	tokens []string       // texts, with llama.cpp's names for empty ones
	kinds  []kind         // from tokenizer.ggml.token_type
	scores []float32      // from tokenizer.ggml.scores, zeros when absent
	ids    map[string]int // text → id
}

// fromGGUF builds a model from a GGUF file's tokenizer.ggml.* metadata, as
// llama.cpp's vocabulary loader reads it.
func fromGGUF(f *gguf.File, fallbackName string) (*model, error) {
	tm, err := f.String("tokenizer.ggml.model")
	if errors.Is(err, gguf.ErrNotFound) {
		return nil, errors.New("no tokenizer in the file (tokenizer.ggml.model is missing)")
	}
	if err != nil {
		return nil, err
	}
	var algo string
	switch tm {
	case "llama":
		algo = "SentencePiece BPE"
	case "gpt2":
		algo = "byte-level BPE"
	case "no_vocab", "none":
		return nil, fmt.Errorf("the file has no vocabulary (tokenizer.ggml.model %q)", tm)
	default:
		return nil, fmt.Errorf("tokenizer.ggml.model %q is not supported (supported: llama, gpt2)", tm)
	}
	v, err := readGGUFVocab(f)
	if err != nil {
		return nil, err
	}
	name, _ := f.String("general.name")
	if name == "" {
		name = fallbackName
	}
	m := &model{name: name, format: "gguf", kind: algo, kinds: v.kinds, bos: -1, eos: -1}
	var ps *preSpec
	if tm == "gpt2" {
		pre, _ := f.String("tokenizer.ggml.pre")
		if ps, err = ggufPreSpec(pre); err != nil {
			return nil, err
		}
	}
	unk, err := m.ggufSpecials(f, tm == "gpt2", ps != nil && ps.addBOS)
	if err != nil {
		return nil, err
	}
	m.added = ggufAdded(v, name)
	m.dec = decoder{text: make([]string, len(v.tokens))}
	if tm == "llama" {
		err = m.ggufSPM(f, v, unk)
	} else {
		err = m.ggufBPE(f, v, ps)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

func readGGUFVocab(f *gguf.File) (*ggufVocab, error) {
	tokens, err := f.Strings("tokenizer.ggml.tokens")
	if err != nil {
		return nil, err
	}
	n := len(tokens)
	if n == 0 {
		return nil, errors.New("tokenizer.ggml.tokens is empty")
	}
	if n > 1<<30 {
		return nil, fmt.Errorf("tokenizer.ggml.tokens has %d tokens, too many", n)
	}
	types, err := f.Int32s("tokenizer.ggml.token_type")
	if err != nil && !errors.Is(err, gguf.ErrNotFound) {
		return nil, err
	}
	if types != nil && len(types) < n {
		return nil, fmt.Errorf("tokenizer.ggml.token_type has %d entries for %d tokens", len(types), n)
	}
	scores, err := f.Float32s("tokenizer.ggml.scores")
	if err != nil && !errors.Is(err, gguf.ErrNotFound) {
		return nil, err
	}
	if scores != nil && len(scores) < n {
		return nil, fmt.Errorf("tokenizer.ggml.scores has %d entries for %d tokens", len(scores), n)
	}
	if scores == nil {
		scores = make([]float32, n)
	}
	v := &ggufVocab{tokens: slices.Clone(tokens), kinds: make([]kind, n), scores: scores, ids: make(map[string]int, n)}
	for i, tok := range v.tokens {
		if tok == "" {
			tok = fmt.Sprintf("[EMPTY_%d]", i) // as llama.cpp names it
			v.tokens[i] = tok
		}
		if j, dup := v.ids[tok]; dup {
			return nil, fmt.Errorf("tokenizer.ggml.tokens: token %q is both id %d and id %d", tok, j, i)
		}
		v.ids[tok] = i
		t := int32(ggufNormal)
		if types != nil {
			t = types[i]
		}
		switch t {
		case ggufNormal:
			v.kinds[i] = normal
		case ggufUnknown:
			v.kinds[i] = unknown
		case ggufControl:
			v.kinds[i] = control
		case ggufUserDefined:
			v.kinds[i] = userDefined
		case ggufByte:
			v.kinds[i] = byteToken
		default:
			v.kinds[i] = unused
		}
		if eogTexts[tok] && v.kinds[i] != unknown {
			v.kinds[i] = control
		}
	}
	return v, nil
}

// ggufSpecials sets the BOS and EOS tokens and whether they are added, with
// llama.cpp's defaults per tokenizer model, and returns the unknown token.
// preBOS is a pre-tokenizer type that implies a BOS (Llama 3's).
func (m *model) ggufSpecials(f *gguf.File, byteLevel, preBOS bool) (unk int, err error) {
	n := len(m.kinds)
	special := func(key string, def int) (int, error) {
		if def >= n {
			def = -1 // a default outside the vocabulary is none
		}
		v, err := f.Uint(key)
		switch {
		case errors.Is(err, gguf.ErrNotFound):
			return def, nil
		case err != nil:
			return 0, err
		case v >= uint64(n):
			return def, nil // llama.cpp keeps the default for an id out of range
		}
		return int(v), nil
	}
	defBOS, defEOS, defUnk := 1, 2, 0
	addBOS, addEOS := true, false
	if byteLevel {
		defBOS, defEOS, defUnk = 11, 11, -1
		addBOS = preBOS
	}
	if m.bos, err = special("tokenizer.ggml.bos_token_id", defBOS); err != nil {
		return 0, err
	}
	if m.eos, err = special("tokenizer.ggml.eos_token_id", defEOS); err != nil {
		return 0, err
	}
	if unk, err = special("tokenizer.ggml.unknown_token_id", defUnk); err != nil {
		return 0, err
	}
	flag := func(key string, v *bool) error {
		b, err := f.Bool(key)
		if err == nil {
			*v = b
		} else if !errors.Is(err, gguf.ErrNotFound) {
			return err
		}
		return nil
	}
	if err := flag("tokenizer.ggml.add_bos_token", &addBOS); err != nil {
		return 0, err
	}
	if err := flag("tokenizer.ggml.add_eos_token", &addEOS); err != nil {
		return 0, err
	}
	if addBOS {
		if m.bos < 0 {
			return 0, errors.New("tokenizer.ggml.add_bos_token is true, but there is no BOS token")
		}
		m.prefix = []int{m.bos}
	}
	if addEOS {
		if m.eos < 0 {
			return 0, errors.New("tokenizer.ggml.add_eos_token is true, but there is no EOS token")
		}
		m.suffix = []int{m.eos}
	}
	return unk, nil
}

// ggufAdded is the matcher of control, user-defined and unknown tokens,
// which llama.cpp cuts out of the text first (its special-token
// partition). Phi-3's files lack the strip flags of its tokenizer.json;
// llama.cpp sets them by the model's name, and so does this.
func ggufAdded(v *ggufVocab, name string) *matcher {
	lower := strings.ToLower(name)
	phi3 := strings.Contains(lower, "phi-3") || strings.Contains(lower, "phi3")
	var added []addedToken
	for i, k := range v.kinds {
		if k != control && k != userDefined && k != unknown {
			continue
		}
		t := addedToken{id: int32(i), text: v.tokens[i], special: k != userDefined}
		if phi3 {
			switch v.tokens[i] {
			case "<unk>", "<s>", "<|endoftext|>":
			default:
				t.rstrip = true
			}
		}
		added = append(added, t)
	}
	return newMatcher(added, true)
}

// ggufSPM sets up a "llama" vocabulary: SentencePiece BPE over the text
// with its spaces written as ▁ (after a leading one, unless
// add_space_prefix is false).
func (m *model) ggufSPM(f *gguf.File, v *ggufVocab, unk int) error {
	e := &spm{pieces: make(map[string]int32, len(v.tokens)), scores: v.scores, unk: int32(unk)}
	for b := range e.bytes {
		e.bytes[b] = -1
	}
	normals := make([]string, 0, len(v.tokens))
	for i, tok := range v.tokens {
		switch v.kinds[i] {
		case normal:
			e.pieces[tok] = int32(i)
			normals = append(normals, tok)
			m.dec.text[i] = strings.ReplaceAll(tok, "▁", " ")
		case byteToken:
			b, ok := parseByteToken(tok)
			if !ok {
				return fmt.Errorf("tokenizer.ggml.tokens: byte token %d is %q, not <0xXX>", i, tok)
			}
			e.bytes[b] = int32(i)
			m.dec.text[i] = string([]byte{b})
		case unused:
		default:
			m.dec.text[i] = tok
		}
	}
	addPrefix := true
	if b, err := f.Bool("tokenizer.ggml.add_space_prefix"); err == nil {
		addPrefix = b
	}
	m.norm = spmEscape{prefix: addPrefix}
	if addPrefix {
		m.dec.post = stripSpaces(" ", 1, 0)
	}
	if _, ok := e.pieces["▁"]; ok && marksOnlyLead(normals) {
		m.pre = []preStep{scanSplit{spaceMarkNext}}
		e.cache = newWordCache()
	}
	m.enc = e
	return nil
}

// ggufBPE sets up a "gpt2" vocabulary: byte-level BPE over the words of
// the pre-tokenizer type, with the file's merges.
func (m *model) ggufBPE(f *gguf.File, v *ggufVocab, ps *preSpec) error {
	merges, err := f.Strings("tokenizer.ggml.merges")
	if err != nil {
		return err
	}
	e := newByteLevelBPE(len(v.tokens))
	e.ignoreMerges = ps.ignoreMerges
	raw := make([]string, len(v.tokens))
	for i, tok := range v.tokens {
		r, ok := fromByteLevel(tok)
		if ok {
			raw[i] = r
		}
		switch v.kinds[i] {
		case normal:
			if ok {
				m.dec.text[i] = r
			} else {
				m.dec.text[i] = tok
			}
		case byteToken:
			if b, ok := parseByteToken(tok); ok {
				m.dec.text[i] = string([]byte{b})
			}
		case unused:
		default:
			m.dec.text[i] = tok // as llama.cpp renders control and user-defined tokens
		}
	}
	e.setVocab(raw)
	for rank, mg := range merges {
		// "a b", split at the first space after the first byte, as
		// llama.cpp does.
		if len(mg) < 3 {
			continue
		}
		sp := strings.IndexByte(mg[1:], ' ') + 1
		if sp <= 0 {
			continue // no pair: llama.cpp keeps it, but it can never match
		}
		a, okA := v.ids[mg[:sp]]
		b, okB := v.ids[mg[sp+1:]]
		id, okAB := v.ids[mg[:sp]+mg[sp+1:]]
		if okA && okB && okAB {
			e.addMerge(int32(a), int32(b), uint32(rank), int32(id))
		}
	}
	m.pre = ps.steps
	m.enc = e
	return nil
}

// parseByteToken reads "<0xXX>".
func parseByteToken(s string) (byte, bool) {
	if len(s) != 6 || s[:3] != "<0x" || s[5] != '>' {
		return 0, false
	}
	hi, ok1 := hexDigit(s[3])
	lo, ok2 := hexDigit(s[4])
	return hi<<4 | lo, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// newByteLevelBPE returns an empty byte-level BPE for n tokens.
func newByteLevelBPE(n int) *bpe {
	e := &bpe{merges: make(map[uint64]uint64, n), byteLevel: true, unk: -1, cache: newWordCache()}
	for b := range e.byteIDs {
		e.byteIDs[b] = -1
		e.fallback[b] = -1
	}
	return e
}

// setVocab indexes the raw bytes of each token ("" where it has none).
func (e *bpe) setVocab(raw []string) {
	e.vocab = make(map[string]int32, len(raw))
	for i, r := range raw {
		if r == "" {
			continue
		}
		if _, dup := e.vocab[r]; !dup {
			e.vocab[r] = int32(i)
		}
		if len(r) == 1 && e.byteIDs[r[0]] < 0 {
			e.byteIDs[r[0]] = int32(i)
		}
	}
}

// addMerge records that a then b merge into id, at rank; an earlier merge
// of the same pair wins.
func (e *bpe) addMerge(a, b int32, rank uint32, id int32) {
	k := uint64(uint32(a))<<32 | uint64(uint32(b))
	if _, dup := e.merges[k]; !dup {
		e.merges[k] = uint64(rank)<<32 | uint64(uint32(id))
	}
}
