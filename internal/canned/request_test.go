//go:build unix

package canned

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The server reads requests however they come: two in one write, one
// split over several, one whose body outgrows the connection's first
// buffer after a small one in the same write, its key header in any
// case; and it refuses a chunked body with a 400 that says why, closing
// the connection.
func TestReadsRequestsHoweverTheyCome(t *testing.T) {
	s, err := Start(Options{TTFT: time.Millisecond, Tokens: 2})
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second)) // a reader that loses its place fails, not hangs
	post := func(key, body string) string {
		return fmt.Sprintf("POST /v1/completions?x=1 HTTP/1.1\r\nHost: canned\r\nx-seq:  %s \r\nContent-Length: %d\r\n\r\n%s", key, len(body), body)
	}
	br := bufio.NewReader(c)
	read := func(what string, tokens int) {
		t.Helper()
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || strings.Count(string(b), `"finish_reason":"length"`) != 1 ||
			!strings.Contains(string(b), fmt.Sprintf(`"completion_tokens":%d,`, tokens)) {
			t.Fatalf("%s: %d %q", what, resp.StatusCode, b)
		}
	}
	// The second asks for a count of its own, so that a reader that took
	// its body from the first's place would answer the wrong one.
	c.Write([]byte(post("a", `{"max_tokens":1}`) + post("b", `{"max_tokens":3}`)))
	read("first of two in one write", 1)
	read("second of two in one write", 3)
	split := post("split", `{"max_tokens":4}`)
	for _, part := range []string{split[:7], split[7:40], split[40:]} {
		c.Write([]byte(part))
		time.Sleep(5 * time.Millisecond)
	}
	read("split over three writes", 4)
	// After a small request, a body five times the buffer: what is left
	// of the buffer moves to its start, then it grows.
	big := `{"max_tokens":3,"prompt":"` + strings.Repeat("tok ", 5*firstBuffer) + `"}`
	c.Write([]byte(post("c", `{"max_tokens":1}`) + post("big", big)))
	read("a small request before a big one", 1)
	read("a body five times the first buffer", 3)
	c.Write([]byte("POST /v1/completions HTTP/1.1\r\nHost: canned\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(b), "chunked") {
		t.Errorf("chunked body: %d %q", resp.StatusCode, b)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("after the 400 the connection stays open: %v", err)
	}
	var keys []string
	for _, st := range s.Close() {
		keys = append(keys, st.Key)
	}
	if got := strings.Join(keys, " "); got != "a b split c big" {
		t.Errorf("streams keyed %q, want a b split c big", got)
	}
}
