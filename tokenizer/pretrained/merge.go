package pretrained

import "math"

// symbol is one piece of a word while merges run: the bytes
// word[start:end], its token id (-1 while it is no token), and its
// neighbours in the linked list of live symbols. A symbol merged into its
// left neighbour is dead (start < 0).
type symbol struct {
	start, end int32
	prev, next int32
	id         int32
}

// candidate is a possible merge of the live symbol at left with the one
// after it. mid and end are the two symbols' ends when it was found: both
// unchanged means the pair is still the same, since a symbol only ever
// grows by absorbing its right neighbour. key orders candidates, lowest
// first, with the left symbol's index in the low bits so that ties go to
// the leftmost pair, as in llama.cpp and Hugging Face's BPE.
type candidate struct {
	key      uint64
	left     int32
	mid, end int32
	id       int32
}

// pairer finds the candidate merging the adjacent live symbols a and b of
// m's word, if the vocabulary has one.
type pairer interface {
	pair(m *merger, a, b int32) (candidate, bool)
}

// merger holds the reusable state of one word's merges; it is not safe for
// concurrent use (each encode borrows its own from a pool).
type merger struct {
	word string
	syms []symbol
	heap []candidate
}

func (m *merger) reset(word string) {
	m.word = word
	m.syms = m.syms[:0]
	m.heap = m.heap[:0]
}

// add appends a symbol for word[start:end] with the given id.
func (m *merger) add(start, end, id int32) {
	n := int32(len(m.syms))
	m.syms = append(m.syms, symbol{start: start, end: end, prev: n - 1, next: n + 1, id: id})
}

// link closes the list after the last add.
func (m *merger) link() {
	if n := len(m.syms); n > 0 {
		m.syms[n-1].next = -1
	}
}

func (m *merger) push(c candidate) {
	h := append(m.heap, c)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p].key <= h[i].key {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	m.heap = h
}

func (m *merger) pop() candidate {
	h := m.heap
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		s := l
		if r := l + 1; r < n && h[r].key < h[l].key {
			s = r
		}
		if h[i].key <= h[s].key {
			break
		}
		h[i], h[s] = h[s], h[i]
		i = s
	}
	m.heap = h
	return top
}

// run seeds the candidates of every adjacent pair, then applies them best
// first until none is left, adding the candidates each merge creates.
func (m *merger) run(p pairer) {
	for i := 0; i+1 < len(m.syms); i++ {
		if c, ok := p.pair(m, int32(i), int32(i+1)); ok {
			m.push(c)
		}
	}
	for len(m.heap) > 0 {
		c := m.pop()
		l := &m.syms[c.left]
		if l.start < 0 || l.end != c.mid || l.next < 0 {
			continue
		}
		ri := l.next
		r := &m.syms[ri]
		if r.end != c.end {
			continue
		}
		l.end, l.id, l.next = r.end, c.id, r.next
		r.start = -1
		if l.next >= 0 {
			m.syms[l.next].prev = c.left
		}
		if l.prev >= 0 {
			if nc, ok := p.pair(m, l.prev, c.left); ok {
				m.push(nc)
			}
		}
		if l.next >= 0 {
			if nc, ok := p.pair(m, c.left, l.next); ok {
				m.push(nc)
			}
		}
	}
}

// rankKey orders BPE merges: lower rank first, then leftmost.
func rankKey(rank uint32, left int32) uint64 { return uint64(rank)<<32 | uint64(uint32(left)) }

// scoreKey orders SentencePiece merges: higher score first, then leftmost.
// The float's bits are mapped to an unsigned order and inverted.
func scoreKey(score float32, left int32) uint64 {
	b := math.Float32bits(score)
	if b&(1<<31) != 0 {
		b = ^b
	} else {
		b |= 1 << 31
	}
	return uint64(^b)<<32 | uint64(uint32(left))
}
