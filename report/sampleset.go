package report

import (
	"math"
	"slices"
	"sort"
)

// sampleSet keeps one latency metric's values for a bootstrap that
// resamples requests, not values: the ITL gaps of one request share its
// batch and its context length, so they are not independent, and
// resampling them one by one would make a confidence interval too narrow.
// A request is a cluster; each value stands for wt copies (a chunk of k
// tokens stands for k per-token ITLs).
//
// Memory is bounded by budget values. When the set outgrows it, it keeps a
// random half of its requests, and from then on each new request with the
// same probability, so the kept requests are always a uniform sample of
// all those seen (each kept with probability 2^-level).
type sampleSet struct {
	vals []float64
	req  []int32 // index into keys of the request each value belongs to
	wt   []int32 // copies each value stands for

	keys   []uint64 // random key of each kept request, in order of arrival
	level  uint     // a request is kept when its key's top level bits are zero
	seen   int64    // requests that had a value, kept or not
	budget int

	// Set by finish: values sorted ascending with req and wt alongside,
	// and the total weight of each kept request.
	sorted    bool
	nclusters int
	clusterW  []int64
}

func newSampleSet(budget int) *sampleSet { return &sampleSet{budget: budget} }

// keeps reports whether a request with key is in the sample at level.
func keeps(key uint64, level uint) bool { return level == 0 || key>>(64-level) == 0 }

// add appends one request's values (with their weights; nil weights mean
// one each). key must be uniformly random and independent of the values.
func (s *sampleSet) add(key uint64, vals []float64, wts []int32) {
	if len(vals) == 0 {
		return
	}
	s.seen++
	if !keeps(key, s.level) {
		return
	}
	id := int32(len(s.keys))
	s.keys = append(s.keys, key)
	for i, v := range vals {
		s.vals = append(s.vals, v)
		s.req = append(s.req, id)
		w := int32(1)
		if wts != nil {
			w = wts[i]
		}
		s.wt = append(s.wt, w)
	}
	for len(s.vals) > s.budget && len(s.keys) > 1 {
		s.thin()
	}
}

// clone returns an independent copy of s, which finish must not have
// been called on.
func (s *sampleSet) clone() *sampleSet {
	c := *s
	c.vals, c.req, c.wt, c.keys = slices.Clone(s.vals), slices.Clone(s.req), slices.Clone(s.wt), slices.Clone(s.keys)
	return &c
}

// thin raises the level by one and drops the requests it no longer keeps.
func (s *sampleSet) thin() {
	s.level++
	remap := make([]int32, len(s.keys))
	kept := s.keys[:0]
	for i, k := range s.keys {
		remap[i] = -1
		if keeps(k, s.level) {
			remap[i] = int32(len(kept))
			kept = append(kept, k)
		}
	}
	s.keys = kept
	j := 0
	for i := range s.vals {
		if r := remap[s.req[i]]; r >= 0 {
			s.vals[j], s.req[j], s.wt[j] = s.vals[i], r, s.wt[i]
			j++
		}
	}
	s.vals, s.req, s.wt = s.vals[:j], s.req[:j], s.wt[:j]
}

// clusters returns the number of clusters to resample: kept requests,
// grouped into blocks by finish.
func (s *sampleSet) clusters() int { return s.nclusters }

// scale is the factor by which deviations measured on the kept requests
// shrink to those of all requests: a statistic's spread falls as one over
// the square root of the sample size (the m-out-of-n bootstrap).
func (s *sampleSet) scale() float64 {
	if len(s.keys) == 0 || s.seen <= int64(len(s.keys)) {
		return 1
	}
	return math.Sqrt(float64(len(s.keys)) / float64(s.seen))
}

// finish sorts the values for resampling, grouping every block
// consecutive requests into one cluster (see blockSize). add must not be
// called after.
func (s *sampleSet) finish(block int) {
	if s.sorted {
		return
	}
	block = max(block, 1)
	for i := range s.req {
		s.req[i] /= int32(block)
	}
	s.nclusters = (len(s.keys) + block - 1) / block
	sort.Sort(byValue{s})
	s.clusterW = make([]int64, s.nclusters)
	for i := range s.vals {
		s.clusterW[s.req[i]] += int64(s.wt[i])
	}
	s.sorted = true
}

type byValue struct{ s *sampleSet }

func (b byValue) Len() int           { return len(b.s.vals) }
func (b byValue) Less(i, j int) bool { return b.s.vals[i] < b.s.vals[j] }
func (b byValue) Swap(i, j int) {
	s := b.s
	s.vals[i], s.vals[j] = s.vals[j], s.vals[i]
	s.req[i], s.req[j] = s.req[j], s.req[i]
	s.wt[i], s.wt[j] = s.wt[j], s.wt[i]
}
