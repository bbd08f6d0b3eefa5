//go:build unix

package pretrained

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system: on a
// shared machine it measures work where wall time measures the queue.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
