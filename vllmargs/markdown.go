package vllmargs

import (
	"strings"
)

// Markdown renders Flags as the flag table of docs/vllm.md: one row per
// vLLM flag with what it does in vLLM and what goodput does with it.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| `vllm bench serve` flag | vLLM's meaning | goodput |\n")
	b.WriteString("|---|---|---|\n")
	for _, f := range Flags {
		b.WriteString("| `--")
		b.WriteString(f.Name)
		switch f.Arity {
		case One:
			b.WriteString(" V")
		case Many:
			b.WriteString(" V…")
		}
		b.WriteString("` | ")
		b.WriteString(cell(f.VLLM))
		b.WriteString(" | ")
		b.WriteString(cell(goodputCell(f)))
		b.WriteString(" |\n")
	}
	return b.String()
}

// goodputCell leads a row's goodput text with its handling in bold, so
// that the table can be scanned for what is refused.
func goodputCell(f Flag) string {
	text := f.Goodput
	switch f.Handling {
	case Renamed:
		to := "`--" + f.To + "`"
		rest := strings.TrimPrefix(text, "--"+f.To)
		rest = strings.TrimLeft(rest, ":; ")
		if rest == "" {
			return "**renamed** " + to
		}
		return "**renamed** " + to + ": " + rest
	case Ignored, Refused:
		word := f.Handling.String()
		rest := strings.TrimPrefix(text, word)
		rest = strings.TrimLeft(rest, ":;, ")
		if rest == text {
			return "**" + word + "**: " + text
		}
		if strings.HasPrefix(rest, "unless") {
			return "**" + word + "** " + rest
		}
		return "**" + word + "**: " + rest
	}
	return text
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
