package pretrained

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// The parts of a Hugging Face tokenizer.json that encoding and decoding
// need. Components (normalizer, pre-tokenizer, decoder, post-processor) are
// tagged unions; hfComponent holds the fields of every supported variant.

type hfFile struct {
	AddedTokens   []hfAddedToken  `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
	Model         hfModel         `json:"model"`
}

type hfAddedToken struct {
	ID         int64  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	Lstrip     bool   `json:"lstrip"`
	Rstrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"`
	Special    bool   `json:"special"`
}

type hfModel struct {
	Type                    string          `json:"type"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	FuseUnk                 bool            `json:"fuse_unk"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
}

type hfPattern struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

type hfComponent struct {
	Type string `json:"type"`

	Normalizers   []json.RawMessage `json:"normalizers"`
	Pretokenizers []json.RawMessage `json:"pretokenizers"`
	Decoders      []json.RawMessage `json:"decoders"`
	Processors    []json.RawMessage `json:"processors"`

	Prepend    string     `json:"prepend"`
	Pattern    *hfPattern `json:"pattern"`
	Content    string     `json:"content"`
	Behavior   string     `json:"behavior"`
	Invert     bool       `json:"invert"`
	StripLeft  bool       `json:"strip_left"`
	StripRight bool       `json:"strip_right"`
	Start      int        `json:"start"`
	Stop       int        `json:"stop"`

	AddPrefixSpace   *bool  `json:"add_prefix_space"`
	UseRegex         *bool  `json:"use_regex"`
	Replacement      string `json:"replacement"`
	PrependScheme    string `json:"prepend_scheme"`
	Split            *bool  `json:"split"`
	IndividualDigits bool   `json:"individual_digits"`
	Prefix           string `json:"prefix"`

	Single        []map[string]hfTemplateItem `json:"single"`
	SpecialTokens map[string]hfSpecialToken   `json:"special_tokens"`
	Cls           []json.RawMessage           `json:"cls"`
	Sep           []json.RawMessage           `json:"sep"`
}

type hfTemplateItem struct {
	ID string `json:"id"`
}

type hfSpecialToken struct {
	IDs []int64 `json:"ids"`
}

// hfConfig is the part of tokenizer_config.json (beside tokenizer.json)
// that changes encoding: whether BOS and EOS are added, and which they are.
type hfConfig struct {
	AddBOS *bool           `json:"add_bos_token"`
	AddEOS *bool           `json:"add_eos_token"`
	BOS    json.RawMessage `json:"bos_token"`
	EOS    json.RawMessage `json:"eos_token"`
}

// tokenText reads a token given as "<s>" or {"content": "<s>", …}.
func tokenText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content string `json:"content"`
	}
	if json.Unmarshal(raw, &o) == nil {
		return o.Content
	}
	return ""
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

func component(raw json.RawMessage, what string) (hfComponent, error) {
	var c hfComponent
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, fmt.Errorf("%s: %w", what, err)
	}
	return c, nil
}

// maxID bounds token ids, and maxHoles the ids no token uses, so that a
// small hostile file cannot make the id tables huge. Real vocabularies
// are dense and below 300,000 tokens.
const (
	maxID    = 1 << 22
	maxHoles = 1 << 16
)

// fromHF builds a model from tokenizer.json (and tokenizer_config.json,
// when cfg is not nil).
func fromHF(data []byte, cfg *hfConfig, name string) (*model, error) {
	var f hfFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	typ := f.Model.Type
	if typ == "" && !isNull(f.Model.Merges) {
		typ = "BPE" // files of old library versions do not name the type
	}
	if typ != "BPE" {
		if typ == "" {
			return nil, errors.New("model: no type and no merges; not a tokenizer.json?")
		}
		return nil, fmt.Errorf("model type %q is not supported (supported: BPE)", typ)
	}
	vocab, pieces, err := hfVocab(&f)
	if err != nil {
		return nil, err
	}
	m := &model{name: name, format: "tokenizer.json", kinds: make([]kind, len(pieces)), bos: -1, eos: -1}
	for i, p := range pieces {
		if p == "" {
			m.kinds[i] = unused
		}
	}
	// The normalizer and pre-tokenizer decide whether the vocabulary is
	// byte-level.
	if !isNull(f.Normalizer) {
		nz, byteLevel, err := hfNormalizer(f.Normalizer)
		if err != nil {
			return nil, err
		}
		if byteLevel {
			return nil, errors.New("normalizer: ByteLevel is not supported; use the ByteLevel pre-tokenizer")
		}
		m.norm = nz
	}
	byteLevel := false
	if !isNull(f.PreTokenizer) {
		if m.pre, byteLevel, err = hfPreTokenizer(f.PreTokenizer); err != nil {
			return nil, err
		}
	}
	if err := m.hfBPE(&f.Model, vocab, pieces, byteLevel); err != nil {
		return nil, err
	}
	m.hfAdded(f.AddedTokens, pieces)
	if err := m.hfDecoder(f.Decoder, pieces); err != nil {
		return nil, err
	}
	if err := m.hfPostProcessor(f.PostProcessor, vocab, f.AddedTokens, cfg); err != nil {
		return nil, err
	}
	return m, nil
}

// hfVocab reads model.vocab and lays every token out by id ("" where no
// token has the id), the added tokens' ids included.
func hfVocab(f *hfFile) (map[string]int64, []string, error) {
	var vocab map[string]int64
	if err := json.Unmarshal(f.Model.Vocab, &vocab); err != nil {
		return nil, nil, fmt.Errorf("model.vocab: %w", err)
	}
	if len(vocab) == 0 {
		return nil, nil, errors.New("model.vocab is empty")
	}
	n := 0
	for tok, id := range vocab {
		if id < 0 || id >= maxID {
			return nil, nil, fmt.Errorf("model.vocab: token %q has id %d, outside [0, %d)", tok, id, maxID)
		}
		n = max(n, int(id)+1)
	}
	for i, a := range f.AddedTokens {
		if a.ID < 0 || a.ID >= maxID {
			return nil, nil, fmt.Errorf("added_tokens[%d]: id %d is outside [0, %d)", i, a.ID, maxID)
		}
		n = max(n, int(a.ID)+1)
	}
	if holes := n - len(vocab) - len(f.AddedTokens); holes > maxHoles {
		return nil, nil, fmt.Errorf("token ids run to %d but only %d tokens are defined", n-1, n-holes)
	}
	pieces := make([]string, n)
	for tok, id := range vocab {
		// Two texts with one id: keep the smaller, whatever the map order.
		if pieces[id] == "" || tok < pieces[id] {
			pieces[id] = tok
		}
	}
	return vocab, pieces, nil
}

// hfBPE sets up the BPE model: its vocabulary (as raw bytes when it is
// byte-level), byte fallback, unknown token and merges.
func (m *model) hfBPE(hm *hfModel, vocab map[string]int64, pieces []string, byteLevel bool) error {
	e := &bpe{merges: make(map[uint64]uint64), unk: -1, byteLevel: byteLevel,
		byteFallback: hm.ByteFallback, fuseUnk: hm.FuseUnk, ignoreMerges: hm.IgnoreMerges}
	for b := range e.byteIDs {
		e.byteIDs[b], e.fallback[b] = -1, -1
	}
	if hm.ContinuingSubwordPrefix != nil {
		e.prefix = *hm.ContinuingSubwordPrefix
	}
	if hm.EndOfWordSuffix != nil {
		e.suffix = *hm.EndOfWordSuffix
	}
	if byteLevel {
		m.kind = "byte-level BPE"
		raw := make([]string, len(pieces))
		for id, p := range pieces {
			if r, ok := fromByteLevel(p); ok {
				raw[id] = r
			}
		}
		e.setVocab(raw)
	} else {
		m.kind = "BPE"
		if e.byteFallback {
			m.kind = "SentencePiece BPE"
		}
		e.vocab = make(map[string]int32, len(vocab))
		for tok, id := range vocab {
			e.vocab[tok] = int32(id)
			if b, ok := parseByteToken(tok); ok && e.byteFallback {
				e.fallback[b] = int32(id)
				m.kinds[id] = byteToken
			}
		}
	}
	if hm.UnkToken != nil {
		id, ok := vocab[*hm.UnkToken]
		if !ok {
			return fmt.Errorf("model.unk_token %q is not in the vocabulary", *hm.UnkToken)
		}
		e.unk = int32(id)
		m.kinds[id] = unknown
	}
	if err := e.hfMerges(hm.Merges, vocab); err != nil {
		return err
	}
	// SentencePiece text (no pre-tokenizer, or Metaspace without its
	// split) is one word per segment; it can still be cut at its space
	// marks (spaceMarkNext), as long as nothing depends on where words end.
	if _, ok := vocab["▁"]; ok && !byteLevel && !e.ignoreMerges && e.prefix == "" && e.suffix == "" {
		keys := make([]string, 0, len(vocab))
		for k := range vocab {
			keys = append(keys, k)
		}
		if marksOnlyLead(keys) {
			m.pre = append(m.pre, scanSplit{spaceMarkNext})
		}
	}
	// A pre-tokenizer cuts text into words, which repeat: cache them.
	if len(m.pre) > 0 {
		e.cache = newWordCache()
	}
	m.enc = e
	return nil
}

// hfAdded sets up the added tokens: matched in the raw text, or after
// normalization when the file says so (and there is a normalizer to make a
// difference). They are also the texts of their ids.
func (m *model) hfAdded(tokens []hfAddedToken, pieces []string) {
	var raw, normalized []addedToken
	for _, a := range tokens {
		if a.Content == "" {
			continue
		}
		pieces[a.ID] = a.Content
		m.kinds[a.ID] = userDefined
		if a.Special {
			m.kinds[a.ID] = control
		}
		t := addedToken{id: int32(a.ID), text: a.Content, special: a.Special, lstrip: a.Lstrip, rstrip: a.Rstrip, singleWord: a.SingleWord}
		isNorm := !a.Special
		if a.Normalized != nil {
			isNorm = *a.Normalized
		}
		if isNorm && m.norm != nil {
			normalized = append(normalized, t)
		} else {
			raw = append(raw, t)
		}
	}
	m.added = newMatcher(raw, false)
	m.addedNorm = newMatcher(normalized, false)
}

// hfMerges reads the merge list, "a b" strings or ["a", "b"] pairs. As in
// Hugging Face, a merge of tokens not in the vocabulary is an error, and
// a pair listed twice keeps its last rank.
func (e *bpe) hfMerges(raw json.RawMessage, vocab map[string]int64) error {
	if isNull(raw) {
		return nil
	}
	var pairs [][2]string
	var lines []string
	if err := json.Unmarshal(raw, &lines); err == nil {
		pairs = make([][2]string, len(lines))
		for i, l := range lines {
			a, b, ok := strings.Cut(l, " ")
			if !ok || strings.Contains(b, " ") {
				return fmt.Errorf("model.merges[%d]: %q is not two tokens separated by a space", i, l)
			}
			pairs[i] = [2]string{a, b}
		}
	} else if err := json.Unmarshal(raw, &pairs); err != nil {
		return fmt.Errorf("model.merges: %w", err)
	}
	plen := len(e.prefix)
	for i, p := range pairs {
		a, okA := vocab[p[0]]
		b, okB := vocab[p[1]]
		if !okA || !okB {
			return fmt.Errorf("model.merges[%d]: %q %q: a token is not in the vocabulary", i, p[0], p[1])
		}
		right := p[1]
		if len(right) >= plen {
			right = right[plen:]
		}
		id, ok := vocab[p[0]+right]
		if !ok {
			return fmt.Errorf("model.merges[%d]: the merged token %q is not in the vocabulary", i, p[0]+right)
		}
		e.merges[uint64(uint32(a))<<32|uint64(uint32(b))] = uint64(i)<<32 | uint64(uint32(id))
	}
	return nil
}

// hfNormalizer builds a normalizer; byteLevel reports a ByteLevel one.
func hfNormalizer(raw json.RawMessage) (normalizer, bool, error) {
	c, err := component(raw, "normalizer")
	if err != nil {
		return nil, false, err
	}
	switch c.Type {
	case "Sequence":
		var seq normSequence
		bl := false
		for _, r := range c.Normalizers {
			if isNull(r) {
				continue
			}
			n, b, err := hfNormalizer(r)
			if err != nil {
				return nil, false, err
			}
			bl = bl || b
			if n != nil {
				seq = append(seq, n)
			}
		}
		switch len(seq) {
		case 0:
			return nil, bl, nil
		case 1:
			return seq[0], bl, nil
		}
		return seq, bl, nil
	case "NFC":
		return unicodeForm{norm.NFC}, false, nil
	case "NFD":
		return unicodeForm{norm.NFD}, false, nil
	case "NFKC":
		return unicodeForm{norm.NFKC}, false, nil
	case "NFKD":
		return unicodeForm{norm.NFKD}, false, nil
	case "Lowercase":
		return lowercase{}, false, nil
	case "Prepend":
		return prepend{c.Prepend}, false, nil
	case "Strip":
		return strip{c.StripLeft, c.StripRight}, false, nil
	case "Replace":
		if c.Pattern == nil {
			return nil, false, errors.New("normalizer Replace: no pattern")
		}
		if c.Pattern.String != nil {
			return replaceString{*c.Pattern.String, c.Content}, false, nil
		}
		if c.Pattern.Regex != nil {
			p, err := compilePattern(*c.Pattern.Regex)
			if err != nil {
				return nil, false, fmt.Errorf("normalizer Replace: %w", err)
			}
			if p.ws >= 0 {
				return nil, false, fmt.Errorf("normalizer Replace: pattern %q has a look-ahead", *c.Pattern.Regex)
			}
			return replaceRegexp{p.re, c.Content}, false, nil
		}
		return nil, false, errors.New("normalizer Replace: pattern is neither String nor Regex")
	case "ByteLevel":
		return nil, true, nil
	}
	return nil, false, fmt.Errorf("normalizer %q is not supported", c.Type)
}

// hfPreTokenizer builds the pre-tokenization steps; byteLevel reports a
// ByteLevel step, which makes the vocabulary byte-level.
func hfPreTokenizer(raw json.RawMessage) ([]preStep, bool, error) {
	c, err := component(raw, "pre_tokenizer")
	if err != nil {
		return nil, false, err
	}
	switch c.Type {
	case "Sequence":
		var steps []preStep
		bl := false
		for _, r := range c.Pretokenizers {
			if isNull(r) {
				continue
			}
			s, b, err := hfPreTokenizer(r)
			if err != nil {
				return nil, false, err
			}
			steps, bl = append(steps, s...), bl || b
		}
		return steps, bl, nil
	case "ByteLevel":
		step := byteLevelStep{addPrefixSpace: true, useRegex: true}
		if c.AddPrefixSpace != nil {
			step.addPrefixSpace = *c.AddPrefixSpace
		}
		if c.UseRegex != nil {
			step.useRegex = *c.UseRegex
		}
		switch {
		case !step.addPrefixSpace && !step.useRegex:
			return nil, true, nil // it only maps bytes, which the vocabulary does
		case !step.addPrefixSpace:
			return []preStep{scanSplit{gpt2Next}}, true, nil
		}
		return []preStep{step}, true, nil
	case "Split":
		b, ok := behaviors[c.Behavior]
		if !ok {
			return nil, false, fmt.Errorf("pre_tokenizer Split: behavior %q is not one of Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous", c.Behavior)
		}
		if c.Pattern == nil {
			return nil, false, errors.New("pre_tokenizer Split: no pattern")
		}
		if c.Pattern.String != nil {
			return []preStep{literalSplitter(*c.Pattern.String, b, c.Invert)}, false, nil
		}
		if c.Pattern.Regex == nil {
			return nil, false, errors.New("pre_tokenizer Split: pattern is neither String nor Regex")
		}
		if next, ok := handSplitters[*c.Pattern.Regex]; ok && b == isolated && !c.Invert {
			return []preStep{scanSplit{next}}, false, nil
		}
		p, err := compilePattern(*c.Pattern.Regex)
		if err != nil {
			return nil, false, fmt.Errorf("pre_tokenizer Split: %w", err)
		}
		return []preStep{regexSplitter(p, b, c.Invert)}, false, nil
	case "Metaspace":
		step, err := hfMetaspace(c)
		if err != nil {
			return nil, false, fmt.Errorf("pre_tokenizer Metaspace: %w", err)
		}
		return []preStep{step}, false, nil
	case "Digits":
		return []preStep{digitsStep{c.IndividualDigits}}, false, nil
	}
	return nil, false, fmt.Errorf("pre_tokenizer %q is not supported", c.Type)
}

var behaviors = map[string]splitBehavior{
	"Isolated": isolated, "Removed": removed, "MergedWithPrevious": mergedWithPrevious,
	"MergedWithNext": mergedWithNext, "Contiguous": contiguous,
}

func hfMetaspace(c hfComponent) (metaspaceStep, error) {
	step := metaspaceStep{repl: c.Replacement, scheme: prependAlways, split: true}
	if step.repl == "" {
		step.repl = "▁"
	}
	switch c.PrependScheme {
	case "", "always":
		if c.PrependScheme == "" && c.AddPrefixSpace != nil && !*c.AddPrefixSpace {
			step.scheme = prependNever // files of old library versions
		}
	case "first":
		step.scheme = prependFirst
	case "never":
		step.scheme = prependNever
	default:
		return step, fmt.Errorf("prepend_scheme %q is not one of always, first, never", c.PrependScheme)
	}
	if c.Split != nil {
		step.split = *c.Split
	}
	return step, nil
}
