package load

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// closingServer is a server that promises keep-alive and breaks it, as
// llama.cpp's server does after every streamed response: it answers the
// first request of each connection in full, with "Keep-Alive", and then,
// when the next request arrives on that connection, reads it and closes
// the connection (second: "close", a failure before any response byte)
// or writes the start of a status line first (second: "partial", a
// failure after a response byte), or stops listening before it closes the
// connection (second: "gone", a server killed while it held the request,
// whose port then refuses connections). The failure comes when the request has
// been sent, never before, so the client meets it every time.
type closingServer struct {
	ln     net.Listener
	second string

	mu    sync.Mutex // guards conns, reqs and open
	conns int        // connections accepted
	reqs  int        // requests read
	open  []net.Conn // closed by the test's cleanup
	wg    sync.WaitGroup
}

func newClosingServer(t *testing.T, second string) *closingServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &closingServer{ln: ln, second: second}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns++
			s.open = append(s.open, c)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.open {
			c.Close() // a connection the client keeps idle in its pool
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *closingServer) url() string { return "http://" + s.ln.Addr().String() }

// stream is a complete OpenAI completions stream of two tokens.
const stream = "data: {\"choices\":[{\"index\":0,\"text\":\" a\"}]}\n\n" +
	"data: {\"choices\":[{\"index\":0,\"text\":\" b\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n" +
	"data: [DONE]\n\n"

func (s *closingServer) serve(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	for n := 0; ; n++ {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		s.mu.Lock()
		s.reqs++
		s.mu.Unlock()
		if n > 0 {
			switch s.second {
			case "partial":
				io.WriteString(c, "HTTP/1.1 200")
			case "gone":
				s.ln.Close()
			}
			return
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nKeep-Alive: timeout=5, max=100\r\nContent-Length: %d\r\n\r\n%s", len(stream), stream)
	}
}

func (s *closingServer) counts() (conns, reqs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns, s.reqs
}

// doer returns an HTTP Doer for the server's completions.
func closingDoer(t *testing.T, kind transport.Kind, url string, o ClientOptions) *HTTP {
	t.Helper()
	a, err := backend.Lookup("openai")
	if err != nil {
		t.Fatal(err)
	}
	return &HTTP{Transport: newTransport(t, kind, url, o), Adapter: a, BaseURL: url, Timeout: 5 * time.Second,
		Request: func(int64) (backend.Request, int) { return backend.Request{Prompt: "x", MaxTokens: 2}, 3 }}
}

func TestRetryOnAClosedKeptAliveConnection(t *testing.T) {
	eachTransport(t, testRetryOnAClosedKeptAliveConnection)
}

func testRetryOnAClosedKeptAliveConnection(t *testing.T, kind transport.Kind) {
	// Cold connections: every connection the server counts is one a
	// request opened.
	tests := []struct {
		name    string
		second  string // what the server does with a second request on a connection
		opts    ClientOptions
		retries []int              // per request
		kinds   []record.ErrorKind // per request
		conns   int                // connections the server saw
		reqs    int                // requests it read
	}{
		// Request 1 opens a connection; request 2 reuses it, the server
		// closes it unanswered, and it is sent again on a new one, which
		// the retry closes after use; request 3 finds the pool empty.
		{"closed before any byte", "close", ClientOptions{Conns: 1, Cold: true}, []int{0, 1, 0}, []record.ErrorKind{"", "", ""}, 3, 4},
		// Without keep-alive no request meets a stale connection.
		{"keep-alive off", "close", ClientOptions{Conns: 1, NoKeepAlive: true, Cold: true}, []int{0, 0, 0}, []record.ErrorKind{"", "", ""}, 3, 3},
		// A request that got a response byte is never sent again: the
		// server may have acted on it.
		{"closed after a byte", "partial", ClientOptions{Conns: 1, Cold: true}, []int{0, 0, 0}, []record.ErrorKind{"", record.ErrReset, ""}, 2, 3},
		// A server that took request 2 and went away: the retry is
		// refused, yet request 2 reached a server that closed its
		// connection unanswered (a reset), which "connect" would deny;
		// request 3 is refused.
		{"closed, then refusing", "gone", ClientOptions{Conns: 1, Cold: true}, []int{0, 1, 0}, []record.ErrorKind{"", record.ErrReset, record.ErrConnect}, 1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newClosingServer(t, tt.second)
			d := closingDoer(t, kind, srv.url(), tt.opts)
			epoch := time.Now()
			now := func() int64 { return int64(time.Since(epoch)) }
			for i := range 3 {
				var rec record.Record
				rec.Scheduled = now()
				d.Do(context.Background(), int64(i), &rec, now)
				if rec.Retries != tt.retries[i] || rec.Error != tt.kinds[i] {
					t.Errorf("request %d: %d retries, error %q %s; want %d, %q", i, rec.Retries, rec.Error, rec.Msg, tt.retries[i], tt.kinds[i])
				}
				if rec.OK() && (rec.OutputTokens != 2 || rec.Sent < rec.Scheduled || rec.Chunks[0].At < rec.Sent) {
					t.Errorf("request %d: %+v", i, rec)
				}
			}
			want := 0
			for _, r := range tt.retries {
				want += r
			}
			if got := d.Retried(); got != int64(want) {
				t.Errorf("Retried() = %d, want %d", got, want)
			}
			if conns, reqs := srv.counts(); conns != tt.conns || reqs != tt.reqs {
				t.Errorf("server saw %d connections and %d requests, want %d and %d", conns, reqs, tt.conns, tt.reqs)
			}
		})
	}
}

// A request cancelled while failing is not sent again.
func TestNoRetryWhenCancelled(t *testing.T) {
	eachTransport(t, testNoRetryWhenCancelled)
}

func testNoRetryWhenCancelled(t *testing.T, kind transport.Kind) {
	srv := newClosingServer(t, "close")
	d := closingDoer(t, kind, srv.url(), ClientOptions{Conns: 1, Cold: true})
	now := func() int64 { return 1 }
	var rec record.Record
	d.Do(context.Background(), 0, &rec, now)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec = record.Record{}
	d.Do(ctx, 1, &rec, now)
	if rec.Retries != 0 || rec.Error != record.ErrCanceled {
		t.Errorf("cancelled request: %d retries, %q %s", rec.Retries, rec.Error, rec.Msg)
	}
}
