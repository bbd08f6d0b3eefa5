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

// fromGGUF builds a model from a GGUF file's tokenizer.ggml.* metadata, as
// llama.cpp's vocabulary loader reads it.
func fromGGUF(f *gguf.File, fallbackName string) (*model, error) {
	tm, err := f.String("tokenizer.ggml.model")
	if err != nil {
		if errors.Is(err, gguf.ErrNotFound) {
			return nil, errors.New("no tokenizer in the file (tokenizer.ggml.model is missing)")
		}
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

	name, _ := f.String("general.name")
	if name == "" {
		name = fallbackName
	}
	m := &model{name: name, format: "gguf", kind: algo, kinds: make([]kind, n), bos: -1, eos: -1}
	tokens = slices.Clone(tokens) // the File's own slice stays untouched
	seen := make(map[string]int, n)
	for i, tok := range tokens {
		if tok == "" {
			tok = fmt.Sprintf("[EMPTY_%d]", i) // as llama.cpp names it
			tokens[i] = tok
		}
		if j, dup := seen[tok]; dup {
			return nil, fmt.Errorf("tokenizer.ggml.tokens: token %q is both id %d and id %d", tok, j, i)
		}
		seen[tok] = i
		t := int32(ggufNormal)
		if types != nil {
			t = types[i]
		}
		switch t {
		case ggufNormal:
			m.kinds[i] = normal
		case ggufUnknown:
			m.kinds[i] = unknown
		case ggufControl:
			m.kinds[i] = control
		case ggufUserDefined:
			m.kinds[i] = userDefined
		case ggufByte:
			m.kinds[i] = byteToken
		default:
			m.kinds[i] = unused
		}
		if eogTexts[tok] && m.kinds[i] != unknown {
			m.kinds[i] = control
		}
	}

	// Special ids, with llama.cpp's defaults per tokenizer model.
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
	if tm == "gpt2" {
		defBOS, defEOS, defUnk = 11, 11, -1
		addBOS = false
	}
	if m.bos, err = special("tokenizer.ggml.bos_token_id", defBOS); err != nil {
		return nil, err
	}
	if m.eos, err = special("tokenizer.ggml.eos_token_id", defEOS); err != nil {
		return nil, err
	}
	unk, err := special("tokenizer.ggml.unknown_token_id", defUnk)
	if err != nil {
		return nil, err
	}
	pre, _ := f.String("tokenizer.ggml.pre")
	var ps *preSpec
	if tm == "gpt2" {
		if ps, err = ggufPreSpec(pre); err != nil {
			return nil, err
		}
		if ps.addBOS {
			addBOS = true
		}
	}
	if b, err := f.Bool("tokenizer.ggml.add_bos_token"); err == nil {
		addBOS = b
	} else if !errors.Is(err, gguf.ErrNotFound) {
		return nil, err
	}
	if b, err := f.Bool("tokenizer.ggml.add_eos_token"); err == nil {
		addEOS = b
	} else if !errors.Is(err, gguf.ErrNotFound) {
		return nil, err
	}
	if addBOS {
		if m.bos < 0 {
			return nil, errors.New("tokenizer.ggml.add_bos_token is true, but there is no BOS token")
		}
		m.prefix = []int{m.bos}
	}
	if addEOS {
		if m.eos < 0 {
			return nil, errors.New("tokenizer.ggml.add_eos_token is true, but there is no EOS token")
		}
		m.suffix = []int{m.eos}
	}

	// Control, user-defined and unknown tokens are cut out of the text
	// first (llama.cpp's special-token partition). Phi-3's files lack the
	// strip flags its tokenizer.json has; llama.cpp sets them by name.
	lowerName := strings.ToLower(name)
	phi3 := strings.Contains(lowerName, "phi-3") || strings.Contains(lowerName, "phi3")
	var added []addedToken
	for i, k := range m.kinds {
		if k != control && k != userDefined && k != unknown {
			continue
		}
		t := addedToken{id: int32(i), text: tokens[i], special: k != userDefined}
		if phi3 {
			switch tokens[i] {
			case "<unk>", "<s>", "<|endoftext|>":
			default:
				t.rstrip = true
			}
		}
		added = append(added, t)
	}
	m.added = newMatcher(added, true)

	m.dec = decoder{text: make([]string, n)}
	switch tm {
	case "llama":
		e := &spm{pieces: make(map[string]int32, n), scores: scores, unk: int32(unk)}
		if e.scores == nil {
			e.scores = make([]float32, n)
		}
		for b := range e.bytes {
			e.bytes[b] = -1
		}
		for i, tok := range tokens {
			switch m.kinds[i] {
			case normal:
				e.pieces[tok] = int32(i)
				m.dec.text[i] = strings.ReplaceAll(tok, "▁", " ")
			case byteToken:
				b, ok := parseByteToken(tok)
				if !ok {
					return nil, fmt.Errorf("tokenizer.ggml.tokens: byte token %d is %q, not <0xXX>", i, tok)
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
		normals := make([]string, 0, n)
		for p := range e.pieces {
			normals = append(normals, p)
		}
		if marksOnlyLead(normals) {
			m.pre = []preStep{scanSplit{spaceMarkNext}}
			e.cache = newWordCache()
		}
		if addPrefix {
			m.dec.post = stripSpaces(" ", 1, 0)
		}
		m.enc = e
	case "gpt2":
		merges, err := f.Strings("tokenizer.ggml.merges")
		if err != nil {
			return nil, err
		}
		e := newByteLevelBPE(n)
		e.ignoreMerges = ps.ignoreMerges
		raw := make([]string, n)
		for i, tok := range tokens {
			if r, ok := fromByteLevel(tok); ok {
				raw[i] = r
			}
			switch m.kinds[i] {
			case normal:
				if r, ok := fromByteLevel(tok); ok {
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
				m.dec.text[i] = tok
			}
		}
		e.setVocab(raw)
		for rank, mg := range merges {
			// "a b", split at the first space after the first byte (a
			// byte-level token holds no space, but "  x" could be a merge
			// of " " and "x" in other alphabets).
			if len(mg) < 3 {
				continue
			}
			sp := strings.IndexByte(mg[1:], ' ') + 1
			if sp <= 0 {
				continue // no pair: llama.cpp keeps it, but it can never match
			}
			a, okA := seen[mg[:sp]]
			b, okB := seen[mg[sp+1:]]
			id, okAB := seen[mg[:sp]+mg[sp+1:]]
			if okA && okB && okAB {
				e.addMerge(int32(a), int32(b), uint32(rank), int32(id))
			}
		}
		m.pre = ps.steps
		m.enc = e
	}
	return m, nil
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
