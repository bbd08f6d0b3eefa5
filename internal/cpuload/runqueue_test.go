package cpuload

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// A thread's schedstat line is its time on a CPU, its time waiting for
// one (ns) and how many times it ran; the reading sums the wait and the
// runs over every thread.
func TestReadRunQueueSumsTheThreads(t *testing.T) {
	dir := t.TempDir()
	for name, line := range map[string]string{"101": "5000 2000000 7\n", "102": "9 500000 3\n"} {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "schedstat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A thread that ended between the listing and its read is left out.
	if err := os.MkdirAll(filepath.Join(dir, "103"), 0o755); err != nil {
		t.Fatal(err)
	}
	defer func(d string) { taskDir = d }(taskDir)
	taskDir = dir
	r := ReadRunQueue()
	if want := (RunQueue{Wait: 2500 * time.Microsecond, Runs: 10, OK: true}); r != want {
		t.Errorf("ReadRunQueue = %+v, want %+v", r, want)
	}
	if m := r.Mean(); m != 250*time.Microsecond {
		t.Errorf("mean %v, want 250µs", m)
	}

	if err := os.WriteFile(filepath.Join(dir, "102", "schedstat"), []byte("9 x 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := ReadRunQueue(); r.OK {
		t.Errorf("a line that does not parse gave %+v", r)
	}
	taskDir = filepath.Join(dir, "none")
	if r := ReadRunQueue(); r.OK {
		t.Errorf("no task directory gave %+v", r)
	}
}

func TestParseSchedstat(t *testing.T) {
	for _, bad := range []string{"", "1 2", "1 -2 3", "1 2 z"} {
		if _, _, err := parseSchedstat([]byte(bad)); err == nil {
			t.Errorf("parseSchedstat(%q) took it", bad)
		}
	}
}

// The difference of two readings never goes below zero (a thread that
// ended took its counts with it), and is known only when both are.
func TestRunQueueSince(t *testing.T) {
	a := RunQueue{Wait: 10 * time.Millisecond, Runs: 100, OK: true}
	b := RunQueue{Wait: 25 * time.Millisecond, Runs: 130, OK: true}
	if d := b.Since(a); d != (RunQueue{Wait: 15 * time.Millisecond, Runs: 30, OK: true}) {
		t.Errorf("b since a = %+v", d)
	}
	if d := a.Since(b); d != (RunQueue{OK: true}) {
		t.Errorf("a since b = %+v, want nothing", d)
	}
	if d := b.Since(RunQueue{}); d.OK {
		t.Errorf("since an unknown reading = %+v", d)
	}
	if m := (RunQueue{OK: true}).Mean(); m != 0 {
		t.Errorf("mean of no runs = %v", m)
	}
}

// Twice as many busy threads as cores must take turns: the kernel's
// account of this process shows each waiting about half the time.
func TestReadRunQueueSeesThreadsWaitingForACore(t *testing.T) {
	a := ReadRunQueue()
	if !a.OK {
		if runtime.GOOS == "linux" {
			t.Fatalf("no schedstat under %s on Linux", taskDir)
		}
		t.Skip("the kernel keeps no run-queue account here")
	}
	n := 2 * runtime.NumCPU()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	const spin = 150 * time.Millisecond
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for start := time.Now(); time.Since(start) < spin; {
			}
		})
	}
	wg.Wait()
	d := ReadRunQueue().Since(a)
	// n threads runnable for 150 ms on n/2 cores wait n/2 × 150 ms in
	// all; a fifth of that is asked.
	if want := time.Duration(n) * spin / 10; d.Wait < want || d.Runs == 0 {
		t.Errorf("%d threads spinning %v on %d cores waited %v in %d runs, want at least %v",
			n, spin, runtime.NumCPU(), d.Wait, d.Runs, want)
	}
}
