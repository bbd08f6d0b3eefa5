package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/clockskew"
	"github.com/goodput-dev/goodput/load"
	"github.com/goodput-dev/goodput/record"
)

// How a shard measures its clock against the server's before it starts.
const (
	clockSamples   = 10
	clockPrecision = time.Millisecond
	// clockMargin is how long before the agreed start probing ends, so
	// that it never delays the first request.
	clockMargin = time.Second
)

// lateTolerance is how late after --start-at a run may begin and still
// send its whole schedule, the first requests a little late (the lag
// self-check sees that). Later than that, as a shard retried after a
// failure is, the requests whose time has passed are skipped, not sent in
// a burst that would measure a load nobody planned.
const lateTolerance = time.Second

// measureClock reads the kernel's NTP status and estimates the offset of
// this machine's clock from the server's by the Date headers of its
// /health answers, probing until shortly before startAt (one sample when
// startAt is zero or near). The error says why no offset was measured;
// the Clock is usable either way.
func measureClock(ctx context.Context, client *http.Client, base string, startAt time.Time) (*record.Clock, error) {
	c := &record.Clock{}
	if s, ok := clockskew.NTP(); ok {
		c.NTP = &record.NTP{Synced: s.Synced, EstError: s.EstError.Nanoseconds(), MaxError: s.MaxError.Nanoseconds()}
	}
	p := clockskew.Prober{Client: client, URL: base + "/health"}
	deadline := time.Now()
	if !startAt.IsZero() {
		deadline = startAt.Add(-clockMargin)
	}
	est, err := p.Probe(ctx, deadline, clockSamples, clockPrecision)
	if err != nil {
		return c, err
	}
	c.Source, c.Reference, c.Samples = "http-date", est.Reference, est.Samples
	c.Offset, c.Uncertainty = est.Mid().Nanoseconds(), est.Half().Nanoseconds()
	return c, nil
}

// shardOf describes the shard a sharded run's records hold; nil when the
// run is not sharded.
func shardOf(cfg Config, plan arrival.Plan, ready time.Time) *record.Shard {
	a := cfg.Arrival
	if a.Shards < 2 {
		return nil
	}
	planned, total := int64(expected(plan)), int64(plan.Total)
	if plan.Closed != nil && plan.Closed.Duration > 0 {
		// A closed loop stops at its count or its duration, whichever
		// comes first: the count bounds it, but no one knows in advance
		// how many requests it will send.
		planned, total = 0, 0
	}
	return &record.Shard{
		Index: a.Shard, Count: a.Shards, StartAt: cfg.StartAt, Ready: ready,
		Planned: planned, Total: total,
	}
}

// skipLate removes from an open-loop plan the requests scheduled before
// cutoff (from the epoch) and returns how many it removed. The warm-up
// count shrinks by as many, since those requests were the first.
func skipLate(lp *load.Plan, cutoff time.Duration) int {
	n := 0
	for n < len(lp.Offsets) && lp.Offsets[n] < cutoff {
		n++
	}
	if n == 0 {
		return 0
	}
	seqs := lp.Seqs
	if seqs == nil {
		seqs = make([]int64, len(lp.Offsets))
		for i := range seqs {
			seqs[i] = int64(i)
		}
	}
	lp.Offsets, lp.Seqs = lp.Offsets[n:], seqs[n:]
	lp.Warmups = max(0, lp.Warmups-n)
	return n
}

// startLate adapts a run that begins late seconds after its agreed start:
// an open loop skips the requests whose time has passed (they are
// recorded in shard as skipped), a closed loop only says it began late.
// It fails when nothing of the schedule is left.
func startLate(lp *load.Plan, late time.Duration, shard *record.Shard, out *Outcome) error {
	what := "this run"
	if shard != nil {
		what = fmt.Sprintf("shard %d of %d", shard.Index, shard.Count)
	}
	if lp.Offsets == nil {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s started %v after --start-at: its closed loop began late", what, late.Round(time.Millisecond)))
		return nil
	}
	total := len(lp.Offsets)
	n := skipLate(lp, late)
	if n == total {
		return fmt.Errorf("%s started %v after --start-at, after its whole schedule (%d requests): nothing is left to send", what, late.Round(time.Millisecond), total)
	}
	if shard != nil {
		shard.Skipped, shard.SkippedBefore = int64(n), late.Nanoseconds()
	}
	if n > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s started %v after --start-at: the %d requests scheduled before then were not sent, the other %d were", what, late.Round(time.Millisecond), n, total-n))
	}
	return nil
}
