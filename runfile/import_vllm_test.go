package runfile

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

func TestVLLMImportTakesGoodputsScheduledTimes(t *testing.T) {
	tests := []struct {
		name      string
		sched     string // the scheduled_times member, or ""
		wantSched []int64
		err       string
	}{
		// Without goodput's key, a request was due when it was sent.
		{"vLLM's own file", "", []int64{0, 600_000_000}, ""},
		// With it, the wait before the send is part of TTFT again.
		{"goodput's file", `"scheduled_times": [9.9, 10.0],`, []int64{0, 100_000_000}, ""},
		{"due after the send", `"scheduled_times": [10.0, 10.6],`, nil, "request 0: scheduled_times: 10 is not a time before the send"},
		{"ragged", `"scheduled_times": [10.0],`, nil, `"scheduled_times" has 1 entries`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openVLLMBody(t, `{"ttfts": [0.1, 0.2], "itls": [[0.01], []], "input_lens": [4, 4], "output_lens": [2, 1], `+tt.sched+
				` "start_times": [9.9, 10.5], "errors": ["", ""]}`, tt.err)
			if f == nil {
				return
			}
			for i, want := range tt.wantSched {
				var r record.Record
				if err := f.Next(&r); err != nil {
					t.Fatal(err)
				}
				if r.Scheduled != want {
					t.Errorf("request %d: scheduled %d, want %d (sent %d)", i, r.Scheduled, want, r.Sent)
				}
			}
		})
	}
}

// A vLLM result without "start_times" places every request at the run's
// start, so its window is vLLM's "duration", which vLLM's throughputs
// divide by; without one either, a note says the throughput is too high.
func TestVLLMImportWithoutStartTimesTakesTheDuration(t *testing.T) {
	tests := []struct {
		name     string
		duration string // the duration member, or ""
		window   int64
		note     string
		err      string
	}{
		{"with a duration", `"duration": 2.5,`, 2_500_000_000, "the window is vLLM's duration, 2.5 s, which throughput and goodput divide by", ""},
		{"without one", "", 0, "nor does it say its duration, so the window is the longest request and throughput and goodput are too high", ""},
		{"a zero duration", `"duration": 0,`, 0, "", `"duration" 0 is not a run's length in seconds`},
		{"a NaN duration", `"duration": NaN,`, 0, "", `"duration"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openVLLMBody(t, `{`+tt.duration+` "ttfts": [0.1, 0.2], "itls": [[0.01], []], "input_lens": [4, 4], "output_lens": [2, 1], "errors": ["", ""]}`, tt.err)
			if f == nil {
				return
			}
			if h := f.Header(); h.Window != tt.window {
				t.Errorf("window %d ns, want %d", h.Window, tt.window)
			}
			if notes := strings.Join(f.Notes(), "\n"); !strings.Contains(notes, "every request is placed at the run's start") || !strings.Contains(notes, tt.note) {
				t.Errorf("notes %q, want %q", notes, tt.note)
			}
		})
	}
	// A result with start times spans its records: no window, no note.
	f, err := Open("testdata/vllm_detailed.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if h := f.Header(); h.Window != 0 || len(f.Notes()) != 0 {
		t.Errorf("window %d, notes %q; want none", h.Window, f.Notes())
	}
}

// openVLLMBody opens a vLLM result of body. Where wantErr is set it checks
// that opening fails with it and returns nil; otherwise it returns the
// file, closed when the test ends.
func openVLLMBody(t *testing.T, body, wantErr string) *File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, nil)
	switch {
	case wantErr != "":
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("err = %v, want %q", err, wantErr)
		}
		if f != nil {
			f.Close()
		}
		return nil
	case err != nil:
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// vLLM times a request's chunks exactly: its first chunk (ttft), then
// one "itls" entry for each chunk after it. Its output_lens is the
// server's usage or the text retokenized: tokens are taken from it, never
// made up to match the chunks.
func TestVLLMImportCountsTokensAgainstChunks(t *testing.T) {
	type chunk struct {
		at     int64 // ns from the send
		tokens int32
	}
	tests := []struct {
		name       string
		outputLens int
		itls       string
		wantOut    int
		wantChunks []chunk
		note       string // "" for none
	}{
		// 4 tokens in 3 chunks: consistent, the surplus spread from the first
		{"more tokens than chunks", 4, "[0.02, 0.03]", 4,
			[]chunk{{100_000_000, 2}, {120_000_000, 1}, {150_000_000, 1}}, ""},
		// one token per chunk: consistent
		{"a token per chunk", 3, "[0.02, 0.03]", 3,
			[]chunk{{100_000_000, 1}, {120_000_000, 1}, {150_000_000, 1}}, ""},
		// a chat stream: the role-only first chunk carries none, so TTFT is
		// the second chunk's, 120 ms, not vLLM's 100 ms
		{"a chunk more than tokens", 2, "[0.02, 0.03]", 2,
			[]chunk{{100_000_000, 0}, {120_000_000, 1}, {150_000_000, 1}},
			"r.json: 1 request (the first, request 0: output_lens 2, but a first chunk and 2 itls) counted fewer tokens than vLLM timed chunks"},
		// a success vLLM counted no token in: a success without a token, not
		// a one-token request
		{"no token counted", 0, "[0.02, 0.03]", 0,
			[]chunk{{100_000_000, 0}, {120_000_000, 0}, {150_000_000, 0}},
			"r.json: 1 request (the first, request 0: 2 itls after its first chunk) succeeded with output_lens 0"},
		{"no token counted, one chunk", 0, "[]", 0, []chunk{{100_000_000, 0}},
			"r.json: 1 request (the first, request 0: 0 itls after its first chunk) succeeded with output_lens 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := openVLLMBody(t, fmt.Sprintf(`{"ttfts": [0.1], "itls": [%s], "input_lens": [8], "output_lens": [%d], "start_times": [5.0], "errors": [""]}`,
				tt.itls, tt.outputLens), "")
			var r record.Record
			if err := f.Next(&r); err != nil {
				t.Fatal(err)
			}
			if !r.OK() || r.OutputTokens != tt.wantOut || r.TokenSource != record.SourceUsage {
				t.Errorf("ok %v, out %d (%s), want a success of %d tokens from usage", r.OK(), r.OutputTokens, r.TokenSource, tt.wantOut)
			}
			var got []chunk
			for _, c := range r.Chunks {
				got = append(got, chunk{c.At - r.Sent, c.Tokens})
			}
			if !slices.Equal(got, tt.wantChunks) {
				t.Errorf("chunks %v, want %v", got, tt.wantChunks)
			}
			notes := strings.Join(f.Notes(), "\n")
			if (tt.note == "") != (notes == "") || !strings.Contains(notes, tt.note) {
				t.Errorf("notes %q, want %q", notes, tt.note)
			}
		})
	}
}

// The note counts every such request and names the first with its
// numbers; a failure is none of them.
func TestVLLMImportNotesEveryShortRequest(t *testing.T) {
	f := openVLLMBody(t, `{"ttfts": [0.1, 0.1, 0.2, 0.1, 0.1], "itls": [[0.01], [0.01, 0.01], [0.01], [], [0.01]], "input_lens": [8, 8, 8, 8, 8],
		"output_lens": [2, 1, 0, 0, 1], "start_times": [5.0, 5.0, 5.0, 5.0, 5.0], "errors": ["", "", "", "boom", ""]}`, "")
	notes := f.Notes()
	want := []string{
		"r.json: 1 request (the first, request 2: 1 itls after its first chunk) succeeded with output_lens 0",
		"r.json: 2 requests (the first, request 1: output_lens 1, but a first chunk and 2 itls) counted fewer tokens",
	}
	if len(notes) != 2 || !strings.Contains(notes[0], want[0]) || !strings.Contains(notes[1], want[1]) {
		t.Errorf("notes %q,\nwant %q", notes, want)
	}
}
