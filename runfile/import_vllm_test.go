package runfile

import (
	"os"
	"path/filepath"
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
