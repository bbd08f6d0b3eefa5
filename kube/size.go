package kube

import (
	"fmt"
	"math"
	"time"
)

// Load is what the streams of one shard are estimated from: the run's
// arrival flags and how long a request is expected to stay in flight.
type Load struct {
	MaxConcurrency int     // --max-concurrency of the whole run; 0 none
	Rate           float64 // --request-rate of the whole run, req/s; +Inf all at once
	NumPrompts     int     // --num-prompts of the whole run; 0 none
	Shards         int
	// Latency is how long a request is expected in flight (its SLO's
	// budget, say); an open loop's streams are rate × latency (Little's
	// law), doubled for a server that falls behind.
	Latency time.Duration
}

// Streams estimates how many requests one shard has in flight at most.
func (l Load) Streams() int {
	k := max(l.Shards, 1)
	perShard := func(n int) int { return (n + k - 1) / k }
	cap := math.MaxInt
	if l.NumPrompts > 0 {
		cap = perShard(l.NumPrompts)
	}
	switch {
	case l.MaxConcurrency > 0:
		return min(perShard(l.MaxConcurrency), cap)
	case math.IsInf(l.Rate, 1):
		if cap == math.MaxInt {
			return 1
		}
		return cap
	}
	s := math.Ceil(2 * l.Rate / float64(k) * l.Latency.Seconds())
	if s > float64(cap) || math.IsNaN(s) {
		return cap
	}
	return max(1, int(s))
}

// What a stream costs the client, from BENCHMARKS.md ("Load generator
// timing precision", "Stream reading"): about 8 µs of CPU per chunk, read
// and parsed, so a stream at 50 chunks a second needs 0.4 ms of CPU a
// second; the request asks for twice that. Memory is the runtime and the
// run's summary (tens of MiB for millions of requests) plus a stream's
// buffers, goroutine and chunk times.
const (
	baseMilliCPU   = 500
	milliCPUStream = 1
	baseMiB        = 128
	kibPerStream   = 256
	// StreamsPerShard is about where one process stops keeping its sends
	// within a millisecond on a small machine (BENCHMARKS.md).
	StreamsPerShard = 1000
)

// Size returns the requests of a shard pod with streams in flight: CPU
// without a limit (the quota would stall the generator, not the server),
// memory with a limit of twice the request.
func Size(streams int) Resources {
	streams = max(streams, 1)
	cpu := roundUp(baseMilliCPU+milliCPUStream*streams, 100)
	mem := roundUp(baseMiB+(kibPerStream*streams+1023)/1024, 64)
	return Resources{
		CPU:         fmt.Sprintf("%dm", cpu),
		Memory:      fmt.Sprintf("%dMi", mem),
		MemoryLimit: fmt.Sprintf("%dMi", 2*mem),
	}
}

func roundUp(v, step int) int { return (v + step - 1) / step * step }
