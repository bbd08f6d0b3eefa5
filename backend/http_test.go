package backend

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// completionEvent is one OpenAI completions chunk with a running usage.
func completionEvent(text string, n int, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return fmt.Sprintf(`data: {"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":%q,"logprobs":null,"finish_reason":%s}],"usage":{"prompt_tokens":3,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", text, f, 3+n, n)
}

// post sends a streaming request for one completion to srv and reads it.
func post(t *testing.T, client *http.Client, ctx context.Context, url string, now func() int64) (*record.Record, Stats) {
	t.Helper()
	return postTo(t, mustLookup(t, "openai"), client, ctx, url, now)
}

// postTo sends a streaming request of a's protocol for one completion to
// url and reads it.
func postTo(t *testing.T, a *Adapter, client *http.Client, ctx context.Context, url string, now func() int64) (*record.Record, Stats) {
	t.Helper()
	req, err := a.BuildRequest(ctx, url, "", &Request{Model: "m", Prompt: "hi", MaxTokens: 4})
	if err != nil {
		t.Fatal(err)
	}
	rec := &record.Record{}
	resp, err := client.Do(req)
	if err != nil {
		RecordError(rec, err, now())
		return rec, Stats{UsageTokens: -1}
	}
	return rec, a.ReadStream(resp, now, rec)
}

func TestReadStreamArrivalTimes(t *testing.T) {
	// The server writes each event only after the client has read the one
	// before, then waits gap more. So chunk i must arrive after event i was
	// written and before event i+1 was, and consecutive chunks lie at least
	// gap apart: bounds that hold on any machine, however loaded.
	const n, gap = 5, 20 * time.Millisecond
	epoch := time.Now()
	since := func() int64 { return int64(time.Since(epoch)) }
	events := make([]string, n, n+1)
	for i := range events {
		finish := ""
		if i == n-1 {
			finish = "length"
		}
		events[i] = completionEvent(fmt.Sprintf(" t%d", i), i+1, finish)
	}
	events = append(events, "data: [DONE]\n\n")
	ack := make(chan int, n)
	written := make([]atomic.Int64, n+1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i, ev := range events {
			if i > 0 {
				select {
				case <-ack:
				case <-r.Context().Done():
					return
				}
				time.Sleep(gap)
			}
			written[i].Store(since())
			fmt.Fprint(w, ev)
			fl.Flush()
		}
	}))
	defer srv.Close()

	// boundaries[i] is the body length once event i is complete; now acks
	// every event the bytes read so far complete, after taking its reading,
	// so an ack never precedes the time it vouches for.
	var boundaries []int
	total := 0
	for _, ev := range events[:n] {
		total += len(ev)
		boundaries = append(boundaries, total)
	}
	a := mustLookup(t, "openai")
	req, err := a.BuildRequest(context.Background(), srv.URL, "", &Request{Prompt: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingBody{rc: resp.Body}
	resp.Body = counted
	next := 0
	now := func() int64 {
		at := since()
		for next < n && counted.n >= boundaries[next] {
			ack <- next
			next++
		}
		return at
	}
	rec := &record.Record{}
	st := a.ReadStream(resp, now, rec)
	if !rec.OK() || len(rec.Chunks) != n || st.Events != n+1 {
		t.Fatalf("record %+v stats %+v, want %d chunks and success", rec, st, n)
	}
	for i, c := range rec.Chunks {
		lo, hi := written[i].Load(), written[i+1].Load()
		if c.At < lo || c.At >= hi {
			t.Errorf("chunk %d at %v, outside [written %v, next written %v)", i,
				time.Duration(c.At), time.Duration(lo), time.Duration(hi))
		}
		if i > 0 && c.At-rec.Chunks[i-1].At < int64(gap) {
			t.Errorf("chunks %d and %d only %v apart, want ≥ %v", i-1, i, time.Duration(c.At-rec.Chunks[i-1].At), gap)
		}
	}
	// The end is the arrival of [DONE].
	if rec.End < written[n].Load() {
		t.Errorf("end %v before [DONE] was written at %v", time.Duration(rec.End), time.Duration(written[n].Load()))
	}
}

// countingBody counts the bytes read through it.
type countingBody struct {
	rc interface {
		Read([]byte) (int, error)
		Close() error
	}
	n int
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.n += n
	return n, err
}

func (b *countingBody) Close() error { return b.rc.Close() }

func TestReadStreamHTTPStatus(t *testing.T) {
	long := strings.Repeat("é", 400) // 800 bytes: more than MaxErrorBody
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
		{"503 with plain text", 503, nil, "upstream overloaded\n",
			record.ErrUnavailable, "http 503 Service Unavailable: upstream overloaded"},
		{"500 with vLLM's flat error", 500, nil, `{"object":"error","message":"engine dead","type":"InternalServerError","param":null,"code":500}`,
			record.ErrHTTP, "http 500 Internal Server Error: engine dead"},
		{"404 from FastAPI", 404, nil, `{"detail":"Not Found"}`,
			record.ErrHTTP, "http 404 Not Found: Not Found"},
		{"400 with an empty body", 400, nil, "",
			record.ErrHTTP, "http 400 Bad Request"},
		{"413 with a long body is cut", 413, nil, long,
			record.ErrHTTP, "http 413 Request Entity Too Large: " + strings.Repeat("é", 237) + "…"},
		{"502 with HTML and control characters", 502, nil, "<html>\r\n<b>Bad\tgateway</b>\x00</html>",
			record.ErrHTTP, "http 502 Bad Gateway: <html> <b>Bad gateway</b> </html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				fmt.Fprint(w, tt.body)
			}))
			defer srv.Close()
			rec, st := post(t, srv.Client(), context.Background(), srv.URL, counter())
			if rec.Status != tt.status || rec.Error != tt.kind || rec.Msg != tt.msg {
				t.Fatalf("status %d %q %q,\nwant %d %q %q", rec.Status, rec.Error, rec.Msg, tt.status, tt.kind, tt.msg)
			}
			if len(rec.Msg) > maxMsg || rec.End != 1 || len(rec.Chunks) != 0 || st.Events != 0 {
				t.Fatalf("msg %d bytes, end %d, %d chunks, %d events", len(rec.Msg), rec.End, len(rec.Chunks), st.Events)
			}
		})
	}
}

func TestReadStreamHTTPFailures(t *testing.T) {
	first := completionEvent("a", 1, "")
	// hang blocks a handler until the client goes away, or for a few
	// seconds at most. The server notices a closed connection only once
	// the request body has been read.
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
		cancel  bool // cancel the request once the first chunk is read
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
		{"client timeout while streaming", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, first)
			w.(http.Flusher).Flush()
			hang(r)
		}, 300 * time.Millisecond, false, record.ErrTimeout, "reading the stream after", 1},
		{"run interrupted while streaming", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, first)
			w.(http.Flusher).Flush()
			hang(r)
		}, 0, true, record.ErrCanceled, "context canceled", 1},
		{"client timeout before any header", func(w http.ResponseWriter, r *http.Request) {
			hang(r)
		}, 200 * time.Millisecond, false, record.ErrTimeout, "Client.Timeout exceeded", 0},
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			client := srv.Client()
			client.Timeout = tt.timeout
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			reads := 0
			now := func() int64 {
				if reads++; tt.cancel && reads == 1 {
					cancel()
				}
				return int64(reads)
			}
			rec, _ := post(t, client, ctx, srv.URL, now)
			if rec.Error != tt.kind || !strings.Contains(rec.Msg, tt.msg) || len(rec.Chunks) != tt.chunks {
				t.Fatalf("error %q %q with %d chunks, want %q containing %q with %d", rec.Error, rec.Msg, len(rec.Chunks), tt.kind, tt.msg, tt.chunks)
			}
			if rec.End == 0 {
				t.Fatal("end not set")
			}
		})
	}
}

func TestRecordErrorConnect(t *testing.T) {
	// A port nobody listens on: the dial is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	rec, _ := post(t, &http.Client{Timeout: 5 * time.Second}, context.Background(), "http://"+addr, counter())
	if rec.Error != record.ErrConnect || !strings.Contains(rec.Msg, "connection refused") || rec.End != 1 || rec.Status != 0 {
		t.Fatalf("record %+v, want a connect failure at 1", rec)
	}
}

func TestReadStreamReusesConnections(t *testing.T) {
	// Reading past [DONE] to the end lets the client reuse its connection,
	// so later requests do not pay a new handshake inside their TTFT.
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
	for i := range 3 {
		rec, _ := post(t, srv.Client(), context.Background(), srv.URL, counter())
		if !rec.OK() || rec.OutputTokens != 2 {
			t.Fatalf("request %d: %+v", i, rec)
		}
	}
	if got := conns.Load(); got != 1 {
		t.Fatalf("%d connections for 3 sequential requests, want 1", got)
	}
}

func TestBuildRequestOnTheWire(t *testing.T) {
	// What the server receives: method, path, headers and body.
	var got *http.Request
	var body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		sc := bufio.NewScanner(r.Body)
		for sc.Scan() {
			body += sc.Text()
		}
		fmt.Fprint(w, `{"response":"a","done":false}`+"\n"+`{"response":"","done":true,"eval_count":1}`+"\n")
	}))
	defer srv.Close()
	a := mustLookup(t, "ollama")
	h := http.Header{"Authorization": {"Bearer k"}}
	req, err := a.BuildRequest(context.Background(), srv.URL+"/", "", &Request{Model: "llama3.2", Prompt: "hi", MaxTokens: 8, Headers: h})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rec := &record.Record{}
	a.ReadStream(resp, counter(), rec)
	want := `{"model":"llama3.2","options":{"num_predict":8},"prompt":"hi","stream":true}`
	if got.Method != http.MethodPost || got.URL.Path != "/api/generate" || body != want ||
		got.Header.Get("Authorization") != "Bearer k" || got.Header.Get("Accept") != "application/x-ndjson" ||
		got.Header.Get("Accept-Encoding") != "identity" || got.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("server got %s %s %v %s", got.Method, got.URL, got.Header, body)
	}
	if !rec.OK() || rec.OutputTokens != 1 {
		t.Fatalf("record %+v", rec)
	}
}
