package backend

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// llama.cpp streams one event per decoding step. A step whose text may
// begin a stop string, or ends inside a character, comes with empty text,
// and a later event releases it with its own ("Una Anne persu" is three
// steps' text). Each step keeps its time: twelve tokens are twelve chunks
// one event apart, so ITL is the step, not an even share of the releases.
// The streams were captured from the real llama-server (testdata/README.md).
func TestHeldBackTextKeepsEachStepsTime(t *testing.T) {
	for _, file := range []string{"real_llamacpp_v1_completions_held.sse", "real_llamacpp_v1_completions_held_logprobs.sse"} {
		t.Run(file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			rec := &record.Record{}
			mustLookup(t, "openai").read(byEvent(string(b)), "", counter(), rec)
			want := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
			var times []int64
			for _, c := range rec.Chunks {
				times = append(times, c.At)
				if c.Tokens != 1 {
					t.Errorf("chunk at %d carries %d tokens, want 1", c.At, c.Tokens)
				}
			}
			if !reflect.DeepEqual(times, want) {
				t.Errorf("chunk times %v, want %v", times, want)
			}
			if rec.OutputTokens != 12 || rec.TokenSource != record.SourceUsage || rec.Finish != "length" {
				t.Errorf("output %d from %q, finish %q; want 12 from usage, length", rec.OutputTokens, rec.TokenSource, rec.Finish)
			}
			if q := metrics.Compute(rec); q.ITLMin != 1 || q.ITLMax != 1 {
				t.Errorf("ITL from %v to %v, want 1 (one event per token)", q.ITLMin, q.ITLMax)
			}
		})
	}
}

// Before the first token an empty choice is not taken for one: a server
// may stream one to say it started. Logprobs that list a token are one.
func TestHeldBackTextAtTheStart(t *testing.T) {
	empty := `data: {"choices":[{"index":0,"text":"","finish_reason":null}]}` + "\n\n"
	listed := `data: {"choices":[{"index":0,"text":"","logprobs":{"content":[{"id":5,"token":"","logprob":-1}]},"finish_reason":null}]}` + "\n\n"
	text := `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}` + "\n\n"
	end := `data: {"choices":[{"index":0,"text":"","finish_reason":"length"}],"usage":{"completion_tokens":2,"prompt_tokens":3}}` + "\n\ndata: [DONE]\n\n"
	for _, tt := range []struct {
		name  string
		body  string
		times []int64
	}{
		{"empty", empty + text + text + end, []int64{2, 3}},
		{"listed in logprobs", listed + text + end, []int64{1, 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &record.Record{}
			mustLookup(t, "openai").read(byEvent(tt.body), "", counter(), rec)
			var times []int64
			for _, c := range rec.Chunks {
				times = append(times, c.At)
			}
			if !reflect.DeepEqual(times, tt.times) || rec.OutputTokens != 2 {
				t.Errorf("chunks at %v, %d tokens; want at %v, 2", times, rec.OutputTokens, tt.times)
			}
		})
	}
}
