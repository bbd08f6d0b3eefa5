package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// Every kind of name a user may give as an output file, and what must
// hold after writing it.
func TestWrite(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the path to write
		check func(t *testing.T, dir, path string)
	}{
		{
			// A new file appears with the content, and nothing else is
			// left in the directory.
			name:  "new file",
			setup: func(t *testing.T, dir string) string { return filepath.Join(dir, "out.csv") },
			check: func(t *testing.T, dir, path string) {
				wantContent(t, path, "new")
				wantEntries(t, dir, 1)
			},
		},
		{
			// An existing file is replaced and keeps its permissions.
			name: "existing file",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "out.csv")
				must(t, os.WriteFile(p, []byte("old old old"), 0o600))
				return p
			},
			check: func(t *testing.T, dir, path string) {
				wantContent(t, path, "new")
				fi, err := os.Stat(path)
				must(t, err)
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("mode %v, want 0600 as before", fi.Mode().Perm())
				}
			},
		},
		{
			// A symbolic link stays a link; the file it names is replaced.
			name: "symlink",
			setup: func(t *testing.T, dir string) string {
				must(t, os.Mkdir(filepath.Join(dir, "reports"), 0o755))
				must(t, os.WriteFile(filepath.Join(dir, "reports", "r1.html"), []byte("old"), 0o644))
				p := filepath.Join(dir, "latest.html")
				must(t, os.Symlink(filepath.Join("reports", "r1.html"), p))
				return p
			},
			check: func(t *testing.T, dir, path string) {
				fi, err := os.Lstat(path)
				must(t, err)
				if fi.Mode()&os.ModeSymlink == 0 {
					t.Fatalf("%s is no longer a symlink: %v", path, fi.Mode())
				}
				wantContent(t, filepath.Join(dir, "reports", "r1.html"), "new")
			},
		},
		{
			// A dangling link gets the file it names.
			name: "dangling symlink",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "latest.html")
				must(t, os.Symlink("r2.html", p))
				return p
			},
			check: func(t *testing.T, dir, path string) {
				wantContent(t, filepath.Join(dir, "r2.html"), "new")
				if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("latest.html is no longer a symlink: %v %v", fi, err)
				}
			},
		},
		{
			// A named pipe is written through, not replaced by a regular
			// file (as /dev/stdout or /dev/null must not be).
			name: "fifo",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "pipe")
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
				// Both ends held open: the reader neither sees an end before
				// Write nor waits forever if the pipe were replaced.
				r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				must(t, err)
				w, err := os.OpenFile(p, os.O_WRONLY, 0)
				must(t, err)
				must(t, syscall.SetNonblock(int(r.Fd()), false))
				got := make(chan string, 1)
				go func() {
					b, _ := io.ReadAll(r)
					got <- string(b)
				}()
				t.Cleanup(func() {
					w.Close()
					if s := <-got; s != "new" {
						t.Errorf("the pipe's reader got %q, want %q", s, "new")
					}
					r.Close()
				})
				return p
			},
			check: func(t *testing.T, dir, path string) {
				fi, err := os.Lstat(path)
				must(t, err)
				if fi.Mode()&os.ModeNamedPipe == 0 {
					t.Errorf("%s is no longer a FIFO: %v", path, fi.Mode())
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := c.setup(t, dir)
			if err := Write(path, writeString("new")); err != nil {
				t.Fatal(err)
			}
			c.check(t, dir, path)
		})
	}
}

// Failures name the file the user gave, never the temporary one, and
// leave nothing behind.
func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, path string
		write      func(io.Writer) error
		want       string // in the error
	}{
		// A directory that does not exist.
		{"missing dir", filepath.Join(dir, "nope", "out.csv"), writeString("x"), "create " + filepath.Join(dir, "nope", "out.csv") + ": no such file or directory"},
		// A directory is not a file.
		{"directory", dir, writeString("x"), dir + " is a directory"},
		// The writer's own error comes back as it is.
		{"writer fails", filepath.Join(dir, "out.csv"), func(io.Writer) error { return errors.New("bad record on line 3") }, "bad record on line 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Write(c.path, c.write)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), ".out.csv.") {
				t.Errorf("err %q names the temporary file", err)
			}
		})
	}
	wantEntries(t, dir, 0)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantContent(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	if string(b) != want {
		t.Errorf("%s holds %q, want %q", path, b, want)
	}
}

func wantEntries(t *testing.T, dir string, n int) {
	t.Helper()
	es, err := os.ReadDir(dir)
	must(t, err)
	if len(es) != n {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %v, want %d entries", dir, names, n)
	}
}
