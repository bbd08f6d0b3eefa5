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
			path := filepath.Join(t.TempDir(), "r.json")
			body := `{"ttfts": [0.1, 0.2], "itls": [[0.01], []], "input_lens": [4, 4], "output_lens": [2, 1], ` + tt.sched +
				` "start_times": [9.9, 10.5], "errors": ["", ""]}`
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(path, nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
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
