package finesleep

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Sleeper sleeps with the kernel's high-resolution timer and, as a
// backstop, a Go timer: whichever fires first. A Sleeper is for
// one goroutine at a time. The zero Sleeper, and one whose timer could not
// be made, sleeps on a Go timer instead.
type Sleeper struct {
	fd int      // the timerfd
	f  *os.File // fd, registered with the runtime's poller
}

// New returns a Sleeper; Close releases its timer.
func New() *Sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return &Sleeper{}
	}
	return &Sleeper{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}
}

// For blocks for d. It is meant for the last stretch of a wait, a
// millisecond or so, after sleeping on a Go timer before it: it does not
// watch a context.
func (s *Sleeper) For(d time.Duration) {
	if d <= 0 {
		return
	}
	if s == nil || s.f == nil {
		time.Sleep(d)
		return
	}
	deadline := time.Now().Add(d)
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if unix.TimerfdSettime(s.fd, 0, &spec, nil) != nil || s.f.SetReadDeadline(deadline) != nil {
		time.Sleep(d)
		return
	}
	// The read ends with whichever timer fires first: the kernel's, or the
	// runtime's behind the read deadline, which a busy process checks more
	// often than its poller.
	var expirations [8]byte
	if _, err := s.f.Read(expirations[:]); err != nil {
		// The runtime's came first (or the file is closed): disarm the
		// kernel's and drop an expiry that raced in, so that the next
		// sleep does not end at once.
		_ = unix.TimerfdSettime(s.fd, 0, &unix.ItimerSpec{}, nil)
		_, _ = unix.Read(s.fd, expirations[:])
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			time.Sleep(time.Until(deadline))
		}
	}
}

// Close releases the timer. The Sleeper then sleeps on Go timers.
func (s *Sleeper) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	f := s.f
	s.f = nil
	return f.Close()
}
