package sweeprun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/session"
	"github.com/goodput-dev/goodput/sweep"
	"github.com/goodput-dev/goodput/workload"
)

// flowRecords measures load l of cfg in virtual time and returns the
// point's records.
func flowRecords(t *testing.T, cfg Config, l sweep.Load) []record.Record {
	t.Helper()
	cfg.Dir = t.TempDir()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Measure(t.Context(), l); err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join(cfg.Dir, "*.jsonl"))
	if err != nil || len(paths) != 1 {
		t.Fatalf("records files %v, %v", paths, err)
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := record.NewDecoder(f, paths[0])
	var recs []record.Record
	for {
		var rec record.Record
		if err := d.Next(&rec); err == io.EOF {
			return recs
		} else if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

// sessionsConfig is a virtual sweep of synthetic sessions: 3 turns of 600
// new tokens and 24-token answers, 2 s of think time.
func sessionsConfig() Config {
	cfg := virtualConfig("")
	cfg.Bench.Arrival.NumPrompts = 6
	cfg.Bench.Workload.Random = workload.RandomConfig{InputLen: 600, OutputLen: 24}
	cfg.Bench.Sessions.MultiTurn = true
	cfg.Bench.Sessions.Turns = session.Span{Lo: 3, Hi: 3}
	cfg.Bench.Sessions.Think = session.Think{Kind: session.ThinkFixed, Mean: 2 * time.Second}
	return cfg
}

// TestVirtualSessions: in virtual time each turn is sent when the previous
// reply ended plus the think time, records place every turn, and the
// simulator's prefix cache serves the history, so later turns, which
// carry a longer prompt, get their first token sooner than first turns.
func TestVirtualSessions(t *testing.T) {
	for _, l := range []sweep.Load{sweep.Concurrency(2), sweep.Rate(0.5)} {
		t.Run(l.String(), func(t *testing.T) {
			recs := flowRecords(t, sessionsConfig(), l)
			by := map[string][]record.Record{}
			for _, r := range recs {
				if r.Session == "" || r.Turn < 1 || r.Turn > 3 || !r.OK() {
					t.Fatalf("record %+v", r)
				}
				if want := int64(3*sessionNumber(t, r.Session) + r.Turn - 1); r.Seq != want {
					t.Errorf("session %s turn %d has seq %d, want %d", r.Session, r.Turn, r.Seq, want)
				}
				by[r.Session] = append(by[r.Session], r)
			}
			// Six sessions at a rate; a closed loop sends at least
			// --min-rounds rounds of its users.
			if len(recs) != 3*len(by) || len(by) < 6 {
				t.Fatalf("%d records of %d sessions, want 3 turns each, at least 6 sessions", len(recs), len(by))
			}
			for id, rs := range by {
				sort.Slice(rs, func(a, b int) bool { return rs[a].Turn < rs[b].Turn })
				for k := 1; k < len(rs); k++ {
					if rs[k].Scheduled != rs[k-1].End+int64(2*time.Second) {
						t.Errorf("session %s turn %d scheduled %d, want the end of turn %d (%d) + 2 s", id, k+1, rs[k].Scheduled, k, rs[k-1].End)
					}
				}
			}
		})
	}
}

// TestVirtualSessionsReuseTheirHistory: the simulator's prefix cache holds
// a session's history, so a later turn prefills only what is new, and gets
// its first token sooner than it would without the cache.
func TestVirtualSessionsReuseTheirHistory(t *testing.T) {
	laterTTFT := func(cfg Config) time.Duration {
		var sum time.Duration
		n := 0
		for _, r := range flowRecords(t, cfg, sweep.Rate(0.5)) {
			if r.Turn > 1 {
				sum += time.Duration(r.Chunks[0].At - r.Scheduled)
				n++
			}
		}
		return sum / time.Duration(n)
	}
	cached := laterTTFT(sessionsConfig())
	cfg := sessionsConfig()
	off := *cfg.Virtual
	off.DisablePrefixCaching = true
	cfg.Virtual = &off
	if plain := laterTTFT(cfg); cached*3 > plain*2 {
		t.Errorf("later turns' mean TTFT %v with the prefix cache, %v without: want under two thirds", cached, plain)
	}
}

func sessionNumber(t *testing.T, id string) int {
	var n int
	if _, err := fmt.Sscanf(id, "s%d", &n); err != nil {
		t.Fatalf("session id %q", id)
	}
	return n
}

// TestVirtualSessionsWaitForASlot: with at most one session at a time, the
// second session's first turn is due at its arrival and sent when the
// first session ended.
func TestVirtualSessionsWaitForASlot(t *testing.T) {
	cfg := sessionsConfig()
	cfg.Bench.Arrival.NumPrompts = 2
	cfg.Bench.Arrival.MaxConcurrency = 1
	recs := flowRecords(t, cfg, sweep.Rate(10))
	var lastOfFirst, firstOfSecond record.Record
	for _, r := range recs {
		switch {
		case r.Session == "s0" && r.Turn == 3:
			lastOfFirst = r
		case r.Session == "s1" && r.Turn == 1:
			firstOfSecond = r
		}
	}
	if firstOfSecond.Sent != lastOfFirst.End || firstOfSecond.Scheduled >= firstOfSecond.Sent {
		t.Errorf("s1 turn 1: scheduled %d sent %d; want scheduled at its arrival, before being sent when s0 ended (%d)",
			firstOfSecond.Scheduled, firstOfSecond.Sent, lastOfFirst.End)
	}
}

// TestVirtualAgentTasks: a task's fan-out goes out together after its
// step's tool time and the join waits for both branches.
func TestVirtualAgentTasks(t *testing.T) {
	cfg := virtualConfig("")
	cfg.Bench.Arrival.NumPrompts = 3
	cfg.Bench.Workload.Dataset, cfg.Bench.Workload.Path, cfg.Bench.Workload.NoShuffle = session.DatasetAgent, "../session/testdata/tasks.jsonl", true
	recs := flowRecords(t, cfg, sweep.Rate(10))
	calls := map[string]record.Record{}
	for _, r := range recs {
		calls[r.Task+"/"+r.Call] = r
	}
	if len(calls) != 9 || len(recs) != 9 {
		t.Fatalf("%d records of %d calls, want 4 + 3 + 2", len(recs), len(calls))
	}
	plan, a, b, join := calls["t1/plan"], calls["t1/read-a"], calls["t1/read-b"], calls["t1/answer"]
	if a.Scheduled != plan.End+int64(1200*time.Millisecond) || b.Scheduled != a.Scheduled {
		t.Errorf("fan-out at %d and %d, want plan's end %d + 1.2 s", a.Scheduled, b.Scheduled, plan.End)
	}
	if due := max(a.End, b.End+int64(300*time.Millisecond)); join.Scheduled != due {
		t.Errorf("join at %d, want %d", join.Scheduled, due)
	}
	if r := calls["two-roots/b"]; r.Scheduled != calls["two-roots/a"].Scheduled+int64(750*time.Millisecond) {
		t.Errorf("second root at %d, want the task's start + 750 ms", r.Scheduled)
	}
}
