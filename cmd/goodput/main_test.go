package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
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
