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
func idleAlive(c net.Conn) bool {
	if s, ok := c.(*sniffConn); ok {
		c = s.Conn
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	alive := true
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		n, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		_ = n
		alive = err == unix.EAGAIN || err == unix.EWOULDBLOCK
		return true
	})
	return alive && err == nil
}
