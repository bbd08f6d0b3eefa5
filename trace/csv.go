package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// table reads a CSV file with a header row, giving its fields by column
// name. CR LF endings (Azure's) read like LF.
type table struct {
	cr   *csv.Reader
	name string
	col  []int    // index of each wanted column in the header, in the order asked
	rec  []string // the current record
	line int      // its line
}

// newTable reads the header of r and finds the wanted columns, matched
// without regard to case or surrounding blanks.
func newTable(r io.Reader, name string, wanted ...string) (*table, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	switch {
	case errors.Is(err, io.EOF):
		return nil, fmt.Errorf("%s: the file is empty, want a CSV with a header line", name)
	case err != nil:
		return nil, csvError(name, err)
	}
	index := map[string]int{}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := index[h]; !dup {
			index[h] = i
		}
	}
	t := &table{cr: cr, name: name}
	for _, w := range wanted {
		i, ok := index[strings.ToLower(w)]
		if !ok {
			return nil, fmt.Errorf("%s:1: no %q column (the header is %s)", name, w, shorten([]byte(strings.Join(head, ",")), 120))
		}
		t.col = append(t.col, i)
	}
	return t, nil
}

// next reads the next record; io.EOF at the end.
func (t *table) next() error {
	rec, err := t.cr.Read()
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	if err != nil {
		return csvError(t.name, err)
	}
	t.rec = rec
	t.line, _ = t.cr.FieldPos(0)
	return nil
}

// field returns wanted column k of the current record, trimmed.
func (t *table) field(k int) string { return strings.TrimSpace(t.rec[t.col[k]]) }

// errorf returns an error naming the current line.
func (t *table) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", t.name, t.line, fmt.Sprintf(format, args...))
}

// tokens parses wanted column k as a token count.
func (t *table) tokens(k int, what string) (int, error) {
	s := t.field(k)
	n, ok := ParseCount(s)
	if !ok {
		return 0, t.errorf("%s %q is not a whole number of tokens", what, s)
	}
	if err := checkTokens(what, n); err != nil {
		return 0, t.errorf("%v", err)
	}
	return int(n), nil
}

// ParseCount reads a count of a CSV cell: a whole number, which pandas
// and other exports may write as a float ("12.0"). It reports false for
// anything else.
func ParseCount(s string) (int64, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// csvError names the file and line of a CSV reader's error.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %w", name, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
