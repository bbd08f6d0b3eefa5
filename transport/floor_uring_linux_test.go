//go:build linux

package transport_test

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// floorBuffers and floorBufferSize shape the provided buffers of the
// uring floor: a multishot receive takes one buffer per completion, and
// a paced token (some 150 bytes) fits one many times over.
const (
	floorBuffers    = 1024
	floorBufferSize = 4 << 10
)

// floorDeadline bounds a uring floor run, so that a kernel that never
// posts a completion fails the run rather than hanging it.
const floorDeadline = 2 * time.Minute

// readFloorUring reads f's streams to their ends with io_uring: one
// multishot receive per socket, each completion carrying one read's bytes
// in a buffer the kernel took from a provided buffer ring, given back
// once the bytes are consumed. A completion with bytes counts as one
// read, as one read that returns bytes does under epoll.
//
// Parked, the ring's fd is in the runtime's poller (it is readable when
// completions are posted): the goroutine parks there, drains the
// completion queue from shared memory with no system call, and enters
// the kernel only to submit. Blocking, the goroutine's thread waits in
// io_uring_enter for at least one completion; the ring is then set up
// with IORING_SETUP_DEFER_TASKRUN, so that the kernel completes receives
// in that wait instead of interrupting the thread to do it.
//
// Parked cannot use DEFER_TASKRUN: the receives' work then waits for the
// owning thread to enter the kernel, and the ring's fd does not become
// readable meanwhile, so a parked reader never wakes (tried on 6.18: no
// stream got a byte before the deadline). Without it, the kernel does a
// receive's work in the thread that submitted it, woken for that, before
// the completion makes the ring readable and the poller wakes the reader:
// more wake-ups per token than epoll's one, which is what switches/read
// shows.
//
// It skips tb where the kernel has no io_uring or refuses it.
func readFloorUring(tb testing.TB, f *floorRun, parked bool) {
	streams := len(f.fds)
	// Completions with bytes that are not yet consumed each hold a
	// buffer, and a stream has at most one completion without bytes
	// pending (its receive's end, re-armed only once consumed): a
	// completion queue of floorBuffers+streams entries cannot overflow.
	cq := uint32(1) << bits.Len32(uint32(floorBuffers+streams-1))
	flags := uint32(0)
	if !parked {
		// DEFER_TASKRUN requires every submission and wait from the
		// thread that set the ring up.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		flags = ioringSetupSingleIssuer | ioringSetupDeferTaskrun
	}
	r, err := newUring(uint32(min(streams, 1024)), cq, flags)
	if errors.Is(err, errUringUnavailable) {
		tb.Skip(err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer r.close()
	br, err := newBufRing(r, 0, floorBuffers, floorBufferSize)
	if err != nil {
		tb.Fatal(err)
	}
	defer br.close()

	done := make([]bool, streams)
	arm := func(i int) error {
		s, err := r.sqe()
		if err != nil {
			return err
		}
		s.opcode = ioringOpRecv
		s.flags = iosqeBufferSelect
		s.ioprio = ioringRecvMultishot
		s.fd = int32(f.fds[i])
		s.bufGroup = br.bgid
		s.userData = uint64(i)
		return nil
	}
	for i := range streams {
		if err := arm(i); err != nil {
			tb.Fatal(err)
		}
	}
	if err := r.submit(); err != nil {
		tb.Fatal(err)
	}
	f.send()

	// complete consumes one completion; the first error it meets stops
	// the run.
	var failed error
	complete := func(c uringCQE) {
		i := int(c.userData)
		if c.flags&ioringCQEFBuffer != 0 {
			bid := uint16(c.flags >> ioringCQEBufferShift)
			if c.res > 0 && !done[i] && f.took(i, br.buf(bid, int(c.res))) {
				done[i] = true
			}
			br.put(bid)
		}
		switch {
		case c.res > 0 && c.flags&ioringCQEFBuffer == 0:
			failed = cmp(failed, fmt.Errorf("stream %d: a receive of %d bytes named no buffer", i, c.res))
		case c.res == 0 && !done[i]:
			failed = cmp(failed, fmt.Errorf("stream %d: the server closed the connection before the stream's end", i))
		case c.res < 0 && syscall.Errno(-c.res) != unix.ENOBUFS && !done[i]:
			failed = cmp(failed, fmt.Errorf("stream %d: receive: %w", i, syscall.Errno(-c.res)))
		}
		// A receive ends without IORING_CQE_F_MORE: on ENOBUFS (every
		// buffer was taken), at the peer's close, on an error, or when
		// the kernel chose to. Arm it again while the stream is under way.
		if c.flags&ioringCQEFMore == 0 && !done[i] && c.res != 0 && failed == nil {
			f.rearms++
			failed = cmp(failed, arm(i))
		}
	}
	// drain consumes every posted completion, gives their buffers back and
	// submits the receives armed again.
	drain := func() int {
		n, err := r.drain(complete)
		failed = cmp(failed, err)
		br.publish()
		failed = cmp(failed, r.submit())
		return n
	}

	deadline := time.Now().Add(floorDeadline)
	if parked {
		unix.SetNonblock(r.fd, true)
		file := os.NewFile(uintptr(dup(tb, r.fd)), "uring")
		defer file.Close()
		rc, err := file.SyscallConn()
		if err != nil {
			tb.Fatal(err)
		}
		file.SetReadDeadline(deadline)
		for f.ended < streams && failed == nil {
			err := rc.Read(func(uintptr) bool {
				for drain() > 0 {
				}
				return f.ended >= streams || failed != nil
			})
			if err != nil {
				tb.Fatalf("uring floor: %d of %d streams ended: %v", f.ended, streams, err)
			}
		}
	} else {
		for f.ended < streams && failed == nil {
			if time.Now().After(deadline) {
				tb.Fatalf("uring floor: %d of %d streams ended in %v", f.ended, streams, floorDeadline)
			}
			if _, err := r.wait(int64(time.Second)); err != nil {
				tb.Fatal(err)
			}
			drain()
		}
	}
	if failed != nil {
		tb.Fatal(failed)
	}
}

// cmp returns the first error of a and b that is not nil.
func cmp(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// TestUringFloorReadsWhatEpollReads checks the uring floor against the
// epoll floor: four streams, every one read to its end, in bytes the
// same as epoll's, each with its 128 tokens, and no file left open.
func TestUringFloorReadsWhatEpollReads(t *testing.T) {
	const streams = 4
	read := func(name string) [][]byte {
		f := dialFloor(t, streams, true)
		defer f.close(t)
		switch name {
		case "parked":
			readFloor(t, f, true, 0)
		default:
			readFloorUring(t, f, name == "uring")
		}
		if f.ended != streams {
			t.Fatalf("%s: %d of %d streams ended", name, f.ended, streams)
		}
		return f.kept
	}
	want := read("parked")
	for i, b := range want {
		if n := countTokens(b); n != 128 {
			t.Fatalf("parked: stream %d has %d tokens, want 128", i, n)
		}
	}
	for _, name := range []string{"uring", "uring-blocking"} {
		fds := openFiles(t)
		got := read(name)
		if n := openFiles(t); n != fds {
			t.Errorf("%s: %d files open after the run, %d before", name, n, fds)
		}
		for i := range want {
			if string(got[i]) != string(want[i]) {
				t.Errorf("%s: stream %d read %d bytes, not the %d epoll read:\n%q\nwant\n%q", name, i, len(got[i]), len(want[i]), got[i], want[i])
			}
		}
	}
}

// openFiles counts this process's open files.
func openFiles(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// countTokens counts the completion events of a canned stream.
func countTokens(b []byte) int {
	n := 0
	for i := 0; i+len(`"text":`) <= len(b); i++ {
		if string(b[i:i+len(`"text":`)]) == `"text":` {
			n++
		}
	}
	return n
}
