package promscrape

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Sample is one scrape: a Snapshot when it succeeded, or the failure's kind
// and message when it did not.
type Sample struct {
	At       time.Time     `json:"at"` // when the scrape started
	Took     time.Duration `json:"took_ns"`
	Snapshot *Snapshot     `json:"snapshot,omitempty"`
	Kind     FailureKind   `json:"error_kind,omitempty"`
	Err      string        `json:"error,omitempty"`
}

// OK reports whether the scrape succeeded.
func (s Sample) OK() bool { return s.Snapshot != nil }

// Series is everything Run saw of one server, in scrape order. It is plain
// data: save it as JSON with the run and load it back to re-analyse.
type Series struct {
	URL      string        `json:"url"`
	Model    string        `json:"model,omitempty"`
	Interval time.Duration `json:"interval_ns"`
	Start    time.Time     `json:"start"`
	End      time.Time     `json:"end"`
	Samples  []Sample      `json:"samples"`
}

// Point is one value of a quantity over time.
type Point struct {
	At    time.Time `json:"at"`
	Value float64   `json:"value"`
}

// Gauge returns the gauge's value at each successful scrape that had it.
func (s *Series) Gauge(g Gauge) []Point {
	var pts []Point
	for _, smp := range s.Samples {
		if smp.Snapshot == nil {
			continue
		}
		if v, ok := smp.Snapshot.Gauges[g]; ok {
			pts = append(pts, Point{At: smp.Snapshot.At, Value: v})
		}
	}
	return pts
}

// Rate returns the counter's increase per second between consecutive
// successful scrapes that had it, stamped with the later scrape's time.
// Failed scrapes in between are spanned, not counted as zero. Resets are
// found per label set: a value that fell means that series restarted, and
// its new value is the increase since.
func (s *Series) Rate(c Counter) []Point {
	var (
		pts  []Point
		tr   counterTrack
		prev time.Time
	)
	for _, smp := range s.Samples {
		if smp.Snapshot == nil {
			continue
		}
		per, ok := smp.Snapshot.Counters[c]
		if !ok {
			continue
		}
		first := tr.last == nil
		inc := tr.step(per)
		at := smp.Snapshot.At
		if dt := at.Sub(prev).Seconds(); !first && dt > 0 {
			pts = append(pts, Point{At: at, Value: inc / dt})
		}
		prev = at
	}
	return pts
}

// counterTrack follows one counter's label sets across snapshots.
type counterTrack struct {
	last   map[string]float64 // last value seen of each label set
	keys   []string           // the label sets of the latest snapshot, sorted
	resets int                // label-set values seen to fall
	// each, when set, gathers the increase of every label set apart.
	each map[string]float64
}

// step returns the increase from the values seen before to cur, summed over
// label sets in key order (so the result is the same bits every time). The
// first call only sets the baseline. A label set never seen before counts
// from zero: it appeared since (an engine started, a finish reason occurred
// for the first time).
func (t *counterTrack) step(cur map[string]float64) float64 {
	t.sortKeys(cur)
	if t.last == nil {
		t.last = maps.Clone(cur)
		return 0
	}
	inc := 0.0
	for _, k := range t.keys {
		v := cur[k]
		prev, seen := t.last[k]
		d := v - prev
		switch {
		case !seen:
			d = v
		case v < prev:
			d = v
			t.resets++
		}
		inc += d
		if t.each != nil {
			t.each[k] += d
		}
		t.last[k] = v
	}
	return inc
}

// sortKeys refreshes t.keys when cur's label sets differ from the last
// snapshot's; they rarely do, and sorting every step would dominate a long
// window.
func (t *counterTrack) sortKeys(cur map[string]float64) {
	same := len(cur) == len(t.keys)
	for i := 0; same && i < len(t.keys); i++ {
		_, same = cur[t.keys[i]]
	}
	if !same {
		t.keys = slices.Sorted(maps.Keys(cur))
	}
}

// histTrack follows one histogram's label sets across snapshots and adds up
// what each gained, in place.
type histTrack struct {
	last   map[string]Histogram // last histogram seen of each label set; never modified
	acc    map[string]Histogram // observations since the baseline, per label set; owned
	resets int
}

// step adds the observations cur holds beyond what was seen before. The
// first call only sets the baseline; a label set never seen before counts
// from zero. A count that fell, or a changed bucket layout, is a restart:
// everything cur holds is new. When a label set's layout changes, what came
// before cannot be added to what came after, so its sum restarts there.
func (t *histTrack) step(cur map[string]Histogram) {
	if t.last == nil {
		t.last = maps.Clone(cur)
		t.acc = make(map[string]Histogram)
		return
	}
	for k, h := range cur {
		if !h.wellFormed() {
			continue // a damaged series file: nothing can be subtracted from it
		}
		prev, seen := t.last[k]
		t.last[k] = h
		a, ok := t.acc[k]
		if !ok || !a.sameBounds(h) {
			a = Histogram{Bounds: slices.Clone(h.Bounds), Counts: make([]float64, len(h.Counts))}
		}
		if seen && !isReset(h, prev) {
			for i := range a.Counts {
				a.Counts[i] += h.Counts[i] - prev.Counts[i]
			}
			a.Count += h.Count - prev.Count
			a.Sum += h.Sum - prev.Sum
		} else {
			if seen {
				t.resets++
			}
			for i := range a.Counts {
				a.Counts[i] += h.Counts[i]
			}
			a.Count += h.Count
			a.Sum += h.Sum
		}
		t.acc[k] = a
	}
}

// sums returns the accumulated histograms, each made cumulative again
// (differences of raced scrapes can dip) and capped at its count.
func (t *histTrack) sums() map[string]Histogram {
	for _, a := range t.acc {
		monotone(a.Counts, a.Count)
	}
	return t.acc
}

// Gap is a run of consecutive failed scrapes: the time the server's own view
// is missing.
type Gap struct {
	From    time.Time   `json:"from"` // start of the first failed scrape
	To      time.Time   `json:"to"`   // start of the last failed scrape
	Scrapes int         `json:"scrapes"`
	Kind    FailureKind `json:"error_kind"` // the first failure's
	Err     string      `json:"error"`      // the first failure's
}

// Coverage says what a Series is missing: failed scrapes, grouped by kind
// and into gaps, and the common quantities no successful scrape had.
type Coverage struct {
	Scrapes int                 `json:"scrapes"`
	OK      int                 `json:"ok"`
	Failed  map[FailureKind]int `json:"failed,omitempty"`
	Gaps    []Gap               `json:"gaps,omitempty"`
	Engines []Engine            `json:"engines,omitempty"` // engines seen; more than one means the server changed
	Absent  []string            `json:"absent,omitempty"`  // quantities no successful scrape had
	Skipped []string            `json:"skipped,omitempty"` // distinct series Parse left out, and why
}

// Coverage reports what the series is missing.
func (s *Series) Coverage() Coverage {
	c := Coverage{Scrapes: len(s.Samples)}
	seen := make(map[string]bool)
	seenEngines := make(map[Engine]bool)
	skipped := make(map[string]bool)
	var gap *Gap
	for _, smp := range s.Samples {
		if smp.Snapshot == nil {
			if c.Failed == nil {
				c.Failed = make(map[FailureKind]int)
			}
			c.Failed[smp.Kind]++
			if gap == nil {
				c.Gaps = append(c.Gaps, Gap{From: smp.At, Kind: smp.Kind, Err: smp.Err})
				gap = &c.Gaps[len(c.Gaps)-1]
			}
			gap.To = smp.At
			gap.Scrapes++
			continue
		}
		gap = nil
		c.OK++
		snap := smp.Snapshot
		if snap.Engine != Unknown {
			seenEngines[snap.Engine] = true
		}
		for g := range snap.Gauges {
			seen[string(g)] = true
		}
		for k := range snap.Counters {
			seen[string(k)] = true
		}
		for h := range snap.Histograms {
			seen[string(h)] = true
		}
		for _, m := range snap.Skipped {
			skipped[m] = true
		}
	}
	for _, e := range engines {
		if seenEngines[e] {
			c.Engines = append(c.Engines, e)
		}
	}
	for _, q := range quantityNames() {
		if !seen[q] {
			c.Absent = append(c.Absent, q)
		}
	}
	c.Skipped = slices.Sorted(maps.Keys(skipped))
	return c
}

// quantityNames lists every common quantity's name in a fixed order, but
// for those a server exports only with a feature on, whose absence says
// nothing wrong.
func quantityNames() []string {
	var names []string
	for _, g := range AllGauges {
		if !g.optional() {
			names = append(names, string(g))
		}
	}
	for _, c := range AllCounters {
		if !c.optional() {
			names = append(names, string(c))
		}
	}
	for _, h := range AllHists {
		names = append(names, string(h))
	}
	return names
}

// String says in one line what is missing, for a report or a log.
func (c Coverage) String() string {
	if c.Scrapes == 0 {
		return "no scrapes"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d scrapes succeeded", c.OK, c.Scrapes)
	if len(c.Failed) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(c.Failed)) {
			parts = append(parts, fmt.Sprintf("%d %s", c.Failed[k], k))
		}
		fmt.Fprintf(&b, "; failed: %s", strings.Join(parts, ", "))
	}
	for i, g := range c.Gaps {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more gaps", len(c.Gaps)-i)
			break
		}
		fmt.Fprintf(&b, "; no data %s–%s (%d scrapes, %s): %s",
			g.From.Format("15:04:05.000"), g.To.Format("15:04:05.000"), g.Scrapes, g.Kind, g.Err)
	}
	switch {
	case c.OK == 0:
		b.WriteString("; no server metrics at all")
	case len(c.Engines) == 0:
		b.WriteString("; no known engine metrics (vllm:, sglang:, tgi_, llamacpp:)")
	case len(c.Absent) > 0:
		fmt.Fprintf(&b, "; not exported: %s", strings.Join(c.Absent, ", "))
	}
	return b.String()
}
