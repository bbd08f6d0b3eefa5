package bench

import (
	"fmt"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// Unreachability: a server that went away turns every later request into a
// connection failure within microseconds. Measuring on would only fill the
// records with refusals (a closed loop sends thousands a second), so the run
// stops when the failures leave no doubt.
const (
	// UnreachableRun is how many connection failures in a row stop a run.
	UnreachableRun = 50
	// UnreachableFor is how long nothing but connection failures stops a
	// run, however few: a slow open loop reaches the count late.
	UnreachableFor = 5 * time.Second
)

// unreachable watches the records of a run, in the order they complete, for
// a server that stopped accepting connections: UnreachableRun connection
// failures in a row, or connection failures alone for UnreachableFor. Any
// other outcome, success or failure, means the server is there and starts
// the count again.
type unreachable struct {
	url   string
	run   int   // connection failures in a row
	first int64 // End of the first of them, ns from the epoch
	msg   string
}

// add takes the next record and returns why the run should stop, or "".
func (u *unreachable) add(r *record.Record) string {
	if r.Error != record.ErrConnect {
		u.run = 0
		return ""
	}
	if u.run == 0 {
		u.first, u.msg = r.End, r.Msg
	}
	u.run++
	span := time.Duration(r.End - u.first)
	if u.run < UnreachableRun && (u.run < 2 || span < UnreachableFor) {
		return ""
	}
	return fmt.Sprintf("the server at %s became unreachable: %d connection failures in a row over %v (first: %s)",
		u.url, u.run, span.Round(time.Millisecond), u.msg)
}

// unreachableError is the cause a run is stopped with when its server
// became unreachable.
type unreachableError struct{ why string }

func (e *unreachableError) Error() string { return e.why }
