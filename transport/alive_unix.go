//go:build unix

package transport

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// idleAlive reports whether an idle connection is still open and quiet:
// a peek that does not wait finds neither the server's close nor bytes
// nobody asked for (a server's idle-timeout answer), either of which
// makes it unfit for a request.
func idleAlive(c net.Conn) bool { return idleState(c) == idleQuiet }

// idleState peeks at an idle connection's socket without waiting.
func idleState(c net.Conn) idle {
	if s, ok := c.(*sniffConn); ok {
		c = s.Conn
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return idleQuiet
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return idleClosed
	}
	state := idleClosed
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		switch {
		case err == unix.EAGAIN || err == unix.EWOULDBLOCK:
			state = idleQuiet
		case err == nil && n > 0:
			state = idlePending
		}
		return true
	})
	if err != nil {
		return idleClosed
	}
	return state
}
