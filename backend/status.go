package backend

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/record"
)

// MaxErrorBody is how much of a failed response's body is read for its
// message.
const MaxErrorBody = 512

// maxMsg bounds the length of a record's error message.
const maxMsg = 512

// CheckStatus classifies a response by its status code. For a 2xx it
// returns record.ErrNone and leaves the body alone. Otherwise it reads at
// most MaxErrorBody bytes of the body for a message, and returns
// record.ErrRateLimited for 429, record.ErrUnavailable for 503 and
// record.ErrHTTP for the rest, with a message such as
// "http 429 Too Many Requests: rate limit exceeded (retry-after 2)"; a
// redirect's message names its Location instead of its body.
// The caller must still close the body.
func CheckStatus(resp *http.Response) (record.ErrorKind, string) {
	code := resp.StatusCode
	if code >= 200 && code <= 299 {
		return record.ErrNone, ""
	}
	kind := statusKind(code)
	status := resp.Status
	if status == "" {
		status = fmt.Sprintf("%d %s", code, http.StatusText(code))
	}
	msg := "http " + status
	// A redirect says where to; its body is a page for browsers.
	loc := resp.Header.Get("Location")
	if code < 300 || code > 399 {
		loc = ""
	}
	if loc != "" {
		msg += " (redirected to " + loc + ", which a benchmark does not follow: the extra hop would count in every latency; point it at the URL named)"
	}
	if resp.Body != nil {
		body, err := io.ReadAll(io.LimitReader(resp.Body, MaxErrorBody))
		if text := bodyMessage(body); text != "" && loc == "" {
			msg += ": " + text
		} else if err != nil {
			msg += " (reading the body: " + err.Error() + ")"
		}
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		msg += " (retry-after " + ra + ")"
	}
	return kind, clean(msg)
}

// statusKind is the kind of a failure answered with a non-2xx status code.
func statusKind(code int) record.ErrorKind {
	switch code {
	case http.StatusTooManyRequests:
		return record.ErrRateLimited
	case http.StatusServiceUnavailable:
		return record.ErrUnavailable
	}
	return record.ErrHTTP
}

// bodyMessage picks the message out of an error body: the usual JSON
// shapes ({"error": "…"}, {"error": {"message": "…"}}, {"message": "…"},
// {"detail": "…"}), else the text itself.
func bodyMessage(body []byte) string {
	if msg, ok := jsonMessage(body); ok {
		return msg
	}
	return strings.TrimSpace(string(body))
}

// jsonMessage finds the message in a JSON error object. It reports false
// when body is not one, or (cut at MaxErrorBody) no longer parses.
func jsonMessage(body []byte) (string, bool) {
	o, ok := readErrorObject(body)
	switch {
	case !ok:
		return "", false
	case o.hasNested:
		return o.nested.text(), true
	case o.flat.msg != "":
		return o.flat.msg, true
	case o.detail != "":
		return o.detail, true
	}
	return "", false
}

// ClassifyError maps an error from http.Client.Do or from reading a
// response body to a failure kind:
//
//   - context.Canceled: record.ErrCanceled (the run was interrupted);
//   - a deadline (context, Client.Timeout, net timeouts): record.ErrTimeout;
//   - dial, DNS and TLS failures: record.ErrConnect;
//   - an answer that is not HTTP, or breaks it (a malformed status line,
//     header or length): record.ErrProtocol;
//   - connection reset, broken pipe, or the connection closing before or
//     during the response (io.EOF, io.ErrUnexpectedEOF, a kept-alive
//     connection the server closed): record.ErrReset;
//   - anything else: record.ErrOther.
//
// It returns record.ErrNone for a nil error.
func ClassifyError(err error) record.ErrorKind {
	if err == nil {
		return record.ErrNone
	}
	if errors.Is(err, context.Canceled) {
		return record.ErrCanceled
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return record.ErrTimeout
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return record.ErrConnect
	}
	var dns *net.DNSError
	var certErr *tls.CertificateVerificationError
	var hostErr x509.HostnameError
	var unknownAuth x509.UnknownAuthorityError
	var recErr tls.RecordHeaderError
	var alert tls.AlertError
	if errors.As(err, &dns) || errors.As(err, &certErr) || errors.As(err, &hostErr) ||
		errors.As(err, &unknownAuth) || errors.As(err, &recErr) || errors.As(err, &alert) ||
		errors.Is(err, syscall.ECONNREFUSED) {
		return record.ErrConnect
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return record.ErrTimeout
	}
	if protocolError(err) {
		return record.ErrProtocol
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		// net/http does not export this one; a POST on a kept-alive
		// connection that the server closed fails with it.
		strings.Contains(err.Error(), "server closed idle connection") {
		return record.ErrReset
	}
	return record.ErrOther
}

// RecordError records on rec a request that failed before any response
// arrived: err is what http.Client.Do returned, at the time it returned
// (ns from the run epoch). It sets Error, Msg and End.
func RecordError(rec *record.Record, err error, at int64) {
	rec.Error = ClassifyError(err)
	if rec.Error == record.ErrNone {
		return
	}
	rec.Msg = clean(err.Error())
	if rec.Msg == "" {
		rec.Msg = "request failed: " + string(rec.Error)
	}
	rec.End = at
}

// clean makes server-supplied text fit for a record: invalid UTF-8 shown
// as U+FFFD, control characters and runs of white space turned into one
// space, at most maxMsg bytes (cut on a character boundary, ending in "…").
func clean(s string) string {
	const ellipsis = "…"
	var b strings.Builder
	b.Grow(min(len(s), 2*maxMsg))
	gap := false
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			gap = b.Len() > 0
			continue
		}
		if gap {
			b.WriteByte(' ')
			gap = false
		}
		b.WriteRune(r)
		if b.Len() > maxMsg {
			break // enough to know it must be cut
		}
	}
	out := b.String()
	if len(out) <= maxMsg {
		return out
	}
	cut := maxMsg - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(out[cut]) {
		cut--
	}
	return out[:cut] + ellipsis
}

// protocolMarks are the words net/http's client uses, in errors it does
// not export as values, for a response that is not valid HTTP.
var protocolMarks = []string{
	"malformed HTTP response",
	"malformed HTTP status code",
	"malformed HTTP version",
	"malformed MIME header",
	"bad Content-Length",
	"invalid Content-Length",
	"unsupported transfer encoding",
	"too many transfer encodings",
	"invalid header field",
}

// protocolError reports whether err says the server's answer broke HTTP.
func protocolError(err error) bool {
	msg := err.Error()
	for _, m := range protocolMarks {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
