//go:build linux

package canned

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// enableStamps asks the kernel for receive timestamps on fd.
func enableStamps(fd int) {
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
}

// recvStamped reads from fd with the kernel's receive time of the last
// bytes read (wall-clock ns; 0 when it gave none).
func recvStamped(fd int, p, oob []byte) (int, int64, error) {
	n, oobn, _, _, err := unix.Recvmsg(fd, p, oob, unix.MSG_DONTWAIT)
	if err != nil {
		return 0, 0, err
	}
	var stamp int64
	if oobn >= unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))) {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPNS {
			stamp = (*unix.Timespec)(unsafe.Pointer(&oob[unix.CmsgLen(0)])).Nano()
		}
	}
	return n, stamp, nil
}
