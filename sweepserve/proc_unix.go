//go:build unix

package sweepserve

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the command the leader of a new process group, so that
// the server's children (vLLM's engine processes, a shell's programs) stop
// with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the process group that cmd leads. A group that
// has gone is no error.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if err == syscall.ESRCH {
		return nil
	}
	return err
}

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)
