package arrival

import (
	"math"
	"strings"
	"testing"
	"time"
)

// Workers that do not divide among the shards of a run bounded by its
// count leave a shard slower over the same share of requests: each shard
// is told, with its numbers; a run bounded by time, or an even split, is
// not warned.
func TestUnevenShardsAreWarned(t *testing.T) {
	c := Closed{Concurrency: 5, Count: 40, SeqStride: 1}
	want := []string{
		"this shard has 2 of the 5 workers for 14 of the 40 requests",
		"this shard has 2 of the 5 workers for 13 of the 40 requests",
		"this shard has 1 of the 5 workers for 13 of the 40 requests",
	}
	for k, w := range want {
		got := c.UnevenShards(k, 3)
		if !strings.Contains(got, "--max-concurrency 5 does not divide among --shards 3: "+w) || !strings.Contains(got, "a multiple of 3") {
			t.Errorf("shard %d: %q", k, got)
		}
	}
	for _, quiet := range []Closed{
		{Concurrency: 6, Count: 40, SeqStride: 1},
		{Concurrency: 5, Duration: time.Minute, SeqStride: 1},
		{Concurrency: 5, Count: 40, Duration: time.Minute, SeqStride: 1},
	} {
		if got := quiet.UnevenShards(0, 3); got != "" {
			t.Errorf("%+v: %q", quiet, got)
		}
	}
	if got := c.UnevenShards(0, 1); got != "" {
		t.Errorf("one shard: %q", got)
	}
	// The shard's plan carries it, and --dry-run prints it.
	p, err := (Config{RequestRate: math.Inf(1), MaxConcurrency: 5, NumPrompts: 40, Shard: 2, Shards: 3, Burstiness: 1}).Plan()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Warning, want[2]) || !strings.Contains(p.String(), "warning: --max-concurrency 5 does not divide") {
		t.Errorf("plan warning %q, plan:\n%s", p.Warning, p)
	}
}
