package trace

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// Window selects the rows a replay sends: those arriving in [Start,
// Start+Duration) of trace time, the first Limit of them.
type Window struct {
	Start    time.Duration // --trace-start: from the trace's first row
	Duration time.Duration // --trace-duration: 0 means to the end
	Limit    int           // --num-prompts: at most this many rows; 0 means all (up to MaxRows)
}

// Validate reports every problem of the window, naming its flags.
func (w Window) Validate() error {
	var errs []error
	if w.Start < 0 {
		errs = append(errs, fmt.Errorf("--trace-start must be ≥ 0, got %v", w.Start))
	}
	if w.Duration < 0 {
		errs = append(errs, fmt.Errorf("--trace-duration must be ≥ 0, got %v", w.Duration))
	}
	if w.Limit < 0 {
		errs = append(errs, fmt.Errorf("--num-prompts must be ≥ 0, got %d", w.Limit))
	}
	return errors.Join(errs...)
}

// contains reports whether a row arriving at trace time at is in the window,
// and whether a later row could still be (rows come in time order).
func (w Window) contains(at time.Duration) (in, more bool) {
	if at < w.Start {
		return false, true
	}
	if w.Duration > 0 && at-w.Start >= w.Duration {
		return false, false
	}
	return true, true
}

// String describes the window, "" for the whole trace.
func (w Window) String() string {
	switch {
	case w.Start == 0 && w.Duration == 0:
		return ""
	case w.Duration == 0:
		return fmt.Sprintf("from %v on", w.Start)
	default:
		return fmt.Sprintf("from %v for %v", w.Start, w.Duration)
	}
}

// Rows streams the rows of a Window of a Reader.
type Rows struct {
	r    *Reader
	w    Window
	n    int  // rows returned
	done bool // the window is over
}

// Rows returns the rows of w read from r. r must be positioned at the start
// of its file.
func (w Window) Rows(r *Reader) *Rows { return &Rows{r: r, w: w} }

// Next returns the window's next row, or io.EOF after its last. It stops
// reading at the first row past the window, so a short window of a long
// file costs only the rows before its end. A window of more than MaxRows
// rows is an error.
func (s *Rows) Next() (Row, error) {
	for !s.done {
		if s.w.Limit > 0 && s.n >= s.w.Limit {
			break
		}
		row, err := s.r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Row{}, err
		}
		in, more := s.w.contains(row.At)
		if !more {
			break
		}
		if !in {
			continue
		}
		if s.n == MaxRows {
			return Row{}, fmt.Errorf("%s: the replay would take more than %d rows: narrow it with --trace-duration or --num-prompts", s.r.name, MaxRows)
		}
		s.n++
		return row, nil
	}
	s.done = true
	return Row{}, io.EOF
}

// Reader returns the reader the rows come from, for its format and counts
// of skipped rows.
func (s *Rows) Reader() *Reader { return s.r }

// Close closes the file the rows are read from.
func (s *Rows) Close() error { return s.r.Close() }
