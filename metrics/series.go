package metrics

import (
	"sort"

	"github.com/goodput-dev/goodput/record"
)

// maxSeriesBuckets bounds the memory of a series (and the length of
// Result.Series): 16384 one-second buckets is four and a half hours. Past it
// the step grows by powers of two (adjacent buckets merge), so a long run,
// or a record with an absurd timestamp, costs a coarser series rather than
// unbounded memory.
const maxSeriesBuckets = 1 << 14

// maxTime bounds the times a series works with (about 146 years either side
// of the run epoch), so that bucket arithmetic cannot overflow on bad data.
const maxTime = 1 << 62

// seriesBucket accumulates one step of the run.
type seriesBucket struct {
	tokens      int64 // output tokens of chunks that arrived in the bucket
	completions int64 // successful requests that ended in the bucket
	errors      int64 // failed requests that ended in the bucket
	busy        int64 // ns of in-flight time from requests that began or ended in the bucket
	// delta is a difference array of requests covering whole buckets: a
	// request spanning buckets i..j adds +1 at i+1 and −1 at j, so adding a
	// request costs O(1) whatever its length.
	delta int64
}

// series is a time series with buckets aligned to the run epoch: bucket b
// covers [b·step, (b+1)·step). Alignment to the epoch, rather than to the
// first record seen, keeps buckets stable while records stream in and lines
// up series of runs that share an epoch.
type series struct {
	step int64 // ns
	base int64 // bucket number of b[0]
	b    []seriesBucket
}

func clampTime(t int64) int64 { return max(-maxTime, min(maxTime, t)) }

// floorDiv is a/b rounded towards −∞ (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// slot returns the index in s.b of the bucket holding t; t must be covered.
func (s *series) slot(t int64) int { return int(floorDiv(clampTime(t), s.step) - s.base) }

// cover makes buckets exist for every time in [lo, hi], coarsening the
// series if the span would exceed maxSeriesBuckets. Indices from slot are
// valid until the next call to cover.
func (s *series) cover(lo, hi int64) {
	lo, hi = clampTime(lo), clampTime(hi)
	if hi < lo {
		lo, hi = hi, lo
	}
	if len(s.b) > 0 {
		lo = min(lo, s.base*s.step)
		hi = max(hi, (s.base+int64(len(s.b)))*s.step-1)
	}
	// The smallest power-of-two multiple of the step whose buckets span
	// [lo, hi] within the limit.
	f := int64(1)
	for floorDiv(hi, s.step*f)-floorDiv(lo, s.step*f)+1 > maxSeriesBuckets {
		f *= 2
	}
	if f > 1 {
		s.coarsen(f)
	}
	s.extend(floorDiv(lo, s.step), floorDiv(hi, s.step))
}

// extend grows the bucket slice to cover bucket numbers [a, b], which must
// include the current range and span at most maxSeriesBuckets. It leaves
// slack on the side that grew so that records arriving slightly out of
// order do not copy the slice each time.
func (s *series) extend(a, b int64) {
	if len(s.b) == 0 {
		s.base = a
		s.b = make([]seriesBucket, b-a+1)
		return
	}
	end := s.base + int64(len(s.b)) - 1
	if a >= s.base && b <= end {
		return
	}
	slack := max(8, int64(len(s.b))/2)
	if a < s.base {
		a = max(a-slack, b-maxSeriesBuckets+1)
	}
	if b > end {
		b = min(b+slack, a+maxSeriesBuckets-1)
	}
	nb := make([]seriesBucket, b-a+1)
	copy(nb[s.base-a:], s.b)
	s.base, s.b = a, nb
}

// coarsen multiplies the step by f, merging each run of f adjacent
// buckets. It first turns the difference array into plain in-flight time,
// which merges exactly.
func (s *series) coarsen(f int64) {
	var run int64
	for i := range s.b {
		run += s.b[i].delta
		s.b[i].busy += run * s.step
		s.b[i].delta = 0
	}
	s.step *= f
	if len(s.b) == 0 {
		return
	}
	base := floorDiv(s.base, f)
	last := floorDiv(s.base+int64(len(s.b))-1, f)
	nb := make([]seriesBucket, last-base+1)
	for i, x := range s.b {
		y := &nb[floorDiv(s.base+int64(i), f)-base]
		y.tokens += x.tokens
		y.completions += x.completions
		y.errors += x.errors
		y.busy += x.busy
	}
	s.base, s.b = base, nb
}

// addTokensInOrder attributes the tokens of cs, one per chunk with
// arrivals in order, to their buckets. Rather than look at every chunk it
// binary-searches each bucket boundary, so a stream costs a few lookups per
// bucket it spans.
func (s *series) addTokensInOrder(cs []record.Chunk) {
	s.cover(cs[0].At, cs[len(cs)-1].At)
	for i := 0; i < len(cs); {
		k := s.slot(cs[i].At)
		end := (s.base + int64(k) + 1) * s.step
		rest := cs[i:]
		// Clamped as slot clamps: a chunk beyond maxTime is in the last
		// bucket, not after every bucket (which would never advance i).
		j := sort.Search(len(rest), func(x int) bool { return clampTime(rest[x].At) >= end })
		s.b[k].tokens += int64(j)
		i += j
	}
}

// inFlight adds a request in flight over [from, to); to ≤ from adds nothing.
// Both times must be covered.
func (s *series) inFlight(from, to int64) {
	from, to = clampTime(from), clampTime(to)
	if to <= from {
		return
	}
	i, j := s.slot(from), s.slot(to)
	if i == j {
		s.b[i].busy += to - from
		return
	}
	s.b[i].busy += (s.base+int64(i)+1)*s.step - from
	s.b[j].busy += to - (s.base+int64(j))*s.step
	if j > i+1 {
		s.b[i+1].delta++
		s.b[j].delta--
	}
}

// points returns the buckets from the one holding from to the one holding
// to, inclusive. Rates and averages are over the part of each bucket that
// [from, to] covers: the first and the last bucket of a run are partly
// outside it, and over the whole step they would read low (a last bucket
// of 0.37 s at 285 tok/s read 104).
func (s *series) points(from, to int64) []SeriesPoint {
	if len(s.b) == 0 || to < from {
		return []SeriesPoint{}
	}
	i, j := max(0, s.slot(from)), min(len(s.b)-1, s.slot(to))
	var run int64
	for k := 0; k < i; k++ {
		run += s.b[k].delta
	}
	out := make([]SeriesPoint, 0, max(0, j-i+1))
	for k := i; k <= j; k++ {
		x := s.b[k]
		run += x.delta
		start := (s.base + int64(k)) * s.step
		span := min(start+s.step, to) - max(start, from)
		if span <= 0 || span > s.step {
			span = s.step
		}
		out = append(out, SeriesPoint{
			Start:                 float64(start) / 1e9,
			Seconds:               float64(span) / 1e9,
			OutputTokensPerSecond: float64(x.tokens) / (float64(span) / 1e9),
			InFlight:              float64(x.busy+run*s.step) / float64(span),
			Completions:           x.completions,
			Errors:                x.errors,
		})
	}
	return out
}
