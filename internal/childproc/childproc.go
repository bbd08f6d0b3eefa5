// Package childproc runs a test binary again as a helper server in its own
// process, so that a benchmark's measurements are not shared with the
// server's Go scheduler, heap and CPU time. It exists for tests.
//
// The child, chosen by an environment variable that the test binary's
// TestMain checks, prints one line (its address) and serves until the
// parent closes its standard input (WaitForParent); it may then print more
// for the parent to read.
package childproc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Child is a running helper process.
type Child struct {
	Addr string        // the first line it printed, trimmed
	Out  *bufio.Reader // the rest of its standard output
	cmd  *exec.Cmd
	in   io.WriteCloser
}

// Start runs this test binary again with env (NAME=value) added, and
// returns once the child has printed its first line. It fails tb if the
// child cannot start or exits before printing. The child's standard error
// is this process's.
func Start(tb testing.TB, env string) *Child {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c := &Child{Out: bufio.NewReader(stdout), cmd: cmd, in: in}
	line, err := c.Out.ReadString('\n')
	if err != nil {
		_ = c.Stop()
		tb.Fatalf("child process (%s): %v", env, err)
	}
	c.Addr = strings.TrimSpace(line)
	return c
}

// Close closes the child's standard input: it stops serving and may print
// what it has to say before exiting. Read Out, then call Stop.
func (c *Child) Close() error { return c.in.Close() }

// Stop closes the child's standard input, if Close has not, and waits for
// it to exit.
func (c *Child) Stop() error {
	_ = c.in.Close()
	if err := c.cmd.Wait(); err != nil {
		return fmt.Errorf("child process: %w", err)
	}
	return nil
}

// WaitForParent blocks the child until its parent closes its standard
// input (the parent is done, or gone) or max passes.
func WaitForParent(max time.Duration) {
	closed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(max):
	}
}
