//go:build linux

package transport_test

import (
	"fmt"
	"net"
	"net/url"
	"os"
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
// block made raw). cpu-µs/read is this process's CPU time per read that
// returned bytes; reads/token how many it took per token. Compare
// BenchmarkGenerator's cpu-µs/token, which does all the rest.
func BenchmarkReadFloor(b *testing.B) {
	for _, wait := range []string{"blocking", "parked"} {
		for _, streams := range []int{64, 256, 1000} {
			b.Run(fmt.Sprint(wait, "/", streams, "-streams"), func(b *testing.B) {
				for b.Loop() {
					readFloor(b, streams, wait == "parked")
				}
			})
		}
	}
}

func readFloor(b *testing.B, streams int, parked bool) {
	r := canned.StartChild(b, canned.Options{TTFT: 50 * time.Millisecond, ITL: 20 * time.Millisecond})
	u, _ := url.Parse(r.URL)
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(epfd)
	req := []byte("POST /v1/completions HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Length: 18\r\n\r\n{\"max_tokens\":128}")
	fds := make([]int, 0, streams)
	for range streams {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			b.Fatal(err)
		}
		raw, _ := c.(*net.TCPConn).SyscallConn()
		var fd int
		raw.Control(func(f uintptr) { fd, _ = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) })
		c.Close()
		fds = append(fds, fd)
		unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)})
	}
	cpu0 := cpuload.Self()
	for _, fd := range fds {
		unix.Write(fd, req)
	}
	// Each stream ends with "0\r\n\r\n"; the loop counts the ends.
	buf := make([]byte, 64<<10)
	evs := make([]unix.EpollEvent, 256)
	reads, ended := 0, 0
	tail := make(map[int32][]byte, streams)
	handle := func(evs []unix.EpollEvent) {
		for _, ev := range evs {
			r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(ev.Fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
			k := int(r)
			if e != 0 || k <= 0 {
				continue
			}
			reads++
			t := append(tail[ev.Fd], buf[max(0, k-5):k]...)
			tail[ev.Fd] = t[max(0, len(t)-5):]
			if string(tail[ev.Fd]) == "0\r\n\r\n" {
				ended++
				unix.EpollCtl(epfd, unix.EPOLL_CTL_DEL, int(ev.Fd), nil)
			}
		}
	}
	if parked {
		unix.SetNonblock(epfd, true)
		f := os.NewFile(uintptr(dup(b, epfd)), "floor")
		defer f.Close()
		rc, err := f.SyscallConn()
		if err != nil {
			b.Fatal(err)
		}
		for ended < streams {
			rc.Read(func(uintptr) bool {
				for {
					r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), 0, 0, 0)
					if e == unix.EINTR {
						continue
					}
					if e != 0 || r == 0 {
						return ended >= streams
					}
					handle(evs[:r])
				}
			})
		}
	} else {
		for ended < streams {
			n, err := unix.EpollWait(epfd, evs, -1)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				b.Fatal(err)
			}
			handle(evs[:n])
		}
	}
	cpu := cpuload.Self() - cpu0
	for _, fd := range fds {
		unix.Close(fd)
	}
	if _, err := r.Stop(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(reads), "cpu-µs/read")
	b.ReportMetric(float64(reads)/float64(streams*128), "reads/token")
}

// dup duplicates fd, so that the runtime's file may close its own.
func dup(b *testing.B, fd int) int {
	d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	return d
}
