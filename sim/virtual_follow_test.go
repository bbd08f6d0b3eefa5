package sim

import (
	"context"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// chainRun runs a three-turn conversation in virtual time: each turn's
// prompt is the previous turn's prompt, 32 stand-in tokens for its reply
// and 16 new ones, sent 200 ms after the previous turn ended.
func chainRun(t *testing.T, opts Options) []record.Record {
	t.Helper()
	prompt := make([]int, 4000)
	for i := range prompt {
		prompt[i] = 300 + i%5000
	}
	var recs []record.Record
	think := 200 * time.Millisecond
	follow := func(done *record.Record) []VirtualRequest {
		if done.Seq == 2 {
			return nil
		}
		next := append([]int(nil), prompt...)
		for i := range 48 {
			next = append(next, 7000+int(done.Seq)*100+i)
		}
		prompt = next
		return []VirtualRequest{{At: time.Duration(done.End) + think, Prompt: next, MaxTokens: 32, IgnoreEOS: true}}
	}
	first := append([]int(nil), prompt...)
	err := StreamVirtual(context.Background(), opts, VirtualPlan{
		Requests: []VirtualRequest{{Prompt: first, MaxTokens: 32, IgnoreEOS: true}},
		Follow:   follow,
	}, func(r *record.Record) error {
		kept := *r
		kept.Chunks = append([]record.Chunk(nil), r.Chunks...)
		recs = append(recs, kept)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3 turns", len(recs))
	}
	for k := 1; k < 3; k++ {
		if recs[k].Seq != int64(k) || recs[k].Scheduled != recs[k-1].End+int64(think) || recs[k].Sent != recs[k].Scheduled {
			t.Errorf("turn %d: seq %d scheduled %d; want seq %d at the previous end %d + 200 ms",
				k+1, recs[k].Seq, recs[k].Scheduled, k, recs[k-1].End)
		}
	}
	return recs
}

func ttftOf(r record.Record) time.Duration { return time.Duration(r.Chunks[0].At - r.Scheduled) }

// TestVirtualFollowChainsTurnsAndCachesTheirHistory: a request released by
// Follow arrives when it says, and the prefix cache serves the history a
// later turn repeats, so its TTFT falls to a fraction of the first turn's;
// without the cache it does not.
func TestVirtualFollowChainsTurnsAndCachesTheirHistory(t *testing.T) {
	cached := chainRun(t, Options{})
	if t1, t2 := ttftOf(cached[0]), ttftOf(cached[1]); t2*4 > t1 {
		t.Errorf("with prefix caching, turn 2's TTFT %v is not under a quarter of turn 1's %v", t2, t1)
	}
	// Without the cache turn 2 prefills its whole, slightly longer prompt
	// again: its TTFT is turn 1's, give or take the front end's seeded
	// jitter of a few milliseconds, never a fraction of it.
	plain := chainRun(t, Options{DisablePrefixCaching: true})
	if t1, t2 := ttftOf(plain[0]), ttftOf(plain[1]); t2*10 < t1*9 {
		t.Errorf("without prefix caching, turn 2 (a longer prompt) got its first token much sooner: %v against turn 1's %v", t2, t1)
	}
}

func TestVirtualFollowNeedsAnOpenLoop(t *testing.T) {
	err := StreamVirtual(context.Background(), Options{}, VirtualPlan{
		Requests:    []VirtualRequest{{PromptTokens: 10, MaxTokens: 1}},
		Concurrency: 1,
		Follow:      func(*record.Record) []VirtualRequest { return nil },
	}, func(*record.Record) error { return nil })
	if err == nil {
		t.Error("a closed loop that follows its requests was accepted")
	}
}

// TestVirtualFollowAfterARefusal: a refused request is followed too, and
// what it releases arrives.
func TestVirtualFollowAfterARefusal(t *testing.T) {
	var got []record.Record
	err := StreamVirtual(context.Background(), Options{}, VirtualPlan{
		Requests: []VirtualRequest{{PromptTokens: 0, MaxTokens: 1}}, // an empty prompt: 400
		Follow: func(done *record.Record) []VirtualRequest {
			if done.Seq > 0 {
				return nil
			}
			return []VirtualRequest{{At: -time.Second, PromptTokens: 10, MaxTokens: 2, IgnoreEOS: true}}
		},
	}, func(r *record.Record) error { got = append(got, *r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].OK() || !got[1].OK() || got[1].Scheduled < got[0].End {
		t.Errorf("records %+v: want a refusal, then a success no earlier than it", got)
	}
}
