package clockskew

import (
	"time"

	"golang.org/x/sys/unix"
)

// NTP reads the kernel's clock discipline with adjtimex (read-only: it
// needs no privilege): whether a time daemon keeps the clock synchronised,
// and the kernel's estimated and maximum error. ok is false when the call
// fails (a sandbox that forbids it).
func NTP() (s Status, ok bool) {
	var tx unix.Timex
	state, err := unix.Adjtimex(&tx)
	if err != nil {
		return Status{}, false
	}
	return Status{
		Synced:   state != unix.TIME_ERROR && tx.Status&unix.STA_UNSYNC == 0,
		EstError: time.Duration(tx.Esterror) * time.Microsecond,
		MaxError: time.Duration(tx.Maxerror) * time.Microsecond,
	}, true
}
