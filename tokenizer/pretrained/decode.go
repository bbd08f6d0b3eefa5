package pretrained

import "strings"

// decoder renders ids as text. Each token's text is computed once, when
// the file is loaded, by the file's decoding rules; decoding is then a
// concatenation.
type decoder struct {
	text []string // each id's text
	// first renders the first token when its text differs there (Hugging
	// Face's Metaspace and WordPiece decoders treat it apart); nil when it
	// does not.
	first func(id int) string
	// sep goes between tokens: " " for a tokenizer.json without a decoder,
	// as Hugging Face joins them, else "".
	sep string
	// post rewrites the whole text, nil for none: SentencePiece's leading
	// space removed.
	post func(string) string
}

func (d *decoder) decode(ids []int) string {
	n := 0
	for _, id := range ids {
		if id >= 0 && id < len(d.text) {
			n += len(d.text[id]) + len(d.sep)
		}
	}
	var b strings.Builder
	b.Grow(n)
	started := false
	for _, id := range ids {
		if id < 0 || id >= len(d.text) {
			continue
		}
		if !started {
			started = true
			if d.first != nil {
				b.WriteString(d.first(id))
				continue
			}
		} else {
			b.WriteString(d.sep)
		}
		b.WriteString(d.text[id])
	}
	if d.post != nil {
		return d.post(b.String())
	}
	return b.String()
}

// stripSpaces removes up to lead leading and trail trailing c.
func stripSpaces(c string, lead, trail int) func(string) string {
	return func(s string) string {
		for i := 0; i < lead && c != "" && strings.HasPrefix(s, c); i++ {
			s = s[len(c):]
		}
		for i := 0; i < trail && c != "" && strings.HasSuffix(s, c); i++ {
			s = s[:len(s)-len(c)]
		}
		return s
	}
}
