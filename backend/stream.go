package backend

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

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
//   - an error event from the server: record.ErrStream with its message;
//   - an event that does not parse, or a line or event over MaxEvent:
//     record.ErrMalformed, naming the event and its byte offset;
//   - the body ending before the protocol's terminator: record.ErrTruncated.
//     For OpenAI-style streams a finish_reason also ends generation: some
//     servers omit "data: [DONE]", and what follows a finish is bookkeeping,
//     so a stream that stops (or fails) after one still succeeds;
//   - a read error: as ClassifyError maps it (reset, timeout, canceled).
//
// After the terminator ReadStream discards at most 64 KiB more, so that the
// connection can be reused. Chunks received before a failure are kept.
// now is called once per Read that returns bytes and at most once more at
// the end; it must be cheap.
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
	return a.read(body, resp.Header.Get("Content-Type"), now, rec)
}

// stream is the state of one read.
type stream struct {
	a   *Adapter
	f   *framer
	d   decoder
	ev  event
	t   tally
	st  Stats
	rec *record.Record
	// text is the answer text so far, for an adapter that keeps it.
	text []byte
}

// read consumes body, whose content type is contentType, into rec.
func (a *Adapter) read(body io.Reader, contentType string, now func() int64, rec *record.Record) Stats {
	rec.Chunks = rec.Chunks[:0]
	rec.Text = ""
	s := stream{a: a, f: newFramer(a.framing), t: newTally(), st: Stats{UsageTokens: -1}, rec: rec}
	s.run(body, contentType, now)
	s.f.release()
	s.close()
	return s.st
}

// run reads body to its end or first failure.
func (s *stream) run(body io.Reader, contentType string, now func() int64) {
	rec := s.rec
	var at int64
	empty := 0
	for {
		n, err := s.f.fill(body)
		if n > 0 {
			at = now()
			s.st.Reads++
			s.st.Bytes += int64(n)
			empty = 0
			if !s.events(at) {
				if s.t.done && rec.Error == record.ErrNone {
					_, _ = io.CopyN(io.Discard, body, drainLimit)
				}
				return
			}
		}
		switch {
		case err == io.EOF:
			s.f.finish()
			if !s.events(at) {
				return
			}
			s.end(now(), contentType)
			return
		case err != nil:
			var fe *framingError
			if errors.As(err, &fe) {
				s.fail(record.ErrMalformed, err.Error(), now())
				return
			}
			s.readFailed(err, now())
			return
		case n == 0:
			if empty++; empty >= maxEmptyReads {
				s.fail(record.ErrOther, fmt.Sprintf("reading the stream: %v", io.ErrNoProgress), now())
				return
			}
		}
	}
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
			s.fail(record.ErrStream, bodyMessage(fr.data), at)
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
		if s.a.keepText && s.ev.text != nil {
			s.keep()
		}
		s.t.add(&s.ev, at, s.rec)
		if s.ev.failed {
			s.fail(record.ErrStream, s.ev.errMsg, at)
			return false
		}
		if s.ev.done {
			s.rec.End = at
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
	s.fail(kind, fmt.Sprintf("reading the stream after %d bytes: %v", s.st.Bytes, err), at)
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
}

// snippet quotes the start of a payload for an error message.
func snippet(p []byte) string {
	const n = 64
	if len(p) > n {
		return fmt.Sprintf("%q…", p[:n])
	}
	return fmt.Sprintf("%q", p)
}
