package merge

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// Options tune the checks of Report.
type Options struct {
	// MaxStartSpread is how far apart the shards may begin sending before
	// Report warns, and how far apart files that are no shard may have
	// begun before Open refuses them as two runs; zero means
	// DefaultMaxStartSpread.
	MaxStartSpread time.Duration
	// MaxClockSpread is how far the shards' clock offsets may disagree,
	// beyond the uncertainty of their estimates, before Report warns; zero
	// means DefaultMaxClockSpread.
	MaxClockSpread time.Duration
}

// maxStartSpread is o.MaxStartSpread, or its default when zero.
func (o Options) maxStartSpread() time.Duration {
	if o.MaxStartSpread <= 0 {
		return DefaultMaxStartSpread
	}
	return o.MaxStartSpread
}

// Defaults of Options.
const (
	DefaultMaxStartSpread = time.Second
	DefaultMaxClockSpread = 50 * time.Millisecond
)

// Shard is what the files of one shard index hold together.
type Shard struct {
	Index    int    `json:"index"`
	Parts    []int  `json:"parts"`    // indices into Set.Parts, by attempt
	Planned  int64  `json:"planned"`  // requests of the shard's schedule; 0 when unknown
	Measured int64  `json:"measured"` // distinct sequence numbers its files hold
	Skipped  int64  `json:"skipped"`  // requests skipped by late attempts
	Missing  bool   `json:"missing"`  // no file holds the shard
	Partial  bool   `json:"partial"`  // its files do not hold a whole, finished shard
	Why      string `json:"why,omitempty"`
}

// Report is what the files of a run are worth together.
type Report struct {
	Files   int   `json:"files"`
	Records int64 `json:"records"`
	// Count is the run's number of shards and Total its planned requests
	// (0 when the run is not sharded, or the total unknown).
	Count int   `json:"shards"`
	Total int64 `json:"planned"`
	// Distinct counts the sequence numbers the shard files hold, and
	// Duplicates the records beyond the first of each.
	Distinct   int64 `json:"distinct"`
	Duplicates int64 `json:"duplicates"`
	// Foreign counts records of a shard whose sequence numbers are not
	// that shard's, Strays the files among shards that are no shard.
	Foreign int64 `json:"foreign"`
	Strays  int   `json:"strays"`
	// Shards holds one entry per shard index; Missing and Partial name
	// the shards that are so.
	Shards  []Shard `json:"shard_states,omitempty"`
	Missing []int   `json:"missing,omitempty"`
	Partial []int   `json:"partial,omitempty"`
	// Start and End bound what was measured, ns from the merged epoch;
	// Overlap is the span within them when every shard was sending (its
	// ok false when some shard measured nothing, or the spans never met).
	Start        int64 `json:"start_ns"`
	End          int64 `json:"end_ns"`
	OverlapStart int64 `json:"overlap_start_ns"`
	OverlapEnd   int64 `json:"overlap_end_ns"`
	OverlapOK    bool  `json:"overlap"`
	// StartSpread is how far apart the shards began, ClockSpread how far
	// their clocks disagree beyond their estimates' uncertainty, the
	// widest of which is ClockUncertainty.
	StartSpread      time.Duration `json:"start_spread_ns"`
	ClockSpread      time.Duration `json:"clock_spread_ns"`
	ClockUncertainty time.Duration `json:"clock_uncertainty_ns"`
	Notes            []string      `json:"notes"`
	Warnings         []string      `json:"warnings,omitempty"`
}

// Complete reports whether the files hold the whole planned run: every
// shard there and finished, each planned request measured once.
func (r *Report) Complete() bool {
	return len(r.Missing) == 0 && len(r.Partial) == 0 && r.Duplicates == 0 && r.Foreign == 0 && r.Strays == 0 &&
		(r.Total == 0 || r.Distinct == r.Total)
}

// Report checks the files read by Each. It must be called after Each.
func (s *Set) Report(o Options) (*Report, error) {
	if !s.read {
		return nil, errors.New("merge: Report before Each")
	}
	o.MaxStartSpread = o.maxStartSpread()
	if o.MaxClockSpread <= 0 {
		o.MaxClockSpread = DefaultMaxClockSpread
	}
	r := &Report{Files: len(s.parts), Records: s.records, Count: s.count, Total: s.total, Distinct: s.all.len(), Duplicates: s.dups}
	r.window(s.parts)
	for i, p := range s.parts {
		r.Notes = append(r.Notes, describePart(p))
		r.Notes = append(r.Notes, p.Notes...)
		if s.count > 0 && p.Shard == nil {
			r.Strays++
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s is not a shard of this run (its header names no shard), yet its records are merged in", s.parts[i].File))
		}
	}
	if s.count == 0 {
		return r, nil
	}
	r.shards(s)
	r.startSpread(s.parts, o.MaxStartSpread)
	r.clocks(s.parts, o.MaxClockSpread)
	r.schedule(s)
	return r, nil
}

// window sets the merged window and the span of it when every part with a
// shard was sending.
func (r *Report) window(parts []Part) {
	first := true
	byShard := map[int][2]int64{}
	for _, p := range parts {
		st, en, ok := p.Window()
		if !ok {
			continue
		}
		if first || st < r.Start {
			r.Start = st
		}
		if first || en > r.End {
			r.End = en
		}
		first = false
		if p.Shard != nil {
			w, seen := byShard[p.Shard.Index]
			if !seen || st < w[0] {
				w[0] = st
			}
			if !seen || en > w[1] {
				w[1] = en
			}
			byShard[p.Shard.Index] = w
		}
	}
	if len(byShard) == 0 {
		return
	}
	r.OverlapOK = true
	firstShard := true
	for _, w := range byShard {
		if firstShard || w[0] > r.OverlapStart {
			r.OverlapStart = w[0]
		}
		if firstShard || w[1] < r.OverlapEnd {
			r.OverlapEnd = w[1]
		}
		firstShard = false
	}
	if r.OverlapEnd < r.OverlapStart {
		r.OverlapOK = false
	}
}

// shards sorts the parts by shard index and says which shards are missing
// or partial, and why.
func (r *Report) shards(s *Set) {
	r.Shards = make([]Shard, s.count)
	for k := range r.Shards {
		r.Shards[k].Index = k
	}
	for i, p := range s.parts {
		if p.Shard == nil {
			continue
		}
		sh := &r.Shards[p.Shard.Index]
		sh.Parts = append(sh.Parts, i)
		sh.Planned = max(sh.Planned, p.Shard.Planned)
		sh.Skipped += p.Shard.Skipped
	}
	for k := range r.Shards {
		sh := &r.Shards[k]
		name := fmt.Sprintf("shard %d of %d", k, s.count)
		if len(sh.Parts) == 0 {
			sh.Missing = true
			r.Missing = append(r.Missing, k)
			planned := ""
			if s.total > 0 {
				planned = fmt.Sprintf(": the merged run lacks its %d planned requests", plannedOf(k, s.count, s.total))
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s is missing: no record file holds it%s", name, planned))
			continue
		}
		slices.SortFunc(sh.Parts, func(a, b int) int { return s.parts[a].Shard.Attempt - s.parts[b].Shard.Attempt })
		if seqs := s.shards[k]; seqs != nil {
			sh.Measured = seqs.len()
		}
		var why []string
		finished := false
		for _, i := range sh.Parts {
			p := s.parts[i]
			at := fmt.Sprintf("attempt %d (%s)", p.Shard.Attempt, p.File)
			switch p.Ended {
			case record.EndedCutOff:
				why = append(why, fmt.Sprintf("%s was cut off after %d records: its process stopped before the end", at, p.Records))
			case record.EndedInterrupted:
				why = append(why, fmt.Sprintf("%s was interrupted after %d records", at, p.Records))
			default:
				finished = true
			}
			if p.Shard.Skipped > 0 {
				why = append(why, fmt.Sprintf("%s started %v late and skipped the %d requests whose time had passed",
					at, time.Duration(p.Shard.SkippedBefore).Round(time.Millisecond), p.Shard.Skipped))
			}
		}
		if sh.Planned > 0 && sh.Measured < sh.Planned {
			why = append(why, fmt.Sprintf("%d of its %d planned requests were never measured", sh.Planned-sh.Measured, sh.Planned))
		}
		if !finished || (sh.Planned > 0 && sh.Measured < sh.Planned) {
			sh.Partial = true
			sh.Why = strings.Join(why, "; ")
			r.Partial = append(r.Partial, k)
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s is partial: %s", name, sh.Why))
		} else if len(why) > 0 {
			sh.Why = strings.Join(why, "; ")
			r.Notes = append(r.Notes, fmt.Sprintf("%s is whole after a retry: %s", name, sh.Why))
		}
	}
	r.Notes = append([]string{r.shardLine()}, r.Notes...)
}

// plannedOf returns how many of total requests shard k of n sends: the
// sequence numbers k, k+n, … below total.
func plannedOf(k, n int, total int64) int64 {
	if int64(k) >= total {
		return 0
	}
	return (total - int64(k) + int64(n) - 1) / int64(n)
}

func (r *Report) shardLine() string {
	have := r.Count - len(r.Missing)
	s := fmt.Sprintf("Shards: %d of %d", have, r.Count)
	if len(r.Partial) > 0 {
		s += fmt.Sprintf(" (%d partial)", len(r.Partial))
	}
	if r.Total > 0 {
		s += fmt.Sprintf("; %d of %d planned requests measured", r.Distinct, r.Total)
	} else {
		s += fmt.Sprintf("; %d requests measured", r.Distinct)
	}
	if r.OverlapOK && r.End > r.Start {
		s += fmt.Sprintf("; window %.2f s, all shards sending for %.2f s of it", float64(r.End-r.Start)/1e9, float64(r.OverlapEnd-r.OverlapStart)/1e9)
	}
	return s
}

// startSpread compares when the shards' first attempts began sending: the
// agreed start, or when a shard that was late was ready.
func (r *Report) startSpread(parts []Part, limit time.Duration) {
	var first, last time.Time
	var firstK, lastK int
	for _, p := range parts {
		sh := p.Shard
		if sh == nil || sh.Attempt != 0 {
			continue // a retry begins late by nature; it is reported as such
		}
		began := p.Header.Start
		if !sh.StartAt.IsZero() && sh.Ready.After(sh.StartAt) {
			began = sh.Ready
		}
		if began.IsZero() {
			continue
		}
		if first.IsZero() || began.Before(first) {
			first, firstK = began, sh.Index
		}
		if last.IsZero() || began.After(last) {
			last, lastK = began, sh.Index
		}
	}
	r.StartSpread = last.Sub(first)
	if r.StartSpread > limit {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the shards began %v apart (shard %d at %s, shard %d at %s), more than %v: the merged load is not the planned one while they were not all sending",
			r.StartSpread.Round(time.Millisecond), firstK, first.UTC().Format(time.RFC3339Nano), lastK, last.UTC().Format(time.RFC3339Nano), limit))
	}
}

// clocks compares the shards' clock offsets from the server, and their NTP
// status.
func (r *Report) clocks(parts []Part, limit time.Duration) {
	type est struct {
		k        int
		off, unc time.Duration
	}
	var ests []est
	var unsynced []string
	for _, p := range parts {
		if p.Shard == nil || p.Clock == nil {
			continue
		}
		if p.Clock.Measured() {
			e := est{p.Shard.Index, time.Duration(p.Clock.Offset), time.Duration(p.Clock.Uncertainty)}
			ests = append(ests, e)
			r.ClockUncertainty = max(r.ClockUncertainty, e.unc)
		}
		if n := p.Clock.NTP; n != nil && !n.Synced {
			unsynced = append(unsynced, fmt.Sprintf("%d", p.Shard.Index))
		}
	}
	if len(unsynced) > 0 {
		slices.Sort(unsynced)
		unsynced = slices.Compact(unsynced)
		which := "shard " + unsynced[0]
		if len(unsynced) > 1 {
			which = "shards " + strings.Join(unsynced, ", ")
		}
		r.Notes = append(r.Notes, fmt.Sprintf("Clocks: the kernel says no time daemon synchronises the clock of %s (NTP)", which))
	}
	if len(ests) == 0 {
		r.Notes = append(r.Notes, "Clocks: no shard measured its offset from the server")
		return
	}
	var worst [2]est
	for i := range ests {
		for j := range ests {
			gap := (ests[i].off - ests[j].off) - ests[i].unc - ests[j].unc
			if gap > r.ClockSpread {
				r.ClockSpread, worst = gap, [2]est{ests[i], ests[j]}
			}
		}
	}
	lo, hi := ests[0].off, ests[0].off
	for _, e := range ests {
		lo, hi = min(lo, e.off), max(hi, e.off)
	}
	r.Notes = append(r.Notes, fmt.Sprintf("Clocks: offsets from the server %s to %s (each within ±%s)", signed(lo), signed(hi), r.ClockUncertainty.Round(time.Microsecond)))
	if r.ClockSpread > limit {
		a, b := worst[0], worst[1]
		r.Warnings = append(r.Warnings, fmt.Sprintf("the shards' clocks disagree: shard %d is %s ± %v from the server, shard %d %s ± %v, at least %v apart: their records may sit that far off on the merged clock (the window and the time series; latencies are each measured on one machine and stay exact)",
			a.k, signed(a.off), a.unc.Round(time.Microsecond), b.k, signed(b.off), b.unc.Round(time.Microsecond), r.ClockSpread.Round(time.Microsecond)))
	}
}

func signed(d time.Duration) string {
	d = d.Round(time.Microsecond)
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}

// schedule checks that the shards' sequence numbers are their own and,
// with every shard there, that together they are the planned schedule.
func (r *Report) schedule(s *Set) {
	for _, p := range s.parts {
		r.Foreign += p.foreign
	}
	if r.Foreign > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d records have sequence numbers outside their shard's part of the schedule: were the shards run with the same arguments?", r.Foreign))
	}
	if r.Duplicates > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d requests were measured more than once (by two attempts of a shard, or files of one attempt given twice): the merged numbers count them each time", r.Duplicates))
	}
}

// describePart is a part's line in the notes, as analyze prints a file.
func describePart(p Part) string {
	desc := p.Format
	if t := p.Header.Tool; t != "" {
		desc = t
	}
	s := fmt.Sprintf("Records: %s (%s, %d requests", p.File, desc, p.Records)
	if sh := p.Shard; sh != nil {
		s += fmt.Sprintf(", shard %d of %d", sh.Index, sh.Count)
		if sh.Attempt > 0 {
			s += fmt.Sprintf(" attempt %d", sh.Attempt)
		}
		if p.Host != "" {
			s += " on " + p.Host
			if p.Node != "" {
				s += " (node " + p.Node + ")"
			}
		}
		s += ", " + p.Ended
	}
	return s + ")"
}
