package metrics

import (
	"fmt"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// inGroup labels r with a prefix group.
func inGroup(g string, r *record.Record) *record.Record {
	r.Labels = map[string]string{record.LabelPrefixGroup: g, "point": "c4"}
	return r
}

// TestPrefixGroups reads per-group TTFT off a hand-checked run: the seed's
// three requests split into two groups, a failure and a warm-up added.
func TestPrefixGroups(t *testing.T) {
	seed := seedRequests()
	failed := &record.Record{Scheduled: ms(300), Sent: ms(300), End: ms(310), Error: record.ErrHTTP, Status: 500}
	warm := streamed(0, 50, 60)
	warm.Warmup = true
	res := summarize(t, Options{Good: seedSLO, SLO: "ttft<=500ms,tpot<=50ms"},
		inGroup("system-1", seed[0]), // TTFT 0.20, good
		inGroup("system-1", seed[1]), // TTFT 0.50, good
		inGroup("system-2", seed[2]), // TTFT 0.70, not good
		inGroup("system-2", failed),  // a failure counts in its group's requests
		inGroup("system-3", warm),    // warm-up: in no group
		streamed(400, 500, 550),      // no group: in the totals only
	)
	want := []struct {
		group                string
		requests, done, good int64
		count                int64
		mean, median, lo, hi float64
	}{
		// The busiest group first: two requests each, ties by name.
		{"system-1", 2, 2, 2, 2, 0.35, 0.35, 0.20, 0.50},
		{"system-2", 2, 1, 0, 1, 0.70, 0.70, 0.70, 0.70},
	}
	if len(res.PrefixGroups) != len(want) {
		t.Fatalf("groups %+v, want %d", res.PrefixGroups, len(want))
	}
	for i, w := range want {
		g := res.PrefixGroups[i]
		if g.Group != w.group || g.Requests != w.requests || g.Completed != w.done || g.Good != w.good || g.TTFT.Count != w.count {
			t.Errorf("group %d = %+v, want %+v", i, g, w)
		}
		checkNear(t, w.group+" mean TTFT", g.TTFT.Mean, w.mean)
		checkNear(t, w.group+" median TTFT", g.TTFT.Median, w.median)
		checkNear(t, w.group+" min TTFT", g.TTFT.Min, w.lo)
		checkNear(t, w.group+" max TTFT", g.TTFT.Max, w.hi)
	}
	if res.Counts.Total != 5 {
		t.Errorf("total %d, want 5: groups must not change the totals", res.Counts.Total)
	}
	// Without a labelled record there are no groups.
	if r := summarize(t, Options{}, seedRequests()...); r.PrefixGroups != nil {
		t.Errorf("unlabelled run has groups %+v", r.PrefixGroups)
	}
}

// TestPrefixGroupsBounded gives every record its own group: past MaxGroups
// they share one, so memory stays bounded.
func TestPrefixGroupsBounded(t *testing.T) {
	s := NewSummary(Options{})
	n := MaxGroups + 50
	for i := range n {
		s.Add(inGroup(fmt.Sprintf("g%d", i), streamed(float64(i), float64(i)+10)))
	}
	res := s.Close()
	if len(res.PrefixGroups) != MaxGroups+1 {
		t.Fatalf("%d groups, want %d and the other groups", len(res.PrefixGroups), MaxGroups+1)
	}
	if first := res.PrefixGroups[0]; first.Group != OtherGroups || first.Requests != 50 || first.TTFT.Count != 50 {
		t.Errorf("the busiest group is %+v, want the 50 others", first)
	}
}
