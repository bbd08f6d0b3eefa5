package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// lines yields the non-blank lines of a JSON Lines file with their numbers,
// CR LF endings included, refusing lines longer than maxLine.
type lines struct {
	sc   *bufio.Scanner
	name string
	line int
}

func newLines(r io.Reader, name string) *lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &lines{sc: sc, name: name}
}

// next returns the next non-blank line, trimmed, valid until the next call;
// io.EOF at the end.
func (l *lines) next() ([]byte, error) {
	for l.sc.Scan() {
		l.line++
		if b := bytes.TrimSpace(l.sc.Bytes()); len(b) > 0 {
			return b, nil
		}
	}
	switch err := l.sc.Err(); {
	case err == nil:
		return nil, io.EOF
	case errors.Is(err, bufio.ErrTooLong):
		return nil, fmt.Errorf("%s:%d: line longer than %d MiB", l.name, l.line+1, maxLine>>20)
	default:
		return nil, fmt.Errorf("%s:%d: %w", l.name, l.line+1, err)
	}
}
