package trace

import (
	"io"
	"strconv"
	"time"
)

type burstGPT struct{ t *table }

func newBurstGPT(r io.Reader, name string) (*burstGPT, error) {
	t, err := newTable(r, name, "Timestamp", "Request tokens", "Response tokens")
	if err != nil {
		return nil, err
	}
	return &burstGPT{t}, nil
}

// next reads one row. BurstGPT's Timestamp counts seconds from midnight of
// its first day; the Model and Log Type columns are not used: a replay sends
// every row to the one server under test.
func (b *burstGPT) next() (Row, time.Duration, string, error) {
	t := b.t
	if err := t.next(); err != nil {
		return Row{}, 0, "", err
	}
	row := Row{Line: t.line}
	s, err := strconv.ParseFloat(t.field(0), 64)
	if err != nil {
		return Row{}, 0, "", t.errorf("Timestamp %q is not a number of seconds", t.field(0))
	}
	own, err := seconds(s)
	if err != nil {
		return Row{}, 0, "", t.errorf("%v", err)
	}
	if row.Input, err = t.tokens(1, "Request tokens"); err != nil {
		return Row{}, 0, "", err
	}
	if row.Output, err = t.tokens(2, "Response tokens"); err != nil {
		return Row{}, 0, "", err
	}
	return row, own, skipReason(row.Input, row.Output), nil
}
