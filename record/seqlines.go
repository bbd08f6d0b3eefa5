package record

// seqLines remembers, for each sequence number a file's records hold, the
// line it was read on, so that a number seen twice is named with both
// lines. The numbers a schedule hands out are dense from 0, so they live
// in a slice indexed by number (4 bytes a request); one far beyond the
// records read so far (a hand-edited file, a sparse numbering) goes to a
// map instead, so that a single huge number cannot allocate a huge slice.
type seqLines struct {
	dense []uint32 // line of each number below len(dense); 0: not seen
	other map[int64]uint32
}

// maxDenseSeq bounds the slice (512 MiB of it, for a run of 2^27 requests).
const maxDenseSeq = 1 << 27

// add notes that seq was read on line and returns the line it was read on
// before, 0 when it is new.
func (s *seqLines) add(seq int64, line int, records int64) int {
	ln := uint32(min(line, 1<<32-1))
	if seq >= 0 && seq < int64(len(s.dense)) && s.dense[seq] != 0 {
		return int(s.dense[seq])
	}
	if first, ok := s.other[seq]; ok {
		return int(first)
	}
	// Grow the slice to seq when seq is within a few times the records read:
	// a dense numbering never leaves it.
	if seq >= 0 && seq < maxDenseSeq && seq < 16*(records+1)+1024 {
		if seq >= int64(len(s.dense)) {
			n := max(seq+1, int64(2*len(s.dense)))
			s.dense = append(s.dense, make([]uint32, min(n, maxDenseSeq)-int64(len(s.dense)))...)
		}
		s.dense[seq] = ln
		return 0
	}
	if s.other == nil {
		s.other = map[int64]uint32{}
	}
	s.other[seq] = ln
	return 0
}
