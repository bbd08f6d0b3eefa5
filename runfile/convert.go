package runfile

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// seconds converts a time in seconds to integer nanoseconds, rounding to the
// nearest so that 0.35 s is exactly 350 ms.
func seconds(s float64) (int64, error) {
	ns := math.Round(s * 1e9)
	if math.IsNaN(ns) || math.IsInf(ns, 0) || math.Abs(ns) > 1<<62 {
		return 0, fmt.Errorf("time %v s out of range", s)
	}
	return int64(ns), nil
}

// rebase puts imported records, read on a wall clock in ns since the Unix
// epoch, on a run clock whose epoch is the earliest scheduled time, orders
// them by it (then by send time) and numbers them in that order. It
// returns the epoch's wall-clock time, for the header: zero when there is
// no record.
func rebase(recs []record.Record) time.Time {
	if len(recs) == 0 {
		return time.Time{}
	}
	base := int64(math.MaxInt64)
	for i := range recs {
		base = min(base, recs[i].Scheduled)
	}
	for i := range recs {
		recs[i].Shift(-base)
	}
	slices.SortStableFunc(recs, func(a, b record.Record) int {
		if a.Scheduled != b.Scheduled {
			return cmp.Compare(a.Scheduled, b.Scheduled)
		}
		return cmp.Compare(a.Sent, b.Sent)
	})
	for i := range recs {
		recs[i].Seq = int64(i)
	}
	return time.Unix(0, base).UTC()
}

// imported is a record of another tool's file on that file's clock, with
// what placing it in a session needs.
type imported struct {
	rec     record.Record
	session string // the conversation it belongs to, "" when none is named
	turn    int    // its turn in it, from 0
}

// placeTurns puts the requests of multi-turn conversations in their
// sessions: a conversation is one when any of its requests is past the
// first turn. A single-turn run, whose every request is a conversation of
// its own, stays outside sessions.
func placeTurns(reqs []imported) []record.Record {
	multi := map[string]bool{}
	for _, r := range reqs {
		if r.turn > 0 && r.session != "" {
			multi[r.session] = true
		}
	}
	recs := make([]record.Record, len(reqs))
	for i, r := range reqs {
		recs[i] = r.rec
		if multi[r.session] {
			recs[i].Session, recs[i].Turn = r.session, r.turn+1
		}
	}
	return recs
}
