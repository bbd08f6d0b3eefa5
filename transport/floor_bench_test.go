//go:build linux

package transport_test

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/goodput-dev/goodput/internal/canned"
	"github.com/goodput-dev/goodput/internal/cpuload"
)

func TestMain(m *testing.M) {
	if code, ran := canned.ServeChild(); ran {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// BenchmarkReadFloor is the machine's floor for reading paced streams:
// the least a client can spend per token when each token arrives on its
// own. It sends streams requests for 128 tokens to a canned server in a
// child process (the first 50 ms after the request, the rest 20 ms
// apart) and reads the answers with nothing but epoll and one read per
// ready socket into one buffer: no HTTP, no parsing, no records. It waits
// two ways: blocking, in epoll_wait as a C program would (from Go, a
// system call that blocks: the runtime hands the thread's processor on
// and takes it back at every wake-up), and parked, as the event loop
// waits (the epoll set in the runtime's poller, the calls that cannot
// block made raw). parked-held waits parked too, but once the epoll set
// has nothing ready it sleeps floorHold and looks once more before it
// parks, so that each wake-up finds more sockets ready: what coalescing
// the loop's wake-ups would save. parked-stamped reads as the event loop
// does: recvmsg with the kernel's receive timestamp (SO_TIMESTAMPNS) and
// the wall clock read beside it, what exact chunk times cost over a bare
// read. The uring variants read the same streams with io_uring
// instead (see readFloorUring). cpu-µs/read is this process's CPU time
// per read that returned bytes; reads/token how many it took per token;
// switches/read the context switches of this process's threads per read,
// which is where the variants differ most.
// Compare BenchmarkGenerator's cpu-µs/token, which does all the rest.
func BenchmarkReadFloor(b *testing.B) {
	for _, wait := range []string{"blocking", "parked", "parked-stamped", "parked-held", "uring", "uring-blocking"} {
		for _, streams := range []int{64, 256, 1000} {
			b.Run(fmt.Sprint(wait, "/", streams, "-streams"), func(b *testing.B) {
				for b.Loop() {
					f := dialFloor(b, streams, false)
					cpu0, sw0 := cpuload.Self(), switches()
					switch wait {
					case "blocking", "parked":
						readFloor(b, f, wait == "parked", 0)
					case "parked-stamped":
						f.stamped = true
						readFloor(b, f, true, 0)
					case "parked-held":
						readFloor(b, f, true, floorHold)
					default:
						readFloorUring(b, f, wait == "uring")
					}
					cpu, sw := cpuload.Self()-cpu0, switches()-sw0
					f.close(b)
					b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(f.reads), "cpu-µs/read")
					b.ReportMetric(float64(f.reads)/float64(streams*128), "reads/token")
					b.ReportMetric(float64(sw)/float64(f.reads), "switches/read")
					if f.stamped && f.stamps < f.reads {
						b.Fatalf("%d of %d reads carried the kernel's timestamp", f.stamps, f.reads)
					}
					if strings.HasPrefix(wait, "uring") {
						b.ReportMetric(float64(f.rearms)/float64(streams), "rearms/stream")
					}
				}
			})
		}
	}
}

// switches returns the context switches, voluntary or not, of every
// thread of this process so far.
func switches() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Nvcsw + ru.Nivcsw
}

// floorRun is one run of the floor: a canned server, a connection per
// stream, and what has been read of each.
type floorRun struct {
	remote *canned.Remote
	req    []byte
	fds    []int // by stream
	tails  []streamTail
	kept   [][]byte // by stream, every byte read; nil unless asked for
	reads  int      // reads that returned bytes, before their stream's end
	ended  int      // streams whose end was read
	rearms int      // receives armed again (io_uring only)
	sent   bool     // the requests went out before the read began
	// stamped reads with recvmsg and the kernel's receive timestamp, as
	// the event loop does; stamps counts the reads that carried one.
	stamped bool
	stamps  int
}

// dialFloor starts a canned server and dials streams connections to it,
// their requests not yet sent. keep keeps every byte read. Close it.
func dialFloor(tb testing.TB, streams int, keep bool) *floorRun {
	r := canned.StartChild(tb, canned.Options{TTFT: 50 * time.Millisecond, ITL: 20 * time.Millisecond})
	u, _ := url.Parse(r.URL)
	f := &floorRun{remote: r, tails: make([]streamTail, streams),
		req: floorRequest(u.Host, 128)}
	if keep {
		f.kept = make([][]byte, streams)
	}
	for range streams {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			tb.Fatal(err)
		}
		raw, _ := c.(*net.TCPConn).SyscallConn()
		var fd int
		raw.Control(func(f uintptr) { fd, _ = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) })
		c.Close()
		f.fds = append(f.fds, fd)
	}
	return f
}

// floorRequest is the floor's request for tokens tokens, to host.
func floorRequest(host string, tokens int) []byte {
	body := fmt.Sprintf(`{"max_tokens":%d}`, tokens)
	return fmt.Appendf(nil, "POST /v1/completions HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n%s", host, len(body), body)
}

// send writes every stream's request.
func (f *floorRun) send() {
	for _, fd := range f.fds {
		unix.Write(fd, f.req)
	}
}

// took counts a read of p on stream i and reports whether it was the
// stream's end.
func (f *floorRun) took(i int, p []byte) bool {
	f.reads++
	if f.kept != nil {
		f.kept[i] = append(f.kept[i], p...)
	}
	if f.tails[i].add(p) {
		f.ended++
		return true
	}
	return false
}

// close closes the connections and stops the server.
func (f *floorRun) close(tb testing.TB) {
	for _, fd := range f.fds {
		unix.Close(fd)
	}
	if _, err := f.remote.Stop(); err != nil {
		tb.Fatal(err)
	}
}

// streamTail holds the last bytes of a stream, to find its end: each
// stream ends with "0\r\n\r\n", which a read may split.
type streamTail struct {
	last [5]byte
	n    int
}

// add appends p and reports whether the stream now ends with its end.
func (t *streamTail) add(p []byte) bool {
	var w [10]byte
	n := copy(w[:], t.last[:t.n])
	n += copy(w[n:], p[max(0, len(p)-5):])
	t.n = copy(t.last[:], w[max(0, n-5):n])
	return string(t.last[:t.n]) == "0\r\n\r\n"
}

// floorHold is how long parked-held sleeps before it parks: a tenth of
// the streams' ITL.
const floorHold = 2 * time.Millisecond

// readFloor reads f's streams to their ends with epoll, parked in the
// runtime's poller or blocking in epoll_wait. Parked, with hold > 0, it
// sleeps hold when nothing is ready and looks once more before parking.
func readFloor(tb testing.TB, f *floorRun, parked bool, hold time.Duration) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		tb.Fatal(err)
	}
	defer unix.Close(epfd)
	for i, fd := range f.fds {
		// The event's data is the stream's index; the read takes the fd.
		unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd), Pad: int32(i)})
	}
	streams := len(f.fds)
	if !f.sent {
		f.send()
	}
	buf := make([]byte, 64<<10)
	evs := make([]unix.EpollEvent, 256)
	var msg unix.Msghdr
	var iov unix.Iovec
	oob := make([]byte, unix.CmsgSpace(int(unsafe.Sizeof(unix.Timespec{}))))
	if f.stamped {
		for _, fd := range f.fds {
			if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1); err != nil {
				tb.Fatal(err)
			}
		}
		iov.Base = &buf[0]
		msg.Iov, msg.Iovlen = &iov, 1
		msg.Control = &oob[0]
	}
	read := func(fd int32) (uintptr, unix.Errno) {
		if !f.stamped {
			r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
			return r, e
		}
		iov.SetLen(len(buf))
		msg.SetControllen(len(oob))
		r, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), unix.MSG_DONTWAIT)
		if e == 0 && r > 0 && uint64(msg.Controllen) >= uint64(unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{})))) {
			if h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0])); h.Level == unix.SOL_SOCKET && h.Type == unix.SO_TIMESTAMPNS &&
				(*unix.Timespec)(unsafe.Pointer(&oob[unix.CmsgLen(0)])).Nano() <= time.Now().UnixNano() {
				f.stamps++
			}
		}
		return r, e
	}
	handle := func(evs []unix.EpollEvent) {
		for _, ev := range evs {
			r, e := read(ev.Fd)
			k := int(r)
			if e != 0 || k <= 0 {
				continue
			}
			if f.took(int(ev.Pad), buf[:k]) {
				unix.EpollCtl(epfd, unix.EPOLL_CTL_DEL, int(ev.Fd), nil)
			}
		}
	}
	if parked {
		unix.SetNonblock(epfd, true)
		file := os.NewFile(uintptr(dup(tb, epfd)), "floor")
		defer file.Close()
		rc, err := file.SyscallConn()
		if err != nil {
			tb.Fatal(err)
		}
		held := false
		for f.ended < streams {
			rc.Read(func(uintptr) bool {
				for {
					r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), 0, 0, 0)
					if e == unix.EINTR {
						continue
					}
					if e != 0 || r == 0 {
						if hold > 0 && !held && f.ended < streams {
							held = true
							time.Sleep(hold)
							continue
						}
						held = false
						return f.ended >= streams
					}
					held = false
					handle(evs[:r])
				}
			})
		}
	} else {
		for f.ended < streams {
			n, err := unix.EpollWait(epfd, evs, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				tb.Fatal(err)
			}
			handle(evs[:n])
		}
	}
}

// dup duplicates fd, so that the runtime's file may close its own.
func dup(tb testing.TB, fd int) int {
	d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
