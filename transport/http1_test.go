package transport

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// parse runs a respParser over wire cut into pieces of at most size bytes
// (0: whole), as a connection's reads would deliver it, and returns the
// response, its body, the bytes after it, and the error. eof says the
// connection closed after wire.
func parse(wire string, size int, eof bool) (resp *http.Response, body, rest string, err error) {
	var p respParser
	req, _ := http.NewRequest(http.MethodPost, "http://x/v1/completions", nil)
	p.reset(req)
	var b strings.Builder
	var after []byte
	done := false
	sink := func(d []byte) { b.Write(d) }
	for len(wire) > 0 && err == nil {
		n := len(wire)
		if size > 0 {
			n = min(size, n)
		}
		piece := []byte(wire[:n])
		wire = wire[n:]
		if done {
			after = append(after, piece...)
			continue
		}
		if resp == nil {
			var r *http.Response
			if r, piece, err = p.header(piece); err != nil || r == nil {
				continue
			}
			resp = r
		}
		var left []byte
		if left, err = p.body(piece, sink); err == nil && p.ended {
			done = true
			after = append(after, left...)
		}
	}
	if err == nil && !done && eof {
		err = p.eof(resp != nil)
		if err == nil {
			done = true
		}
	}
	if err == nil && !done {
		err = errors.New("incomplete")
	}
	return resp, b.String(), string(after), err
}

// The parser reads what net/http reads, however the bytes are cut.
func TestRespParser(t *testing.T) {
	const ok = "HTTP/1.1 200 OK\r\n"
	tests := []struct {
		name   string
		wire   string
		eof    bool
		status int
		body   string
		rest   string
		err    string // in the error; "" for none
	}{
		// A streamed SSE answer as net/http's server sends it.
		{"chunked", ok + "Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"7\r\ndata: a\r\n8\r\n\ndata: b\r\n2\r\n\n\n\r\n0\r\n\r\n", false, 200, "data: a\ndata: b\n\n", "", ""},
		// Chunk extensions are dropped, trailers read and ignored.
		{"chunk extension and trailer", ok + "Transfer-Encoding: chunked\r\n\r\n4;name=value\r\nabcd\r\n0\r\nX-Trailer: 1\r\n\r\n",
			false, 200, "abcd", "", ""},
		{"content length", ok + "Content-Length: 5\r\n\r\nhello", false, 200, "hello", "", ""},
		// Bytes after a Content-Length body are not the body.
		{"content length, then more", ok + "Content-Length: 2\r\n\r\nhiXYZ", false, 200, "hi", "XYZ", ""},
		{"until close", ok + "Connection: close\r\n\r\nevery byte until the end", true, 200, "every byte until the end", "", ""},
		{"no body", "HTTP/1.1 204 No Content\r\n\r\n", false, 204, "", "", ""},
		// An error status with its body, read like any other.
		{"429 with a body", "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 11\r\nRetry-After: 2\r\n\r\nslow down\r\n", false, 429, "slow down\r\n", "", ""},
		// Informational answers come before the real one and are skipped.
		{"100 Continue first", "HTTP/1.1 100 Continue\r\n\r\n" + ok + "Content-Length: 1\r\n\r\nx", false, 200, "x", "", ""},
		// Bare LF line ends in the header, as net/http allows.
		{"bare LF header", "HTTP/1.1 200 OK\nContent-Length: 1\n\nz", false, 200, "z", "", ""},

		{"not HTTP", "SSH-2.0-OpenSSH_9.2\r\n", false, 0, "", "", "the server's answer is not HTTP"},
		{"malformed status", "HTTP/1.1 abc OK\r\n\r\n", false, 0, "", "", "malformed HTTP status code"},
		{"bad content length", ok + "Content-Length: -3\r\n\r\n", false, 0, "", "", "bad Content-Length"},
		{"unknown transfer encoding", ok + "Transfer-Encoding: gzip\r\n\r\n", false, 0, "", "", "unsupported transfer encoding"},
		{"chunk size not hex", ok + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", false, 200, "", "", "invalid byte in chunk length"},
		{"chunk line bare LF", ok + "Transfer-Encoding: chunked\r\n\r\n2\nab\r\n", false, 200, "", "", "chunked line ends with bare LF"},
		{"chunk data not ended by CRLF", ok + "Transfer-Encoding: chunked\r\n\r\n2\r\nabXY", false, 200, "ab", "", "malformed chunked encoding"},
		{"chunk length too large", ok + "Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", false, 200, "", "", "http chunk length too large"},
		{"chunk line too long", ok + "Transfer-Encoding: chunked\r\n\r\n1" + strings.Repeat(" ", 5000) + "\r\n", false, 200, "", "", "header line too long"},
		// The connection's end inside a framed body is unexpected.
		{"closed mid chunk", ok + "Transfer-Encoding: chunked\r\n\r\n9\r\nabc", true, 200, "abc", "", "unexpected EOF"},
		{"closed short of its length", ok + "Content-Length: 9\r\n\r\nabc", true, 200, "abc", "", "unexpected EOF"},
		{"closed inside the header", ok + "Content-Le", true, 0, "", "", "unexpected EOF"},
		{"closed before any byte", "", true, 0, "", "", "EOF"},
		{"closed in the trailer", ok + "Transfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n", true, 200, "", "", "unexpected EOF reading trailer"},
	}
	for _, tt := range tests {
		for _, size := range []int{0, 1, 2, 3, 7, 64} {
			resp, body, rest, err := parse(tt.wire, size, tt.eof)
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("%s, pieces of %d: %v", tt.name, size, err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("%s, pieces of %d: error %v, want one saying %q", tt.name, size, err, tt.err)
			}
			if tt.status != 0 && (resp == nil || resp.StatusCode != tt.status) {
				t.Errorf("%s, pieces of %d: response %v, want status %d", tt.name, size, resp, tt.status)
			}
			if body != tt.body || rest != tt.rest {
				t.Errorf("%s, pieces of %d: body %q rest %q, want %q and %q", tt.name, size, body, rest, tt.body, tt.rest)
			}
		}
	}
}

// The header may be as large as net/http's client takes, and no larger.
func TestRespParserHeaderLimit(t *testing.T) {
	big := "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", maxHeaderBytes) + "\r\n"
	_, _, _, err := parse(big, 1<<16, false)
	if err == nil || !strings.Contains(err.Error(), "server response headers exceeded") {
		t.Errorf("a %d-byte header: %v", len(big), err)
	}
}

// reference reads wire with net/http: the body, or the error that ended
// it (the response's, or the body's).
func reference(wire []byte) (status int, body []byte, err error) {
	req, _ := http.NewRequest(http.MethodPost, "http://x/", nil)
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(wire)), req)
	if err != nil {
		return 0, nil, err
	}
	for resp.StatusCode >= 100 && resp.StatusCode <= 199 {
		return resp.StatusCode, nil, errors.New("informational") // net/http's client loops; ReadResponse does not
	}
	body, err = io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

// The parser agrees with net/http on any bytes: the same status and body
// when net/http reads a whole response, an error or an incomplete
// response when net/http fails, and never a panic, however the bytes are
// cut.
func FuzzRespParser(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc",
		"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy",
		"HTTP/1.0 200 OK\r\n\r\nuntil close",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n",
		"SSH-2.0-x\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, wire []byte, size uint8) {
		resp, body, _, err := parse(string(wire), int(size), true)
		status, want, werr := reference(wire)
		if werr == nil && status >= 200 {
			// net/http read a whole response: so must the parser.
			if err != nil || resp == nil || resp.StatusCode != status || body != string(want) {
				t.Fatalf("net/http reads status %d body %q; the parser: %v %q, %v", status, want, resp, body, err)
			}
			return
		}
		// net/http failed: the parser may fail too, or read less, but it
		// never reads a body net/http did not.
		if err == nil && werr != nil && status == 0 && resp != nil && len(body) > 0 {
			t.Fatalf("net/http: %v; the parser read status %d body %q", werr, resp.StatusCode, body)
		}
	})
}
