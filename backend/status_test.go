package backend

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// timeoutErr is a net.Error that timed out, like a Client.Timeout.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassifyError(t *testing.T) {
	wrap := func(err error) error {
		return &url.Error{Op: "Post", URL: "http://127.0.0.1:1/v1/completions", Err: err}
	}
	tests := []struct {
		name string
		err  error
		want record.ErrorKind
	}{
		{"nil", nil, record.ErrNone},
		{"context canceled", wrap(context.Canceled), record.ErrCanceled},
		{"context deadline", wrap(fmt.Errorf("reading: %w", context.DeadlineExceeded)), record.ErrTimeout},
		{"client timeout", wrap(timeoutErr{}), record.ErrTimeout},
		{"read deadline", &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}, record.ErrTimeout},
		{"dial refused", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), record.ErrConnect},
		{"dial timeout is a connect failure", wrap(&net.OpError{Op: "dial", Err: timeoutErr{}}), record.ErrConnect},
		{"dial cut by the run's deadline is a timeout", wrap(&net.OpError{Op: "dial", Err: context.DeadlineExceeded}), record.ErrTimeout},
		{"DNS", wrap(&net.DNSError{Err: "no such host", Name: "nohost"}), record.ErrConnect},
		{"TLS: unknown authority", wrap(x509.UnknownAuthorityError{}), record.ErrConnect},
		{"connection reset", wrap(&net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), record.ErrReset},
		{"broken pipe", wrap(&net.OpError{Op: "write", Err: os.NewSyscallError("write", syscall.EPIPE)}), record.ErrReset},
		{"closed before the response", wrap(io.EOF), record.ErrReset},
		{"closed mid-body", fmt.Errorf("body: %w", io.ErrUnexpectedEOF), record.ErrReset},
		{"kept-alive connection closed", wrap(errors.New("http: server closed idle connection")), record.ErrReset},
		// an answer that is not HTTP, or breaks it: the protocol's own kind
		{"not HTTP", wrap(errors.New(`malformed HTTP response "SSH-2.0-OpenSSH_9.2"`)), record.ErrProtocol},
		{"not HTTP after a reused connection", wrap(errors.New(`net/http: HTTP/1.x transport connection broken: malformed HTTP response "hello"`)), record.ErrProtocol},
		{"bad status line", wrap(errors.New(`malformed HTTP status code "abc"`)), record.ErrProtocol},
		{"bad header", wrap(errors.New(`net/http: HTTP/1.x transport connection broken: malformed MIME header line: x`)), record.ErrProtocol},
		{"bad length", wrap(errors.New(`net/http: HTTP/1.x transport connection broken: bad Content-Length "-1"`)), record.ErrProtocol},
		{"anything else", errors.New("http: nil Request.URL"), record.ErrOther},
	}
	for _, tt := range tests {
		if got := ClassifyError(tt.err); got != tt.want {
			t.Errorf("%s: ClassifyError(%v) = %q, want %q", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestRecordError(t *testing.T) {
	rec := &record.Record{}
	RecordError(rec, nil, 5)
	if rec.Error != record.ErrNone || rec.End != 0 {
		t.Fatalf("a nil error changed the record: %+v", rec)
	}
	RecordError(rec, &url.Error{Op: "Post", URL: "http://x", Err: context.Canceled}, 7)
	if rec.Error != record.ErrCanceled || rec.End != 7 || rec.Msg != `Post "http://x": context canceled` {
		t.Fatalf("record %+v", rec)
	}
}

func TestCheckStatus2xx(t *testing.T) {
	// A 2xx is left alone, body unread.
	for _, code := range []int{200, 201, 206, 299} {
		resp := &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader("data"))}
		if kind, msg := CheckStatus(resp); kind != record.ErrNone || msg != "" {
			t.Errorf("%d: %q %q", code, kind, msg)
		}
		if b, _ := io.ReadAll(resp.Body); string(b) != "data" {
			t.Errorf("%d: body consumed", code)
		}
	}
	// Codes outside 2xx without a status line or body still get a message.
	for code, want := range map[int]string{199: "http 199 ", 300: "http 300 Multiple Choices", 600: "http 600 "} {
		kind, msg := CheckStatus(&http.Response{StatusCode: code})
		if kind != record.ErrHTTP || msg != strings.TrimSpace(want) {
			t.Errorf("%d: %q %q, want http %q", code, kind, msg, want)
		}
	}
}

func TestClean(t *testing.T) {
	long := strings.Repeat("a", maxMsg)
	tests := []struct {
		name, in, want string
	}{
		{"plain", "bad request", "bad request"},
		{"white space collapses", "  a \r\n\t b  ", "a b"},
		{"control characters become spaces", "a\x00\x1fb\x7fc", "a b c"},
		{"invalid UTF-8 is marked", "a\xffb", "a\uFFFDb"},
		{"exactly the limit is kept", long, long},
		{"one past the limit is cut", long + "b", long[:maxMsg-3] + "…"},
		{"cut on a character boundary", "a" + strings.Repeat("€", 200), "a" + strings.Repeat("€", 169) + "…"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		got := clean(tt.in)
		if got != tt.want || len(got) > maxMsg {
			t.Errorf("%s: clean(%q) = %q (%d bytes), want %q", tt.name, tt.in, got, len(got), tt.want)
		}
	}
}
