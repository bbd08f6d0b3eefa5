package trace

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/tracefiles"
)

func TestReuse(t *testing.T) {
	// Four prompts of 4-token blocks, checked by hand.
	u := NewReuse(4)
	steps := []struct {
		ids        []int64
		input      int
		wantReused int
	}{
		// Nothing is cached yet.
		{[]int64{1, 2, 3}, 10, 0},
		// Blocks 1 and 2 are cached: 8 tokens; block 9 is new.
		{[]int64{1, 2, 9}, 12, 8},
		// Reuse stops at the first miss: 5 is new, so 3 after it is not
		// reusable (a prefix cache serves only a leading run).
		{[]int64{1, 5, 3}, 12, 4},
		// The last block is partial: 1 (4) + 2 (4) + 3 (the 2 tokens left).
		{[]int64{1, 2, 3}, 10, 10},
		// Ids past the prompt's length cover nothing but are remembered,
		// huge and negative ones too.
		{[]int64{1, -7, 1 << 40}, 3, 3},
		{[]int64{-7, 1 << 40}, 8, 8},
		{[]int64{1 << 41}, 8, 0},
	}
	for i, s := range steps {
		if got := u.Add(s.ids, s.input); got != s.wantReused {
			t.Errorf("step %d: Add(%v, %d) = %d, want %d", i, s.ids, s.input, got, s.wantReused)
		}
	}
}

func TestWindow(t *testing.T) {
	text := ""
	for i := range 10 {
		// Rows at 0, 1, …, 9 s.
		text += `{"time": ` + string(rune('0'+i)) + `, "input_tokens": 5, "output_tokens": 1}` + "\n"
	}
	s := time.Second
	tests := []struct {
		name string
		w    Window
		want []time.Duration
	}{
		{"whole trace", Window{}, []time.Duration{0, s, 2 * s, 3 * s, 4 * s, 5 * s, 6 * s, 7 * s, 8 * s, 9 * s}},
		{"from 7 s", Window{Start: 7 * s}, []time.Duration{7 * s, 8 * s, 9 * s}},
		// The end is exclusive.
		{"2 s from 3 s", Window{Start: 3 * s, Duration: 2 * s}, []time.Duration{3 * s, 4 * s}},
		{"limit within window", Window{Start: 2 * s, Limit: 2}, []time.Duration{2 * s, 3 * s}},
		{"window past the end", Window{Start: 20 * s}, nil},
	}
	for _, tt := range tests {
		r, err := NewReader(strings.NewReader(text), "t", FormatJSONL)
		if err != nil {
			t.Fatal(err)
		}
		rows := tt.w.Rows(r)
		var got []time.Duration
		for {
			row, err := rows.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, row.At)
		}
		if !durationsEqual(got, tt.want) {
			t.Errorf("%s: rows at %v, want %v", tt.name, got, tt.want)
		}
		// After the end, Next keeps saying so.
		if _, err := rows.Next(); !errors.Is(err, io.EOF) {
			t.Errorf("%s: Next after the end = %v, want io.EOF", tt.name, err)
		}
	}
	for _, bad := range []struct {
		w    Window
		want string
	}{
		{Window{Start: -s}, "--trace-start must be ≥ 0"},
		{Window{Duration: -s}, "--trace-duration must be ≥ 0"},
		{Window{Limit: -1}, "--num-prompts must be ≥ 0"},
	} {
		if err := bad.w.Validate(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.w, err, bad.want)
		}
	}
}

func durationsEqual(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestScanTestdata(t *testing.T) {
	tests := []struct {
		path           string
		rows           int
		last           time.Duration
		inSum, outSum  int64
		prompt, reused int64
		format         Format
		skipped        int
		inMin, inMax   int
		outMin, outMax int
	}{
		// The first 40 rows of Mooncake's conversation trace, figures from
		// a separate reading of the file: 19,968 of 506,280 prompt tokens
		// are reusable.
		{"testdata/mooncake_conversation_first40.jsonl", 40, 12 * time.Second, 506280, 14962, 506280, 19968, FormatMooncake, 0, 915, 87169, 1, 929},
		// Azure's code trace, header and 40 rows: 18:17:03.9799600 to
		// 18:17:38.2643990.
		{"testdata/azure_code_first40.csv", 40, 34284439 * time.Microsecond, 0, 0, 0, 0, FormatAzure, 0, 0, 0, 0, 0},
		{"testdata/burstgpt_handmade.csv", 3, 113 * time.Second, 472 + 417 + 185, 18 + 276 + 193, 0, 0, FormatBurstGPT, 1, 185, 472, 18, 276},
		// Row 3 reuses both blocks of row 1: 512 + the 388 tokens left.
		{"testdata/goodput_handmade.jsonl", 3, 1500 * time.Millisecond, 600 + 26 + 900, 20 + 64 + 5, 1500, 900, FormatJSONL, 0, 26, 900, 5, 64},
	}
	for _, tt := range tests {
		s, err := Scan(Config{Path: tt.path}, true)
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		if s.Rows != tt.rows || s.Last != tt.last || s.Format != tt.format || len(s.Times) != tt.rows || s.Times[len(s.Times)-1] != tt.last {
			t.Errorf("%s: %d rows (%d times), last at %v, format %s; want %d, %v, %s", tt.path, s.Rows, len(s.Times), s.Last, s.Format, tt.rows, tt.last, tt.format)
		}
		if tt.inSum > 0 && (s.Input.Sum != tt.inSum || s.Output.Sum != tt.outSum || s.Input.Min != tt.inMin || s.Input.Max != tt.inMax || s.Output.Min != tt.outMin || s.Output.Max != tt.outMax) {
			t.Errorf("%s: input %+v output %+v, want sums %d/%d, input %d–%d, output %d–%d", tt.path, s.Input, s.Output, tt.inSum, tt.outSum, tt.inMin, tt.inMax, tt.outMin, tt.outMax)
		}
		if s.PromptTokens != tt.prompt || s.ReusedTokens != tt.reused {
			t.Errorf("%s: reuse %d of %d, want %d of %d", tt.path, s.ReusedTokens, s.PromptTokens, tt.reused, tt.prompt)
		}
		n := 0
		for _, v := range s.Skipped {
			n += v
		}
		if n != tt.skipped {
			t.Errorf("%s: skipped %v, want %d", tt.path, s.Skipped, tt.skipped)
		}
	}
}

func TestScanEmptyWindowSaysWhy(t *testing.T) {
	_, err := Scan(Config{Path: "testdata/burstgpt_handmade.csv", Window: Window{Start: time.Hour}}, false)
	if err == nil || !strings.Contains(err.Error(), "the window from 1h0m0s on holds no row to replay (skipped: 1 without output tokens (failed requests))") {
		t.Errorf("empty window: %v", err)
	}
	_, err = Scan(Config{Path: "testdata/nonesuch.jsonl"}, false)
	if err == nil || !strings.Contains(err.Error(), "--dataset-path: open testdata/nonesuch.jsonl") {
		t.Errorf("missing file: %v", err)
	}
	if err := (Config{BlockSize: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "needs --dataset-path") || !strings.Contains(err.Error(), "--trace-block-size") {
		t.Errorf("bad config: %v", err)
	}
}

func TestSummaryString(t *testing.T) {
	s, err := Scan(Config{Path: "testdata/mooncake_conversation_first40.jsonl", Window: Window{Start: time.Second}}, false)
	if err != nil {
		t.Fatal(err)
	}
	// The first rows after 1 s arrive at 3 s: 30 rows over 9 s.
	want := "mooncake trace testdata/mooncake_conversation_first40.jsonl: 30 rows from 1s on over 9s (mean 3.22 req/s); input tokens 915–87169"
	if got := s.String(); !strings.HasPrefix(got, want) || !strings.Contains(got, "prompts share 512-token blocks by hash id: theoretical prefix hit rate") {
		t.Errorf("String = %q, want it to begin %q and give the hit rate", got, want)
	}
}

// TestShippedExcerpts reads every shipped excerpt whole: its rows, span and
// token sums are those its README and a separate reading give, and the
// Mooncake excerpts' theoretical hit rates those a separate computation gives.
func TestShippedExcerpts(t *testing.T) {
	tests := []struct {
		name           string
		rows           int
		span           time.Duration
		inSum, outSum  int64
		reused, prompt int64
	}{
		{tracefiles.MooncakeConversation, 2000, 669 * time.Second, 27441774, 704602, 8070959, 27441774},
		{tracefiles.MooncakeSynthetic, 2000, 532806 * time.Millisecond, 24732716, 382951, 8317098, 24732716},
		// 18:17:03.9799600 → 18:44:14.8593320 and 18:15:46.6805900 → 18:32:49.9975740.
		{tracefiles.AzureCode, 5000, 27*time.Minute + 10879372*time.Microsecond, 10263587, 137118, 0, 0},
		{tracefiles.AzureConv, 5000, 17*time.Minute + 3316984*time.Microsecond, 5805639, 1287511, 0, 0},
	}
	for _, tt := range tests {
		s, err := Scan(Config{Path: tracefiles.Path(t, tt.name)}, true)
		if err != nil {
			t.Fatal(err)
		}
		if s.Rows != tt.rows || s.Span() != tt.span || s.Input.Sum != tt.inSum || s.Output.Sum != tt.outSum || s.ReusedTokens != tt.reused || s.PromptTokens != tt.prompt {
			t.Errorf("%s: %d rows over %v, tokens %d/%d, reuse %d of %d; want %d over %v, %d/%d, %d of %d", tt.name,
				s.Rows, s.Span(), s.Input.Sum, s.Output.Sum, s.ReusedTokens, s.PromptTokens, tt.rows, tt.span, tt.inSum, tt.outSum, tt.reused, tt.prompt)
		}
	}
	// 8,070,959 of 27,441,774 prompt tokens: 29.41%.
	s, _ := Scan(Config{Path: tracefiles.Path(t, tracefiles.MooncakeConversation)}, false)
	if math.Abs(s.HitRate()-0.2941) > 5e-5 {
		t.Errorf("conversation hit rate %.5f, want 0.2941", s.HitRate())
	}
}
