package metrics

import (
	"sort"

	"github.com/goodput-dev/goodput/record"
)

// MaxGroups bounds the prefix groups a Summary tells apart: the records of
// groups past the first MaxGroups seen are counted under OtherGroups, so
// that a label with a value per request cannot exhaust memory.
const MaxGroups = 1000

// OtherGroups names the group the records of groups past MaxGroups share.
const OtherGroups = "(other groups)"

// GroupResult is the TTFT of the requests of one prefix group: those whose
// records carry the label record.LabelPrefixGroup with one value (a system
// prompt, a shared prefix), so that a cache's benefit to popular prefixes
// shows beside the rest.
type GroupResult struct {
	Group     string `json:"group"`
	Requests  int64  `json:"requests"` // measured, failures included
	Completed int64  `json:"completed"`
	// Good counts the requests that met the SLO; 0 without one.
	Good int64        `json:"good,omitempty"`
	TTFT Distribution `json:"ttft"`
}

// group accumulates one prefix group's requests.
type group struct {
	total, completed, good int64
	ttft                   store
}

// groups accumulates the prefix groups of a Summary; the Summary's lock
// guards it.
type groups struct {
	byName map[string]*group
}

// add folds in the request q of a record labelled with group name.
func (g *groups) add(name string, q Request, good bool) {
	if g.byName == nil {
		g.byName = map[string]*group{}
	}
	acc, ok := g.byName[name]
	if !ok {
		if len(g.byName) >= MaxGroups {
			name = OtherGroups
			acc = g.byName[name]
		}
		if acc == nil {
			acc = &group{}
			g.byName[name] = acc
		}
	}
	acc.total++
	if !q.OK {
		return
	}
	acc.completed++
	if good {
		acc.good++
	}
	if q.HasFirstToken {
		acc.ttft.add(int64(q.TTFT))
	}
}

// results returns each group's result, the busiest group first (ties by
// name), nil when no record had a group.
func (g *groups) results(ps []float64, m Method) []GroupResult {
	if len(g.byName) == 0 {
		return nil
	}
	out := make([]GroupResult, 0, len(g.byName))
	for name, acc := range g.byName {
		out = append(out, GroupResult{Group: name, Requests: acc.total, Completed: acc.completed, Good: acc.good,
			TTFT: describe([]*store{&acc.ttft}, ps, m)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Requests != out[j].Requests {
			return out[i].Requests > out[j].Requests
		}
		return out[i].Group < out[j].Group
	})
	return out
}

// reset releases the groups' samples.
func (g *groups) reset() { g.byName = nil }

// groupOf returns a record's prefix group, "" for none.
func groupOf(r *record.Record) string { return r.Labels[record.LabelPrefixGroup] }
