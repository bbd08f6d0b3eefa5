package vllmresult

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A result that cannot be written whole leaves no file that passes for
// one (a full disk, here a file-size limit of 64 bytes), and an appended
// one leaves the results before it whole.
func TestAFailedWriteLeavesNoPartialResult(t *testing.T) {
	dir := t.TempDir()
	o := Object{{"date", "20261202-000000"}, {"padding", strings.Repeat("x", 200)}}
	prior := filepath.Join(dir, "appended.json")
	if err := WriteFile(prior, Object{{"n", 1}}, false); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(prior)

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skipf("no file-size limit here: %v", err)
	}
	lim := old
	lim.Cur = 64
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skipf("cannot set a file-size limit: %v", err)
	}
	_, errNew := WriteNew(filepath.Join(dir, "new.json"), o)
	errReplace := WriteFile(filepath.Join(dir, "replaced.json"), o, false)
	errAppend := WriteFile(prior, o, true)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}

	for name, err := range map[string]error{"new": errNew, "replaced": errReplace, "appended": errAppend} {
		if !errors.Is(err, syscall.EFBIG) {
			t.Errorf("%s: error %v, want the write's EFBIG", name, err)
		}
	}
	for _, name := range []string{"new.json", "replaced.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left behind (%v)", name, err)
		}
	}
	if after, _ := os.ReadFile(prior); string(after) != string(before) {
		t.Errorf("the results before the failed append are now %q, were %q", after, before)
	}
}
