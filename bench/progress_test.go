package bench

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/goodput-dev/goodput/record"
)

// busyProgress returns a progress of three requests: one with TTFT 120 ms
// and TPOT 10 ms, one of a single token, one failed.
func busyProgress(w *strings.Builder, terminal bool) *progress {
	p := newProgress(w, terminal, 3)
	// TTFT 120 ms; 5 tokens over 40 ms after the first: TPOT 10 ms.
	ok := &record.Record{Scheduled: 0, Sent: 1e6, OutputTokens: 5, Chunks: []record.Chunk{
		{At: 120e6, Tokens: 1}, {At: 140e6, Tokens: 2}, {At: 160e6, Tokens: 2}}}
	one := &record.Record{Scheduled: 0, OutputTokens: 1, Chunks: []record.Chunk{{At: 120e6, Tokens: 1}}} // no TPOT
	failed := &record.Record{Error: record.ErrHTTP}
	p.add(ok)
	p.add(one)
	p.add(failed)
	return p
}

func TestProgressLineReadsTTFTAndTPOT(t *testing.T) {
	var b strings.Builder
	line := busyProgress(&b, false).line()
	for _, want := range []string{"[3/3]", "failed 1", "TTFT p50 120ms p99 120ms", "TPOT p50 10ms p99 10ms", "out tok/s (last 5s)"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
}

// Answers that came whole have no TPOT: the line shows none, not 0 ms.
func TestProgressShowsNoTPOTForWholeAnswers(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, false, 2)
	for range 2 {
		p.add(&record.Record{Scheduled: 0, End: 90e6, OutputTokens: 8, Whole: true, Chunks: []record.Chunk{{At: 90e6, Tokens: 8}}})
	}
	if line := p.line(); !strings.Contains(line, "TTFT p50 90ms p99 90ms  TPOT p50 - p99 -") {
		t.Errorf("line %q", line)
	}
}

func TestProgressFitsTheWidth(t *testing.T) {
	tests := []struct {
		width int
		want  string // a part the line must hold
		lacks string // a part it must have dropped
	}{
		// No limit: the whole line.
		{0, "TPOT p50 10ms p99 10ms  3 out tok/s (last 5s)", ""},
		// A wide terminal: the whole line too.
		{200, "TPOT p50 10ms p99 10ms  3 out tok/s (last 5s)", ""},
		// 90 columns: every figure, tersely.
		{89, "fail 1 TTFT p50 120ms p99 120ms TPOT p50 10ms p99 10ms 3 tok/s (last 5s)", "failed"},
		// 80 columns: TPOT goes before TTFT.
		{79, "[3/3] 2s fail 1 TTFT p50 120ms p99 120ms 3 tok/s (last 5s)", "TPOT"},
		// Narrower still: the count, the time and the rate.
		{40, "[3/3] 2s fail 1 3 tok/s (last 5s)", "TTFT"},
		// Too narrow for the rate.
		{12, "[3/3]", "tok/s"},
		// Too narrow for anything: cut.
		{3, "[3/", "]"},
		// One column.
		{1, "[", "3"},
	}
	for _, tt := range tests {
		var b strings.Builder
		p := busyProgress(&b, true)
		// Two seconds in, the 6 output tokens make 3 per second.
		p.began = time.Now().Add(-2 * time.Second)
		got := p.fit(tt.width)
		if tt.width > 0 && utf8.RuneCountInString(got) > tt.width {
			t.Errorf("width %d: %q is %d columns", tt.width, got, utf8.RuneCountInString(got))
		}
		if !strings.Contains(got, tt.want) || (tt.lacks != "" && strings.Contains(got, tt.lacks)) {
			t.Errorf("width %d: %q, want it to hold %q and not %q", tt.width, got, tt.want, tt.lacks)
		}
	}
}

// TestProgressRedrawsInPlace checks what a terminal receives: each redraw
// returns to the start of the line and clears it, and only the end of the
// run adds a line.
func TestProgressRedrawsInPlace(t *testing.T) {
	var b strings.Builder
	p := busyProgress(&b, true)
	p.width = func() int { return 50 }
	p.print()
	p.print()
	p.finish()
	out := b.String()
	frames := strings.Split(strings.TrimSuffix(out, "\n"), "\r\033[K")
	if len(frames) != 4 || frames[0] != "" || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("output %q: want three redraws and one final newline", out)
	}
	for _, f := range frames[1:] {
		if n := utf8.RuneCountInString(f); n > 49 || n == 0 {
			t.Errorf("frame %q is %d columns on a 50-column terminal", f, n)
		}
	}
}

// A silence of the servers while requests wait is said once it reaches
// quietAfter, again each time it doubles, and from the start once it
// ended; with nothing waiting, or a shorter silence, nothing is said.
func TestProgressSaysASilentServer(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, false, 10)
	var waiting int64
	var silent time.Duration
	p.quiet, p.timeout = func() (int64, time.Duration) { return waiting, silent }, 6*time.Hour
	say := func(w int64, s time.Duration) string {
		waiting, silent = w, s
		b.Reset()
		p.sayQuiet()
		return b.String()
	}
	const first = "goodput: no byte from the server for 30s while 3 requests wait for an answer: each gives up after 6h0m0s (--request-timeout); Ctrl-C ends the run and keeps what was measured\n"
	steps := []struct {
		waiting int64
		silent  time.Duration
		want    string
	}{
		{3, 29 * time.Second, ""},
		{3, 30 * time.Second, first},
		{3, 45 * time.Second, ""}, // said already
		{3, 61 * time.Second, "goodput: no byte from the server for 1m1s while 3 requests wait"},
		{3, 100 * time.Second, ""},
		{0, 200 * time.Second, ""},                     // nothing waits
		{1, 2 * time.Second, ""},                       // the server spoke again
		{1, 31 * time.Second, "while 1 request waits"}, // a new silence, said anew
	}
	for i, s := range steps {
		got := say(s.waiting, s.silent)
		if s.want == "" && got != "" || !strings.Contains(got, s.want) {
			t.Errorf("step %d (%d waiting, %v): said %q, want %q", i, s.waiting, s.silent, got, s.want)
		}
	}
	p.timeout = 0
	if got := say(2, 10*time.Minute); !strings.Contains(got, "none gives up (--request-timeout 0)") {
		t.Errorf("without a timeout: %q", got)
	}
}
