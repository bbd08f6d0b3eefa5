package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// DefaultChunkSize is how many prompt tokens one hash id stands for in
// vLLM's timed_trace (--timed-trace-chunk-hash-size).
const DefaultChunkSize = 16

// Timed describes a file of vLLM's timed_trace dataset (FormatTimed): JSON
// Lines whose field names, and the unit of whose timestamps, are options.
// Each field names its flag; the zero value of a field means vLLM's
// default (see DefaultTimed).
type Timed struct {
	Timestamp    string // --timed-trace-label-timestamp: the arrival time
	InputLength  string // --timed-trace-label-input-length: prompt tokens
	OutputLength string // --timed-trace-label-output-length: output tokens
	// HashIDs names the prompt's block ids (--timed-trace-label-hash-ids);
	// a row without the field has none.
	HashIDs string
	// SecMultiplier is how many seconds one unit of the timestamps is
	// (--timed-trace-sec-multiplier): 0.001 for milliseconds, as
	// Mooncake's files have.
	SecMultiplier float64
}

// DefaultTimed returns vLLM's defaults: fields timestamp, input_length,
// output_length and hash_ids, timestamps in seconds.
func DefaultTimed() Timed {
	return Timed{Timestamp: "timestamp", InputLength: "input_length", OutputLength: "output_length", HashIDs: "hash_ids", SecMultiplier: 1}
}

// withDefaults fills the zero fields of t with vLLM's defaults.
func (t Timed) withDefaults() Timed {
	d := DefaultTimed()
	for _, f := range []struct{ v, def *string }{
		{&t.Timestamp, &d.Timestamp}, {&t.InputLength, &d.InputLength}, {&t.OutputLength, &d.OutputLength}, {&t.HashIDs, &d.HashIDs},
	} {
		if *f.v == "" {
			*f.v = *f.def
		}
	}
	if t.SecMultiplier == 0 {
		t.SecMultiplier = d.SecMultiplier
	}
	return t
}

// Validate reports every problem of t, naming its flags: a multiplier that
// is not a positive finite number, and two flags that name one field,
// which would read one value as two.
func (t Timed) Validate() error {
	var errs []error
	if m := t.SecMultiplier; math.IsNaN(m) || math.IsInf(m, 0) || m < 0 {
		errs = append(errs, fmt.Errorf("--timed-trace-sec-multiplier must be a positive finite number of seconds per timestamp unit, got %v", m))
	}
	t = t.withDefaults()
	labels := t.labels()
	for i := range labels {
		for j := range i {
			if labels[i].field == labels[j].field {
				errs = append(errs, fmt.Errorf("--timed-trace-label-%s and --timed-trace-label-%s both name the field %q", labels[j].flag, labels[i].flag, labels[i].field))
			}
		}
	}
	return errors.Join(errs...)
}

// timedLabel is one field of a timed trace with its flag's suffix.
type timedLabel struct{ field, flag string }

func (t Timed) labels() [4]timedLabel {
	return [4]timedLabel{
		{t.Timestamp, "timestamp"}, {t.InputLength, "input-length"}, {t.OutputLength, "output-length"}, {t.HashIDs, "hash-ids"},
	}
}

// String describes the fields and unit for a workload line:
// "timestamps × 0.001 s".
func (t Timed) String() string {
	return fmt.Sprintf("timestamps × %g s", t.withDefaults().SecMultiplier)
}

type timed struct {
	lines  *lines
	t      Timed
	fields map[string]json.RawMessage // reused for each line
	ids    []int64                    // reused for each row's hash ids
}

func newTimed(r io.Reader, name string, t Timed) *timed {
	return &timed{lines: newLines(r, name), t: t.withDefaults(), fields: map[string]json.RawMessage{}}
}

// next reads one line. Fields other than the four are ignored, as vLLM
// ignores them.
func (d *timed) next() (Row, time.Duration, string, error) {
	b, err := d.lines.next()
	if err != nil {
		return Row{}, 0, "", err
	}
	row := Row{Line: d.lines.line}
	fail := func(err error) (Row, time.Duration, string, error) {
		return Row{}, 0, "", fmt.Errorf("%s:%d: %w", d.lines.name, row.Line, err)
	}
	clear(d.fields)
	if err := jsonerr.Unmarshal(b, &d.fields); err != nil {
		return fail(jsonerr.Plain(err))
	}
	labels := d.t.labels()
	var nums [3]float64
	for i, l := range labels[:3] {
		raw, ok := d.fields[l.field]
		if !ok || string(raw) == "null" {
			return fail(fmt.Errorf("missing %q (--timed-trace-label-%s names the field)", l.field, l.flag))
		}
		v, err := strconv.ParseFloat(string(raw), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fail(fmt.Errorf("%q: want a number, got %s", l.field, shorten(raw, 40)))
		}
		nums[i] = v
	}
	at := nums[0] * d.t.SecMultiplier
	if math.IsInf(at, 0) || math.IsNaN(at) {
		return fail(fmt.Errorf("%q %s × --timed-trace-sec-multiplier %g is not a finite number of seconds", labels[0].field, shorten(d.fields[labels[0].field], 40), d.t.SecMultiplier))
	}
	own, err := seconds(at)
	if err != nil {
		return fail(err)
	}
	var lengths [2]int
	for i, l := range labels[1:3] {
		if lengths[i], err = wholeTokens(l.field, nums[i+1]); err != nil {
			return fail(err)
		}
	}
	row.Input, row.Output = lengths[0], lengths[1]
	if raw, ok := d.fields[labels[3].field]; ok {
		if d.ids, err = parseHashIDs(labels[3].field, raw, d.ids[:0]); err != nil {
			return fail(err)
		}
		if len(d.ids) > 0 {
			row.HashIDs = d.ids
		}
	}
	return row, own, skipReason(row.Input, row.Output), nil
}

// wholeTokens checks a token count that may be written as a float (512.0):
// it must be a whole number in [0, MaxTokens].
func wholeTokens(field string, v float64) (int, error) {
	if math.IsNaN(v) || v < 0 || v > MaxTokens {
		return 0, fmt.Errorf("%q %v is outside [0, %d]", field, v, MaxTokens)
	}
	if v != math.Trunc(v) {
		return 0, fmt.Errorf("%q %v is not a whole number of tokens", field, v)
	}
	return int(v), nil
}

// parseHashIDs appends the ids of raw, a JSON array of integers or null, to
// ids. An id may be any integer of 64 bits, signed or not (vLLM's traces may
// hold unsigned 64-bit hashes): one above the int64 range is kept by its
// bits, so that equal ids stay equal and distinct ones distinct (only the
// negative id with the same bits would collide with it).
func parseHashIDs(field string, raw json.RawMessage, ids []int64) ([]int64, error) {
	if string(raw) == "null" {
		return ids, nil
	}
	if raw[0] != '[' {
		return ids, fmt.Errorf("%q: want a JSON array of integers, got %s", field, shorten(raw, 40))
	}
	// raw is valid JSON: between its brackets, an array of numbers is
	// numbers and commas only, and anything else fails to parse as one.
	body := bytes.TrimSpace(raw[1 : len(raw)-1])
	for len(body) > 0 {
		if len(ids) == maxHashIDs {
			return ids, fmt.Errorf("%q holds more than %d ids", field, maxHashIDs)
		}
		var el []byte
		el, body, _ = bytes.Cut(body, []byte(","))
		el = bytes.TrimSpace(el)
		id, err := strconv.ParseInt(string(el), 10, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(string(el), 10, 64)
			if uerr != nil {
				return ids, fmt.Errorf("%q: hash id %s is not an integer of 64 bits", field, shorten(el, 40))
			}
			id = int64(u)
		}
		ids = append(ids, id)
	}
	return ids, nil
}
