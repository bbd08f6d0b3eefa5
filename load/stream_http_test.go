package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// eventServer streams body's events one at a time, gap apart, as a server
// decoding a token per step would.
func eventServer(t *testing.T, body string, gap time.Duration) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for ev := range strings.SplitAfterSeq(body, "\n\n") {
			time.Sleep(gap)
			io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(ts.Close)
	return ts
}

// do sends one completion through the HTTP doer to ts.
func do(t *testing.T, kind transport.Kind, url, backendName string) *record.Record {
	t.Helper()
	a, err := backend.Lookup(backendName)
	if err != nil {
		t.Fatal(err)
	}
	d := &HTTP{Transport: newTransport(t, kind, url, ClientOptions{Conns: 1}), Adapter: a, BaseURL: url, Timeout: 10 * time.Second,
		Request: func(int64) (backend.Request, int) { return backend.Request{Prompt: "x", MaxTokens: 3}, 1 }}
	epoch := time.Now()
	rec := &record.Record{}
	d.Do(context.Background(), 0, rec, func() int64 { return int64(time.Since(epoch)) })
	if tc := d.TokenCheck(); tc.Mismatched != 0 {
		t.Errorf("token check %+v: the usage should agree with the stream", tc)
	}
	return rec
}

// The real llama.cpp server's two-token answer that ended on EOS, streamed
// a step apart: two tokens, the second where the server decoded the EOS,
// so TPOT is the step, not 0.
func TestEOSStreamOverHTTP(t *testing.T) {
	body, err := os.ReadFile("../backend/testdata/real_llamacpp_v1_completions_eos.sse")
	if err != nil {
		t.Fatal(err)
	}
	const gap = 20 * time.Millisecond
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		rec := do(t, kind, eventServer(t, string(body), gap).URL, "openai")
		q := metrics.Compute(rec)
		if !rec.OK() || rec.OutputTokens != 2 || len(rec.Chunks) != 2 || !q.HasTPOT {
			t.Fatalf("%+v", rec)
		}
		if q.TPOT < gap/2 {
			t.Errorf("TPOT %v, want about the %v step", q.TPOT, gap)
		}
	})
}

// A success that streamed no token: no chunk, no TTFT, and never good.
func TestEmptyAnswerOverHTTP(t *testing.T) {
	body := `data: {"choices":[{"index":0,"text":"","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":0}}` + "\n\n" +
		"data: [DONE]\n\n"
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		rec := do(t, kind, eventServer(t, body, 0).URL, "openai")
		if !rec.OK() || len(rec.Chunks) != 0 || rec.OutputTokens != 0 {
			t.Fatalf("%+v", rec)
		}
		s := metrics.NewSummary(metrics.Options{Good: func(metrics.Request) bool { return true }})
		s.Add(rec)
		res := s.Close()
		if res.Counts.NoToken != 1 || res.Goodput.GoodRequests != 0 || res.Latency.TTFT.Count != 0 {
			t.Errorf("counts %+v, good %d, TTFT samples %d", res.Counts, res.Goodput.GoodRequests, res.Latency.TTFT.Count)
		}
	})
}

// A whole answer (--stream=false) is one chunk of all its tokens, which is
// no disagreement between the server's count and the stream: the token
// check counts no mismatch for it, as it does for a stream whose chunks
// carried several tokens each.
func TestTokenCheckWholeAnswer(t *testing.T) {
	tests := []struct {
		name     string
		stream   bool
		ctype    string
		body     string
		chunks   []int32
		mismatch int64
	}{
		// Ollama's /api/generate with "stream": false: eval_count 7 in the one answer.
		{"whole", false, "application/json",
			`{"model":"m","created_at":"2025-01-01T00:00:00Z","response":"a b c d e f","done":true,"done_reason":"stop","prompt_eval_count":17,"eval_count":7}`,
			[]int32{7}, 0},
		// The same count streamed in two lines: 7 tokens in 2 chunks.
		{"streamed", true, "application/x-ndjson",
			`{"model":"m","response":"a b c","done":false}` + "\n" +
				`{"model":"m","response":" d e f","done":true,"done_reason":"stop","prompt_eval_count":17,"eval_count":7}` + "\n",
			[]int32{3, 4}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", tt.ctype)
				io.WriteString(w, tt.body)
			}))
			t.Cleanup(ts.Close)
			a, err := backend.Lookup("ollama")
			if err != nil {
				t.Fatal(err)
			}
			if !tt.stream {
				if a, err = a.WithoutStreaming(); err != nil {
					t.Fatal(err)
				}
			}
			d := &HTTP{Transport: newTransport(t, transport.NetHTTP, ts.URL, ClientOptions{Conns: 1}), Adapter: a, BaseURL: ts.URL, Timeout: 10 * time.Second,
				Request: func(int64) (backend.Request, int) { return backend.Request{Model: "m", Prompt: "x", MaxTokens: 8}, 1 }}
			epoch := time.Now()
			rec := &record.Record{}
			d.Do(context.Background(), 0, rec, func() int64 { return int64(time.Since(epoch)) })
			var got []int32
			for _, c := range rec.Chunks {
				got = append(got, c.Tokens)
			}
			if !rec.OK() || rec.OutputTokens != 7 || !slices.Equal(got, tt.chunks) {
				t.Fatalf("record %v %s: %d tokens in chunks %v; want 7 in %v", rec.Error, rec.Msg, rec.OutputTokens, got, tt.chunks)
			}
			tc := d.TokenCheck()
			if tc.Mismatched != tt.mismatch || tc.UsageTokens != 7 || tc.UsageChunks != int64(len(tt.chunks)) {
				t.Errorf("token check %+v; want %d mismatched, 7 tokens in %d chunks", tc, tt.mismatch, len(tt.chunks))
			}
		})
	}
}

// A server whose usage holds a count that is no count still answers: the
// answer succeeds on its chunks, and the token check counts it among the
// answers read and keeps the first such count, on both transports.
func TestTokenCheckBadCount(t *testing.T) {
	// The answers in turn: a count, a count sent as a string, a
	// negative one, a whole number sent as a float.
	counts := []string{`3`, `"12"`, `-1`, `3.0`}
	eachTransport(t, func(t *testing.T, kind transport.Kind) {
		var served atomic.Int64
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			n := counts[served.Add(1)-1]
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`+"\n\n"+
				`data: {"choices":[{"index":0,"text":"b","finish_reason":null}]}`+"\n\n"+
				`data: {"choices":[{"index":0,"text":"c","finish_reason":"length"}]}`+"\n\n"+
				`data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":`+n+`}}`+"\n\n"+
				"data: [DONE]\n\n")
		}))
		t.Cleanup(ts.Close)
		a, err := backend.Lookup("openai")
		if err != nil {
			t.Fatal(err)
		}
		d := &HTTP{Transport: newTransport(t, kind, ts.URL, ClientOptions{Conns: 1}), Adapter: a, BaseURL: ts.URL, Timeout: 10 * time.Second,
			Request: func(int64) (backend.Request, int) { return backend.Request{Prompt: "x", MaxTokens: 3}, 1 }}
		epoch := time.Now()
		wantSource := []record.Source{record.SourceUsage, record.SourceChunks, record.SourceChunks, record.SourceUsage}
		for i := range counts {
			rec := &record.Record{}
			d.Do(context.Background(), int64(i), rec, func() int64 { return int64(time.Since(epoch)) })
			if !rec.OK() || rec.OutputTokens != 3 || rec.TokenSource != wantSource[i] || rec.InputTokens != 4 {
				t.Errorf("answer %d (count %s): %s %q, %d output tokens (%s), %d input; want 3 (%s) and 4",
					i, counts[i], rec.Error, rec.Msg, rec.OutputTokens, rec.TokenSource, rec.InputTokens, wantSource[i])
			}
		}
		tc := d.TokenCheck()
		if tc.Answers != 4 || tc.BadCounts != 2 || tc.BadCount != `usage.completion_tokens "12"` {
			t.Errorf("token check: %d answers, %d with a bad count, the first %q; want 4, 2 and usage.completion_tokens \"12\"",
				tc.Answers, tc.BadCounts, tc.BadCount)
		}
		// The answers that reported a count agree with their chunks.
		if tc.UsageTokens != 6 || tc.UsageChunks != 6 || tc.Mismatched != 0 {
			t.Errorf("token check %+v: want 6 tokens reported in 6 chunks, none mismatched", tc)
		}
	})
}
