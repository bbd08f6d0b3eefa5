package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/goodput-dev/goodput/internal/jsonerr"
)

// MaxLineBytes bounds one line of a record file. A record with a million
// chunks still fits; anything larger is treated as corrupt rather than read
// into memory without limit.
const MaxLineBytes = 64 << 20

// Decoder reads a record file one record at a time in constant memory.
// Errors name the file and line.
type Decoder struct {
	br      *bufio.Reader
	name    string
	line    int
	header  *Header
	trailer *Trailer
	long    []byte  // assembles lines longer than the bufio buffer
	ck      []int32 // tokens per chunk of the record being decoded
	cr      []int64 // its reasoning runs ("cr")
	pending []byte  // a record line read while looking for the header
	eofLine bool    // the line read last ended at EOF, without a newline
	cut     int     // the number of a last line dropped as cut off; 0 if none
	records int64   // records decoded so far
	// trailerLine is the line of the end marker once it was read.
	trailerLine int
	seqs        seqLines // the line of each sequence number read
}

// NewDecoder returns a Decoder reading from r. name is used in error messages
// (a file path, or "-" for standard input).
func NewDecoder(r io.Reader, name string) *Decoder {
	return &Decoder{br: bufio.NewReaderSize(r, 1<<20), name: name}
}

// Header returns the run header, reading it if Next has not been called yet.
// A file whose first line is a record instead has no header: Header then
// returns a zero Header with Kind empty and no error.
func (d *Decoder) Header() (Header, error) {
	if d.header == nil && d.line == 0 {
		line, err := d.readLine()
		if err == io.EOF {
			return Header{}, nil
		}
		if err != nil {
			return Header{}, err
		}
		if isMeta(line) || hasKind(line) {
			if err := d.meta(line); err != nil {
				return Header{}, err
			}
		} else {
			d.pending = append(d.pending[:0], line...)
		}
	}
	if d.header == nil {
		return Header{}, nil
	}
	return *d.header, nil
}

// Trailer returns the trailer if one has been read. It is known only after
// Next has returned io.EOF.
func (d *Decoder) Trailer() (Trailer, bool) {
	if d.trailer == nil {
		return Trailer{}, false
	}
	return *d.trailer, true
}

// Line returns the number of the line read last (1-based).
func (d *Decoder) Line() int { return d.line }

// Cut returns the number of the file's last line when Next dropped it as
// cut off, and 0 otherwise. A last line that has no newline and breaks off
// where more JSON was due is what a writer killed in the middle of a
// record leaves: Next then ends the file there (io.EOF) instead of
// failing, so that every record written whole is still read. Any other
// bad line is an error.
func (d *Decoder) Cut() int { return d.cut }

// Next decodes the next record into r, reusing r.Chunks' storage. It returns
// io.EOF after the last record. A sequence number that an earlier record
// of the file holds is an error naming both lines (but in a merge's
// output, see Header.Merged).
func (d *Decoder) Next(r *Record) error {
	if d.line == 0 {
		if _, err := d.Header(); err != nil {
			return err
		}
	}
	for {
		var line []byte
		if d.pending != nil {
			line, d.pending = d.pending, nil
		} else {
			var err error
			line, err = d.readLine()
			if err == io.EOF {
				return d.end()
			}
			if err != nil {
				return err
			}
		}
		if isMeta(line) {
			if d.eofLine && truncated(line) {
				// A trailer cut off as it was written: every record
				// before it is whole, as after a record cut off.
				d.cut = d.line
				return d.end()
			}
			if err := d.meta(line); err != nil {
				return err
			}
			continue
		}
		err := d.decodeRecord(line, r)
		if errors.Is(err, errMetaLine) {
			// A header or trailer whose "kind" is not its first key.
			if err := d.meta(line); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			var se *syntaxError
			if d.eofLine && errors.As(err, &se) && se.atEnd {
				d.cut = d.line
				return d.end()
			}
			return fmt.Errorf("%s:%d: %w", d.name, d.line, err)
		}
		if d.trailer != nil {
			return fmt.Errorf("%s:%d: a record after the file's end marker (line %d): records were added after the run ended", d.name, d.line, d.trailerLine)
		}
		// One request is one record: a number read twice would count a
		// request twice. A merge's output is exempt: it keeps both
		// attempts of a retried shard, and the clients of one run each
		// number their own requests (the merge reported either).
		if d.header == nil || !d.header.Merged() {
			if first := d.seqs.add(r.Seq, d.line, d.records); first != 0 {
				return fmt.Errorf("%s:%d: seq %d appears again (first at line %d): a request counted twice", d.name, d.line, r.Seq, first)
			}
		}
		d.records++
		return nil
	}
}

// end is Next's answer at the end of the file: io.EOF, or an error when
// the end marker counts other records than the file holds (lines lost or
// added since the run wrote it).
func (d *Decoder) end() error {
	if t := d.trailer; t != nil && t.Records != d.records {
		return fmt.Errorf("%s: its end marker (line %d) counts %d records, but the file holds %d: lines were lost or added after the run wrote it", d.name, d.trailerLine, t.Records, d.records)
	}
	return io.EOF
}

// truncated reports whether line is the beginning of a JSON value that
// breaks off where more was due.
func truncated(line []byte) bool {
	var v any
	var se *json.SyntaxError
	err := json.Unmarshal(line, &v)
	return errors.As(err, &se) && se.Offset >= int64(len(line))
}

// readLine returns the next non-blank line without its newline. The slice is
// valid until the next call.
func (d *Decoder) readLine() ([]byte, error) {
	for {
		line, err := d.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			d.long = append(d.long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if len(d.long) > MaxLineBytes {
					return nil, fmt.Errorf("%s:%d: line longer than %d bytes", d.name, d.line+1, MaxLineBytes)
				}
				line, err = d.br.ReadSlice('\n')
				d.long = append(d.long, line...)
			}
			line = d.long
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s:%d: %w", d.name, d.line+1, err)
		}
		if len(line) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		d.line++
		d.eofLine = err == io.EOF
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			if err == io.EOF {
				return nil, io.EOF
			}
			continue
		}
		return line, nil
	}
}

// isMeta reports quickly whether line is a header or trailer as goodput
// writes them, with "kind" first. Records never have that key; other
// writers (jq -S, Python's sort_keys) may put it anywhere, which hasKind
// and decodeRecord's errMetaLine catch.
func isMeta(line []byte) bool {
	return bytes.HasPrefix(line, []byte(`{"kind"`))
}

// errMetaLine is decodeRecord's answer to a line with a "kind" key: a
// header or trailer, not a record.
var errMetaLine = errors.New(`a line with "kind" is not a record`)

// hasKind reports whether line is a JSON object with a non-null top-level
// "kind" key, wherever it is. A line it cannot parse has none.
func hasKind(line []byte) bool {
	s := scanner{b: line}
	if !s.consume('{') || s.consume('}') {
		return false
	}
	for {
		key, err := s.key()
		if err != nil {
			return false
		}
		if string(key) == "kind" {
			if !s.null() {
				return true
			}
		} else if err := s.skip(0); err != nil {
			return false
		}
		if !s.consume(',') {
			return false
		}
	}
}

func (d *Decoder) meta(line []byte) error {
	var probe struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return fmt.Errorf("%s:%d: %w", d.name, d.line, err)
	}
	switch probe.Kind {
	case KindHeader:
		if d.header != nil {
			return fmt.Errorf("%s:%d: a second run header (concatenated files? merge them with goodput instead)", d.name, d.line)
		}
		var h Header
		if err := jsonerr.Unmarshal(line, &h); err != nil {
			return fmt.Errorf("%s:%d: run header: %w", d.name, d.line, err)
		}
		if h.Schema > SchemaVersion {
			return fmt.Errorf("%s:%d: record schema %d is newer than this goodput reads (%d): upgrade goodput", d.name, d.line, h.Schema, SchemaVersion)
		}
		d.header = &h
	case KindTrailer:
		var t Trailer
		if err := jsonerr.Unmarshal(line, &t); err != nil {
			return fmt.Errorf("%s:%d: trailer: %w", d.name, d.line, err)
		}
		d.trailer, d.trailerLine = &t, d.line
	default:
		return fmt.Errorf("%s:%d: unknown line kind %q", d.name, d.line, probe.Kind)
	}
	return nil
}

// decodeRecord parses one record line. It is written by hand because a
// million-record file must decode in seconds, and reflection-based decoding
// of the chunk arrays dominates otherwise.
func (d *Decoder) decodeRecord(line []byte, r *Record) error {
	*r = Record{Chunks: r.Chunks[:0]}
	d.ck = d.ck[:0]
	d.cr = d.cr[:0]
	s := scanner{b: line}
	if !s.consume('{') {
		return s.fail("expected '{' to start a record")
	}
	var have fieldSet
	var seen uint64 // keyBit of each known key read
	if s.consume('}') {
		// Complete, but empty: not a line cut short (see Cut).
		return &syntaxError{col: s.i, msg: "empty record"}
	}
	for {
		key, err := s.key()
		if err != nil {
			return err
		}
		// A key written twice would have one of its values dropped
		// without a word. Keys this version does not know are skipped,
		// their values unread, and not looked for.
		if bit := keyBit(key); bit != 0 {
			if seen&bit != 0 {
				return fmt.Errorf("key %q appears twice: which value is meant cannot be told", key)
			}
			seen |= bit
		}
		if s.null() {
			// A null value means "absent" for every field.
		} else {
			switch string(key) {
			case "kind":
				return errMetaLine
			case "seq":
				r.Seq, err = s.int()
				have |= hasSeq
			case "s":
				r.Scheduled, err = s.int()
			case "t0":
				r.Sent, err = s.int()
			case "te":
				r.End, err = s.int()
				have |= hasEnd
			case "ct":
				err = s.intArray(func(v int64) error {
					r.Chunks = append(r.Chunks, Chunk{At: v, Tokens: 1})
					return nil
				})
			case "ck":
				err = s.intArray(func(v int64) error {
					if v < 0 || v > 1<<31-1 {
						return fmt.Errorf("chunk token count %d out of range", v)
					}
					d.ck = append(d.ck, int32(v))
					return nil
				})
			case "cr":
				err = s.intArray(func(v int64) error {
					if v < 0 || v > 1<<31-1 {
						return fmt.Errorf("reasoning run %d out of range", v)
					}
					d.cr = append(d.cr, v)
					return nil
				})
			case "rt":
				var v int64
				v, err = s.int()
				r.ReasoningTokens = int(v)
			case "rsrc":
				var v string
				v, err = s.string()
				r.ReasoningSource = Source(v)
			case "in":
				var v int64
				v, err = s.int()
				r.InputTokens = int(v)
			case "out":
				var v int64
				v, err = s.int()
				r.OutputTokens = int(v)
			case "src":
				var v string
				v, err = s.string()
				r.TokenSource = Source(v)
			case "cached":
				var v int64
				v, err = s.int()
				r.CachedTokens, r.CacheReported = int(v), true
			case "retries":
				var v int64
				v, err = s.int()
				r.Retries = int(v)
			case "prefill_ns":
				r.ServerPrefill, err = s.int()
			case "decode_ns":
				r.ServerDecode, err = s.int()
			case "status":
				var v int64
				v, err = s.int()
				r.Status = int(v)
			case "fin":
				r.Finish, err = s.string()
			case "err":
				var v string
				v, err = s.string()
				r.Error = ErrorKind(v)
			case "msg":
				r.Msg, err = s.string()
			case "warm":
				r.Warmup, err = s.bool()
			case "whole":
				r.Whole, err = s.bool()
			case "rid":
				r.RequestID, err = s.string()
			case "sid":
				r.Session, err = s.string()
			case "turn":
				var v int64
				v, err = s.int()
				r.Turn = int(v)
			case "task":
				r.Task, err = s.string()
			case "call":
				r.Call, err = s.string()
			case "ep":
				r.Endpoint, err = s.string()
			case "labels":
				r.Labels, err = s.stringMap()
			default:
				have |= hasUnknown
				err = s.skip(0)
			}
			if err != nil {
				return err
			}
		}
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			break
		}
		return s.fail("expected ',' or '}'")
	}
	s.ws()
	if s.i != len(s.b) {
		return s.fail("unexpected data after the record")
	}
	if err := have.check(); err != nil {
		return err
	}
	if len(d.ck) > 0 {
		if len(d.ck) != len(r.Chunks) {
			return fmt.Errorf(`"ck" has %d entries but "ct" has %d`, len(d.ck), len(r.Chunks))
		}
		for i := range r.Chunks {
			r.Chunks[i].Tokens = d.ck[i]
		}
	}
	if err := applyReasoningRuns(d.cr, r.Chunks); err != nil {
		return err
	}
	at := r.Sent
	for i := range r.Chunks {
		at += r.Chunks[i].At
		r.Chunks[i].At = at
	}
	// A delta that overflows wraps below the time before it, which Check
	// refuses as time going backwards.
	return r.Check()
}

// recordKeys are the keys decodeRecord reads, each with its bit in keyBit.
var recordKeys = [...]string{"kind", "seq", "s", "t0", "te", "ct", "ck", "cr", "rt", "rsrc", "in", "out", "src",
	"cached", "retries", "prefill_ns", "decode_ns", "status", "fin", "err", "msg", "warm", "whole", "rid",
	"sid", "turn", "task", "call", "ep", "labels"}

// keyBit returns the bit of a key decodeRecord reads, and 0 for any
// other. Record keys are one to ten bytes long, so a key is found among
// the few of its length and first byte.
func keyBit(key []byte) uint64 {
	if len(key) == 0 || len(key) > 10 {
		return 0
	}
	for _, i := range keysByShape[len(key)][key[0]&31] {
		if string(key) == recordKeys[i] {
			return 1 << i
		}
	}
	return 0
}

// keysByShape indexes recordKeys by length and first byte (lower five bits).
var keysByShape = func() (t [11][32][]uint8) {
	for i, k := range recordKeys {
		t[len(k)][k[0]&31] = append(t[len(k)][k[0]&31], uint8(i))
	}
	return t
}()

// fieldSet says which keys of a record a line held.
type fieldSet uint8

const (
	hasSeq fieldSet = 1 << iota
	hasEnd
	hasUnknown // a key this version does not know
)

// check refuses a line that is no record. Every record has a "seq", and
// AppendJSON always writes "te" too. Keys whose value is zero may be left
// out, and keys this version does not know are skipped, for the files of
// later versions; but a line with unknown keys and no "te" is a line of
// some other JSON Lines file (goodput export's rows among them: runfile
// names those), which would otherwise read as a request that took no
// time, produced nothing and succeeded.
func (have fieldSet) check() error {
	switch {
	case have&hasSeq == 0:
		return errors.New(`record has no "seq"`)
	case have&hasUnknown != 0 && have&hasEnd == 0:
		return errors.New(`not a record: keys no record has, and no "te" (the time its request ended)`)
	}
	return nil
}

// applyReasoningRuns marks the chunks that the "cr" runs (see AppendJSON)
// say were reasoning.
func applyReasoningRuns(runs []int64, cs []Chunk) error {
	var total int64
	for _, n := range runs {
		total += n // each run is below 2³¹, so no sum of a line's runs overflows
	}
	if total > int64(len(cs)) {
		return fmt.Errorf(`"cr" covers %d chunks but "ct" has %d`, total, len(cs))
	}
	i, reasoning := 0, true
	for _, n := range runs {
		for range n {
			cs[i].Reasoning = reasoning
			i++
		}
		reasoning = !reasoning
	}
	return nil
}
