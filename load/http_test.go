package load

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// step is one event a scripted server sends, after a pause.
type step struct {
	after  time.Duration
	tokens int    // content tokens it carries (0: role-only or usage-only)
	raw    string // sent verbatim instead, when set
}

// emissions records when a scripted server wrote each token-bearing event,
// per request (by its X-Seq header), in wall-clock time.
type emissions struct {
	mu sync.Mutex // guards at
	at map[string][]time.Time
}

func (e *emissions) add(seq string, t time.Time) {
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.at == nil {
		e.at = map[string][]time.Time{}
	}
	e.at[seq] = append(e.at[seq], t)
}

// scripted serves an OpenAI chat stream following a script, with continuous
// usage so multi-token chunks are counted exactly, and notes when it wrote
// each token-bearing event.
func scripted(script []step, em *emissions) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":7,"completion_tokens":0,"total_tokens":7}}`+"\n\n")
		fl.Flush()
		total := 0
		for i, s := range script {
			time.Sleep(s.after)
			if s.raw != "" {
				fmt.Fprint(w, s.raw)
				fl.Flush()
				continue
			}
			total += s.tokens
			fin := "null"
			if i == len(script)-1 {
				fin = `"length"`
			}
			fmt.Fprintf(w, `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"%s"},"finish_reason":%s}],"usage":{"prompt_tokens":7,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n",
				strings.Repeat(" tok", s.tokens), fin, total, total+7)
			em.add(r.Header.Get("X-Seq"), time.Now())
			fl.Flush()
		}
		fmt.Fprintf(w, `data: {"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", total, total+7)
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// runScripted runs streams requests at t=0 against h and returns the
// records and the run's epoch. Connections are opened by a first round that
// is not returned, as a benchmark's warm-up would.
func runScripted(t *testing.T, kind transport.Kind, h http.Handler, streams int) ([]*record.Record, time.Time) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	a, err := backend.Lookup("openai-chat")
	if err != nil {
		t.Fatal(err)
	}
	round := "warm"
	d := &HTTP{
		Transport: newTransport(t, kind, srv.URL, ClientOptions{Conns: streams}), Adapter: a, BaseURL: srv.URL,
		Request: func(seq int64) (backend.Request, int) {
			return backend.Request{Model: "m", Messages: []backend.Message{{Role: "user", Content: "hi"}}, MaxTokens: 16,
				Headers: http.Header{"X-Seq": {fmt.Sprint(round, seq)}}}, 7
		},
		Timeout: 10 * time.Second,
	}
	offs := make([]time.Duration, streams)
	var recs []*record.Record
	var res Result
	for _, round = range []string{"warm", ""} {
		out := make(chan *record.Record, streams)
		res, err = Run(t.Context(), Plan{Offsets: offs}, d, out)
		if err != nil {
			t.Fatal(err)
		}
		close(out)
		recs = recs[:0]
		for r := range out {
			recs = append(recs, r)
		}
	}
	return recs, res.Epoch
}

const tol = 5 * time.Millisecond

func near(got int64, want time.Duration) bool {
	d := time.Duration(got) - want
	return d > -tol && d < tol
}

func TestHTTPMeasuresTheTrueSchedule(t *testing.T) {
	eachTransport(t, testMeasuresTheTrueSchedule)
}

func testMeasuresTheTrueSchedule(t *testing.T, kind transport.Kind) {
	// TTFT 60 ms after a role-only chunk, then gaps of 20, 100, 40 ms; the
	// third content chunk carries 3 tokens.
	script := []step{{after: 60 * time.Millisecond, tokens: 1}, {after: 20 * time.Millisecond, tokens: 1},
		{after: 100 * time.Millisecond, tokens: 3}, {after: 40 * time.Millisecond, tokens: 1}}
	for _, streams := range []int{1, 64} {
		t.Run(fmt.Sprint(streams, " streams"), func(t *testing.T) {
			if raceEnabled && streams > 1 {
				t.Skip("timing comparison at 64 streams: the race detector slows the client several times over")
			}
			// A loaded machine (other packages testing at once) can stall
			// the whole process for milliseconds, and every stream with
			// it: a run whose timing misses is measured again, up to three
			// times. A systematic error misses every time.
			var problems []string
			for attempt := 1; attempt <= 3; attempt++ {
				em := &emissions{}
				recs, epoch := runScripted(t, kind, scripted(script, em), streams)
				checkScriptedRecords(t, recs, streams)
				if problems = timingProblems(recs, em, epoch); len(problems) == 0 {
					return
				}
				t.Logf("attempt %d: %d timing problems, the first: %s", attempt, len(problems), problems[0])
			}
			for _, p := range problems[:min(len(problems), 10)] {
				t.Error(p)
			}
		})
	}
}

// checkScriptedRecords checks what timing cannot change: one successful
// record per stream with the script's chunks and token counts, and no
// first token before the script's 60 ms.
func checkScriptedRecords(t *testing.T, recs []*record.Record, streams int) {
	t.Helper()
	if len(recs) != streams {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs {
		if !r.OK() {
			t.Fatalf("seq %d failed: %s %s", r.Seq, r.Error, r.Msg)
		}
		if len(r.Chunks) != 4 || r.OutputTokens != 6 || r.TokenSource != record.SourceUsage || r.InputTokens != 7 {
			t.Fatalf("seq %d: %d chunks, %d tokens from %q, input %d", r.Seq, len(r.Chunks), r.OutputTokens, r.TokenSource, r.InputTokens)
		}
		if r.Chunks[2].Tokens != 3 {
			t.Errorf("multi-token chunk carries %d", r.Chunks[2].Tokens)
		}
		// The role-only chunk written at once is not the first token: the
		// first token came no sooner than the script's 60 ms.
		if ttft := r.Chunks[0].At - r.Scheduled; ttft < int64(60*time.Millisecond) {
			t.Errorf("seq %d: TTFT %v is before the first token was due", r.Seq, time.Duration(ttft))
		}
	}
}

// timingProblems compares each record with when the server wrote its
// events, on the run's clock: every chunk must be seen within 5·tol of its
// write and 95 % within tol; TTFT, TPOT and e2e likewise against the
// server's values. It returns what missed.
func timingProblems(recs []*record.Record, em *emissions, epoch time.Time) []string {
	var out []string
	chunks, late := 0, 0
	measured, off := 0, 0 // TTFT, TPOT and e2e values; those beyond tol
	within := func(what string, seq, got int64, want time.Duration) {
		measured++
		d := time.Duration(got) - want
		if !near(got, want) {
			off++
		}
		if d <= -5*tol || d >= 5*tol {
			out = append(out, fmt.Sprintf("seq %d: %s %v, server says %v", seq, what, time.Duration(got), want))
		}
	}
	for _, r := range recs {
		sent := em.at[fmt.Sprint(r.Seq)]
		if len(sent) != len(r.Chunks) {
			out = append(out, fmt.Sprintf("seq %d: server sent %d events, client saw %d chunks", r.Seq, len(sent), len(r.Chunks)))
			continue
		}
		for i, c := range r.Chunks {
			lag := time.Duration(c.At - int64(sent[i].Sub(epoch)))
			if lag < -time.Millisecond || lag > 5*tol {
				out = append(out, fmt.Sprintf("seq %d chunk %d: seen %v after the server wrote it", r.Seq, i, lag))
			}
			chunks++
			if lag > tol {
				late++
			}
		}
		e1, eK := int64(sent[0].Sub(epoch)), int64(sent[3].Sub(epoch))
		within("TTFT", r.Seq, r.Chunks[0].At-r.Scheduled, time.Duration(e1-r.Scheduled))
		within("TPOT", r.Seq, (r.Chunks[3].At-r.Chunks[0].At)/5, time.Duration((eK-e1)/5))
		within("e2e", r.Seq, r.Chunks[3].At-r.Scheduled, time.Duration(eK-r.Scheduled))
	}
	if late*20 > chunks {
		out = append(out, fmt.Sprintf("%d of %d chunks seen more than %v after the server wrote them", late, chunks, tol))
	}
	if off*20 > measured {
		out = append(out, fmt.Sprintf("%d of %d TTFT, TPOT and e2e values more than %v from the server's", off, measured, tol))
	}
	return out
}

func TestHTTPOneTokenAndMidStreamError(t *testing.T) {
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		recs, _ := runScripted(t, kind, scripted([]step{{after: 30 * time.Millisecond, tokens: 1}}, nil), 1)
		if r := recs[0]; !r.OK() || len(r.Chunks) != 1 || r.OutputTokens != 1 || r.Finish != "length" {
			t.Errorf("N=1: %+v", r)
		}
		bad := []step{{after: 10 * time.Millisecond, tokens: 2},
			{after: 10 * time.Millisecond, raw: `data: {"error":{"message":"engine died","type":"InternalServerError","code":500}}` + "\n\n"}}
		recs, _ = runScripted(t, kind, scripted(bad, nil), 1)
		if r := recs[0]; r.Error != record.ErrHTTP || !strings.Contains(r.Msg, "engine died (code 500)") || len(r.Chunks) != 1 {
			t.Errorf("mid-stream error: %+v", r)
		}
	})
}

func TestHTTPFailuresBecomeRecords(t *testing.T) {
	eachTransport(t, testFailuresBecomeRecords)
}

func testFailuresBecomeRecords(t *testing.T, kind transport.Kind) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		timeout time.Duration
		want    record.ErrorKind
		status  int
	}{
		{"rate limited", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "slow down", 429) }, 0, record.ErrRateLimited, 429},
		{"unavailable", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "overloaded", 503) }, 0, record.ErrUnavailable, 503},
		{"server error", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, 0, record.ErrHTTP, 500},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, 100 * time.Millisecond, record.ErrTimeout, 200},
		{"reset", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"choices":[{"index":0,"text":" a"}]}`+"\n\n")
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}, 0, record.ErrReset, 200},
		{"truncated", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":" a"}}]}`+"\n\n")
		}, 0, record.ErrTruncated, 200},
		{"malformed", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" a\"}}]}\n\ndata: {not json\n\n")
		}, 0, record.ErrMalformed, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			a, _ := backend.Lookup("openai-chat")
			d := &HTTP{Transport: newTransport(t, kind, srv.URL, ClientOptions{Conns: 1}), Adapter: a, BaseURL: srv.URL, Timeout: tc.timeout,
				Request: func(int64) (backend.Request, int) {
					return backend.Request{Messages: []backend.Message{{Role: "user", Content: "x"}}}, 1
				}}
			var rec record.Record
			epoch := time.Now()
			d.Do(context.Background(), 0, &rec, func() int64 { return int64(time.Since(epoch)) })
			if rec.Error != tc.want || rec.Status != tc.status || rec.Msg == "" || rec.End < rec.Sent {
				t.Errorf("record = kind %q status %d msg %q sent %d end %d", rec.Error, rec.Status, rec.Msg, rec.Sent, rec.End)
			}
			// A timeout names the limit that passed.
			if named := strings.HasPrefix(rec.Msg, "--request-timeout 100ms passed: "); named != (tc.want == record.ErrTimeout) {
				t.Errorf("message %q: want it to name --request-timeout only for the timeout", rec.Msg)
			}
		})
	}
	// Nobody listening.
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	a, _ := backend.Lookup("openai")
	d := &HTTP{Transport: newTransport(t, kind, url, ClientOptions{Conns: 1}), Adapter: a, BaseURL: url,
		Request: func(int64) (backend.Request, int) { return backend.Request{Prompt: "x"}, 1 }}
	var rec record.Record
	d.Do(context.Background(), 0, &rec, func() int64 { return 1 })
	if rec.Error != record.ErrConnect {
		t.Errorf("connection refused: %q %s", rec.Error, rec.Msg)
	}
}

// notHTTPServer answers every connection with bytes that are not HTTP and
// closes it: at once, before reading the request, or after reading it.
func notHTTPServer(t *testing.T, readFirst bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if readFirst {
					c.Read(make([]byte, 64<<10))
				}
				c.Write([]byte("SSH-2.0-OpenSSH_9.2\r\n"))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// A server whose answer is not HTTP fails every request with the protocol
// kind, whichever way the connection then breaks: before, the kind was
// "other" or "reset" by the luck of a race.
func TestHTTPNotHTTPIsAProtocolError(t *testing.T) {
	eachTransport(t, testNotHTTPIsAProtocolError)
}

func testNotHTTPIsAProtocolError(t *testing.T, kind transport.Kind) {
	for _, readFirst := range []bool{false, true} {
		url := notHTTPServer(t, readFirst)
		a, _ := backend.Lookup("openai")
		d := &HTTP{Transport: newTransport(t, kind, url, ClientOptions{Conns: 4}), Adapter: a, BaseURL: url,
			Request: func(int64) (backend.Request, int) { return backend.Request{Prompt: "x", MaxTokens: 4}, 1 }}
		kinds := map[record.ErrorKind]int{}
		var msg string
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var rec record.Record
				d.Do(context.Background(), int64(i), &rec, func() int64 { return 1 })
				mu.Lock()
				kinds[rec.Error]++
				if rec.Error == record.ErrProtocol {
					msg = rec.Msg
				}
				mu.Unlock()
			}()
			if i%8 == 7 {
				wg.Wait() // a few at a time, as a capped run sends them
			}
		}
		wg.Wait()
		if kinds[record.ErrProtocol] != 200 || !strings.Contains(msg, "not HTTP") {
			t.Errorf("read first %v: kinds %v, message %q; want every one %q", readFirst, kinds, msg, record.ErrProtocol)
		}
	}
}
