package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/runfile"
)

// The test binary doubles as goodput: with GOODPUT_AS_MAIN set it runs main
// with the arguments after "--".
func TestMain(m *testing.M) {
	if os.Getenv("GOODPUT_AS_MAIN") == "1" {
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{"goodput"}, os.Args[i+1:]...)
				break
			}
		}
		os.Exit(run())
	}
	os.Exit(m.Run())
}

func goodput(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "GOODPUT_AS_MAIN=1")
	return cmd
}

func TestVersionAndUsageExitCodes(t *testing.T) {
	out, err := goodput("version").Output()
	if err != nil || !strings.HasPrefix(string(out), "goodput ") || !strings.Contains(string(out), "\ngo:       go1.") {
		t.Errorf("version: %q %v", out, err)
	}
	// --version prints the first line of `goodput version`, as headers carry it.
	short, err := goodput("--version").Output()
	if first, _, _ := strings.Cut(string(out), "\n"); err != nil || string(short) != first+"\n" {
		t.Errorf("--version: %q %v, want %q", short, err, first)
	}
	cmd := goodput("bench", "--request-rate", "fast")
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(b), "goodput: --request-rate") {
		t.Errorf("bad flag: exit %v, %s", err, b)
	}
}

// A run interrupted with SIGINT stops scheduling, drains, and leaves a valid
// record file holding one record per request it sent, marked interrupted.
func TestSIGINTLeavesCompleteRecords(t *testing.T) {
	dir := t.TempDir()
	cmd := goodput("bench", "--num-prompts", "100000", "--max-concurrency", "8", "--random-input-len", "32",
		"--random-output-len", "64", "--result-dir", dir, "--run-name", "cut", "--quiet")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	f, err := os.Open(filepath.Join(dir, "cut.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := record.NewDecoder(f, "cut.jsonl")
	n := 0
	for {
		var r record.Record
		err := d.Next(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	tr, ok := d.Trailer()
	if !ok || !tr.Interrupted || tr.Records != int64(n) || n == 0 {
		t.Errorf("%d records, trailer %+v %v\n%s", n, tr, ok, stderr.String())
	}
}

// A run whose result directory fills up (a 64 KiB tmpfs) stops, prints
// its summary, exits 1 and says how many records reached the disk and
// where the last whole one is; every one of them reads back. It needs
// the right to mount, which root has; elsewhere the same path is tested
// with an injected writer (bench's TestRunStopsWhenTheDiskIsFull...).
func TestFullDiskKeepsTheSummary(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	cmd := goodput("bench", "--num-prompts", "3000", "--max-concurrency", "8", "--random-input-len", "16",
		"--random-output-len", "16", "--ignore-eos", "--result-dir", dir, "--run-name", "full", "--quiet")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "Successful requests:") || !strings.Contains(stdout.String(), "Mean TTFT (ms):") {
		t.Errorf("no summary printed:\n%s", stdout.String())
	}
	f, err := runfile.Open(filepath.Join(dir, "full.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r record.Record
	n, last := 0, int64(-1)
	for err = f.Next(&r); err == nil; err = f.Next(&r) {
		n, last = n+1, r.Seq
	}
	if err != io.EOF || n == 0 || n >= 3000 {
		t.Fatalf("read %d records, then %v", n, err)
	}
	msg := stderr.String()
	for _, want := range []string{"no space left on device", fmt.Sprintf(" %d of ", n), fmt.Sprintf("line %d (seq %d)", n+1, last), "the run stopped"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
}

// A command that only reads files ends at the first SIGTERM, even while
// it waits to open a named pipe that no one writes to; a run's first
// signal is the one that drains it (TestSIGINTLeavesCompleteRecords).
func TestReadersEndAtTheFirstSignal(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "records")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Releases the reader's open, should the process still wait.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	cmd := goodput("analyze", fifo)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "interrupted") {
			t.Errorf("exit %v, %q; want 130 and a word that it was interrupted", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatal("analyze of a pipe without a writer did not end at SIGTERM")
	}
}

// A second signal ends a run at once, also in a process that started with
// SIGINT ignored, as a shell's background jobs and nohup start theirs: it
// must not wait out the drain's grace (3 s) that the first one began.
func TestSecondSignalExitsAtOnceWhenStartedIgnoringIt(t *testing.T) {
	dir := t.TempDir()
	inner := goodput("bench", "--num-prompts", "64", "--max-concurrency", "8", "--random-input-len", "32",
		"--random-output-len", "4000", "--result-dir", dir, "--run-name", "cut", "--quiet")
	// trap '' INT sets SIGINT to ignored, which exec hands on.
	cmd := exec.Command("/bin/sh", append([]string{"-c", `trap '' INT; exec "$@"`, "sh"}, inner.Args...)...)
	cmd.Env = inner.Env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	time.Sleep(2 * time.Second)
	for range 2 {
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("exit %v; want 130\n%s", err, stderr.String())
		}
	case <-time.After(2 * time.Second):
		t.Errorf("still running 2 s after the second SIGINT, inside the first one's grace\n%s", stderr.String())
		<-exited
	}
}
