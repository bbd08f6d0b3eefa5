package merge

// seqSet is a set of sequence numbers: a bitmap for the dense, small
// numbers a schedule hands out, a map for anything else.
type seqSet struct {
	bits  []uint64
	other map[int64]struct{}
	n     int64
}

// maxBitmapSeq bounds the numbers kept in the bitmap (16 MiB of it).
const maxBitmapSeq = 1 << 27

// add inserts seq and reports whether it was new.
func (s *seqSet) add(seq int64) bool {
	if seq >= 0 && seq < maxBitmapSeq {
		w, b := seq/64, uint(seq%64)
		for int64(len(s.bits)) <= w {
			s.bits = append(s.bits, 0)
		}
		if s.bits[w]&(1<<b) != 0 {
			return false
		}
		s.bits[w] |= 1 << b
		s.n++
		return true
	}
	if s.other == nil {
		s.other = map[int64]struct{}{}
	}
	if _, ok := s.other[seq]; ok {
		return false
	}
	s.other[seq] = struct{}{}
	s.n++
	return true
}

func (s *seqSet) has(seq int64) bool {
	if seq >= 0 && seq < maxBitmapSeq {
		w := seq / 64
		return w < int64(len(s.bits)) && s.bits[w]&(1<<uint(seq%64)) != 0
	}
	_, ok := s.other[seq]
	return ok
}

// len returns how many numbers the set holds.
func (s *seqSet) len() int64 { return s.n }
