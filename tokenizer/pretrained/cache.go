package pretrained

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// wordCache remembers the ids of recent words. Text repeats its words, and
// a lookup is much cheaper than merging again. It is a direct-mapped table
// of atomically swapped entries: readers never lock, a writer replaces
// whatever held the slot, and a reader sees either the old entry or the new
// one, both correct. Only short words are kept, so it stays small.
type wordCache struct {
	seed  maphash.Seed
	slots []atomic.Pointer[cachedWord]
}

type cachedWord struct {
	word string
	ids  []int32
}

const (
	cacheSlots   = 1 << 14
	cacheMaxWord = 32 // bytes: longer words are rare and not worth a slot
)

func newWordCache() *wordCache {
	return &wordCache{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[cachedWord], cacheSlots)}
}

func (c *wordCache) slot(w string) *atomic.Pointer[cachedWord] {
	return &c.slots[maphash.String(c.seed, w)&(cacheSlots-1)]
}

func (c *wordCache) get(w string) ([]int32, bool) {
	if len(w) > cacheMaxWord {
		return nil, false
	}
	if e := c.slot(w).Load(); e != nil && e.word == w {
		return e.ids, true
	}
	return nil, false
}

func (c *wordCache) put(w string, ids []int) {
	if len(w) > cacheMaxWord {
		return
	}
	e := &cachedWord{word: strings.Clone(w), ids: make([]int32, len(ids))}
	for i, id := range ids {
		e.ids[i] = int32(id)
	}
	c.slot(w).Store(e)
}
