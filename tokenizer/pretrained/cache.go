package pretrained

import (
	"hash/maphash"
	"sync/atomic"
)

// wordCache remembers the ids of recent words. Text repeats its words, and
// a lookup is much cheaper than merging again. It is a direct-mapped table
// of atomically swapped entries: readers never lock, a writer replaces
// whatever held the slot, and a reader sees either the old entry or the new
// one, both correct. Only short words with few ids are kept, inline, so an
// entry is one small allocation.
type wordCache struct {
	seed  maphash.Seed
	slots []atomic.Pointer[cachedWord]
}

const (
	cacheSlots  = 1 << 14
	cacheMaxLen = 32 // bytes of a cached word
	cacheMaxIDs = 12 // ids of a cached word
)

type cachedWord struct {
	n, nids uint8
	word    [cacheMaxLen]byte
	ids     [cacheMaxIDs]int32
}

func newWordCache() *wordCache {
	return &wordCache{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[cachedWord], cacheSlots)}
}

func (c *wordCache) slot(w string) *atomic.Pointer[cachedWord] {
	return &c.slots[maphash.String(c.seed, w)&(cacheSlots-1)]
}

// appendCached appends the cached ids of w to dst; ok is false on a miss.
func (c *wordCache) appendCached(dst []int, w string) ([]int, bool) {
	if len(w) > cacheMaxLen {
		return dst, false
	}
	e := c.slot(w).Load()
	if e == nil || string(e.word[:e.n]) != w {
		return dst, false
	}
	for _, id := range e.ids[:e.nids] {
		dst = append(dst, int(id))
	}
	return dst, true
}

func (c *wordCache) put(w string, ids []int) {
	if len(w) > cacheMaxLen || len(ids) > cacheMaxIDs {
		return
	}
	e := &cachedWord{n: uint8(len(w)), nids: uint8(len(ids))}
	copy(e.word[:], w)
	for i, id := range ids {
		e.ids[i] = int32(id)
	}
	c.slot(w).Store(e)
}
