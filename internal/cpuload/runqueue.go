package cpuload

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// RunQueue is a reading of the kernel's account of this process's
// threads (Linux's schedstat): how long they waited, runnable, for a core
// (Wait), and how many times one was given to them (Runs). It is the wait
// the Go scheduler's own histogram cannot see: a thread woken by the
// kernel (a socket became readable) that finds every core held by other
// processes' threads waits there before any goroutine of it runs. OK is
// false where the kernel keeps no such account (not Linux, or built
// without it).
type RunQueue struct {
	Wait time.Duration
	Runs uint64
	OK   bool
}

// taskDir holds a directory per thread of this process; tests point it
// elsewhere.
var taskDir = "/proc/self/task"

// ReadRunQueue sums the schedstat of every thread of this process. A
// thread that ends between two readings takes its share with it, so
// differences are of the threads that lived through both (a Go program's
// threads seldom end).
func ReadRunQueue() RunQueue {
	ents, err := os.ReadDir(taskDir)
	if err != nil {
		return RunQueue{}
	}
	var r RunQueue
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(taskDir, e.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended since the listing
		}
		wait, runs, err := parseSchedstat(b)
		if err != nil {
			return RunQueue{}
		}
		r.Wait += wait
		r.Runs += runs
		r.OK = true
	}
	return r
}

// parseSchedstat reads a thread's schedstat line: its time on a CPU and
// its time waiting for one, in ns, and how many times it was run.
func parseSchedstat(b []byte) (wait time.Duration, runs uint64, err error) {
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, 0, fmt.Errorf("schedstat %q: want 3 fields", b)
	}
	w, err := strconv.ParseUint(string(f[1]), 10, 63)
	if err != nil {
		return 0, 0, fmt.Errorf("schedstat %q: wait: %w", b, err)
	}
	runs, err = strconv.ParseUint(string(f[2]), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("schedstat %q: runs: %w", b, err)
	}
	return time.Duration(w), runs, nil
}

// Since returns what happened between a (the earlier reading) and r: the
// wait and the runs, never negative (threads that ended take theirs
// with them); OK only when both readings are.
func (r RunQueue) Since(a RunQueue) RunQueue {
	if !r.OK || !a.OK {
		return RunQueue{}
	}
	return RunQueue{Wait: gain(a.Wait, r.Wait), Runs: gain(a.Runs, r.Runs), OK: true}
}

// Mean returns the wait per run, 0 when there was none.
func (r RunQueue) Mean() time.Duration {
	if r.Runs == 0 {
		return 0
	}
	return r.Wait / time.Duration(r.Runs)
}
