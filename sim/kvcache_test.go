package sim

import (
	"slices"
	"testing"
)

func TestAllocateAndRelease(t *testing.T) {
	c := newKVCache(4, true)
	a, ok := c.allocate(nil, 3)
	if !ok || !slices.Equal(a, []int32{0, 1, 2}) || c.free() != 1 {
		t.Fatalf("allocate 3 of 4 = %v, %v, free %d; want [0 1 2], true, 1", a, ok, c.free())
	}
	// Asking for more than is free fails and changes nothing.
	if b, ok := c.allocate(nil, 2); ok || len(b) != 0 || c.free() != 1 {
		t.Fatalf("allocate 2 with 1 free = %v, %v, free %d; want nothing, false, 1", b, ok, c.free())
	}
	if u := c.usage(); u != 0.75 {
		t.Errorf("usage = %v, want 0.75", u)
	}
	c.release(a)
	if c.free() != 4 || c.usage() != 0 {
		t.Errorf("after release: free %d, usage %v; want 4, 0", c.free(), c.usage())
	}
	// Freed blocks queue behind the never-used one, last block first:
	// allocation takes the least recently freed.
	b, _ := c.allocate(nil, 4)
	if want := []int32{3, 2, 1, 0}; !slices.Equal(b, want) {
		t.Errorf("allocation order after release = %v, want %v", b, want)
	}
}

func TestAllocateZeroAndEmptyPool(t *testing.T) {
	c := newKVCache(0, false)
	if b, ok := c.allocate(nil, 0); !ok || len(b) != 0 {
		t.Errorf("allocate 0 = %v, %v; want nothing, true", b, ok)
	}
	if _, ok := c.allocate(nil, 1); ok {
		t.Error("allocate from an empty pool succeeded")
	}
	if c.usage() != 0 {
		t.Errorf("usage of an empty pool = %v, want 0", c.usage())
	}
}

func TestPrefixCacheHitMissAndEviction(t *testing.T) {
	c := newKVCache(3, true)
	blocks, _ := c.allocate(nil, 2)
	c.register(blocks[0], 100)
	c.register(blocks[1], 200)
	tests := []struct {
		name   string
		hashes []uint64
		want   int
	}{
		{"full hit", []uint64{100, 200}, 2},
		{"stops at the first miss", []uint64{100, 999, 200}, 1},
		{"first block differs", []uint64{999, 200}, 0},
		{"no blocks", nil, 0},
	}
	for _, tt := range tests {
		if got := c.lookup(tt.hashes); got != tt.want {
			t.Errorf("%s: lookup = %d, want %d", tt.name, got, tt.want)
		}
	}

	// Released cached blocks stay findable while they sit on the free list.
	c.release(blocks)
	if got := c.lookup([]uint64{100, 200}); got != 2 {
		t.Fatalf("after release: lookup = %d, want 2 (cached blocks outlive their sequence)", got)
	}
	if n := c.freeAmong([]uint64{100, 200}); n != 2 {
		t.Errorf("freeAmong = %d, want 2 unreferenced cached blocks", n)
	}
	// A hit takes the block off the free list.
	got := c.acquire(nil, []uint64{100})
	if !slices.Equal(got, []int32{blocks[0]}) || c.free() != 2 {
		t.Fatalf("acquire = %v, free %d; want [%d], 2", got, c.free(), blocks[0])
	}
	// Allocating the two free blocks evicts the unreferenced cached one
	// (hash 200) but not the referenced one (hash 100).
	if _, ok := c.allocate(nil, 2); !ok {
		t.Fatal("allocate 2 failed with 2 free")
	}
	if c.lookup([]uint64{200}) != 0 {
		t.Error("hash 200 still cached after its block was reused")
	}
	if c.lookup([]uint64{100}) != 1 {
		t.Error("hash 100 evicted although a sequence holds it")
	}
}

func TestLeastRecentlyUsedIsEvictedFirst(t *testing.T) {
	c := newKVCache(2, true)
	a, _ := c.allocate(nil, 1)
	b, _ := c.allocate(nil, 1)
	c.register(a[0], 1)
	c.register(b[0], 2)
	c.release(a) // freed first: least recently used
	c.release(b)
	if _, ok := c.allocate(nil, 1); !ok {
		t.Fatal("allocate failed")
	}
	if c.lookup([]uint64{1}) != 0 || c.lookup([]uint64{2}) != 1 {
		t.Errorf("eviction took the wrong block: hash 1 cached %v, hash 2 cached %v; want false, true",
			c.lookup([]uint64{1}) == 1, c.lookup([]uint64{2}) == 1)
	}
}

func TestRegisterKeepsTheFirstCopy(t *testing.T) {
	c := newKVCache(2, true)
	blocks, _ := c.allocate(nil, 2)
	c.register(blocks[0], 7)
	c.register(blocks[1], 7) // the same prefix computed twice
	if got := c.index[7]; got != blocks[0] {
		t.Errorf("hash 7 maps to block %d, want the first copy %d", got, blocks[0])
	}
	// Evicting the duplicate must not drop the cached copy.
	c.release(blocks[1:])
	c.allocate(nil, 1)
	if c.lookup([]uint64{7}) != 1 {
		t.Error("evicting a duplicate removed the cached copy")
	}
}

func TestCachingDisabled(t *testing.T) {
	c := newKVCache(2, false)
	blocks, _ := c.allocate(nil, 1)
	c.register(blocks[0], 5)
	if c.lookup([]uint64{5}) != 0 {
		t.Error("lookup hit with prefix caching off")
	}
}

func TestBlockHashesAreChained(t *testing.T) {
	base := make([]int, 48)
	for i := range base {
		base[i] = i
	}
	same := slices.Clone(base)
	diverge := slices.Clone(base)
	diverge[20] = 9999 // inside the second block
	shifted := append([]int{7}, base[:47]...)

	h := blockHashes(base, BlockSize)
	if len(h) != 3 {
		t.Fatalf("48 tokens give %d block hashes, want 3", len(h))
	}
	if !slices.Equal(blockHashes(same, BlockSize), h) {
		t.Error("equal prompts hash differently")
	}
	d := blockHashes(diverge, BlockSize)
	if d[0] != h[0] || d[1] == h[1] || d[2] == h[2] {
		t.Errorf("a change in block 1 must change blocks 1 and 2 only: same %v, %v, %v",
			d[0] == h[0], d[1] == h[1], d[2] == h[2])
	}
	if s := blockHashes(shifted, BlockSize); s[1] == h[1] {
		t.Error("shifted prompt shares a block hash: hashes must cover the whole prefix")
	}
	for _, n := range []int{0, 1, 15} {
		if got := blockHashes(base[:n], BlockSize); got != nil {
			t.Errorf("%d tokens (no full block) give %v, want nil", n, got)
		}
	}
	if got := len(blockHashes(base[:31], BlockSize)); got != 1 {
		t.Errorf("31 tokens give %d hashes, want 1 (only full blocks)", got)
	}
}
