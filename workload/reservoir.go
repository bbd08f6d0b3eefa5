package workload

import "math/rand/v2"

// Reservoir keeps the values offered to it while a file streams by: all
// of them without a limit; with one, the first limit in order, or, when
// shuffled, a uniform sample of limit (reservoir sampling), so that memory
// stays bounded by --num-prompts however large the file is.
type Reservoir[T any] struct {
	limit   int  // 0 = keep all
	shuffle bool // false: file order, and the first limit values
	rng     *rand.Rand
	seen    int
	kept    []T
}

// NewReservoir returns a Reservoir of at most limit values (0: no limit),
// sampled with rng when shuffle is set.
func NewReservoir[T any](limit int, shuffle bool, rng *rand.Rand) *Reservoir[T] {
	return &Reservoir[T]{limit: limit, shuffle: shuffle, rng: rng}
}

// Add offers v.
func (r *Reservoir[T]) Add(v T) {
	seen := r.seen
	r.seen++
	switch {
	case r.limit == 0 || seen < r.limit:
		r.kept = append(r.kept, v)
	case r.shuffle:
		// Algorithm R: value number seen replaces a kept one with
		// probability limit/(seen+1).
		if j := r.rng.IntN(seen + 1); j < r.limit {
			r.kept[j] = v
		}
	}
}

// Kept returns the values kept, in a random order when shuffled.
func (r *Reservoir[T]) Kept() []T {
	if r.shuffle {
		r.rng.Shuffle(len(r.kept), func(i, j int) { r.kept[i], r.kept[j] = r.kept[j], r.kept[i] })
	}
	return r.kept
}
