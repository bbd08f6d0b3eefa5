package transport_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// Every test here runs once per transport this build has: the event loop
// and net/http must behave alike, down to the kinds and messages of
// failures.

func each(t *testing.T, f func(t *testing.T, kind transport.Kind)) {
	t.Helper()
	for _, kind := range transport.Kinds() {
		t.Run(strings.ReplaceAll(string(kind), "/", ""), func(t *testing.T) { f(t, kind) })
	}
}

func newTransport(t testing.TB, kind transport.Kind, url string, o transport.Options) transport.Transport {
	t.Helper()
	o.Kind = kind
	tr, err := transport.New(url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// completionEvent is one OpenAI completions chunk with a running usage.
func completionEvent(text string, n int, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return fmt.Sprintf(`data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":%q,"logprobs":null,"finish_reason":%s}],"usage":{"prompt_tokens":3,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", text, f, 3+n, n)
}

// exchange sends one completion request with prompt through tr to url
// and reads it into a record, as load.HTTP does.
func exchange(t *testing.T, tr transport.Transport, ctx context.Context, url, prompt string, now func() int64, wrap func(transport.Receiver) transport.Receiver) (*record.Record, transport.Exchange) {
	t.Helper()
	a, err := backend.Lookup("openai")
	if err != nil {
		t.Fatal(err)
	}
	req, err := a.BuildRequest(ctx, url, "", &backend.Request{Model: "m", Prompt: prompt, MaxTokens: 4,
		Headers: http.Header{"X-Test": {"yes"}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &record.Record{}
	var r transport.Receiver = a.NewReader(rec)
	if wrap != nil {
		r = wrap(r)
	}
	ex, err := tr.Do(ctx, req, now, r)
	if err != nil {
		backend.RecordError(rec, err, now())
		if nh := (*transport.NotHTTPError)(nil); errors.As(err, &nh) {
			rec.Error = record.ErrProtocol
		}
	}
	return rec, ex
}

// exchangeAtOnce sends n requests through tr to url at once and waits for
// them; each must succeed.
func exchangeAtOnce(t *testing.T, tr transport.Transport, url string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if rec, _ := exchange(t, tr, context.Background(), url, "hi", clock(), nil); !rec.OK() {
				t.Errorf("%s %s", rec.Error, rec.Msg)
			}
		}()
	}
	wg.Wait()
}

func clock() func() int64 {
	epoch := time.Now()
	return func() int64 { return int64(time.Since(epoch)) }
}

// A non-2xx answer's body gives the failure its message, as CheckStatus
// words it.
func TestStatusWithBody(t *testing.T) {
	long := strings.Repeat("é", 400)
	tests := []struct {
		name   string
		status int
		header map[string]string
		body   string
		kind   record.ErrorKind
		msg    string
	}{
		{"429 with an OpenAI error and Retry-After", 429, map[string]string{"Retry-After": "2"},
			`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			record.ErrRateLimited, "http 429 Too Many Requests: requests: Rate limit reached (code rate_limit_exceeded) (retry-after 2)"},
		{"503 with plain text", 503, nil, "upstream overloaded\n", record.ErrUnavailable, "http 503 Service Unavailable: upstream overloaded"},
		{"404 from FastAPI", 404, nil, `{"detail":"Not Found"}`, record.ErrHTTP, "http 404 Not Found: Not Found"},
		{"400 with an empty body", 400, nil, "", record.ErrHTTP, "http 400 Bad Request"},
		{"413 with a long body is cut", 413, nil, long, record.ErrHTTP, "http 413 Request Entity Too Large: " + strings.Repeat("é", 237) + "…"},
		// A redirect is the answer, on either transport: followed, its
		// hop would count in the latencies.
		{"307 to another path", 307, map[string]string{"Location": "/v2/completions"}, "", record.ErrHTTP,
			"http 307 Temporary Redirect (redirected to /v2/completions, which a benchmark does not follow: the extra hop would count in every latency; point it at the URL named)"},
		{"301 to https", 301, map[string]string{"Location": "https://example.com/v1/completions"}, "<html><head><title>301 Moved Permanently</title></head><body>" + long + "</body></html>\n", record.ErrHTTP,
			`http 301 Moved Permanently (redirected to https://example.com/v1/completions, which a benchmark does not follow: the extra hop would count in every latency; point it at the URL named)`},
	}
	each(t, func(t *testing.T, kind transport.Kind) {
		for _, tt := range tests {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			tr := newTransport(t, kind, srv.URL, transport.Options{})
			rec, _ := exchange(t, tr, context.Background(), srv.URL, "hi", clock(), nil)
			if rec.Status != tt.status || rec.Error != tt.kind || rec.Msg != tt.msg || len(rec.Chunks) != 0 {
				t.Errorf("%s: status %d %q %q,\nwant %d %q %q", tt.name, rec.Status, rec.Error, rec.Msg, tt.status, tt.kind, tt.msg)
			}
			srv.Close()
		}
	})
}

// Streams that break end as the same kinds of failure on both transports.
func TestStreamFailures(t *testing.T) {
	first := completionEvent("a", 1, "")
	hang := func(r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		timeout time.Duration
		cancel  bool // cancel once the first chunk is read
		kind    record.ErrorKind
		msg     string
		chunks  int
	}{
		{"server closes the stream early", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, first)
		}, 0, false, record.ErrTruncated, "stream ended after 1 events", 1},
		{"connection dropped mid-body", func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(first), first)
			buf.Flush()
			conn.Close()
		}, 0, false, record.ErrReset, "unexpected EOF", 1},
		{"timeout while streaming", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, first)
			w.(http.Flusher).Flush()
			hang(r)
		}, 300 * time.Millisecond, false, record.ErrTimeout, "reading the stream after", 1},
		{"interrupted while streaming", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, first)
			w.(http.Flusher).Flush()
			hang(r)
		}, 0, true, record.ErrCanceled, "context canceled", 1},
		{"timeout before any header", func(w http.ResponseWriter, r *http.Request) {
			hang(r)
		}, 200 * time.Millisecond, false, record.ErrTimeout, "context deadline exceeded", 0},
		{"a finish reason, then the connection drops: complete", func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			ev := completionEvent("a", 1, "stop")
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(ev), ev)
			buf.Flush()
			conn.Close()
		}, 0, false, record.ErrNone, "", 1},
		{"an error event mid-stream", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, first+`data: {"error":{"message":"engine died","type":"InternalServerError"}}`+"\n\n")
		}, 0, false, record.ErrHTTP, "InternalServerError: engine died", 1},
		{"a malformed event", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, first+"data: {not json\n\n")
		}, 0, false, record.ErrMalformed, "event 2", 1},
	}
	each(t, func(t *testing.T, kind transport.Kind) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				srv := httptest.NewServer(tt.handler)
				defer srv.Close()
				tr := newTransport(t, kind, srv.URL, transport.Options{})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if tt.timeout > 0 {
					ctx, cancel = context.WithTimeout(ctx, tt.timeout)
					defer cancel()
				}
				var wrap func(transport.Receiver) transport.Receiver
				if tt.cancel {
					wrap = func(r transport.Receiver) transport.Receiver { return &onFilled{Receiver: r, f: cancel} }
				}
				rec, _ := exchange(t, tr, ctx, srv.URL, "hi", clock(), wrap)
				if rec.Error != tt.kind || !strings.Contains(rec.Msg, tt.msg) || len(rec.Chunks) != tt.chunks || rec.End == 0 {
					t.Fatalf("error %q %q with %d chunks, end %d; want %q containing %q with %d", rec.Error, rec.Msg, len(rec.Chunks), rec.End, tt.kind, tt.msg, tt.chunks)
				}
			})
		}
	})
}

// A usage count that is valid JSON but no count, arriving split across
// reads, is left out on both transports: the answer succeeds on its
// chunks, and the reader's Stats names the count.
func TestBadCountOnTheWire(t *testing.T) {
	pieces := []string{
		completionEvent("a", 1, ""),
		`data: {"choices":[{"index":0,"text":"b","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":"1`,
		`2"}}` + "\n\n",
		"data: [DONE]\n\n",
	}
	each(t, func(t *testing.T, kind transport.Kind) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			for _, p := range pieces {
				io.WriteString(w, p)
				w.(http.Flusher).Flush()
				time.Sleep(5 * time.Millisecond) // a read each
			}
		}))
		defer srv.Close()
		tr := newTransport(t, kind, srv.URL, transport.Options{})
		var rd *backend.Reader
		rec, _ := exchange(t, tr, context.Background(), srv.URL, "hi", clock(), func(r transport.Receiver) transport.Receiver {
			rd = r.(*backend.Reader)
			return r
		})
		if !rec.OK() || rec.OutputTokens != 2 || rec.TokenSource != record.SourceChunks || rec.InputTokens != 3 {
			t.Fatalf("%s %q: %d output tokens (%s), %d input; want 2 from the chunks, and 3", rec.Error, rec.Msg, rec.OutputTokens, rec.TokenSource, rec.InputTokens)
		}
		if st := rd.Stats(); st.BadCount != `usage.completion_tokens "12"` || st.UsageTokens != 1 {
			t.Errorf("stats %+v: want the running count 1 kept and usage.completion_tokens \"12\" named", st)
		}
	})
}

// onFilled calls f after the first Filled.
type onFilled struct {
	transport.Receiver
	once sync.Once
	f    func()
}

// ReadAt passes the read's time on (see transport.ReadTimer).
func (o *onFilled) ReadAt(t int64) {
	if rt, ok := o.Receiver.(transport.ReadTimer); ok {
		rt.ReadAt(t)
	}
}

func (o *onFilled) Filled(n int, at int64) bool {
	more := o.Receiver.Filled(n, at)
	o.once.Do(o.f)
	return more
}

// acking tells the server, after each Filled, how many body bytes the
// client has taken in, so that the server writes the next event only
// once the previous one was timestamped.
type acking struct {
	transport.Receiver
	n   int
	ack chan<- int
}

func (a *acking) Filled(n int, at int64) bool {
	more := a.Receiver.Filled(n, at)
	a.n += n
	a.ack <- a.n
	return more
}

// Each chunk's time is taken after the server wrote it and before it
// wrote the next: the server writes event i+1 only once the client has
// read event i (after its timestamp) and a gap more, so the bounds hold
// on any machine, however loaded.
func TestArrivalTimes(t *testing.T) {
	const n, gap = 5, 20 * time.Millisecond
	each(t, func(t *testing.T, kind transport.Kind) {
		now := clock()
		events := make([]string, n, n+1)
		for i := range events {
			finish := ""
			if i == n-1 {
				finish = "length"
			}
			events[i] = completionEvent(fmt.Sprintf(" t%d", i), i+1, finish)
		}
		events = append(events, "data: [DONE]\n\n")
		ack := make(chan int, 64)
		written := make([]atomic.Int64, n+1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fl := w.(http.Flusher)
			total := 0
			for i, ev := range events {
				if i > 0 {
					for got := 0; got < total; {
						select {
						case got = <-ack:
						case <-r.Context().Done():
							return
						}
					}
					time.Sleep(gap)
				}
				written[i].Store(now())
				fmt.Fprint(w, ev)
				fl.Flush()
				total += len(ev)
			}
		}))
		defer srv.Close()
		tr := newTransport(t, kind, srv.URL, transport.Options{})
		rec, _ := exchange(t, tr, context.Background(), srv.URL, "hi", now,
			func(r transport.Receiver) transport.Receiver { return &acking{Receiver: r, ack: ack} })
		if !rec.OK() || len(rec.Chunks) != n {
			t.Fatalf("record %s %s, %d chunks", rec.Error, rec.Msg, len(rec.Chunks))
		}
		for i, c := range rec.Chunks {
			lo, hi := written[i].Load(), written[i+1].Load()
			if c.At < lo || c.At >= hi {
				t.Errorf("chunk %d at %v, outside [written %v, next written %v)", i, time.Duration(c.At), time.Duration(lo), time.Duration(hi))
			}
		}
	})
}

// Sequential requests share one kept-alive connection.
func TestReusesConnections(t *testing.T) {
	each(t, func(t *testing.T, kind transport.Kind) {
		var conns atomic.Int32
		body := completionEvent("a", 1, "") + completionEvent("b", 2, "stop") + "data: [DONE]\n\n"
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, body)
		}))
		srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}
		srv.Start()
		defer srv.Close()
		tr := newTransport(t, kind, srv.URL, transport.Options{Cold: true})
		for i := range 3 {
			rec, _ := exchange(t, tr, context.Background(), srv.URL, "hi", clock(), nil)
			if !rec.OK() || rec.OutputTokens != 2 {
				t.Fatalf("request %d: %+v", i, rec)
			}
		}
		if got := conns.Load(); got != 1 {
			t.Fatalf("%d connections for 3 sequential requests, want 1", got)
		}
		if s := tr.Stats(); s.Late != 1 || s.Warmed != 0 || s.DialAhead {
			t.Errorf("stats %+v: cold, one connection dialled when due", s)
		}
	})
}

// The server gets the request net/http would send, whatever the size of
// its body: a request larger than the socket's buffer goes out as the
// server reads it.
func TestRequestOnTheWire(t *testing.T) {
	each(t, func(t *testing.T, kind transport.Kind) {
		type seen struct {
			method, path, host, test, ctype, agent string
			sum                                    [32]byte
			n                                      int
		}
		got := make(chan seen, 1)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got <- seen{r.Method, r.URL.Path, r.Host, r.Header.Get("X-Test"), r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), sha256.Sum256(b), len(b)}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, completionEvent("a", 1, "stop")+"data: [DONE]\n\n")
		}))
		defer srv.Close()
		tr := newTransport(t, kind, srv.URL, transport.Options{})
		a, _ := backend.Lookup("openai")
		for _, size := range []int{1, 100 << 10, 8 << 20} {
			prompt := strings.Repeat("p", size)
			req, err := a.BuildRequest(context.Background(), srv.URL, "", &backend.Request{Model: "m", Prompt: prompt, MaxTokens: 4,
				Headers: http.Header{"X-Test": {"yes"}}})
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			b, _ := req.GetBody()
			io.Copy(&want, b)
			rec, _ := exchange(t, tr, context.Background(), srv.URL, prompt, clock(), nil)
			s := <-got
			if !rec.OK() || s.method != http.MethodPost || s.path != "/v1/completions" || s.test != "yes" ||
				s.ctype != "application/json" || s.agent != "Go-http-client/1.1" || s.n != want.Len() || s.sum != sha256.Sum256(want.Bytes()) {
				t.Errorf("a %d-byte prompt: record %s %s; server got %s %s %q %q %q, %d bytes", size, rec.Error, rec.Msg, s.method, s.path, s.test, s.ctype, s.agent, s.n)
			}
		}
	})
}

// rawServer answers every request on a connection with reply(n), n
// counting the connection's requests from 0, and closes the connection
// when reply says so. It counts connections and requests.
type rawServer struct {
	ln    net.Listener
	conns atomic.Int32
	reqs  atomic.Int32
	wg    sync.WaitGroup
}

func newRawServer(t *testing.T, reply func(n int) (answer string, close bool)) *rawServer {
	t.Helper()
	return newRequestServer(t, func(n int, _ *http.Request) (string, bool) { return reply(n) })
}

// newRequestServer is newRawServer with reply given the request too, its
// body unread.
func newRequestServer(t *testing.T, reply func(n int, req *http.Request) (answer string, close bool)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	var mu sync.Mutex // guards open
	var open []net.Conn
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			mu.Lock()
			open = append(open, c)
			mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				br := bufio.NewReader(c)
				for n := 0; ; n++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					answer, close := reply(n, req)
					io.Copy(io.Discard, req.Body)
					s.reqs.Add(1)
					io.WriteString(c, answer)
					if close {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() }

// Bodies framed every way HTTP/1.1 frames them read alike.
func TestBodyFraming(t *testing.T) {
	stream := completionEvent("a", 1, "") + completionEvent("b", 2, "length") + "data: [DONE]\n\n"
	var chunked strings.Builder
	for rest := stream; len(rest) > 0; {
		n := min(len(rest), 37) // chunks that cut events anywhere
		fmt.Fprintf(&chunked, "%x\r\n%s\r\n", n, rest[:n])
		rest = rest[n:]
	}
	chunked.WriteString("0\r\n\r\n")
	tests := []struct {
		name   string
		answer string
		close  bool
	}{
		{"content length", fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(stream), stream), false},
		{"chunks across events", "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked.String(), false},
		{"until the close", "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + stream, true},
		{"after Early Hints", "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" +
			fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(stream), stream), false},
	}
	each(t, func(t *testing.T, kind transport.Kind) {
		for _, tt := range tests {
			srv := newRawServer(t, func(int) (string, bool) { return tt.answer, tt.close })
			tr := newTransport(t, kind, srv.url(), transport.Options{})
			for i := range 2 {
				rec, ex := exchange(t, tr, context.Background(), srv.url(), "hi", clock(), nil)
				if !rec.OK() || rec.OutputTokens != 2 || len(rec.Chunks) != 2 || ex.Retried {
					t.Errorf("%s, request %d: %s %s, %d tokens in %d chunks, retried %v", tt.name, i, rec.Error, rec.Msg, rec.OutputTokens, len(rec.Chunks), ex.Retried)
				}
			}
			wantConns := int32(1)
			if tt.close {
				wantConns = 2
			}
			if c := srv.conns.Load(); c != wantConns {
				t.Errorf("%s: %d connections for 2 requests, want %d", tt.name, c, wantConns)
			}
		}
	})
}

// A long stream arriving faster than it is read comes whole: the socket
// holds what the reader has not taken, and each read takes what fits.
func TestLongStream(t *testing.T) {
	var b strings.Builder
	const n = 5000
	for i := 1; i <= n; i++ {
		finish := ""
		if i == n {
			finish = "length"
		}
		b.WriteString(completionEvent(" tok", i, finish))
	}
	b.WriteString("data: [DONE]\n\n")
	body := b.String()
	each(t, func(t *testing.T, kind transport.Kind) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			for rest := body; len(rest) > 0; {
				k := min(len(rest), 1000)
				io.WriteString(w, rest[:k])
				w.(http.Flusher).Flush()
				rest = rest[k:]
			}
		}))
		defer srv.Close()
		tr := newTransport(t, kind, srv.URL, transport.Options{})
		rec, _ := exchange(t, tr, context.Background(), srv.URL, "hi", clock(), nil)
		if !rec.OK() || rec.OutputTokens != n || len(rec.Chunks) != n {
			t.Errorf("%s %s: %d tokens in %d chunks, want %d", rec.Error, rec.Msg, rec.OutputTokens, len(rec.Chunks), n)
		}
	})
}
