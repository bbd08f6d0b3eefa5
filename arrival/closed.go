package arrival

import (
	"fmt"
	"time"
)

// Closed is a closed-loop run: Concurrency workers each send their next
// request as soon as the previous one finishes, so the load adapts to the
// server. It has no precomputed times; the runner schedules a worker's
// request (Record.Scheduled) at the moment its slot frees.
type Closed struct {
	Concurrency int           // workers, ≥ 1
	Count       int           // stop after this many requests; 0 = no limit
	Duration    time.Duration // stop starting requests after this; 0 = no limit

	// Request i of this loop has sequence number FirstSeq + i·SeqStride, so
	// that the shards of a sharded closed loop number their requests
	// without collisions. Unsharded: 0 and 1.
	FirstSeq  int64
	SeqStride int64
}

// Seq returns the sequence number of the loop's request i (0-based).
func (c Closed) Seq(i int) int64 { return c.FirstSeq + int64(i)*c.SeqStride }

// Shard returns shard k of n of the loop: the workers are dealt out as
// evenly as possible, and the shard takes the requests whose global sequence
// number ≡ k (mod n). It fails when k is out of range or a shard would get
// no worker or no request. Sharding an already sharded loop is not supported: c must have
// FirstSeq 0 and SeqStride 1.
func (c Closed) Shard(k, n int) (Closed, error) {
	switch {
	case n < 1:
		return Closed{}, fmt.Errorf("--shards must be ≥ 1, got %d", n)
	case k < 0 || k >= n:
		return Closed{}, fmt.Errorf("--shard %d must be in [0, %d)", k, n)
	case n > c.Concurrency:
		return Closed{}, fmt.Errorf("--shards %d exceeds --max-concurrency %d: some shard would have no worker", n, c.Concurrency)
	case c.Count > 0 && c.Count < n:
		// A shard's Count of 0 would mean "no limit", not "nothing".
		return Closed{}, fmt.Errorf("--num-prompts %d is less than --shards %d: some shard would send nothing", c.Count, n)
	case c.FirstSeq != 0 || c.SeqStride != 1:
		return Closed{}, fmt.Errorf("closed loop is already a shard (first sequence number %d, stride %d)", c.FirstSeq, c.SeqStride)
	}
	out := c
	out.Concurrency = shareOf(c.Concurrency, k, n)
	if c.Count > 0 {
		// Sequence numbers k, k+n, k+2n, … below Count.
		out.Count = (c.Count - k + n - 1) / n
	}
	out.FirstSeq, out.SeqStride = int64(k), int64(n)
	return out, nil
}

// UnevenShards returns a warning for shard k of n of the loop c (not yet
// sharded) when its workers do not divide among the shards while a count
// bounds it, or "": the requests are dealt out evenly by sequence number,
// the workers as evenly as they go, so a shard with fewer workers takes
// longer over its share, the shards end apart, and the merged run ends on
// a thinner load than the concurrency asked for. A loop bounded by time
// keeps every worker busy to the end and gets no warning.
func (c Closed) UnevenShards(k, n int) string {
	if n <= 1 || c.Count == 0 || c.Duration > 0 || c.Concurrency%n == 0 || c.Concurrency < n || c.Count < n {
		return ""
	}
	sh, err := c.Shard(k, n)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("--max-concurrency %d does not divide among --shards %d: this shard has %d of the %d workers for %d of the %d requests, so the shards end apart and the merged run ends on fewer requests in flight than %d; give a --max-concurrency that is a multiple of %d, or bound the run by --duration",
		c.Concurrency, n, sh.Concurrency, c.Concurrency, sh.Count, c.Count, c.Concurrency, n)
}

// shareOf returns shard k's share of total dealt out over n shards as
// evenly as possible, the first total mod n shards taking one more.
func shareOf(total, k, n int) int {
	share := total / n
	if k < total%n {
		share++
	}
	return share
}
