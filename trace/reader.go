package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/internal/bom"
)

// Reasons a row is skipped rather than replayed.
const (
	skipNoInput  = "without prompt tokens"
	skipNoOutput = "without output tokens (failed requests)"
)

// Reader streams the rows of one trace file in order, in constant memory
// whatever the file's length. Create it with NewReader or Open; it is not
// safe for concurrent use.
//
// Rows that cannot be replayed, without prompt or output tokens (BurstGPT
// keeps its failed requests so), are skipped and counted by reason (see
// Skipped); anything else that is wrong with a row, and a row earlier than
// the one before it, is an error naming the file and line, because a row
// silently dropped would change the workload.
type Reader struct {
	name    string
	format  Format
	dec     decoder
	closer  io.Closer // the file Open opened, nil otherwise
	started bool
	origin  time.Duration // the first row's own time
	prev    time.Duration // the last row's own time
	prevAt  int           // its line
	skipped map[string]int
}

// decoder reads the rows of one format. next returns the next row with its
// time in the format's own origin, or why it is to be skipped; io.EOF at the
// end. The row's HashIDs may be reused by the following call.
type decoder interface {
	next() (row Row, own time.Duration, skip string, err error)
}

// NewReader reads a trace of format f from r; FormatAuto sniffs the format
// from the first line, and FormatTimed reads vLLM's default fields (see
// NewTimedReader for others). name labels errors ("name:line: …").
func NewReader(r io.Reader, name string, f Format) (*Reader, error) {
	return newReader(r, name, f, Timed{})
}

// NewTimedReader reads a trace of vLLM's timed_trace format from r, with
// the fields and time unit of t. name labels errors ("name:line: …").
func NewTimedReader(r io.Reader, name string, t Timed) (*Reader, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return newReader(r, name, FormatTimed, t)
}

// newReader reads a trace of format f; t describes a FormatTimed one.
func newReader(r io.Reader, name string, f Format, t Timed) (*Reader, error) {
	br := bufio.NewReaderSize(bom.Skip(r), 1<<16)
	var err error
	if f != FormatTimed {
		if f, err = ParseFormat(string(f)); err != nil {
			return nil, err
		}
	}
	if f == FormatAuto {
		if f, err = sniffReader(br); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	rd := &Reader{name: name, format: f, skipped: map[string]int{}}
	switch f {
	case FormatMooncake:
		rd.dec = newMooncake(br, name)
	case FormatJSONL:
		rd.dec = newJSONL(br, name)
	case FormatTimed:
		rd.dec = newTimed(br, name, t)
	case FormatAzure:
		rd.dec, err = newAzure(br, name)
	case FormatBurstGPT:
		rd.dec, err = newBurstGPT(br, name)
	default:
		return nil, fmt.Errorf("--trace-format %q is unknown: want %s", string(f), Formats)
	}
	if err != nil {
		return nil, err
	}
	return rd, nil
}

// Open opens the trace file at path; the caller must Close the Reader.
func Open(path string, f Format) (*Reader, error) { return open(path, f, Timed{}) }

// open opens the trace file at path of format f, t describing a
// FormatTimed one.
func open(path string, f Format, t Timed) (*Reader, error) {
	if f == FormatTimed {
		if err := t.Validate(); err != nil {
			return nil, err
		}
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--dataset-path: %w", err)
	}
	r, err := newReader(file, path, f, t)
	if err != nil {
		file.Close()
		return nil, err
	}
	r.closer = file
	return r, nil
}

// Close closes the file Open opened; it does nothing for a NewReader.
func (r *Reader) Close() error {
	if r.closer == nil {
		return nil
	}
	return r.closer.Close()
}

// Format returns the trace's format, sniffed or given.
func (r *Reader) Format() Format { return r.format }

// Skipped returns how many rows were skipped so far, by reason.
func (r *Reader) Skipped() map[string]int { return r.skipped }

// Next returns the next replayable row, or io.EOF after the last. Row.At
// counts from the file's first row, skipped or not.
func (r *Reader) Next() (Row, error) {
	for {
		row, own, skip, err := r.dec.next()
		if err != nil {
			return Row{}, err
		}
		if !r.started {
			r.started, r.origin, r.prev = true, own, own
		}
		if own < r.prev {
			return Row{}, fmt.Errorf("%s:%d: arrives %v before the row on line %d: a trace must be sorted by time",
				r.name, row.Line, r.prev-own, r.prevAt)
		}
		r.prev, r.prevAt = own, row.Line
		at := own - r.origin
		if at > maxTime {
			return Row{}, fmt.Errorf("%s:%d: arrives %v after the first row, more than %v", r.name, row.Line, at, maxTime)
		}
		if skip != "" {
			r.skipped[skip]++
			continue
		}
		row.At = at
		return row, nil
	}
}

// sniffReader peeks at the first non-blank line of br and sniffs its format.
func sniffReader(br *bufio.Reader) (Format, error) {
	head, err := br.Peek(br.Size())
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", err
	}
	for len(head) > 0 {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		if len(bytes.TrimSpace(line)) > 0 {
			return Sniff(line)
		}
		head = rest
	}
	return Sniff(nil)
}

// checkTokens checks a row's token count, naming its field.
func checkTokens(field string, n int64) error {
	if n < 0 || n > MaxTokens {
		return fmt.Errorf("%s %d is outside [0, %d]", field, n, MaxTokens)
	}
	return nil
}

// skipReason says why a row of these lengths cannot be replayed, "" if it can.
func skipReason(input, output int) string {
	switch {
	case input == 0:
		return skipNoInput
	case output == 0:
		return skipNoOutput
	}
	return ""
}

// ReadAll returns every replayable row of the trace at path, in order,
// each with its own copy of its hash ids (Next reuses their slice).
func ReadAll(path string, f Format) ([]Row, error) {
	r, err := Open(path, f)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.rest()
}

// rest reads every row left in r, each with its own copy of its hash ids;
// on an error it returns the rows read before it.
func (r *Reader) rest() ([]Row, error) {
	var rows []Row
	for {
		row, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		row.HashIDs = slices.Clone(row.HashIDs)
		rows = append(rows, row)
	}
}
