package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An --output that names a symbolic link or a named pipe is written
// through it: renaming a new file over it would have replaced the link
// (or /dev/stdout, or a device, for a user running as root).
func TestOutputThroughLinksAndPipes(t *testing.T) {
	dir := t.TempDir()
	h, recs := simRun(t, "H100-SXM", 20, 5, 1)
	file := writeRunFiles(t, dir, "base", h, recs, "ttft<=300ms,tpot<=20ms")

	t.Run("symlink", func(t *testing.T) {
		out := t.TempDir()
		real := filepath.Join(out, "r1.csv")
		link := filepath.Join(out, "latest.csv")
		if err := os.Symlink("r1.csv", link); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := run(t, "", "export", file, "-o", link); code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if m := lmode(t, link); m&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link: %v", link, m)
		}
		b, err := os.ReadFile(real)
		if err != nil || !strings.HasPrefix(string(b), "seq,") || strings.Count(string(b), "\n") != 21 {
			t.Errorf("the link's target holds %d bytes (%v), want the header and 20 rows", len(b), err)
		}
	})
	t.Run("named pipe", func(t *testing.T) {
		pipe := filepath.Join(t.TempDir(), "pipe")
		if err := syscall.Mkfifo(pipe, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		// The test holds both ends open, so that its reader neither sees
		// an end before the command writes nor waits forever when the pipe
		// is replaced: closing the test's writer ends the reading.
		r, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		w, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.SetNonblock(int(r.Fd()), false); err != nil {
			t.Fatal(err)
		}
		got := make(chan []byte, 1)
		go func() {
			b, _ := io.ReadAll(r)
			got <- b
		}()
		_, stderr, code := run(t, "", "report", file, "--format", "markdown", "-o", pipe)
		w.Close()
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if b := <-got; !strings.Contains(string(b), "## goodput run: base") {
			t.Errorf("the pipe's reader got %q, want the Markdown report", b)
		}
		if m := lmode(t, pipe); m&os.ModeNamedPipe == 0 {
			t.Errorf("%s is no longer a pipe: %v", pipe, m)
		}
	})
	t.Run("missing directory", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "nope", "r.csv")
		_, stderr, code := run(t, "", "export", file, "-o", out)
		if code != ExitTool || !strings.Contains(stderr, "--output: create "+out+": no such file or directory") {
			t.Errorf("exit %d: %s; want 1 naming %s", code, stderr, out)
		}
	})
}

func lmode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}
