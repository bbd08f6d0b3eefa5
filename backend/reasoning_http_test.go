package backend

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// splitEvents cuts a fixture into what the server writes at once: SSE
// events (with their blank line) or NDJSON lines.
func splitEvents(b []byte, sep string) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.Index(b, []byte(sep))
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+len(sep)])
		b = b[i+len(sep):]
	}
	return out
}

// eventTime is the instant, ns from the run epoch, at which the test's
// clock says event i arrived: odd numbers, so that a result off by any
// rounding shows.
func eventTime(i int) int64 { return 1_000_000_007*int64(i+1) + 13 }

// Against a real HTTP server streaming each dialect's reasoning, then its
// answer, TTFT and TTFA come out to the nanosecond. The clock is the
// test's: it reads the time at which the last whole event arrived, from
// the bytes the client has read, so a Read that splits an event does not
// move it; and the server writes each event only after the client has read
// the one before, so no Read carries two.
func TestReasoningTTFTAndTTFAOverHTTP(t *testing.T) {
	const scheduled = 500_000_003 // s, before the first event
	tests := []struct {
		file, backend string
		first, answer int // the events that carry the first token and the first answer token
		rt            int
	}{
		// role chunk, three reasoning chunks, then the answer
		{"vllm_chat_reasoning_content.sse", "openai-chat", 1, 4, 4},
		{"vllm_chat_reasoning.sse", "openai-chat", 1, 4, 3},
		{"sglang_chat_reasoning.sse", "openai-chat", 1, 4, 5},
		// role chunk, two reasoning chunks
		{"llamacpp_v1_reasoning.sse", "openai-chat", 1, 3, 2},
		{"deepseek_reasoner.sse", "openai-chat", 1, 4, 4},
		// reasoning from the first event; a comment (event 1) between
		{"openrouter_reasoning.sse", "openai-chat", 0, 3, 2},
		// hidden reasoning: the first token is the answer's
		{"openai_hidden_reasoning.sse", "openai-chat", 1, 1, 64},
		{"ollama_thinking.ndjson", "ollama", 0, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			sep, ctype := "\n\n", "text/event-stream"
			if tt.backend == "ollama" {
				sep, ctype = "\n", "application/x-ndjson"
			}
			events := splitEvents(b, sep)
			ends := make([]int64, len(events)) // byte offset of each event's end
			var off int64
			for i, ev := range events {
				off += int64(len(ev))
				ends[i] = off
			}

			read := make(chan struct{}, len(events)) // one per event the client has whole
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", ctype)
				for i, ev := range events {
					if i > 0 {
						select {
						case <-read:
						case <-r.Context().Done():
							return
						case <-time.After(10 * time.Second):
							t.Errorf("the client never read event %d", i-1)
							return
						}
					}
					w.Write(ev)
					w.(http.Flusher).Flush()
				}
			}))
			defer srv.Close()

			a := mustLookup(t, tt.backend)
			req, err := a.BuildRequest(context.Background(), srv.URL, "", &Request{Model: "m", Prompt: "hi", MaxTokens: 64})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := &countingBody{rc: resp.Body}
			resp.Body = body
			whole := -1 // the last event the client has whole
			now := func() int64 {
				for whole+1 < len(ends) && int64(body.n) >= ends[whole+1] {
					whole++
					read <- struct{}{}
				}
				if whole < 0 {
					return scheduled
				}
				return eventTime(whole)
			}
			rec := &record.Record{Scheduled: scheduled, Sent: scheduled}
			a.ReadStream(resp, now, rec)
			if rec.Error != "" {
				t.Fatalf("failed: %s: %s", rec.Error, rec.Msg)
			}
			if err := rec.Check(); err != nil {
				t.Fatal(err)
			}
			q := metrics.Compute(rec)
			wantTTFT := time.Duration(eventTime(tt.first) - scheduled)
			wantTTFA := time.Duration(eventTime(tt.answer) - scheduled)
			if !q.HasFirstToken || q.TTFT != wantTTFT {
				t.Errorf("TTFT = %d ns, want %d", q.TTFT, wantTTFT)
			}
			if !q.HasTTFA || q.TTFA != wantTTFA {
				t.Errorf("TTFA = %d ns, want %d", q.TTFA, wantTTFA)
			}
			if q.ReasoningTokens != tt.rt || q.AnswerTokens != rec.OutputTokens-tt.rt {
				t.Errorf("reasoning %d, answer %d tokens; want %d and %d", q.ReasoningTokens, q.AnswerTokens, tt.rt, rec.OutputTokens-tt.rt)
			}
			if rec.End != eventTime(len(events)-1) {
				t.Errorf("end %d, want the last event's %d", rec.End, eventTime(len(events)-1))
			}
		})
	}
}
