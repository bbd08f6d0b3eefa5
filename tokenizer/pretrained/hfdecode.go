package pretrained

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// tokenStep is a per-token stage of a Hugging Face decoder; first is
// whether the token is the first one decoded.
type tokenStep func(tok string, first bool) string

// hfDecoder sets m.dec from the file's decoder: the stages up to the first
// one that fuses the tokens (Fuse, ByteLevel) run per token, at load time;
// the stages after it run on the whole text.
func (m *model) hfDecoder(raw json.RawMessage, pieces []string) error {
	m.dec = decoder{text: make([]string, len(pieces))}
	if isNull(raw) {
		copy(m.dec.text, pieces)
		m.dec.sep = " "
		return nil
	}
	var steps []tokenStep
	var post []func(string) string
	fused, firstMatters := false, false
	var walk func(raw json.RawMessage) error
	walk = func(raw json.RawMessage) error {
		c, err := component(raw, "decoder")
		if err != nil {
			return err
		}
		addToken := func(s tokenStep) {
			if fused {
				post = append(post, func(x string) string { return s(x, true) })
			} else {
				steps = append(steps, s)
			}
		}
		switch c.Type {
		case "Sequence":
			for _, r := range c.Decoders {
				if err := walk(r); err != nil {
					return err
				}
			}
		case "ByteLevel":
			addToken(func(t string, _ bool) string {
				if r, ok := fromByteLevel(t); ok {
					return r
				}
				return t
			})
			fused = true
		case "Fuse":
			fused = true
		case "ByteFallback":
			addToken(func(t string, _ bool) string {
				if b, ok := parseByteToken(t); ok {
					return string([]byte{b})
				}
				return t
			})
		case "Replace":
			if c.Pattern == nil || c.Pattern.String == nil {
				return errors.New("decoder Replace: only String patterns are supported")
			}
			old, repl := *c.Pattern.String, c.Content
			addToken(func(t string, _ bool) string {
				if old == "" {
					return t
				}
				return strings.ReplaceAll(t, old, repl)
			})
		case "Strip":
			if c.Start < 0 || c.Stop < 0 {
				return fmt.Errorf("decoder Strip: negative start %d or stop %d", c.Start, c.Stop)
			}
			strip := stripSpaces(c.Content, c.Start, c.Stop)
			if fused {
				post = append(post, strip)
			} else {
				steps = append(steps, func(t string, _ bool) string { return strip(t) })
			}
		case "Metaspace":
			ms, err := hfMetaspace(c)
			if err != nil {
				return fmt.Errorf("decoder Metaspace: %w", err)
			}
			firstMatters = true
			addToken(func(t string, first bool) string {
				if first && ms.scheme != prependNever {
					return strings.ReplaceAll(t, ms.repl, "")
				}
				return strings.ReplaceAll(t, ms.repl, " ")
			})
		case "WordPiece":
			prefix := c.Prefix
			if prefix == "" {
				prefix = "##"
			}
			firstMatters = true
			addToken(func(t string, first bool) string {
				switch {
				case first:
					return t
				case strings.HasPrefix(t, prefix):
					return t[len(prefix):]
				}
				return " " + t
			})
		default:
			return fmt.Errorf("decoder %q is not supported", c.Type)
		}
		return nil
	}
	if err := walk(raw); err != nil {
		return err
	}
	apply := func(t string, first bool) string {
		for _, s := range steps {
			t = s(t, first)
		}
		return t
	}
	for id, p := range pieces {
		m.dec.text[id] = apply(p, false)
	}
	if firstMatters {
		m.dec.first = func(id int) string { return apply(pieces[id], true) }
	}
	if len(post) > 0 {
		m.dec.post = func(s string) string {
			for _, p := range post {
				s = p(s)
			}
			return s
		}
	}
	return nil
}

// hfPostProcessor sets what is added around every text (BOS, EOS) and
// which tokens those are, from the post-processor and tokenizer_config.json.
func (m *model) hfPostProcessor(raw json.RawMessage, vocab map[string]int64, added []hfAddedToken, cfg *hfConfig) error {
	idOf := func(tok string) (int, bool) {
		for _, a := range added {
			if a.Content == tok {
				return int(a.ID), true
			}
		}
		id, ok := vocab[tok]
		return int(id), ok
	}
	if !isNull(raw) {
		if err := m.hfProcessor(raw, idOf); err != nil {
			return err
		}
	}
	if len(m.prefix) == 1 {
		m.bos = m.prefix[0]
	}
	if len(m.suffix) == 1 {
		m.eos = m.suffix[0]
	}
	if cfg == nil {
		return nil
	}
	if t := tokenText(cfg.BOS); t != "" {
		if id, ok := idOf(t); ok {
			m.bos = id
		}
	}
	if t := tokenText(cfg.EOS); t != "" {
		if id, ok := idOf(t); ok {
			m.eos = id
		}
	}
	// Hugging Face's Llama-style tokenizers rebuild the template from these
	// two flags; a file that sets them means them.
	if cfg.AddBOS != nil {
		m.prefix = nil
		if *cfg.AddBOS {
			if m.bos < 0 {
				return errors.New("tokenizer_config.json: add_bos_token is true, but there is no bos_token")
			}
			m.prefix = []int{m.bos}
		}
	}
	if cfg.AddEOS != nil {
		m.suffix = nil
		if *cfg.AddEOS {
			if m.eos < 0 {
				return errors.New("tokenizer_config.json: add_eos_token is true, but there is no eos_token")
			}
			m.suffix = []int{m.eos}
		}
	}
	return nil
}

func (m *model) hfProcessor(raw json.RawMessage, idOf func(string) (int, bool)) error {
	c, err := component(raw, "post_processor")
	if err != nil {
		return err
	}
	switch c.Type {
	case "Sequence":
		for _, r := range c.Processors {
			if isNull(r) {
				continue
			}
			if err := m.hfProcessor(r, idOf); err != nil {
				return err
			}
		}
	case "ByteLevel":
	case "TemplateProcessing":
		var before, after []int
		seenA := false
		for i, item := range c.Single {
			if seq, ok := item["Sequence"]; ok {
				if seq.ID != "A" {
					return fmt.Errorf("post_processor: single[%d] is sequence %q, want A", i, seq.ID)
				}
				seenA = true
				continue
			}
			st, ok := item["SpecialToken"]
			if !ok {
				return fmt.Errorf("post_processor: single[%d] is neither Sequence nor SpecialToken", i)
			}
			spec, ok := c.SpecialTokens[st.ID]
			if !ok {
				return fmt.Errorf("post_processor: special token %q is not in special_tokens", st.ID)
			}
			for _, id := range spec.IDs {
				if id < 0 || id >= int64(len(m.kinds)) {
					return fmt.Errorf("post_processor: special token %q has id %d, outside the vocabulary", st.ID, id)
				}
				if seenA {
					after = append(after, int(id))
				} else {
					before = append(before, int(id))
				}
			}
		}
		m.prefix, m.suffix = before, after
	case "BertProcessing", "RobertaProcessing":
		cls, err := pairID(c.Cls, len(m.kinds))
		if err != nil {
			return fmt.Errorf("post_processor %s: cls: %w", c.Type, err)
		}
		sep, err := pairID(c.Sep, len(m.kinds))
		if err != nil {
			return fmt.Errorf("post_processor %s: sep: %w", c.Type, err)
		}
		m.prefix, m.suffix = []int{cls}, []int{sep}
	default:
		return fmt.Errorf("post_processor %q is not supported", c.Type)
	}
	return nil
}

// pairID reads a ["token", id] pair.
func pairID(p []json.RawMessage, n int) (int, error) {
	if len(p) != 2 {
		return 0, errors.New("want [token, id]")
	}
	var id int64
	if err := json.Unmarshal(p[1], &id); err != nil {
		return 0, err
	}
	if id < 0 || id >= int64(n) {
		return 0, fmt.Errorf("id %d is outside the vocabulary", id)
	}
	return int(id), nil
}
