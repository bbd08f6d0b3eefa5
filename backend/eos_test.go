package backend

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// byEvent splits an SSE body into one piece per event, so that a reader
// with a counting clock stamps event i (0-based) at time i+1.
func byEvent(body string) *scriptReader {
	var pieces []string
	for ev := range strings.SplitAfterSeq(body, "\n\n") {
		if ev != "" {
			pieces = append(pieces, ev)
		}
	}
	return &scriptReader{pieces: pieces}
}

// Streams captured from the real llama-server (testdata/README.md), each a
// two- or three-token answer that ended on the end-of-sequence token, which
// the usage counts. The token is where the server decoded it, the counts
// agree with the stream, and TPOT is the gap over the tokens generated
// rather than 0.
func TestEndOfSequenceFromRealServer(t *testing.T) {
	tests := []struct {
		file, backend string
		times         []int64 // chunk arrival, one clock tick per event
		input         int
		cached        int
		prefill       int64 // ns
		decode        int64
		tpot          int64
	}{
		// /v1/completions: " Gab", then the EOS as an event with empty
		// text (event 2), then the finish event with the usage.
		{"real_llamacpp_v1_completions_eos.sse", "openai", []int64{1, 2}, 6, 5, 648_000, 632_000, 1},
		// /v1/chat/completions: role, two tokens, the EOS shown only by the
		// finish event (event 4), the usage apart.
		{"real_llamacpp_v1_chat_eos.sse", "openai-chat", []int64{2, 3, 4}, 34, 16, 1_168_000, 1_361_000, 1},
		// The same without stream_options (--usage none): no usage block,
		// the counts from the timings (prompt_n 1 evaluated beside cache_n
		// 32, predicted_n 4 with the EOS); three tokens and the EOS at the
		// finish event (event 5).
		{"real_llamacpp_v1_chat_no_usage.sse", "openai-chat", []int64{2, 3, 4, 5}, 33, 32, 1_179_000, 3_193_000, 1},
		// native /completion streams the EOS itself, as token id 2.
		{"real_llamacpp_completion_eos.sse", "llamacpp", []int64{1, 2}, 6, 5, 798_000, 633_000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rec := &record.Record{}
			st := mustLookup(t, tt.backend).read(byEvent(string(b)), "", counter(), rec)
			var times []int64
			for _, c := range rec.Chunks {
				times = append(times, c.At)
				if c.Tokens != 1 {
					t.Errorf("chunk at %d carries %d tokens, want 1", c.At, c.Tokens)
				}
			}
			if !reflect.DeepEqual(times, tt.times) {
				t.Errorf("chunk times %v, want %v", times, tt.times)
			}
			if !rec.OK() || rec.Finish != "stop" || rec.OutputTokens != len(tt.times) || rec.InputTokens != tt.input ||
				rec.TokenSource != record.SourceUsage {
				t.Errorf("record %+v", rec)
			}
			if st.UsageTokens != len(tt.times) || st.Discrepancy() != 0 {
				t.Errorf("stats %+v: the usage should agree with the stream", st)
			}
			if !rec.CacheReported || rec.CachedTokens != tt.cached || rec.ServerPrefill != tt.prefill || rec.ServerDecode != tt.decode {
				t.Errorf("cached %d (%v), prefill %d, decode %d; want %d, %d, %d",
					rec.CachedTokens, rec.CacheReported, rec.ServerPrefill, rec.ServerDecode, tt.cached, tt.prefill, tt.decode)
			}
			q := metrics.Compute(rec)
			if !q.HasTPOT || int64(q.TPOT) != tt.tpot {
				t.Errorf("TPOT %v (defined %v), want %d ns", q.TPOT, q.HasTPOT, tt.tpot)
			}
		})
	}
}

// The end-of-sequence rule applies only where it must: a usage one above
// the stream, generation stopped, and an event without output to put the
// token at. Everything else keeps the spreading rule.
func TestEndOfSequenceRuleLimits(t *testing.T) {
	text := func(s string) string {
		return `data: {"choices":[{"index":0,"text":"` + s + `","finish_reason":null}]}` + "\n\n"
	}
	finish := func(why, s string, usage int) string {
		return `data: {"choices":[{"index":0,"text":"` + s + `","finish_reason":"` + why + `"}],"usage":{"completion_tokens":` +
			string(rune('0'+usage)) + `,"prompt_tokens":3}}` + "\n\n"
	}
	const done = "data: [DONE]\n\n"
	tests := []struct {
		name   string
		body   string
		tokens []int32
		times  []int64
	}{
		// The plain case: two text tokens, the EOS at the finish event.
		{"eos at finish", text("a") + text("b") + finish("stop", "", 3) + done, []int32{1, 1, 1}, []int64{1, 2, 3}},
		// An empty event before the finish is where the EOS was decoded.
		{"eos at empty event", text("a") + text("") + finish("stop", "", 2) + done, []int32{1, 1}, []int64{1, 2}},
		// An empty event followed by text is a token whose text the
		// server held back, at its own time; the usage counts it.
		{"empty event mid-stream", text("a") + text("") + text("b") + finish("stop", "", 3) + done, []int32{1, 1, 1}, []int64{1, 2, 3}},
		// One more than those: the EOS at the finish.
		{"held token and eos", text("a") + text("") + text("b") + finish("stop", "", 4) + done, []int32{1, 1, 1, 1}, []int64{1, 2, 3, 4}},
		// Stopped by the length limit: there is no EOS; the extra token is
		// spread as before.
		{"length", text("a") + text("b") + finish("length", "", 3) + done, []int32{1, 2}, []int64{1, 2}},
		// Two more than streamed: not one EOS; spread.
		{"two unstreamed", text("a") + text("b") + finish("stop", "", 4) + done, []int32{2, 2}, []int64{1, 2}},
		// The finish event carried text itself: no event without output.
		{"finish with text", text("a") + finish("stop", "b", 3) + done, []int32{1, 2}, []int64{1, 2}},
		// Counts that agree need nothing.
		{"agree", text("a") + text("b") + finish("stop", "", 2) + done, []int32{1, 1}, []int64{1, 2}},
		// An answer that is the EOS alone: one token, at the finish.
		{"eos alone", finish("stop", "", 1) + done, []int32{1}, []int64{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &record.Record{}
			st := mustLookup(t, "openai").read(byEvent(tt.body), "", counter(), rec)
			var times []int64
			for _, c := range rec.Chunks {
				times = append(times, c.At)
			}
			if got := tokens(rec); !reflect.DeepEqual(got, tt.tokens) || !reflect.DeepEqual(times, tt.times) {
				t.Errorf("chunks %v at %v, want %v at %v", got, times, tt.tokens, tt.times)
			}
			if rec.OutputTokens != st.UsageTokens || rec.TokenSource != record.SourceUsage {
				t.Errorf("output %d from %q, usage %d", rec.OutputTokens, rec.TokenSource, st.UsageTokens)
			}
		})
	}
}
