package tokenizer

import (
	"math/bits"
	"sort"
)

// letterIndex maps an ASCII letter to its edge number in a trie (a–z are
// 0–25, A–Z are 26–51) and every other byte to -1. Only letters ever label
// trie edges, so a node's children fit in one 64-bit mask.
var letterIndex = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = int8(c - 'a')
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = int8(26 + c - 'A')
	}
	return t
}()

func isLetter(c byte) bool { return letterIndex[c] >= 0 }

// trie is a compact prefix tree over letter strings. A node's children are
// stored contiguously in edge order, so the child for edge e is at
// first + popcount(mask below e): one array read and one popcount per byte,
// with no maps, pointers or allocations on the lookup path.
type trie struct {
	nodes []trieNode // nodes[0] is the root
}

type trieNode struct {
	mask  uint64 // bit e set when the node has a child on edge e
	first int32  // index of the node's first child
	id    int32  // token id ending at this node, or -1
}

// trieKey is one string stored in a trie and the token id it maps to.
type trieKey struct {
	key string
	id  int32
}

// newTrie builds a trie from keys made only of ASCII letters. Keys must be
// unique and non-empty.
func newTrie(keys []trieKey) trie {
	sorted := append([]trieKey(nil), keys...)
	// Sorting by edge number (not by byte) puts each node's children in
	// edge order, which the popcount addressing requires.
	sort.Slice(sorted, func(i, j int) bool { return edgeLess(sorted[i].key, sorted[j].key) })
	t := trie{nodes: []trieNode{{id: -1}}}
	t.fill(0, sorted, 0)
	return t
}

// edgeLess orders letter strings by edge number, shorter prefixes first.
func edgeLess(a, b string) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return letterIndex[a[i]] < letterIndex[b[i]]
		}
	}
	return len(a) < len(b)
}

// fill lays out the children of node n, whose keys all share their first
// depth bytes and are sorted by edgeLess.
func (t *trie) fill(n int, keys []trieKey, depth int) {
	if len(keys) > 0 && len(keys[0].key) == depth {
		t.nodes[n].id = keys[0].id
		keys = keys[1:]
	}
	if len(keys) == 0 {
		return
	}
	// Group the remaining keys by their next byte; groups are contiguous
	// because keys are sorted.
	type group struct{ lo, hi int }
	var groups []group
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].key[depth] == keys[i].key[depth] {
			j++
		}
		groups = append(groups, group{i, j})
		i = j
	}
	first := len(t.nodes)
	t.nodes[n].first = int32(first)
	for _, g := range groups {
		t.nodes[n].mask |= 1 << uint(letterIndex[keys[g.lo].key[depth]])
		t.nodes = append(t.nodes, trieNode{id: -1})
	}
	for k, g := range groups {
		t.fill(first+k, keys[g.lo:g.hi], depth+1)
	}
}

// longest finds the longest key that is a prefix of s[i:]. It returns the
// key's id and the index just past it in s, or end 0 when no key matches.
func (t *trie) longest(s string, i int) (id int, end int) {
	n := 0
	for j := i; j < len(s); j++ {
		e := letterIndex[s[j]]
		if e < 0 {
			break
		}
		bit := uint64(1) << uint(e)
		node := &t.nodes[n]
		if node.mask&bit == 0 {
			break
		}
		n = int(node.first) + bits.OnesCount64(node.mask&(bit-1))
		if t.nodes[n].id >= 0 {
			id, end = int(t.nodes[n].id), j+1
		}
	}
	return id, end
}
