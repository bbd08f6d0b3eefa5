package bench

import (
	"cmp"
	"fmt"
	"slices"
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

	// For atEnd: the latest send of a request that reached the server
	// (any outcome but a connection failure), and the connection
	// failures sent after it, by send time: requests in flight when the
	// server went away may end after the refusals that followed them.
	reached int64
	after   []refusal
}

// refusal is a connection failure: when it was sent, and why.
type refusal struct {
	sent int64
	msg  string
}

// add takes the next record and returns why the run should stop, or "".
func (u *unreachable) add(r *record.Record) string {
	if r.Error != record.ErrConnect {
		u.run = 0
		if r.Sent > u.reached {
			u.reached = r.Sent
			u.after = slices.DeleteFunc(u.after, func(f refusal) bool { return f.sent <= r.Sent })
		}
		return ""
	}
	if r.Sent > u.reached {
		u.after = append(u.after, refusal{r.Sent, r.Msg})
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

// atEnd returns why a run whose plan ended while its server was gone
// failed, or "": the requests it sent last, a tenth of the total or more
// (at least two), all failed to connect. Such a run is too short for add
// to have stopped it, and its summary would otherwise read as a run that
// merely had errors.
func (u *unreachable) atEnd(total int64) string {
	n := len(u.after)
	if n < 2 || int64(n)*10 < total {
		return ""
	}
	first := slices.MinFunc(u.after, func(a, b refusal) int { return cmp.Compare(a.sent, b.sent) })
	return fmt.Sprintf("the server at %s was unreachable when the run ended: the last %d requests sent failed to connect (first: %s)",
		u.url, n, first.msg)
}

// unreachableError is the cause a run is stopped with when its server
// became unreachable.
type unreachableError struct{ why string }

func (e *unreachableError) Error() string { return e.why }
