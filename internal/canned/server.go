//go:build unix

package canned

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options shape the canned streams.
type Options struct {
	// TTFT is the time from a request's arrival to its first token.
	TTFT time.Duration
	// ITL is the time between tokens; 0 writes the rest with the first.
	ITL time.Duration
	// Tokens is how many tokens a response has when its request asks for
	// no max_tokens; 16 when 0.
	Tokens int
	// KeyHeader names the request header whose value keys its stream in
	// the report; X-Seq when empty. Requests without it are keyed by
	// their arrival order ("#0", "#1", …).
	KeyHeader string
}

// Stream is one response as the server sent it, in wall-clock ns.
type Stream struct {
	Key string
	// Arrived is when the request's last bytes arrived: the kernel's
	// receive time where the system gives one, else the time they were
	// read.
	Arrived int64
	// Flushed holds, per token, when the write that carried it returned.
	Flushed []int64
}

// Server is a running canned server.
type Server struct {
	o  Options
	ln net.Listener
	em *emitter

	mu      sync.Mutex // guards streams, conns, arrived
	streams []Stream   // finished streams
	conns   map[net.Conn]bool
	arrived int

	wg sync.WaitGroup
}

// Start serves on a free loopback port until Close.
func Start(o Options) (*Server, error) {
	if o.Tokens <= 0 {
		o.Tokens = 16
	}
	if o.KeyHeader == "" {
		o.KeyHeader = "X-Seq"
	}
	if o.TTFT < 0 || o.ITL < 0 {
		return nil, errors.New("canned: TTFT and ITL must be ≥ 0")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{o: o, ln: ln, conns: map[net.Conn]bool{}}
	s.em = newEmitter(s.finished)
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// URL is the server's base URL.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server and returns every stream it finished. Streams
// under way are cut off and left out.
func (s *Server) Close() []Stream {
	s.ln.Close()
	s.em.stop()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams
}

func (s *Server) finished(st Stream) {
	s.mu.Lock()
	s.streams = append(s.streams, st)
	s.mu.Unlock()
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(c.(*net.TCPConn))
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

// serve answers the requests of one connection in turn.
func (s *Server) serve(c *net.TCPConn) {
	raw, err := c.SyscallConn()
	if err != nil {
		return
	}
	var fd int
	raw.Control(func(f uintptr) { fd = int(f) })
	enableStamps(fd)
	in := newRequestReader(raw, s.o.KeyHeader)
	// One stream at a time per connection, each ending with one value on
	// done, received before the next begins.
	done := make(chan bool, 1)
	for {
		req, err := in.next()
		if errors.Is(err, errUnsupported) {
			const why = "canned: unsupported HTTP request (a chunked body, or a malformed head)\n"
			fmt.Fprintf(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(why), why)
			return
		}
		if err != nil {
			return
		}
		body, arrived, method, path := req.body, req.arrived, string(req.method), string(req.path)
		switch {
		case method == http.MethodGet && (path == "/health" || path == "/v1/models"):
			answer := `{"status":"ok"}`
			if path == "/v1/models" {
				answer = `{"object":"list","data":[{"id":"canned","object":"model"}]}`
			}
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(answer), answer)
			continue
		case method != http.MethodPost || !strings.HasSuffix(path, "/completions"):
			fmt.Fprint(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found")
			continue
		}
		key := req.key
		s.mu.Lock()
		if key == "" {
			key = "#" + strconv.Itoa(s.arrived)
		}
		s.arrived++
		s.mu.Unlock()
		// The status line and header go out with the first token, so that
		// a request costs the server no write of its own.
		st := &stream{key: key, fd: fd, tokens: s.tokens(body), chat: strings.HasSuffix(path, "/chat/completions"),
			ttft: s.o.TTFT, itl: s.o.ITL, arrived: arrived, done: done}
		s.em.add(st)
		if ok := <-st.done; !ok {
			return
		}
	}
}

// tokens reads how many tokens a request asks for: its max_tokens, found
// without decoding the whole body (a prompt of token ids can be large).
func (s *Server) tokens(body []byte) int {
	i := bytes.Index(body, []byte(`"max_tokens"`))
	if i < 0 {
		return s.o.Tokens
	}
	rest := bytes.TrimLeft(body[i+len(`"max_tokens"`):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return s.o.Tokens
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		if n = n*10 + int(c-'0'); n > 1<<20 {
			return 1 << 20
		}
	}
	if n == 0 {
		return s.o.Tokens
	}
	return n
}

// streamHead is the status line and header of a canned stream.
const streamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"

// event returns token k (1-based) of n as an SSE event in one HTTP chunk:
// continuous usage, so the client counts tokens exactly, the finish reason
// on the last, and [DONE] and the body's end after it.
func event(buf []byte, chat bool, k, n int) []byte {
	var ev [512]byte
	e := ev[:0]
	if chat {
		e = append(e, `data: {"id":"chatcmpl-canned","object":"chat.completion.chunk","model":"canned","choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":`...)
	} else {
		e = append(e, `data: {"id":"cmpl-canned","object":"text_completion","model":"canned","choices":[{"index":0,"text":" tok","finish_reason":`...)
	}
	if k == n {
		e = append(e, `"length"`...)
	} else {
		e = append(e, "null"...)
	}
	e = append(e, `}],"usage":{"prompt_tokens":4,"completion_tokens":`...)
	e = strconv.AppendInt(e, int64(k), 10)
	e = append(e, `,"total_tokens":`...)
	e = strconv.AppendInt(e, int64(k+4), 10)
	e = append(e, "}}\n\n"...)
	if k == n {
		e = append(e, "data: [DONE]\n\n"...)
	}
	buf = strconv.AppendInt(buf, int64(len(e)), 16)
	buf = append(buf, "\r\n"...)
	buf = append(buf, e...)
	buf = append(buf, "\r\n"...)
	if k == n {
		buf = append(buf, "0\r\n\r\n"...)
	}
	return buf
}
