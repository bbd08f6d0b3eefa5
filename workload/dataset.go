package workload

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// rngDataset separates the dataset sampling stream from the other users of
// --seed (the arrival process, the random dataset).
const rngDataset = 0x64617461736574 // "dataset" in ASCII

// Dataset is a finite list of items read from a file, already filtered,
// sampled and shuffled. Item(seq) cycles through it.
type Dataset struct {
	name  string // "sharegpt data.json", for String and errors
	items []Item
	stats DatasetStats
}

// DatasetStats says what reading a dataset file kept and skipped.
type DatasetStats struct {
	Entries int            // entries (conversations or lines) read
	Usable  int            // entries that passed the filters
	Kept    int            // items kept after sampling down to the limit
	Skipped map[string]int // entries skipped, by reason
}

var _ Source = (*Dataset)(nil)

// Item returns item seq mod Len().
func (d *Dataset) Item(seq int64) Item {
	n := int64(len(d.items))
	return d.items[(seq%n+n)%n] // a negative seq still lands in range
}

// Len returns the number of distinct items.
func (d *Dataset) Len() int { return len(d.items) }

// Stats returns what reading the file kept and skipped.
func (d *Dataset) Stats() DatasetStats { return d.stats }

// String summarises the dataset: what was kept, what was skipped and why,
// and the length distributions.
func (d *Dataset) String() string {
	var b strings.Builder
	st := d.stats
	fmt.Fprintf(&b, "%s: %d items", d.name, st.Kept)
	if st.Kept != st.Usable {
		fmt.Fprintf(&b, " sampled from %d usable", st.Usable)
	}
	if st.Entries != st.Kept {
		// A made-up dataset's items are its entries: saying so twice
		// says nothing.
		fmt.Fprintf(&b, " of %d entries", st.Entries)
	}
	if len(st.Skipped) > 0 {
		reasons := make([]string, 0, len(st.Skipped))
		for r := range st.Skipped {
			reasons = append(reasons, r)
		}
		sort.Strings(reasons)
		b.WriteString(" (skipped:")
		for i, r := range reasons {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %d %s", st.Skipped[r], r)
		}
		b.WriteByte(')')
	}
	in, out := LengthRange{}, LengthRange{}
	for _, it := range d.items {
		in.Add(it.InputTokens)
		out.Add(it.OutputTokens)
	}
	fmt.Fprintf(&b, "; input tokens %s; output tokens %s", in, out)
	return b.String()
}

// LengthRange accumulates the least, greatest and mean of counts (token
// lengths, calls per session), for a description.
type LengthRange struct {
	n, lo, hi int
	sum       float64
}

// Add counts v.
func (r *LengthRange) Add(v int) {
	if r.n == 0 || v < r.lo {
		r.lo = v
	}
	if r.n == 0 || v > r.hi {
		r.hi = v
	}
	r.n++
	r.sum += float64(v)
}

// String says "lo–hi (mean m)", or "none".
func (r LengthRange) String() string {
	if r.n == 0 {
		return "none"
	}
	return fmt.Sprintf("%d–%d (mean %.1f)", r.lo, r.hi, r.sum/float64(r.n))
}

// collector gathers a dataset's usable items while a file streams by,
// keeping them in a Reservoir, and counts what it saw.
type collector struct {
	items *Reservoir[Item]
	stats DatasetStats
}

func newCollector(c Config) *collector {
	return &collector{
		items: NewReservoir[Item](c.Limit, !c.NoShuffle, rand.New(rand.NewPCG(c.Seed, rngDataset))),
		stats: DatasetStats{Skipped: map[string]int{}},
	}
}

// entry counts one entry read from the file.
func (c *collector) entry() { c.stats.Entries++ }

// skip records an unusable entry and why.
func (c *collector) skip(reason string) { c.stats.Skipped[reason]++ }

// add offers a usable item.
func (c *collector) add(it Item) {
	c.stats.Usable++
	c.items.Add(it)
}

// dataset finishes collection. It fails when nothing was usable, since a run
// without prompts cannot start.
func (c *collector) dataset(name string) (*Dataset, error) {
	items := c.items.Kept()
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no usable entry among %d (%s)", name, c.stats.Entries, c.skippedText())
	}
	c.stats.Kept = len(items)
	return &Dataset{name: name, items: items, stats: c.stats}, nil
}

func (c *collector) skippedText() string {
	if len(c.stats.Skipped) == 0 {
		return "the file holds no entries"
	}
	reasons := make([]string, 0, len(c.stats.Skipped))
	for r, n := range c.stats.Skipped {
		reasons = append(reasons, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(reasons)
	return "skipped: " + strings.Join(reasons, ", ")
}
