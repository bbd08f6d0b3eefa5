package vllmresult

import (
	"cmp"
	"math"
	"slices"

	"github.com/goodput-dev/goodput/record"
)

// PeakCounter counts vLLM's max_output_tokens_per_s and
// max_concurrent_requests of a run as its requests end, in memory that
// grows with the run's seconds, not its tokens.
//
// vLLM counts both in second-long buckets from the earliest send of a
// successful request (m): the most tokens whose arrival falls in one
// bucket (each chunk one token; a whole answer brings all its tokens at
// its first), and the most successful requests active in one bucket,
// where a request is active in every bucket from its send's to its last
// token's. m is known only once the run is over, as the requests end in
// any order; what is known from the start is a floor that no send comes
// before (the first due time) and, after the first success, the earliest
// successful send so far, an upper bound of m. A time whose bucket is the
// same for every m between those bounds is counted at once; the few that
// fall within that distance after a second's boundary are kept until m is
// known, and fewer of them as the bounds close in.
//
// Times are nanoseconds on the run's clock, as in record.Record. The zero
// PeakCounter has floor 0. It is not safe for concurrent use.
type PeakCounter struct {
	floor int64 // no successful send comes before it
	have  bool  // a successful request was added
	bound int64 // the earliest successful send so far: m ≤ bound
	// broken is set by a time before the floor: the counts are then not
	// vLLM's, and Figures says so.
	broken bool

	// Counted times, by bucket from the floor (the same bucket as from m):
	// tokens, sends and last tokens; a bucket past maxSeconds (a clock gone
	// wrong) is counted in far.
	counts [nKinds][]int64
	far    [nKinds]map[int64]int64
	kept   []kept // times whose bucket waits for m
}

// maxSeconds bounds the buckets kept in a slice: a run of 48 days.
const maxSeconds = 1 << 22

// The kinds of time a PeakCounter counts.
const (
	kindToken = iota // n tokens arrived
	kindStart        // a successful request was sent
	kindEnd          // a successful request's last token arrived
	nKinds
)

type kept struct {
	at, n int64
	kind  uint8
}

// NewPeakCounter returns a PeakCounter for a run in which no request is
// sent before floor (the earliest due time, on the run's clock). A floor
// close below the first send keeps the counter small; one far below it
// is still exact, at the cost of memory while no request has ended.
func NewPeakCounter(floor int64) *PeakCounter { return &PeakCounter{floor: floor} }

// AddRecord counts one request. A warm-up, a failure or a request that
// brought no chunk is no success in vLLM's sense and counts nothing, as in
// FromRecord. The counter retains neither r nor its chunks.
func (p *PeakCounter) AddRecord(r *record.Record) {
	if r == nil || r.Warmup || !r.OK() || len(r.Chunks) == 0 {
		return
	}
	p.begin(r.Sent)
	first := int64(1)
	if r.Whole {
		first = int64(r.OutputTokens)
	}
	p.place(r.Chunks[0].At, first, kindToken)
	for _, c := range r.Chunks[1:] {
		p.place(c.At, 1, kindToken)
	}
	p.place(r.Chunks[len(r.Chunks)-1].At, 1, kindEnd)
}

// addRequest counts one request as vLLM's client reports it, its times
// turned back into nanoseconds (they came from them: FromRecord divides
// by 1e9, which this undoes exactly for runs shorter than weeks).
func (p *PeakCounter) addRequest(q Request) {
	if !q.Success {
		return
	}
	ns := func(s float64) int64 { return int64(math.Round(s * 1e9)) }
	sent := ns(q.Start)
	p.begin(sent)
	t := sent + ns(q.TTFT)
	first := int64(1)
	if q.Whole {
		first = int64(q.OutputLen)
	}
	p.place(t, first, kindToken)
	for _, g := range q.ITL {
		t += ns(g)
		p.place(t, 1, kindToken)
	}
	p.place(sent+ns(q.Latency), 1, kindEnd)
}

// begin counts a successful request's send, lowering the bound of m when
// it is the earliest so far.
func (p *PeakCounter) begin(sent int64) {
	if sent < p.floor {
		p.broken = true
		return
	}
	if !p.have || sent < p.bound {
		p.have, p.bound = true, sent
		// A closer bound settles some of the kept times.
		old := p.kept
		p.kept = nil
		for _, k := range old {
			p.place(k.at, k.n, k.kind)
		}
	}
	p.place(sent, 1, kindStart)
}

// place counts n at time at, or keeps it while its bucket depends on
// where between the floor and the bound m falls: the bucket from m is
// the one from the floor unless at lies less than bound − floor after a
// second's boundary counted from the floor.
func (p *PeakCounter) place(at, n int64, kind uint8) {
	d := at - p.floor
	if d < 0 {
		p.broken = true
		return
	}
	if d%1e9 < p.bound-p.floor {
		p.kept = append(p.kept, kept{at: at, n: n, kind: kind})
		return
	}
	p.count(kind, d/1e9, n)
}

// count adds n to bucket b of kind.
func (p *PeakCounter) count(kind uint8, b, n int64) {
	if b >= maxSeconds {
		if p.far[kind] == nil {
			p.far[kind] = map[int64]int64{}
		}
		p.far[kind][b] += n
		return
	}
	c := p.counts[kind]
	if b >= int64(len(c)) {
		c = append(c, make([]int64, int(b)+1-len(c)+len(c)/2)...)
		p.counts[kind] = c
	}
	c[b] += n
}

// Figures returns vLLM's max_output_tokens_per_s and
// max_concurrent_requests of the requests counted; both are 0 without a
// success. ok is false when a time came before the floor, which leaves
// the figures unknown.
func (p *PeakCounter) Figures() (tokensPerSecond float64, concurrent int, ok bool) {
	if p.broken {
		return 0, 0, false
	}
	if !p.have {
		return 0, 0, true
	}
	// m is the bound now: every successful send is in.
	var byKind [nKinds]map[int64]int64
	for k := range byKind {
		byKind[k] = map[int64]int64{}
		for b, n := range p.counts[k] {
			if n != 0 {
				byKind[k][int64(b)] = n
			}
		}
		for b, n := range p.far[k] {
			byKind[k][b] += n
		}
	}
	for _, k := range p.kept {
		byKind[k.kind][(k.at-p.bound)/1e9] += k.n
	}
	most := int64(0)
	for _, n := range byKind[kindToken] {
		most = max(most, n)
	}
	// A request is active from its send's bucket to its last token's,
	// both included: +1 at the first, −1 after the last.
	type step struct{ at, delta int64 }
	var steps []step
	for b, n := range byKind[kindStart] {
		steps = append(steps, step{b, n})
	}
	for b, n := range byKind[kindEnd] {
		steps = append(steps, step{b + 1, -n})
	}
	slices.SortFunc(steps, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	cur, busiest := int64(0), int64(0)
	for i, s := range steps {
		cur += s.delta
		if i+1 == len(steps) || steps[i+1].at != s.at {
			busiest = max(busiest, cur)
		}
	}
	return float64(most), int(busiest), true
}
