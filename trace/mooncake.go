package trace

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// mooncakeLine is one line of a Mooncake trace. Pointers tell a missing
// field from a zero one.
type mooncakeLine struct {
	Timestamp    *float64 `json:"timestamp"` // ms from the trace's start
	InputLength  *int64   `json:"input_length"`
	OutputLength *int64   `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
}

type mooncake struct {
	lines *lines
	ids   []int64 // reused for each row's hash ids
}

func newMooncake(r io.Reader, name string) *mooncake { return &mooncake{lines: newLines(r, name)} }

func (m *mooncake) next() (Row, time.Duration, string, error) {
	b, err := m.lines.next()
	if err != nil {
		return Row{}, 0, "", err
	}
	l := mooncakeLine{HashIDs: m.ids[:0]}
	row := Row{Line: m.lines.line}
	fail := func(err error) (Row, time.Duration, string, error) {
		return Row{}, 0, "", fmt.Errorf("%s:%d: %w", m.lines.name, row.Line, err)
	}
	if err := jsonerr.Unmarshal(b, &l); err != nil {
		return fail(jsonerr.Plain(err))
	}
	m.ids = l.HashIDs
	switch {
	case l.Timestamp == nil:
		return fail(errors.New(`missing "timestamp"`))
	case l.InputLength == nil:
		return fail(errors.New(`missing "input_length"`))
	case l.OutputLength == nil:
		return fail(errors.New(`missing "output_length"`))
	}
	own, err := millis(*l.Timestamp)
	if err != nil {
		return fail(err)
	}
	if err := errors.Join(checkTokens(`"input_length"`, *l.InputLength), checkTokens(`"output_length"`, *l.OutputLength)); err != nil {
		return fail(err)
	}
	if len(l.HashIDs) > maxHashIDs {
		return fail(fmt.Errorf(`"hash_ids" holds %d ids, more than %d`, len(l.HashIDs), maxHashIDs))
	}
	row.Input, row.Output = int(*l.InputLength), int(*l.OutputLength)
	if len(l.HashIDs) > 0 {
		row.HashIDs = l.HashIDs
	}
	return row, own, skipReason(row.Input, row.Output), nil
}

// millis converts a timestamp in milliseconds.
func millis(ms float64) (time.Duration, error) {
	return seconds(ms / 1e3)
}

// seconds converts a timestamp in seconds, refusing what no trace holds.
func seconds(s float64) (time.Duration, error) {
	if math.IsNaN(s) || s < 0 || s > maxTime.Seconds() {
		return 0, fmt.Errorf("timestamp %v s is outside [0, %v]", s, maxTime)
	}
	return time.Duration(math.Round(s * 1e9)), nil
}
