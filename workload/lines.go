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

// cappedLines reads r and fails at a line longer than max bytes: for a
// reader such as encoding/csv's, which holds a line whole however long,
// so that a file with no newlines (a wrong path, /dev/zero) is refused
// instead of read into memory.
type cappedLines struct {
	r    io.Reader
	max  int
	run  int // bytes since the last newline
	line int // newlines read
}

func (c *cappedLines) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			c.run += len(rest)
			break
		}
		if c.run+i > c.max {
			c.run += i
			break
		}
		c.run, c.line, rest = 0, c.line+1, rest[i+1:]
	}
	if c.run > c.max {
		return 0, fmt.Errorf("line %d is longer than %d KiB", c.line+1, c.max>>10)
	}
	return n, err
}
