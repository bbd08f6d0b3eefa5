package sim

// noBlock marks the end of the free list.
const noBlock = -1

// kvCache is the paged KV cache: a fixed pool of blocks, each holding the KV
// of a block size's worth of tokens, with reference counts and an optional prefix cache.
//
// Blocks whose reference count is zero sit on a free list in LRU order:
// allocation takes the head (least recently freed), freeing appends to the
// tail. A free block may still hold a cached prefix: it stays findable by
// its hash until allocation reuses it (eviction), and a cache hit takes it
// off the free list again. This is vLLM's design; it makes eviction O(1) and
// evicts the least recently used unreferenced block first.
//
// kvCache is owned by the engine goroutine and is not safe for concurrent use.
type kvCache struct {
	ref    []int32  // per block: sequences using it
	hash   []uint64 // per block: prefix hash, meaningful when cached
	cached []bool   // per block: registered in index
	prev   []int32  // free list links
	next   []int32
	head   int32 // least recently freed block, noBlock when empty
	tail   int32
	nfree  int

	caching bool
	index   map[uint64]int32 // prefix hash → block holding it
}

func newKVCache(blocks int, caching bool) *kvCache {
	c := &kvCache{
		ref:     make([]int32, blocks),
		hash:    make([]uint64, blocks),
		cached:  make([]bool, blocks),
		prev:    make([]int32, blocks),
		next:    make([]int32, blocks),
		head:    noBlock,
		tail:    noBlock,
		caching: caching,
	}
	if caching {
		c.index = make(map[uint64]int32)
	}
	for b := range blocks {
		c.pushTail(int32(b))
	}
	return c
}

// total is the number of blocks in the pool.
func (c *kvCache) total() int { return len(c.ref) }

// free is the number of blocks no sequence references, cached or not.
func (c *kvCache) free() int { return c.nfree }

// usage is the fraction of blocks in use, vLLM's kv_cache_usage_perc.
func (c *kvCache) usage() float64 {
	if len(c.ref) == 0 {
		return 0
	}
	return 1 - float64(c.nfree)/float64(len(c.ref))
}

func (c *kvCache) pushTail(b int32) {
	c.prev[b], c.next[b] = c.tail, noBlock
	if c.tail == noBlock {
		c.head = b
	} else {
		c.next[c.tail] = b
	}
	c.tail = b
	c.nfree++
}

func (c *kvCache) unlink(b int32) {
	p, n := c.prev[b], c.next[b]
	if p == noBlock {
		c.head = n
	} else {
		c.next[p] = n
	}
	if n == noBlock {
		c.tail = p
	} else {
		c.prev[n] = p
	}
	c.nfree--
}

// allocate appends n fresh blocks to dst, evicting cached prefixes from the
// blocks it reuses. It reports false, and changes nothing, when fewer than n
// blocks are free.
func (c *kvCache) allocate(dst []int32, n int) ([]int32, bool) {
	if n > c.nfree {
		return dst, false
	}
	for range n {
		b := c.head
		c.unlink(b)
		if c.cached[b] {
			if c.index[c.hash[b]] == b {
				delete(c.index, c.hash[b])
			}
			c.cached[b] = false
		}
		c.ref[b] = 1
		dst = append(dst, b)
	}
	return dst, true
}

// release drops one reference to each block, last block first, so that a
// sequence's tail blocks (the least shareable) are evicted before its head.
func (c *kvCache) release(blocks []int32) {
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		c.ref[b]--
		if c.ref[b] == 0 {
			c.pushTail(b)
		}
	}
}

// reset forgets every cached prefix, as vLLM's /reset_prefix_cache does.
// Blocks stay where they are, in use or free; only the index goes.
func (c *kvCache) reset() {
	if !c.caching {
		return
	}
	clear(c.index)
	clear(c.cached)
}

// lookup returns how many of the leading hashes are cached, stopping at the
// first miss (a prefix is only reusable up to its first difference).
func (c *kvCache) lookup(hashes []uint64) int {
	if !c.caching {
		return 0
	}
	for i, h := range hashes {
		if _, ok := c.index[h]; !ok {
			return i
		}
	}
	return len(hashes)
}

// acquire appends the blocks holding the first n hashes to dst, taking a
// reference on each. The caller must have checked them with lookup.
func (c *kvCache) acquire(dst []int32, hashes []uint64) []int32 {
	for _, h := range hashes {
		b := c.index[h]
		if c.ref[b] == 0 {
			c.unlink(b)
		}
		c.ref[b]++
		dst = append(dst, b)
	}
	return dst
}

// register records that block b holds the prefix with hash h. When another
// block already holds the same prefix the first one stays the cached copy.
func (c *kvCache) register(b int32, h uint64) {
	if !c.caching || c.cached[b] {
		return
	}
	if _, ok := c.index[h]; ok {
		return
	}
	c.index[h] = b
	c.hash[b] = h
	c.cached[b] = true
}

// blockHashes returns the chained hashes of the full blocks of prompt: block
// i's hash covers block i's tokens and, through the previous hash, every
// token before them, so equal hashes mean equal prefixes.
func blockHashes(prompt []int, blockSize int) []uint64 {
	n := len(prompt) / blockSize
	if n == 0 {
		return nil
	}
	out := make([]uint64, n)
	h := uint64(0xcbf29ce484222325) // FNV-1a offset basis
	for i := range n {
		for _, t := range prompt[i*blockSize : (i+1)*blockSize] {
			h ^= uint64(uint32(t))
			h *= 0x100000001b3 // FNV-1a prime
		}
		// Mix the block boundary in so that hashes of different block
		// positions cannot collide by construction.
		h ^= h >> 29
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 32
		out[i] = h
	}
	return out
}

// freeAmong counts the blocks holding the given cached hashes that no
// sequence references: acquiring them takes them off the free list.
func (c *kvCache) freeAmong(hashes []uint64) int {
	n := 0
	for _, h := range hashes {
		if c.ref[c.index[h]] == 0 {
			n++
		}
	}
	return n
}
