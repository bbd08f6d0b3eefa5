package arrival

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Schedule is an open-loop plan: request i is sent Offsets[i] after the run
// start. Offsets never decrease. Seqs holds the requests' global sequence
// numbers when the schedule is a shard; nil means 0, 1, 2, ….
type Schedule struct {
	Offsets []time.Duration
	Seqs    []int64
}

// Len returns the number of requests.
func (s Schedule) Len() int { return len(s.Offsets) }

// Seq returns the global sequence number of request i.
func (s Schedule) Seq(i int) int64 {
	if s.Seqs == nil {
		return int64(i)
	}
	return s.Seqs[i]
}

// Shard returns shard k of n: the requests whose global sequence number
// ≡ k (mod n), at their global offsets, so that n machines started at the
// same instant together send exactly the unsharded schedule.
func (s Schedule) Shard(k, n int) (Schedule, error) {
	if n < 1 {
		return Schedule{}, fmt.Errorf("--shards must be ≥ 1, got %d", n)
	}
	if k < 0 || k >= n {
		return Schedule{}, fmt.Errorf("--shard %d must be in [0, %d)", k, n)
	}
	out := Schedule{
		Offsets: make([]time.Duration, 0, s.Len()/n+1),
		Seqs:    make([]int64, 0, s.Len()/n+1),
	}
	for i, off := range s.Offsets {
		if seq := s.Seq(i); seq%int64(n) == int64(k) {
			out.Offsets = append(out.Offsets, off)
			out.Seqs = append(out.Seqs, seq)
		}
	}
	return out, nil
}

// Stats summarises a schedule for --dry-run and for tests.
type Stats struct {
	Requests    int
	First, Last time.Duration // earliest and latest offsets
	// Rate is the mean rate in requests per second, (Requests−1) over the
	// span from First to Last; 0 when the span is empty.
	Rate float64
	// Gap percentiles between consecutive requests (nearest rank).
	GapP50, GapP90, GapP99, GapMax time.Duration
	// Busiest is the largest number of requests scheduled within any one
	// second: what a burst asks of the server.
	Busiest int
}

// Stats computes the schedule's summary.
func (s Schedule) Stats() Stats {
	st := Stats{Requests: s.Len()}
	if st.Requests == 0 {
		return st
	}
	st.First, st.Last = s.Offsets[0], s.Offsets[st.Requests-1]
	if span := st.Last - st.First; span > 0 {
		st.Rate = float64(st.Requests-1) / span.Seconds()
	}
	if st.Requests > 1 {
		gaps := make([]time.Duration, st.Requests-1)
		for i := range gaps {
			gaps[i] = s.Offsets[i+1] - s.Offsets[i]
		}
		slices.Sort(gaps)
		rank := func(p float64) time.Duration { return gaps[int(p*float64(len(gaps)-1)+0.5)] }
		st.GapP50, st.GapP90, st.GapP99, st.GapMax = rank(0.50), rank(0.90), rank(0.99), gaps[len(gaps)-1]
	}
	// Sliding one-second window over the sorted offsets.
	lo := 0
	for hi, off := range s.Offsets {
		for off-s.Offsets[lo] >= time.Second {
			lo++
		}
		st.Busiest = max(st.Busiest, hi-lo+1)
	}
	return st
}

// String renders the schedule's summary on one line.
func (s Schedule) String() string {
	st := s.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests", st.Requests)
	if st.Requests == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, " from %v to %v", st.First, st.Last)
	if st.Rate > 0 {
		fmt.Fprintf(&b, ", mean %.4g req/s", st.Rate)
	}
	if st.Requests > 1 {
		fmt.Fprintf(&b, "; gaps p50 %v p90 %v p99 %v max %v", st.GapP50, st.GapP90, st.GapP99, st.GapMax)
	}
	fmt.Fprintf(&b, "; busiest second %d requests", st.Busiest)
	return b.String()
}
