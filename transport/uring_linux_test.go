//go:build linux

package transport_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI, as linux/io_uring.h gives it: golang.org/x/sys/unix
// has the system call numbers but none of these.
const (
	ioringOffSQRing = 0          // mmap offset of the SQ ring (and, with one mmap, the CQ ring)
	ioringOffSQEs   = 0x10000000 // mmap offset of the SQE array

	ioringFeatSingleMmap = 1 << 0
	ioringFeatExtArg     = 1 << 8

	ioringSetupCQSize       = 1 << 3
	ioringSetupSingleIssuer = 1 << 12
	ioringSetupDeferTaskrun = 1 << 13

	ioringSQCQOverflow = 1 << 1 // in the SQ ring's flags

	ioringEnterGetEvents = 1 << 0
	ioringEnterExtArg    = 1 << 3

	ioringOpRecv        = 27
	iosqeBufferSelect   = 1 << 5
	ioringRecvMultishot = 1 << 1 // in the SQE's ioprio

	ioringCQEFBuffer     = 1 << 0
	ioringCQEFMore       = 1 << 1
	ioringCQEBufferShift = 16

	ioringRegisterPbufRing   = 22
	ioringUnregisterPbufRing = 23
)

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  struct{ head, tail, ringMask, ringEntries, flags, dropped, array, resv1, userAddrLo, userAddrHi uint32 }
	cqOff                                                                  struct{ head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1, userAddrLo, userAddrHi uint32 }
}

// uringSQE is struct io_uring_sqe, 64 bytes.
type uringSQE struct {
	opcode, flags         uint8
	ioprio                uint16
	fd                    int32
	off, addr             uint64
	len, opFlags          uint32
	userData              uint64
	bufGroup, personality uint16
	spliceFdIn            int32
	addr3, pad            uint64
}

// uringCQE is struct io_uring_cqe, 16 bytes.
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

// uringBufReg is struct io_uring_buf_reg.
type uringBufReg struct {
	ringAddr    uint64
	ringEntries uint32
	bgid        uint16
	flags       uint16
	resv        [3]uint64
}

// uringBuf is struct io_uring_buf, one entry of a provided buffer ring.
type uringBuf struct {
	addr uint64
	len  uint32
	bid  uint16
	resv uint16 // of entry 0: the ring's tail
}

// uringGeteventsArg is struct io_uring_getevents_arg, for a wait with a
// timeout (IORING_ENTER_EXT_ARG).
type uringGeteventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32
	ts        uint64
}

// errUringUnavailable wraps the reason io_uring_setup gave when the
// kernel has no io_uring or refuses it to this process.
var errUringUnavailable = errors.New("io_uring unavailable")

// uring is a minimal io_uring: a submission and a completion queue
// shared with the kernel in one mapping, and the SQE array in another.
// It is used by one goroutine. Close it when done.
type uring struct {
	fd      int
	rings   []byte // SQ and CQ rings, one mapping (IORING_FEAT_SINGLE_MMAP)
	sqeMem  []byte
	entries uint32 // SQ entries

	sqHead, sqTail, sqFlags *uint32
	sqMask                  uint32
	sqes                    []uringSQE
	queued                  uint32 // SQEs in the ring the kernel has not taken yet

	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []uringCQE

	// A wait's timeout and the argument that points at it, kept here, in
	// the heap, since the kernel is given the timeout's address as a number.
	ts  unix.Timespec
	arg uringGeteventsArg
}

// newUring sets up a ring of sq submission and cq completion entries
// (powers of two) with the setup flags given; IORING_SETUP_CQSIZE is
// added. It wraps errUringUnavailable where the kernel has no io_uring
// (ENOSYS) or refuses it (EPERM, as kernel.io_uring_disabled does), and
// fails where the kernel lacks the features the floor needs.
func newUring(sq, cq, flags uint32) (*uring, error) {
	p := uringParams{flags: flags | ioringSetupCQSize, cqEntries: cq}
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(sq), uintptr(unsafe.Pointer(&p)), 0)
	if e == unix.ENOSYS || e == unix.EPERM {
		return nil, fmt.Errorf("%w: io_uring_setup: %w", errUringUnavailable, e)
	}
	if e != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", e)
	}
	r := &uring{fd: int(fd), entries: p.sqEntries}
	fail := func(err error) (*uring, error) {
		r.close()
		return nil, err
	}
	if p.features&ioringFeatSingleMmap == 0 || p.features&ioringFeatExtArg == 0 {
		return fail(fmt.Errorf("io_uring: the kernel lacks single mmap or extended wait arguments (features %#x)", p.features))
	}
	size := max(p.sqOff.array+p.sqEntries*4, p.cqOff.cqes+p.cqEntries*uint32(unsafe.Sizeof(uringCQE{})))
	var err error
	if r.rings, err = unix.Mmap(r.fd, ioringOffSQRing, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return fail(fmt.Errorf("io_uring: mmap rings: %w", err))
	}
	if r.sqeMem, err = unix.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(uringSQE{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return fail(fmt.Errorf("io_uring: mmap SQEs: %w", err))
	}
	at := func(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&r.rings[off])) }
	r.sqHead, r.sqTail, r.sqFlags, r.sqMask = at(p.sqOff.head), at(p.sqOff.tail), at(p.sqOff.flags), *at(p.sqOff.ringMask)
	r.cqHead, r.cqTail, r.cqMask = at(p.cqOff.head), at(p.cqOff.tail), *at(p.cqOff.ringMask)
	r.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqes = unsafe.Slice((*uringCQE)(unsafe.Pointer(&r.rings[p.cqOff.cqes])), p.cqEntries)
	// The SQ ring holds indices into the SQE array; slot i always names
	// SQE i, so it is set once.
	array := unsafe.Slice((*uint32)(unsafe.Pointer(&r.rings[p.sqOff.array])), p.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}
	return r, nil
}

// close unmaps the rings and closes the ring, which cancels every
// request still armed.
func (r *uring) close() {
	if r.sqeMem != nil {
		unix.Munmap(r.sqeMem)
	}
	if r.rings != nil {
		unix.Munmap(r.rings)
	}
	unix.Close(r.fd)
}

// sqe returns the next submission entry, zeroed, queued for the next
// enter. When the queue is full it first hands the kernel what is queued.
func (r *uring) sqe() (*uringSQE, error) {
	tail := *r.sqTail // only this side writes the tail
	if tail-atomic.LoadUint32(r.sqHead) == r.entries {
		if err := r.submit(); err != nil {
			return nil, err
		}
	}
	s := &r.sqes[tail&r.sqMask]
	*s = uringSQE{}
	// The entry is written before the tail is published; the caller fills
	// it in before the next enter, which is what makes the kernel read it.
	atomic.StoreUint32(r.sqTail, tail+1)
	r.queued++
	return s, nil
}

// submit hands the kernel every queued entry without waiting for any
// completion. The call cannot block, so it is made raw, without telling
// the scheduler.
func (r *uring) submit() error {
	for r.queued > 0 {
		n, _, e := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.queued), 0, 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return fmt.Errorf("io_uring_enter: submit %d: %w", r.queued, e)
		}
		r.queued -= uint32(n)
	}
	return nil
}

// wait hands the kernel what is queued and blocks until a completion is
// posted or timeout ns pass. It is a blocking system call, so the
// scheduler is told (as it is around a blocking epoll_wait). It reports
// false on timeout or an interrupted wait.
func (r *uring) wait(timeout int64) (bool, error) {
	r.ts = unix.NsecToTimespec(timeout)
	r.arg = uringGeteventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.ts)))}
	n, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.queued), 1,
		ioringEnterGetEvents|ioringEnterExtArg, uintptr(unsafe.Pointer(&r.arg)), unsafe.Sizeof(r.arg))
	if e == 0 {
		r.queued -= uint32(n)
	}
	switch e {
	case 0:
		return true, nil
	case unix.ETIME, unix.EINTR:
		return false, nil
	}
	return false, fmt.Errorf("io_uring_enter: wait: %w", e)
}

// drain hands each posted completion to f, in order, from the shared
// ring (no system call), then frees their slots. It fails if the kernel
// had to keep completions aside because the queue was full: the floor
// sizes the queue so that this cannot happen.
func (r *uring) drain(f func(uringCQE)) (int, error) {
	head := *r.cqHead // only this side writes the head
	tail := atomic.LoadUint32(r.cqTail)
	for h := head; h != tail; h++ {
		f(r.cqes[h&r.cqMask])
	}
	atomic.StoreUint32(r.cqHead, tail)
	if atomic.LoadUint32(r.sqFlags)&ioringSQCQOverflow != 0 {
		return int(tail - head), errors.New("io_uring: the completion queue overflowed")
	}
	return int(tail - head), nil
}

// bufRing is a ring of provided buffers, registered with a ring as
// buffer group bgid: a receive that selects a buffer takes the next one,
// and the completion names it. The memory is this process's, mapped
// outside Go's heap, and the kernel writes into it.
type bufRing struct {
	r       *uring
	bgid    uint16
	size    int    // bytes per buffer
	ringMem []byte // the entries, shared with the kernel
	bufMem  []byte // the buffers
	entries []uringBuf
	mask    uint16
	tail    uint16 // entries published so far, mod 2^16
}

// newBufRing registers n buffers (a power of two up to 32,768) of size
// bytes as group bgid of r, all of them given to the kernel. Close it
// before the ring.
func newBufRing(r *uring, bgid uint16, n, size int) (*bufRing, error) {
	b := &bufRing{r: r, bgid: bgid, size: size, mask: uint16(n - 1)}
	var err error
	if b.ringMem, err = unix.Mmap(-1, 0, n*int(unsafe.Sizeof(uringBuf{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_POPULATE); err != nil {
		return nil, fmt.Errorf("io_uring: mmap buffer ring: %w", err)
	}
	if b.bufMem, err = unix.Mmap(-1, 0, n*size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_POPULATE); err != nil {
		unix.Munmap(b.ringMem)
		return nil, fmt.Errorf("io_uring: mmap buffers: %w", err)
	}
	b.entries = unsafe.Slice((*uringBuf)(unsafe.Pointer(&b.ringMem[0])), n)
	reg := uringBufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&b.ringMem[0]))), ringEntries: uint32(n), bgid: bgid}
	if _, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), ioringRegisterPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); e != 0 {
		unix.Munmap(b.bufMem)
		unix.Munmap(b.ringMem)
		return nil, fmt.Errorf("io_uring_register: buffer ring of %d: %w", n, e)
	}
	for i := range n {
		b.put(uint16(i))
	}
	b.publish()
	return b, nil
}

// buf is buffer bid's first n bytes.
func (b *bufRing) buf(bid uint16, n int) []byte {
	off := int(bid) * b.size
	return b.bufMem[off : off+n]
}

// put queues buffer bid to be given back to the kernel at publish.
func (b *bufRing) put(bid uint16) {
	e := &b.entries[b.tail&b.mask]
	e.addr = uint64(uintptr(unsafe.Pointer(&b.bufMem[int(bid)*b.size])))
	e.len = uint32(b.size)
	e.bid = bid
	b.tail++
}

// publish gives the kernel every buffer put so far. The ring's tail is
// the last 16 bits of entry 0, beside that entry's buffer id: the two are
// stored together in one atomic 32-bit store, so the entries written
// before are seen by the kernel before the tail that covers them.
func (b *bufRing) publish() {
	word := (*uint32)(unsafe.Pointer(&b.entries[0].bid))
	atomic.StoreUint32(word, uint32(b.tail)<<16|uint32(b.entries[0].bid))
}

// close takes the buffers back from the ring and unmaps them.
func (b *bufRing) close() {
	reg := uringBufReg{bgid: b.bgid}
	unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(b.r.fd), ioringUnregisterPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0)
	unix.Munmap(b.bufMem)
	unix.Munmap(b.ringMem)
}
