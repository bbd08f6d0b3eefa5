//go:build linux

package cli

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/goodput-dev/goodput/internal/simtest"
	"github.com/goodput-dev/goodput/sim"
)

// ansi matches the escape sequences the progress line writes.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// TestBenchProgressOnAnEightyColumnTerminal runs bench with its standard
// error on a pseudo-terminal 80 columns wide, as a person at a terminal
// would, and reads what the terminal received: the progress line is
// redrawn in place (carriage return, clear, the line) and never reaches
// the last column, so it cannot wrap and add a line at each redraw.
func TestBenchProgressOnAnEightyColumnTerminal(t *testing.T) {
	_, url := simtest.Serve(t, sim.Options{Seed: 5})
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		// Reading ends with EIO once the terminal side is closed.
		_, _ = io.Copy(&screen, ptmx)
	}()

	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: tty, Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }, IsTerminal: true}
	root := NewRoot(env)
	// 30 requests at 12 a second: about 2.5 s, five redraws or more.
	root.SetArgs([]string{"bench", "--base-url", url, "--num-prompts", "30", "--request-rate", "12", "--arrival", "constant",
		"--random-input-len", "32", "--random-output-len", "8", "--ignore-eos", "--no-server-metrics"})
	err = root.ExecuteContext(context.Background())
	tty.Close()
	<-read
	if err != nil {
		t.Fatalf("bench: %v\n%s", err, screen.String())
	}
	// The terminal turns each newline into a carriage return and a newline.
	text := strings.ReplaceAll(screen.String(), "\r\n", "\n")
	start := strings.Index(text, "\r\x1b[K")
	if start < 0 {
		t.Fatalf("no redrawn line on the terminal:\n%q", text)
	}
	progress, rest, _ := strings.Cut(text[start:], "\n")
	frames := strings.Split(progress, "\r\x1b[K")[1:]
	if len(frames) < 4 {
		t.Errorf("%d redraws in about 2.5 s, want one every 0.5 s: %q", len(frames), progress)
	}
	for _, f := range frames {
		if n := utf8.RuneCountInString(ansi.ReplaceAllString(f, "")); n == 0 || n >= 80 {
			t.Errorf("a redraw of %d columns on an 80-column terminal: %q", n, f)
		}
	}
	last := frames[len(frames)-1]
	if !strings.HasPrefix(last, "[30/30]") || !strings.Contains(last, "tok/s (last 5s)") {
		t.Errorf("last redraw %q: want the final count and the rate labelled as the last 5 s", last)
	}
	// Nothing but the redraws between the first and the newline that ends
	// them, and no second progress line after it.
	if strings.Contains(rest, "\r\x1b[K") {
		t.Errorf("progress after the line ended:\n%q", rest)
	}
	if !strings.Contains(out.String(), "Successful requests:                     30") {
		t.Errorf("summary:\n%s", out.String())
	}
}
