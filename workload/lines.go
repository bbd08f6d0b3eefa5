package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// EachLine calls f with each non-blank line of r, spaces trimmed, and its
// number, for a JSON Lines file of at most MaxCustomLine bytes a line. An
// error of f, or of reading, comes back wrapped with name:line.
func EachLine(r io.Reader, name string, f func(line int, text []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxCustomLine)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if err := f(line, text); err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: line longer than %d MiB", name, line+1, MaxCustomLine>>20)
		}
		return fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return nil
}
