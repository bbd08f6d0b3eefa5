package transport

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// appendRequest writes req to buf as net/http's client sends it, with
// "Connection: close" when close is set: the same bytes Request.Write
// writes (a test holds it to that), built without its general
// machinery for the requests a benchmark sends (a method, a path, a few
// headers, a body of known length). Anything else goes through
// Request.Write itself. It reads a fresh copy of the body where req can
// give one, so that req can be sent again.
func appendRequest(buf *bytes.Buffer, req *http.Request, close bool) error {
	body := req.Body
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			return err
		}
		body = b
	}
	if !plainRequest(req) {
		out := *req
		out.Close = req.Close || close
		out.Body = body
		return out.Write(buf)
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	buf.WriteString(req.Method)
	buf.WriteByte(' ')
	buf.WriteString(req.URL.RequestURI())
	buf.WriteString(" HTTP/1.1\r\nHost: ")
	buf.WriteString(host)
	buf.WriteString("\r\n")
	ua := "Go-http-client/1.1"
	if vs, ok := req.Header["User-Agent"]; ok {
		ua = ""
		if len(vs) > 0 {
			ua = strings.Trim(headerNewlineToSpace.Replace(vs[0]), " \t\r\n")
		}
	}
	if ua != "" {
		buf.WriteString("User-Agent: ")
		buf.WriteString(ua)
		buf.WriteString("\r\n")
	}
	if req.Close || close {
		buf.WriteString("Connection: close\r\n")
	}
	buf.WriteString("Content-Length: ")
	buf.WriteString(strconv.FormatInt(req.ContentLength, 10))
	buf.WriteString("\r\n")
	if err := req.Header.WriteSubset(buf, excludedHeaders); err != nil {
		return err
	}
	buf.WriteString("\r\n")
	if body != nil && body != http.NoBody && req.ContentLength > 0 {
		n, err := io.Copy(buf, body)
		if err != nil {
			return err
		}
		if n != req.ContentLength {
			return io.ErrUnexpectedEOF
		}
	}
	return nil
}

// excludedHeaders are those the request line and appendRequest write
// themselves, as Request.Write leaves them out of the header it copies.
var excludedHeaders = map[string]bool{"Host": true, "User-Agent": true, "Content-Length": true, "Transfer-Encoding": true, "Trailer": true}

var headerNewlineToSpace = strings.NewReplacer("\n", " ", "\r", " ")

// plainRequest reports whether appendRequest's own path writes req
// exactly as Request.Write would: a POST of known length with an ASCII
// host, a plain path, and none of the headers Request.Write treats apart.
func plainRequest(req *http.Request) bool {
	if req.Method != http.MethodPost || req.URL == nil || req.URL.Opaque != "" || req.ContentLength < 0 ||
		len(req.TransferEncoding) > 0 || req.Trailer != nil || req.ContentLength > 0 && req.Body == nil {
		return false
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".-:[]_", c) >= 0) {
			return false
		}
	}
	for _, k := range []string{"Connection", "Expect"} {
		if _, ok := req.Header[k]; ok {
			return false
		}
	}
	return true
}
