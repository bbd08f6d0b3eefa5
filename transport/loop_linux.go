//go:build linux

package transport

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// loop is one event loop: an epoll set of its own holding its
// connections, level-triggered, waited for through the runtime's poller.
//
// The epoll set is itself a file the runtime's poller watches, so the
// loop's goroutine parks there like any reader when nothing arrives (no
// thread blocks in a system call, and an idle loop costs nothing), and
// wakes when any of its connections has bytes. It then takes every ready
// connection from the set and reads each once, into the loop's buffer,
// timestamping the read; the connection's parser hands the body to its
// Receiver from this goroutine. A connection with bytes left after its
// read is ready again at the next look, since the set is level-triggered:
// one read per readiness event, and no read that only finds nothing.
//
// The loop's own system calls (epoll_wait with no timeout, read, write)
// never block, so they are made raw, without telling the scheduler: a
// blocking call would make the runtime hand the goroutine's processor to
// another thread and wake its monitor, which on a small machine costs
// more than the read.
type loop struct {
	epfd int
	file *os.File // epfd, in the runtime's poller
	rc   syscall.RawConn

	mu    sync.Mutex // guards conns, gens and free
	conns []*conn    // by slot, the epoll data of a connection's events
	gens  []int32    // each slot's generation, also in the epoll data
	free  []int32    // slots not in use

	// Used only by the loop's goroutine.
	buf  []byte
	oob  []byte
	evs  []unix.EpollEvent
	iov  unix.Iovec
	msg  unix.Msghdr
	late *Delays // kernel arrival to read, per read that carried a stamp

	stopping atomic.Bool
	stopped  chan struct{}
}

// loopBuffer is the size of a loop's read buffer: a read takes at most
// this much of one connection's bytes, the rest waits for the next look.
const loopBuffer = 64 << 10

func newLoop(late *Delays) (*loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(epfd), "eventloop")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &loop{epfd: epfd, file: f, rc: rc, buf: make([]byte, loopBuffer),
		oob: make([]byte, unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{})))),
		evs: make([]unix.EpollEvent, 256), late: late, stopped: make(chan struct{})}
	l.iov.Base = &l.buf[0]
	l.msg.Iov = &l.iov
	l.msg.SetIovlen(1)
	l.msg.Control = &l.oob[0]
	go l.run()
	return l, nil
}

// run waits for the loop's connections until stop.
func (l *loop) run() {
	defer close(l.stopped)
	for !l.stopping.Load() {
		if err := l.rc.Read(l.look); err != nil {
			return // the epoll file was closed
		}
	}
}

// look handles every ready connection until none is, then reports false
// so that the runtime parks the goroutine until the set is ready again.
func (l *loop) look(uintptr) bool {
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd),
			uintptr(unsafe.Pointer(&l.evs[0])), uintptr(len(l.evs)), 0, 0, 0)
		n := int(r)
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			l.stopping.Store(true)
			return true
		case n == 0:
			return l.stopping.Load()
		}
		for i := range l.evs[:n] {
			ev := &l.evs[i]
			if c := l.lookup(ev.Fd, ev.Pad); c != nil && c.ready(ev.Events) {
				// The request whose exchange ended runs next, on this
				// processor: a closed loop's next request leaves now,
				// not once the loop has read every other ready socket
				// (a wave of bulk responses is milliseconds of parsing).
				runtime.Gosched()
			}
		}
	}
}

// lookup returns the connection of an event, nil when it was closed
// since.
func (l *loop) lookup(slot, gen int32) *conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if int(slot) >= len(l.conns) || l.gens[slot] != gen {
		return nil
	}
	return l.conns[slot]
}

// add puts c in the set, waiting for its bytes and its close.
func (l *loop) add(c *conn) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopping.Load() {
		return errClosed
	}
	var slot int32
	if n := len(l.free); n > 0 {
		slot = l.free[n-1]
		l.free = l.free[:n-1]
	} else {
		slot = int32(len(l.conns))
		l.conns = append(l.conns, nil)
		l.gens = append(l.gens, 0)
	}
	l.conns[slot] = c
	c.slot, c.gen = slot, l.gens[slot]
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: slot, Pad: c.gen}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
		l.releaseLocked(slot)
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// watchWrites sets whether c's events include writability (while a
// request is partly written).
func (l *loop) watchWrites(c *conn, on bool) error {
	events := uint32(unix.EPOLLIN | unix.EPOLLRDHUP)
	if on {
		events |= unix.EPOLLOUT
	}
	ev := unix.EpollEvent{Events: events, Fd: c.slot, Pad: c.gen}
	return os.NewSyscallError("epoll_ctl", unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &ev))
}

// remove takes c out of the loop's table; closing its file then takes it
// out of the set. An event of it already taken from the set finds
// nothing.
func (l *loop) remove(c *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if int(c.slot) < len(l.conns) && l.conns[c.slot] == c {
		l.releaseLocked(c.slot)
	}
}

func (l *loop) releaseLocked(slot int32) {
	l.conns[slot] = nil
	l.gens[slot]++
	l.free = append(l.free, slot)
}

// all returns the loop's connections, for Close.
func (l *loop) all() []*conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*conn
	for _, c := range l.conns {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// stop ends the loop's goroutine.
func (l *loop) stop() {
	if l.stopping.Swap(true) {
		return
	}
	l.file.Close()
	<-l.stopped
}

// recv reads once from fd into the loop's buffer, with the kernel's
// receive timestamp of the last bytes read when it gave one (wall-clock
// ns; 0 when none). n is -1 with the errno on failure, 0 at the end.
func (l *loop) recv(fd int) (n int, stamp int64, errno unix.Errno) {
	l.iov.SetLen(len(l.buf))
	l.msg.SetControllen(len(l.oob))
	l.msg.Flags = 0
	r, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&l.msg)), unix.MSG_DONTWAIT)
	if e != 0 {
		return -1, 0, e
	}
	n = int(r)
	if n > 0 && uint64(l.msg.Controllen) >= uint64(unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{})))) {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&l.oob[0]))
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPNS {
			ts := (*unix.Timespec)(unsafe.Pointer(&l.oob[unix.CmsgLen(0)]))
			stamp = ts.Nano()
		}
	}
	return n, stamp, 0
}

// noteDelay counts how long bytes stamped by the kernel at stamp waited
// until wall (both wall-clock ns). A stamp from after the read, or from
// more than a minute before it, means the wall clock was set meanwhile:
// it is not counted.
func (l *loop) noteDelay(stamp, wall int64) {
	if stamp == 0 || l.late == nil {
		return
	}
	if d := wall - stamp; d >= 0 && d < int64(time.Minute) {
		l.late.Add(time.Duration(d))
	}
}

// rawWrite writes b to fd without waiting: it returns what was written,
// and EAGAIN when the socket's buffer is full.
func rawWrite(fd int, b []byte) (int, unix.Errno) {
	if len(b) == 0 {
		return 0, 0
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}
