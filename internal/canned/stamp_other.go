//go:build unix && !linux

package canned

import "syscall"

// enableStamps does nothing: receive timestamps are read on Linux only.
func enableStamps(int) {}

// recvStamped reads from fd; its times are the reads' own.
func recvStamped(fd int, p, _ []byte) (int, int64, error) {
	n, err := syscall.Read(fd, p)
	return n, 0, err
}
