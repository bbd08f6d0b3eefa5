package backend

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// framing is how a protocol delimits events in a response body.
type framing uint8

const (
	framingSSE    framing = iota // text/event-stream: "data:" lines, events end at a blank line
	framingNDJSON                // one JSON document per line
	framingWhole                 // the whole body is one JSON document (a non-streamed response)
)

// MaxEvent is the largest stream event, in bytes, that a stream reader
// accepts. A longer line or event fails the request as malformed rather than
// growing the buffer without bound.
const MaxEvent = 1 << 20

// MaxWhole is the largest non-streamed response, in bytes, that a reader
// accepts: the whole answer in one document, which with logprobs runs to
// kilobytes a token (8,000 tokens with five logprobs each take several
// MiB), where a stream's events carry a few tokens each.
const MaxWhole = 64 << 20

const (
	initialBuffer = 32 << 10
	// minRead is the free space below which the buffer is compacted before
	// the next Read, so that reads stay large.
	minRead = 4 << 10
	// lineSlack leaves room for a field name ("data: ") around a payload of
	// MaxEvent bytes.
	lineSlack = 1 << 10
	// maxEmptyReads is how many (0, nil) Reads in a row count as a stuck
	// body rather than a slow one.
	maxEmptyReads = 100
)

// bufPool holds read buffers of initialBuffer bytes. Grown buffers are not
// returned, so one huge response cannot pin memory for the rest of a run.
var bufPool = sync.Pool{New: func() any {
	b := make([]byte, initialBuffer)
	return &b
}}

// framingError is a stream that cannot be cut into events within bounds.
type framingError struct{ msg string }

func (e *framingError) Error() string { return e.msg }

// frame is one event cut from the stream. Its slices are valid until the
// framer's next fill.
type frame struct {
	name []byte // SSE event name ("" when absent); nil for NDJSON
	data []byte // the payload: joined data lines, or the NDJSON line
	off  int64  // stream offset of the event's first line, for messages
}

// framer cuts a byte stream into events incrementally: bytes are appended by
// fill, and next returns each event as soon as its last byte is buffered, so
// an event gets the timestamp of the Read that completed it.
//
// It handles LF, CRLF and lone CR line ends (even when a CRLF is split
// between reads), SSE comments and fields, multi-line data, the error
// field older llama.cpp servers send, and a leading byte order mark.
// Memory is bounded by MaxEvent.
type framer struct {
	mode framing
	buf  []byte
	pool *[]byte // the pooled buffer buf came from, nil once it has grown
	r, w int     // buf[r:w] is unconsumed
	seen int     // buf[r:r+seen] holds no line end: resume scanning there
	off  int64   // stream offset of buf[0]
	max  int     // largest event payload

	skipLF bool // the last line ended with a CR that was the last byte read: a following LF belongs to it
	first  bool // the next line is the stream's first (may carry a BOM)
	eof    bool // the body has ended: an unterminated last line still counts

	// The SSE event being assembled.
	data    []byte
	name    []byte
	hasData bool
	evOff   int64
}

func newFramer(mode framing) *framer {
	p := bufPool.Get().(*[]byte)
	limit := MaxEvent
	if mode == framingWhole {
		limit = MaxWhole
	}
	return &framer{mode: mode, buf: *p, pool: p, max: limit, first: true}
}

// release returns the read buffer to the pool. The framer must not be used
// afterwards.
func (f *framer) release() {
	if f.pool != nil {
		bufPool.Put(f.pool)
		f.pool = nil
	}
	f.buf = nil
}

// fill makes room and does one Read into the buffer. Events already in the
// buffer must have been taken with next first.
func (f *framer) fill(rd io.Reader) (int, error) {
	room, err := f.room()
	if err != nil {
		return 0, err
	}
	n, err := rd.Read(room)
	if n < 0 || n > len(room) {
		return 0, fmt.Errorf("reader returned an invalid count %d", n)
	}
	f.w += n
	return n, err
}

// room makes room for more bytes and returns the free end of the buffer,
// never empty: the caller writes bytes there and reports them with wrote.
// Events already in the buffer must have been taken with next first. It
// fails when one unterminated line already fills the largest buffer.
func (f *framer) room() ([]byte, error) {
	switch {
	case f.r == f.w:
		f.off += int64(f.w)
		f.r, f.w = 0, 0
	case f.r > 0 && len(f.buf)-f.w < minRead:
		f.off += int64(f.r)
		f.w = copy(f.buf, f.buf[f.r:f.w])
		f.r = 0
	}
	if f.w == len(f.buf) {
		// One unterminated line fills the whole buffer.
		limit := f.max + lineSlack
		if len(f.buf) >= limit {
			if f.mode == framingWhole {
				return nil, &framingError{fmt.Sprintf("response larger than %d bytes", limit)}
			}
			return nil, &framingError{fmt.Sprintf("line longer than %d bytes at byte %d", limit, f.off+int64(f.r))}
		}
		nb := make([]byte, min(2*len(f.buf), limit))
		f.w = copy(nb, f.buf[:f.w])
		if f.pool != nil {
			bufPool.Put(f.pool)
			f.pool = nil
		}
		f.buf = nb
	}
	return f.buf[f.w:], nil
}

// wrote adds n bytes written at the start of what room returned.
func (f *framer) wrote(n int) { f.w += n }

// line returns the next complete line without its terminator.
func (f *framer) line() ([]byte, bool) {
	if f.skipLF && f.r < f.w {
		if f.buf[f.r] == '\n' {
			f.r++
		}
		f.skipLF = false
	}
	if f.mode == framingWhole {
		// The body is one event, complete only at its end.
		if !f.eof || f.r == f.w {
			return nil, false
		}
		line := f.buf[f.r:f.w]
		f.r = f.w
		if f.first {
			f.first = false
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		return line, true
	}
	p := f.buf[f.r+f.seen : f.w]
	var i int
	if f.mode == framingSSE {
		i = indexLineEnd(p)
	} else {
		i = bytes.IndexByte(p, '\n')
	}
	start := f.r
	var line []byte
	switch {
	case i >= 0:
		i += f.seen
		line = f.buf[start : start+i]
		f.r = start + i + 1
		if f.buf[start+i] == '\r' {
			if f.r < f.w {
				if f.buf[f.r] == '\n' {
					f.r++
				}
			} else {
				f.skipLF = true
			}
		}
	case f.eof && f.r < f.w:
		// Many simple servers omit the final newline; the bytes did arrive.
		line = f.buf[start:f.w]
		f.r = f.w
	default:
		f.seen = f.w - f.r
		return nil, false
	}
	f.seen = 0
	if f.first {
		f.first = false
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	return line, true
}

// indexLineEnd returns the index of the first CR or LF in p, or -1.
func indexLineEnd(p []byte) int {
	i := bytes.IndexByte(p, '\n')
	seg := p
	if i >= 0 {
		seg = p[:i]
	}
	if j := bytes.IndexByte(seg, '\r'); j >= 0 {
		return j
	}
	return i
}

// lineOff is the stream offset of the line that line() just returned.
func (f *framer) lineOff(line []byte) int64 {
	// line is a sub-slice of buf; its start is found from its capacity.
	return f.off + int64(cap(f.buf)-cap(line))
}

// next returns the next complete event in the buffer, or ok=false when more
// bytes are needed (or, after finish, when the stream is exhausted).
func (f *framer) next() (ev frame, ok bool, err error) {
	for {
		line, ok := f.line()
		if !ok {
			if f.eof && f.hasData {
				return f.dispatch(), true, nil
			}
			return frame{}, false, nil
		}
		if f.mode == framingWhole {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			return frame{data: line, off: f.lineOff(line)}, true, nil
		}
		if f.mode == framingNDJSON {
			line = bytes.TrimSuffix(line, []byte{'\r'})
			if len(bytes.TrimLeft(line, " \t\r")) == 0 {
				continue
			}
			return frame{data: line, off: f.lineOff(line)}, true, nil
		}
		if len(line) == 0 {
			if f.hasData {
				return f.dispatch(), true, nil
			}
			f.name = f.name[:0]
			continue
		}
		if line[0] == ':' {
			continue // comment, often a keep-alive
		}
		field, value := line, []byte(nil)
		if c := bytes.IndexByte(line, ':'); c >= 0 {
			field, value = line[:c], line[c+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "error":
			// Older llama.cpp servers stream an error as a field of its
			// own, "error: {...}", which SSE would ignore, and then (on
			// their /v1 endpoints) data: [DONE]: the request would read
			// as a success without a token. The field is the data of an
			// event named error.
			f.name = append(f.name[:0], "error"...)
			fallthrough
		case "data":
			if !f.hasData {
				f.evOff = f.lineOff(line)
			}
			if len(f.data)+len(value) > f.max {
				return frame{}, false, &framingError{fmt.Sprintf("event larger than %d bytes at byte %d", f.max, f.evOff)}
			}
			f.data = append(f.data, value...)
			f.data = append(f.data, '\n')
			f.hasData = true
		case "event":
			f.name = append(f.name[:0], value...)
		}
		// "id", "retry" and unknown fields carry nothing we measure.
	}
}

// dispatch ends the SSE event under assembly and returns it. The returned
// slices stay valid until the next call of next.
func (f *framer) dispatch() frame {
	ev := frame{name: f.name, data: f.data[:len(f.data)-1], off: f.evOff}
	f.data = f.data[:0]
	f.name = f.name[:0]
	f.hasData = false
	return ev
}

// finish marks the end of the body, so that next also returns an
// unterminated last line and an event missing its blank line.
func (f *framer) finish() { f.eof = true }

// ReserveBuffers puts n read buffers in the pool the stream readers take
// theirs from, each page written once, so that n responses read at once
// (a start-up burst's) neither allocate nor fault in their buffers while
// they are being read. Call it before a run's start; sync.Pool keeps them
// until its second garbage collection.
func ReserveBuffers(n int) {
	bufs := make([]*[]byte, n)
	for i := range bufs {
		bufs[i] = bufPool.Get().(*[]byte)
		b := *bufs[i]
		for k := 0; k < len(b); k += 4096 {
			b[k] = 0
		}
	}
	for _, p := range bufs {
		bufPool.Put(p)
	}
}
