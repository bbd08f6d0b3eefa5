package trace

// Reuse follows the prefix blocks of a trace's prompts in order, to say how
// much of each prompt a prefix cache would already hold: the blocks of its
// leading run of hash ids seen in an earlier prompt. The cache it models
// never evicts, so what it finds is the trace's theoretical block hit rate,
// the most a server's cache could reuse (when the requests of one block do
// not overlap in time); a server's measured rate falls short of it by what
// its cache evicts and by requests that share a block before it is computed.
//
// Memory grows with the number of distinct ids: one bit each for the dense,
// non-negative ids of remapped traces such as Mooncake's, a map entry for
// others. Reuse is not safe for concurrent use.
type Reuse struct {
	block int      // tokens per id
	bits  []uint64 // ids below denseIDs
	other map[int64]struct{}
}

// denseIDs bounds the ids kept as bits: up to 16 MiB of them.
const denseIDs = 1 << 27

// NewReuse returns a Reuse for ids of block tokens each (≥ 1).
func NewReuse(block int) *Reuse { return &Reuse{block: max(block, 1)} }

// Add returns how many of a prompt's input tokens are reusable, given its
// hash ids, and then remembers its blocks as cached. Block i covers tokens
// [i·block, (i+1)·block) of the prompt, the last one possibly partial; ids
// past the prompt's length cover nothing.
func (u *Reuse) Add(ids []int64, input int) int {
	reused, run := 0, true
	for i, id := range ids {
		if run && u.seen(id) {
			reused += max(min(u.block, input-i*u.block), 0)
		} else {
			run = false
		}
		u.mark(id)
	}
	return reused
}

func (u *Reuse) seen(id int64) bool {
	if id >= 0 && id < denseIDs {
		w := int(id >> 6)
		return w < len(u.bits) && u.bits[w]&(1<<(id&63)) != 0
	}
	_, ok := u.other[id]
	return ok
}

func (u *Reuse) mark(id int64) {
	if id >= 0 && id < denseIDs {
		w := int(id >> 6)
		if w >= len(u.bits) {
			u.bits = append(u.bits, make([]uint64, max(w+1-len(u.bits), len(u.bits)/2))...)
		}
		u.bits[w] |= 1 << (id & 63)
		return
	}
	if u.other == nil {
		u.other = map[int64]struct{}{}
	}
	u.other[id] = struct{}{}
}
