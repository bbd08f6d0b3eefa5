package bench

import (
	"fmt"
	"sync"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/workload"
)

// PrefixReuse is a replayed trace's own prefix reuse over the requests the
// server took: how many of their prompt tokens a prefix cache holding
// every earlier prompt would serve (workload.Item.ReusableTokens), the
// trace's theoretical block hit rate, to set beside the server's measured
// prefix cache hit rate.
type PrefixReuse struct {
	ReusableTokens int64   `json:"reusable_tokens"`
	PromptTokens   int64   `json:"prompt_tokens"`
	HitRate        float64 `json:"hit_rate"`
	Requests       int64   `json:"requests"`
}

// String says the rate in one line, as the summary prints it.
func (p *PrefixReuse) String() string {
	return fmt.Sprintf("%.2f%% (%d of %d prompt tokens of the %d requests answered, as sent; prefix blocks seen in an earlier prompt, a cache that never evicts)",
		100*p.HitRate, p.ReusableTokens, p.PromptTokens, p.Requests)
}

// itemNotes carries what a request's item says beyond its body from the
// moment the request is built to its record: the prefix group it belongs
// to, which labels the record, and its reusable prompt tokens, which add up
// to the run's PrefixReuse.
type itemNotes struct {
	reuse bool // the workload knows its items' reusable tokens

	mu      sync.Mutex // guards pending and total
	pending map[int64]itemNote
	total   PrefixReuse
}

type itemNote struct {
	group           string
	reusable, input int
}

// newItemNotes returns the notes of a run of src's items.
func newItemNotes(src workload.Source) *itemNotes {
	t, ok := src.(*workload.Trace)
	return &itemNotes{reuse: ok && t.Summary().HashRows > 0, pending: map[int64]itemNote{}}
}

// put notes request seq's item when it is built.
func (n *itemNotes) put(seq int64, it workload.Item) {
	if it.Group == "" && !n.reuse {
		return
	}
	n.mu.Lock()
	n.pending[seq] = itemNote{it.Group, it.ReusableTokens, it.InputTokens}
	n.mu.Unlock()
}

// take labels r with its item's prefix group and counts its reusable
// tokens when the server took the request (a 2xx answer): one it refused
// (a prompt too long for it) or never got did not reach its cache.
func (n *itemNotes) take(r *record.Record) {
	n.mu.Lock()
	defer n.mu.Unlock()
	note, ok := n.pending[r.Seq]
	if !ok {
		return
	}
	delete(n.pending, r.Seq)
	if note.group != "" {
		if r.Labels == nil {
			r.Labels = map[string]string{}
		}
		r.Labels[record.LabelPrefixGroup] = note.group
	}
	if n.reuse && r.Status >= 200 && r.Status < 300 {
		n.total.ReusableTokens += int64(note.reusable)
		n.total.PromptTokens += int64(note.input)
		n.total.Requests++
	}
}

// prefixReuse returns the run's PrefixReuse, nil when the workload does not
// know it or no request was answered.
func (n *itemNotes) prefixReuse() *PrefixReuse {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.reuse || n.total.PromptTokens == 0 {
		return nil
	}
	p := n.total
	p.HitRate = float64(p.ReusableTokens) / float64(p.PromptTokens)
	return &p
}
