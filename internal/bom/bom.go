// Package bom drops the UTF-8 byte-order mark that editors on Windows
// write at the start of a text file, and that JSON and CSV readers refuse
// or read as part of the first value. Every reader of a user's file opens
// it through Skip.
package bom

import (
	"bufio"
	"io"
)

// Skip returns r without the UTF-8 byte-order mark it may begin with.
func Skip(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(3); string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	return br
}
