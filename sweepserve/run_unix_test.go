//go:build unix

package sweepserve

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Stopping a server ends its whole process group, a process of its own
// included, and one that ignores SIGTERM is killed after the grace period.
func TestStopEndsTheWholeGroup(t *testing.T) {
	cfg := sweepConfig(t, "--child", "--ignore-term")
	cfg.StopGrace = 300 * time.Millisecond
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	log := readText(t, filepath.Join(cfg.OutputDir, "exp", "SERVE-default.log"))
	_, after, ok := strings.Cut(log, "\nchild ")
	pid, err := strconv.Atoi(strings.Fields(after + " x")[0])
	if !ok || err != nil {
		t.Fatalf("no child pid in the log:\n%s", log)
	}
	if !strings.Contains(log, "ignoring SIGTERM") {
		t.Errorf("the server was not sent SIGTERM first:\n%s", log)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the server's child %d outlived it", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
