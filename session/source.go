package session

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// Random-number streams of this package, one per use of --seed.
const (
	rngSample = 0x73657373616d70 // "sessamp": which file entries are kept
	rngText   = 0x7365737478     // "sestx": text made for a length
	rngFlow   = 0x736573666c6f77 // "sesflow": synthetic flows and drawn think times
	rngSystem = 0x736573737973   // "sessys": a synthetic shared system prompt
)

// Source supplies the flows of a run.
type Source interface {
	// Flow returns flow number f (≥ 0). It depends only on the source's
	// configuration and f, is safe for concurrent use, and returns a Flow
	// the caller may keep. Finite sources cycle, the repeats' IDs
	// suffixed "~1", "~2", … so that every flow of a run has its own.
	Flow(f int64) *Flow
	// Len returns the number of distinct flows, 0 for a generator.
	Len() int
	// MaxCalls returns the most calls any flow has: the stride of
	// sequence numbers, flow f's call j being f·MaxCalls + j.
	MaxCalls() int
	// Kind says whether the flows are sessions or tasks.
	Kind() Kind
	// String describes the source for --dry-run and the run's notes.
	String() string
}

// entry is a flow read from a file. Calls with a length but no text, and
// a system prompt given by length, get their text when Flow makes them.
type entry struct {
	flow      Flow
	systemLen int
	index     int   // position in the file: seeds made-up text
	drawn     []int // the turns whose think time --think-time draws
}

// list is a Source of flows read from a file.
type list struct {
	name    string
	kind    Kind
	entries []entry
	seed    uint64
	think   Think        // for session turns the file gives no think time
	fit     workload.Fit // sizes made-up texts for the server's tokenizer
	stats   Stats
	most    int
}

// Stats says what reading a flow file kept and skipped.
type Stats struct {
	Entries int            // entries (lines, conversations) read
	Usable  int            // entries that passed the filters
	Kept    int            // flows kept after sampling down to the limit
	Skipped map[string]int // entries skipped, by reason
}

var _ Source = (*list)(nil)

func (l *list) Len() int       { return len(l.entries) }
func (l *list) MaxCalls() int  { return l.most }
func (l *list) Kind() Kind     { return l.kind }
func (l *list) Stats() Stats   { return l.stats }
func (l *list) String() string { return describeFlows(l.name, l.kind, l.stats, l.sample()) }

// Flow returns entry f mod Len, its made-up texts filled in and its
// drawn think times drawn for f.
func (l *list) Flow(f int64) *Flow {
	n := int64(len(l.entries))
	e := &l.entries[(f%n+n)%n]
	fl := e.flow
	fl.Calls = make([]Call, len(e.flow.Calls))
	copy(fl.Calls, e.flow.Calls)
	if cycle := f / n; cycle > 0 {
		fl.ID = fmt.Sprintf("%s~%d", fl.ID, cycle)
	}
	var text *rand.Rand
	for j := range fl.Calls {
		if c := &fl.Calls[j]; c.Text == "" && c.InputTokens > 0 {
			if text == nil {
				text = rand.New(rand.NewPCG(l.seed^rngText, uint64(e.index)))
			}
			c.Text = tokenizer.Decode(tokenizer.Words(l.fit.Words(c.InputTokens), text))
		}
	}
	if fl.System == "" && e.systemLen > 0 {
		sys := rand.New(rand.NewPCG(l.seed^rngSystem, uint64(e.index)))
		fl.System = tokenizer.Decode(tokenizer.Words(l.fit.Words(e.systemLen), sys))
	}
	if len(e.drawn) > 0 {
		rng := rand.New(rand.NewPCG(l.seed^rngFlow, uint64(f)))
		for _, j := range e.drawn {
			fl.Calls[j].After = []Dep{{Call: j - 1, Wait: l.think.Draw(rng)}}
		}
	}
	return &fl
}

// sample returns the first flows of the list, at most 256, for its
// description.
func (l *list) sample() []*Flow {
	out := make([]*Flow, min(len(l.entries), 256))
	for i := range out {
		out[i] = l.Flow(int64(i))
	}
	return out
}

// collector gathers a file's usable flows while it streams by, keeping
// them in a workload.Reservoir, and counts what it saw.
type collector struct {
	entries *workload.Reservoir[entry]
	stats   Stats
}

func newCollector(wc workload.Config) *collector {
	return &collector{entries: workload.NewReservoir[entry](wc.Limit, !wc.NoShuffle, rand.New(rand.NewPCG(wc.Seed, rngSample))),
		stats: Stats{Skipped: map[string]int{}}}
}

func (c *collector) entry()             { c.stats.Entries++ }
func (c *collector) skip(reason string) { c.stats.Skipped[reason]++ }

func (c *collector) add(e entry) {
	c.stats.Usable++
	c.entries.Add(e)
}

// list finishes collection; it fails when nothing was usable.
func (c *collector) list(name string, kind Kind, wc workload.Config, sc Config) (*list, error) {
	entries := c.entries.Kept()
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: no usable %s among %d entries%s", name, kind, c.stats.Entries, c.skippedText())
	}
	c.stats.Kept = len(entries)
	l := &list{name: name, kind: kind, entries: entries, seed: wc.Seed, think: sc.Think, fit: wc.Fit, stats: c.stats}
	for _, e := range l.entries {
		l.most = max(l.most, len(e.flow.Calls))
	}
	return l, nil
}

func (c *collector) skippedText() string {
	if len(c.stats.Skipped) == 0 {
		return ""
	}
	reasons := make([]string, 0, len(c.stats.Skipped))
	for r, n := range c.stats.Skipped {
		reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(reasons)
	return " (skipped: " + strings.Join(reasons, ", ") + ")"
}

// describeFlows summarises a source: what was kept and skipped, calls per
// flow, lengths, and the waits of a sample of its flows.
func describeFlows(name string, kind Kind, st Stats, sample []*Flow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d %ss", name, st.Kept, kind)
	if st.Kept != st.Usable {
		fmt.Fprintf(&b, " sampled from %d usable", st.Usable)
	}
	fmt.Fprintf(&b, " of %d entries", st.Entries)
	if len(st.Skipped) > 0 {
		reasons := make([]string, 0, len(st.Skipped))
		for r, n := range st.Skipped {
			reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
		}
		sort.Strings(reasons)
		fmt.Fprintf(&b, " (skipped: %s)", strings.Join(reasons, ", "))
	}
	b.WriteString("; ")
	b.WriteString(shape(kind, sample))
	return b.String()
}

// shape describes flows: calls per flow, new input and output tokens per
// call, and the waits between calls.
func shape(kind Kind, flows []*Flow) string {
	calls, in, out := workload.LengthRange{}, workload.LengthRange{}, workload.LengthRange{}
	var waits []time.Duration
	for _, f := range flows {
		calls.Add(len(f.Calls))
		for _, c := range f.Calls {
			in.Add(c.InputTokens)
			out.Add(c.OutputTokens)
			for _, d := range c.After {
				waits = append(waits, d.Wait)
			}
		}
	}
	unit := "turns"
	if kind == KindTask {
		unit = "calls"
	}
	s := fmt.Sprintf("%s per %s %s; new input tokens per %s %s; output tokens %s", unit, kind, calls, strings.TrimSuffix(unit, "s"), in, out)
	if len(waits) > 0 {
		sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
		var sum time.Duration
		for _, w := range waits {
			sum += w
		}
		what := "think time"
		if kind == KindTask {
			what = "tool time"
		}
		s += fmt.Sprintf("; %s %v–%v (mean %v)", what, waits[0], waits[len(waits)-1], meanWait(sum, len(waits)))
	}
	return s
}

// meanWait is the mean of n waits summing to sum, for the description:
// to the microsecond below 100 ms, to the millisecond above, so that a
// short mean keeps the digits its range shows (a mean of 2.5 ms is never
// "3ms" beside a range of 2.5ms–2.5ms).
func meanWait(sum time.Duration, n int) time.Duration {
	m := sum / time.Duration(n)
	if m < 100*time.Millisecond {
		return m.Round(time.Microsecond)
	}
	return m.Round(time.Millisecond)
}
