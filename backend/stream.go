package backend

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/record"
)

// drainLimit bounds what is read after a stream's terminator, so that the
// connection can go back to the pool without waiting on a server that keeps
// sending.
const drainLimit = 64 << 10

// Stats describes one response stream as it was read. Record fields hold
// the measurement; Stats holds what the runner may want to check or warn
// about.
//
// UsageTokens against Chunks shows how the server packs tokens: equal when
// it sends one token per chunk; larger when chunks carry several tokens
// (speculative decoding, server-side buffering), in which case per-token ITL
// and inter-chunk latency differ; smaller when its count disagrees with the
// stream, in which case the record falls back to one token per chunk
// (TokenSource "chunks").
type Stats struct {
	Events int // events decoded, including role-only and usage-only ones and the terminator
	Chunks int // token-bearing events: len(rec.Chunks)
	// UsageTokens is the last output-token count the server reported:
	// usage.completion_tokens, TGI's details.generated_tokens, llama.cpp's
	// tokens_predicted or timings.predicted_n, Ollama's eval_count. It is
	// -1 when the server reported none.
	UsageTokens int
	Bytes       int64 // body bytes read
	Reads       int   // Reads that returned bytes; each took one timestamp
	// BadCount names the first token count the server sent that was not
	// one (see scanner.count): its field and, cut to 32 bytes, its JSON,
	// such as `usage.completion_tokens "12"`; "" when every count was
	// one. Such a count is left out as if the server had sent none, so
	// the record still succeeds: its output tokens then come from the
	// chunks, its input tokens from what the request knew.
	BadCount string
}

// Discrepancy returns UsageTokens − Chunks, the tokens that did not arrive
// one per chunk, or 0 when the server reported no count.
func (s Stats) Discrepancy() int {
	if s.UsageTokens < 0 {
		return 0
	}
	return s.UsageTokens - s.Chunks
}

// ReadStream reads a streamed response into rec and closes its body.
//
// It sets rec.Status; for a non-2xx status it records the failure as
// CheckStatus does. Otherwise it reads the body in a loop: after each Read
// that returns bytes it takes one timestamp with now (ns from the run
// epoch), before any decoding, and every event completed by those bytes
// gets that time. Token-bearing events become rec.Chunks (replacing any,
// reusing the slice's capacity, so a runner may preallocate it);
// OutputTokens, TokenSource, Finish and, when the server reports it,
// InputTokens are set; rec.End is the arrival of the terminator, or the
// moment the stream ended or failed. Failures are recorded in rec.Error and
// rec.Msg:
//
//   - an error the server reported in the stream: its message, and the
//     kind the HTTP status it names gets, by its code or its type (vLLM's
//     "code": 400, llama.cpp's "type": "unavailable_error", TGI's
//     "error_type": "overloaded"), or record.ErrStream when it names none;
//   - a finish reason of "abort" (the server gave up on the request):
//     record.ErrStream, once the stream has ended;
//   - an event that does not parse, or a line or event over MaxEvent:
//     record.ErrMalformed, naming the event and its byte offset (a token
//     count that parses but is no count is no failure: see Stats.BadCount);
//   - the body ending before the protocol's terminator: record.ErrTruncated.
//     For OpenAI-style streams a finish_reason also ends generation: some
//     servers omit "data: [DONE]", and what follows a finish is bookkeeping,
//     so a stream that stops (or fails) after one still succeeds;
//   - a read error: as ClassifyError maps it (reset, timeout, canceled).
//
// After the terminator ReadStream discards at most 64 KiB more, so that the
// connection can be reused. Chunks received before a failure are kept.
// now is called once per Read that returns bytes and at most once more at
// the end; it must be cheap. A transport that reads the socket itself uses
// a Reader instead, which does the same as bytes are pushed to it.
func (a *Adapter) ReadStream(resp *http.Response, now func() int64, rec *record.Record) Stats {
	body := resp.Body
	if body == nil {
		body = http.NoBody
	}
	defer body.Close()
	rec.Status = resp.StatusCode
	if kind, msg := CheckStatus(resp); kind != record.ErrNone {
		rec.Chunks = rec.Chunks[:0]
		rec.Error, rec.Msg, rec.End = kind, msg, now()
		return Stats{UsageTokens: -1}
	}
	r := &Reader{}
	r.begin(a, rec, resp.Header.Get("Content-Type"))
	r.encoded(resp.Header)
	r.pump(body, now)
	return r.Stats()
}

// read consumes body, whose content type is contentType, into rec.
func (a *Adapter) read(body io.Reader, contentType string, now func() int64, rec *record.Record) Stats {
	r := &Reader{}
	r.begin(a, rec, contentType)
	r.pump(body, now)
	return r.Stats()
}

// pump reads body into r until r or the body ends: one timestamp after
// each Read that returns bytes. After the terminator it drains at most
// drainLimit more bytes, so that the connection can be reused.
func (r *Reader) pump(body io.Reader, now func() int64) {
	empty := 0
	for {
		room := r.Buffer()
		if len(room) == 0 {
			return
		}
		n, err := body.Read(room)
		if n < 0 || n > len(room) {
			r.End(fmt.Errorf("reader returned an invalid count %d", n), now())
			return
		}
		if n > 0 {
			empty = 0
			if !r.Filled(n, now()) {
				if r.Drain() {
					_, _ = io.CopyN(io.Discard, body, drainLimit)
				}
				return
			}
		}
		switch {
		case err != nil:
			r.End(err, now())
			return
		case n == 0:
			if empty++; empty >= maxEmptyReads {
				r.End(io.ErrNoProgress, now())
				return
			}
		}
	}
}

// Reader reads one streamed response into a record as its bytes arrive:
// ReadStream turned inside out, for a transport that reads the socket
// itself and pushes what it read. Call Header once with the response's
// status and header; then, for each read, Buffer for where to put the body
// bytes and Filled with how many were put there and when they were read
// (ns from the run epoch, taken before any decoding); then End once, when
// the body ended (io.EOF, or nil) or failed, or after Filled or Buffer
// declined more (any error, ignored then). The record is complete when End returns
// or Filled declines, and it is filled as ReadStream fills it. Stats is
// valid from then on. A Reader is for one response, and its methods must
// not be called concurrently.
type Reader struct {
	s     stream
	ctype string // the response's content type, for messages
	// For a non-2xx status: the response, and its body's first
	// MaxErrorBody bytes, for the message.
	failed  *http.Response
	errBody []byte
	last    int64 // when the last bytes were read
	over    bool  // the record is final: every later call does nothing

	// heard, when set, takes clock's time of reads that bring bytes, at
	// most every hearEvery of their arrival times (see Hear).
	heard   *atomic.Int64
	clock   func() int64
	stamped int64 // the arrival time of the read last stamped
}

// hearEvery is how far apart, in arrival time, a Reader stamps the reads
// it hears: often enough to tell a silence of seconds, rarely enough that
// a stream's reads seldom read the clock or write the shared stamp.
const hearEvery = int64(100 * time.Millisecond)

// Hear makes r store in h the time on clock of the reads that bring it
// bytes, a tenth of a second apart at most: h, shared by a run's
// requests, then says when a server last sent anything. Call it before
// the response arrives.
func (r *Reader) Hear(h *atomic.Int64, clock func() int64) {
	r.heard, r.clock = h, clock
}

// NewReader returns a Reader that fills rec from a response of a's
// protocol.
func (a *Adapter) NewReader(rec *record.Record) *Reader {
	r := &Reader{}
	r.s = stream{a: a, rec: rec, st: Stats{UsageTokens: -1}}
	return r
}

// begin prepares r for a 2xx body of the given content type.
func (r *Reader) begin(a *Adapter, rec *record.Record, contentType string) {
	rec.Chunks = rec.Chunks[:0]
	rec.Text = ""
	rec.Whole = a.whole
	r.s = stream{a: a, f: newFramer(a.framing), t: newTally(), st: Stats{UsageTokens: -1}, rec: rec}
	r.ctype = contentType
}

// Header takes the response's status line and header (its Body is not
// read). For a non-2xx status the body that follows is read for the
// failure's message, as CheckStatus does.
func (r *Reader) Header(resp *http.Response) {
	rec := r.s.rec
	rec.Status = resp.StatusCode
	if c := resp.StatusCode; c < 200 || c > 299 {
		rec.Chunks = rec.Chunks[:0]
		r.failed = resp
		r.errBody = make([]byte, 0, MaxErrorBody)
		return
	}
	r.begin(r.s.a, rec, resp.Header.Get("Content-Type"))
	r.encoded(resp.Header)
}

// encoded notes the answer's Content-Encoding, if it has one.
func (r *Reader) encoded(h http.Header) {
	if e := h.Get("Content-Encoding"); e != "" && !strings.EqualFold(e, "identity") {
		r.s.encoding = e
	}
}

// Buffer returns where the next body bytes go: never empty while the
// Reader wants more, empty once it does not (the stream is over, or one
// line outgrew the largest buffer, which fails the record as malformed).
func (r *Reader) Buffer() []byte {
	switch {
	case r.over:
		return nil
	case r.failed != nil:
		return r.errBody[len(r.errBody):cap(r.errBody)]
	case r.s.f == nil:
		return nil // Header not called
	}
	room, err := r.s.f.room()
	if err != nil {
		r.s.fail(record.ErrMalformed, err.Error(), r.last)
		r.conclude()
		return nil
	}
	return room
}

// Filled reports that n bytes were put at the start of what Buffer
// returned, read at at. It handles every event they complete, stamped at,
// and reports whether the Reader wants more.
func (r *Reader) Filled(n int, at int64) bool {
	if r.over || n <= 0 {
		return !r.over
	}
	r.last = at
	if r.heard != nil && (r.stamped == 0 || at-r.stamped >= hearEvery) {
		r.stamped = at
		r.heard.Store(r.clock())
	}
	if r.failed != nil {
		r.errBody = r.errBody[:len(r.errBody)+n]
		if len(r.errBody) == cap(r.errBody) {
			r.End(nil, at)
			return false
		}
		return true
	}
	s := &r.s
	s.f.wrote(n)
	s.st.Reads++
	s.st.Bytes += int64(n)
	if !s.events(at) {
		r.conclude()
		return false
	}
	return true
}

// ReadAt takes the time the read whose bytes the next Filled hands over
// returned, where that is later than their arrival (see
// transport.ReadTimer): the record's End is then the time the terminator
// was read.
func (r *Reader) ReadAt(t int64) { r.s.readAt = t }

// End concludes the record: the body ended at at, cleanly when err is
// io.EOF or nil, else broken by err. It does nothing once the Reader declined
// more.
func (r *Reader) End(err error, at int64) {
	if r.over {
		return
	}
	defer r.conclude()
	s := &r.s
	rec := s.rec
	if r.failed != nil {
		resp := *r.failed
		var body io.Reader = bytes.NewReader(r.errBody)
		if err != nil && err != io.EOF {
			body = io.MultiReader(body, errReader{err})
		}
		resp.Body = io.NopCloser(body)
		rec.Error, rec.Msg = CheckStatus(&resp)
		rec.End = at
		return
	}
	if s.f == nil {
		s.f = newFramer(s.a.framing) // Header not called: an empty 2xx stream
		s.t = newTally()
	}
	var fe *framingError
	switch {
	case err == nil || err == io.EOF:
		s.f.finish()
		last := r.last
		if s.a.framing == framingWhole {
			// A whole answer is one event, complete only when its body
			// ends: its one chunk arrives at the record's End, so that
			// its TTFT is its end-to-end latency exactly.
			last = at
		}
		if s.events(last) {
			s.end(at, r.ctype)
		}
	case errors.Is(err, io.ErrNoProgress):
		s.fail(record.ErrOther, fmt.Sprintf("reading the stream: %v", err), at)
	case errors.As(err, &fe):
		s.fail(record.ErrMalformed, err.Error(), at)
	default:
		s.readFailed(err, at)
	}
}

// Drain reports whether the stream ended on its terminator with nothing
// wrong: what follows is then at most bookkeeping, and reading it to the
// body's end (at most 64 KiB) lets the connection be reused. After a
// failure the connection should be closed instead.
func (r *Reader) Drain() bool {
	return r.over && r.failed == nil && r.s.t.done && r.s.rec.Error == record.ErrNone
}

// Stats describes the stream as it was read; valid once the record is
// complete.
func (r *Reader) Stats() Stats { return r.s.st }

// conclude settles the record and releases the read buffer.
func (r *Reader) conclude() {
	if r.over {
		return
	}
	r.over = true
	if r.failed != nil {
		r.s.st = Stats{UsageTokens: -1}
		return
	}
	if r.s.f != nil {
		r.s.f.release()
	}
	r.s.close()
}

// errReader returns its error on every Read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// stream is the state of one read.
type stream struct {
	a   *Adapter
	f   *framer
	d   decoder
	ev  event
	t   tally
	st  Stats
	rec *record.Record
	// encoding is the answer's Content-Encoding, "" when none: goodput
	// asks for none, so a compressed answer reads as no event at all.
	encoding string
	// text is the answer text so far, for an adapter that keeps it.
	text []byte
	// readAt is when the read of the bytes at hand returned, where the
	// transport tells it apart from their arrival (see Reader.ReadAt).
	readAt int64
}

// events handles every complete event in the buffer, all stamped at. It
// returns false when the stream is over (terminator, error event or bad
// event) and rec says how.
func (s *stream) events(at int64) bool {
	for {
		fr, ok, err := s.f.next()
		if err != nil {
			s.fail(record.ErrMalformed, err.Error(), at)
			return false
		}
		if !ok {
			return true
		}
		if len(bytes.TrimSpace(fr.data)) == 0 {
			continue // an empty data field: nothing to decode
		}
		s.st.Events++
		if string(fr.name) == "error" {
			kind, msg := eventError(fr.data)
			s.fail(kind, msg, at)
			return false
		}
		s.ev.reset()
		if err := s.a.decode(&s.d, fr.data, &s.ev); err != nil {
			kind, msg := record.ErrMalformed, fmt.Sprintf("event %d at byte %d: %v: %s", s.st.Events, fr.off, err, snippet(fr.data))
			if s.f.eof && s.a.framing != framingWhole {
				// The event had no end: the body stopped inside it.
				kind, msg = record.ErrTruncated, "stream ended inside an event: "+msg
			}
			s.fail(kind, msg, at)
			return false
		}
		if s.d.badField != "" && s.st.BadCount == "" {
			s.st.BadCount = badCount(s.d.badField, s.d.badValue)
		}
		if s.a.keepText && s.ev.text != nil {
			s.keep()
		}
		s.t.add(&s.ev, at, s.rec)
		if s.ev.failed {
			s.fail(s.ev.errKind, s.ev.errMsg, at)
			return false
		}
		if s.ev.done {
			// The stream ended for the client when it read the
			// terminator, at or after its arrival.
			s.rec.End = max(at, s.readAt)
			return false
		}
	}
}

// end concludes a body that ended (EOF) without its terminator event.
func (s *stream) end(at int64, contentType string) {
	if s.t.finished {
		s.rec.End = at
		return
	}
	var msg string
	if s.st.Events == 0 {
		msg = fmt.Sprintf("stream ended after %d bytes without any event", s.st.Bytes)
		if want := s.a.contentType; contentType != "" && !strings.Contains(contentType, want) {
			msg += fmt.Sprintf(" (content type %q, not %s: the server may have ignored streaming)", contentType, want)
		}
		if s.encoding != "" {
			msg += fmt.Sprintf(" (Content-Encoding %s: the server compressed its answer, which goodput does not ask for and does not read)", s.encoding)
		}
	} else {
		msg = fmt.Sprintf("stream ended after %d events and %d bytes without %s", s.st.Events, s.st.Bytes, s.a.terminator)
	}
	s.fail(record.ErrTruncated, msg, at)
}

// readFailed records a Read error.
func (s *stream) readFailed(err error, at int64) {
	if s.t.finished {
		s.rec.End = at
		return
	}
	kind := ClassifyError(err)
	what := "the stream"
	if s.a.framing == framingWhole {
		what = "the answer" // one body, not a stream of events
	}
	s.fail(kind, fmt.Sprintf("reading %s after %d bytes: %v", what, s.st.Bytes, err), at)
}

// fail records a failure. A failed record always has a message, even when
// the server's was blank.
func (s *stream) fail(kind record.ErrorKind, msg string, at int64) {
	msg = clean(msg)
	if msg == "" {
		msg = "server reported an error without a message"
	}
	s.rec.Error, s.rec.Msg, s.rec.End = kind, msg, at
}

// keep adds the event's answer text to the stream's.
func (s *stream) keep() {
	if s.ev.textAll {
		s.text = s.text[:0]
	}
	if !s.ev.textEsc {
		s.text = append(s.text, s.ev.text...)
		return
	}
	if t, err := unquote(s.text, s.ev.text); err == nil {
		s.text = t
	}
}

// close settles token counts and the stats.
func (s *stream) close() {
	if s.a.keepText {
		s.rec.Text = string(s.text)
	}
	s.t.close(s.rec)
	s.st.Chunks = len(s.rec.Chunks)
	s.st.UsageTokens = s.t.usage
	// A finish of "abort" (SGLang, vLLM) ends the stream the normal way,
	// with usage and the terminator, but the server gave up on the
	// request: what it sent is not the answer asked for, so it fails, and
	// keeps the chunks that came.
	if s.rec.Error == record.ErrNone && s.rec.Finish == finishAbort {
		s.rec.Error, s.rec.Msg = record.ErrStream, "the server aborted the request (finish_reason abort)"
	}
}

// badCount shows a dropped count for Stats: its field and its JSON, cut
// to 32 bytes on a character boundary, made fit to print as clean makes a
// message.
func badCount(field string, raw []byte) string {
	const n = 32
	if len(raw) <= n {
		return field + " " + clean(string(raw))
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return field + " " + clean(string(raw[:cut])) + "…"
}

// snippet quotes the start of a payload for an error message.
func snippet(p []byte) string {
	const n = 64
	if len(p) > n {
		return fmt.Sprintf("%q…", p[:n])
	}
	return fmt.Sprintf("%q", p)
}
