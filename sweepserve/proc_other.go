//go:build !unix

package sweepserve

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup does nothing where there are no process groups: only the
// server process itself is stopped.
func ownGroup(cmd *exec.Cmd) {}

// signalGroup stops the process: other systems have no SIGTERM to send.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	err := cmd.Process.Kill()
	if err == os.ErrProcessDone {
		return nil
	}
	return err
}

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)
