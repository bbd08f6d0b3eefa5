// Package textblock writes the terminal summary's layout, the one
// `vllm bench serve` users know: a heading centred in a rule of '=' or '-',
// then "key: value" lines with the values aligned in one column. The run
// summary (report.Text) and the server blocks (serverview.Text and
// serverview.ViewText) all write through it, so blocks printed one after
// another line up.
package textblock

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

const (
	// Width is the length of a rule, in characters.
	Width = 50
	// KeyWidth is the column keys are padded to; values start one space
	// after it.
	KeyWidth = 40
)

// Printer writes lines to an io.Writer until the first write error, which
// it keeps and makes every later call a no-op: a caller writes a whole
// block, then checks Err once. A Printer is not safe for concurrent use.
type Printer struct {
	w   io.Writer
	err error
}

// New returns a Printer that writes to w.
func New(w io.Writer) *Printer { return &Printer{w: w} }

// Err returns the first write error, or nil.
func (p *Printer) Err() error { return p.err }

// Line writes s and a newline.
func (p *Printer) Line(s string) {
	if p.err == nil {
		_, p.err = fmt.Fprintln(p.w, s)
	}
}

// KV writes key padded to KeyWidth, a space and value. A key longer than
// KeyWidth is written whole, pushing its value right.
func (p *Printer) KV(key, value string) {
	p.Line(fmt.Sprintf("%-*s %s", KeyWidth, key, value))
}

// List writes items under key, one a line, aligned with the values; it
// writes nothing for no items.
func (p *Printer) List(key string, items []string) {
	for i, it := range items {
		if i == 0 {
			p.KV(key, it)
			continue
		}
		p.KV("", it)
	}
}

// Rule writes title centred in a line of Width characters c, the extra
// one, if any, on the right; an empty title gives a plain rule. A title
// too long for that gets a few c a side and makes the line longer.
func (p *Printer) Rule(c byte, title string) {
	// A title too long for Width still gets minFill characters on each
	// side, so that it reads as a rule, not as a stray line.
	const minFill = 4
	n := max(Width-utf8.RuneCountInString(title), 2*minFill)
	left := n / 2
	p.Line(strings.Repeat(string(c), left) + title + strings.Repeat(string(c), n-left))
}
