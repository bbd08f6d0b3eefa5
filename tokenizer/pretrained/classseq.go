package pretrained

import (
	"regexp/syntax"
	"sort"
	"unicode/utf8"
)

// classSeq is a split pattern that is a sequence of character classes,
// each repeated greedily (\s?[A-Za-z…]+, \p{N}{1,3}, [0-9][0-9][0-9]),
// optionally anchored at the end (\s+$). Most of the patterns llama.cpp
// lists have this shape; matching them directly is many times faster than
// Go's regexp automaton, with the same leftmost, greedy, backtracking
// result (the tests compare the two).
type classSeq struct {
	items []classItem
	atEnd bool // the match must end the text
}

type classItem struct {
	cls      *runeClass
	min, max int // max < 0: unbounded
}

// runeClass is a set of characters: sorted inclusive ranges, with a table
// for ASCII.
type runeClass struct {
	ascii  [utf8.RuneSelf]bool
	ranges []rune // lo0, hi0, lo1, hi1, …
}

func newRuneClass(ranges []rune) *runeClass {
	c := &runeClass{ranges: ranges}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < utf8.RuneSelf; r++ {
			c.ascii[r] = true
		}
	}
	return c
}

func (c *runeClass) has(r rune) bool {
	if r >= 0 && r < utf8.RuneSelf {
		return c.ascii[r]
	}
	n := len(c.ranges) / 2
	i := sort.Search(n, func(i int) bool { return c.ranges[2*i+1] >= r })
	return i < n && c.ranges[2*i] <= r
}

// compileClassSeq returns the classSeq of a pattern (already rewritten by
// unicodeClasses), or ok false when the pattern has another shape.
func compileClassSeq(uni string) (*classSeq, bool) {
	re, err := syntax.Parse(uni, syntax.Perl)
	if err != nil {
		return nil, false
	}
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	seq := &classSeq{}
	for i, s := range subs {
		if s.Op == syntax.OpEndText && i == len(subs)-1 && i > 0 {
			seq.atEnd = true
			continue
		}
		it, ok := classItemOf(s)
		if !ok {
			return nil, false
		}
		seq.items = append(seq.items, it)
	}
	if len(seq.items) == 0 || len(seq.items) > 4 {
		return nil, false
	}
	return seq, true
}

func classItemOf(re *syntax.Regexp) (classItem, bool) {
	it := classItem{min: 1, max: 1}
	if re.Flags&syntax.NonGreedy != 0 {
		return it, false
	}
	switch re.Op {
	case syntax.OpQuest:
		it.min, it.max = 0, 1
	case syntax.OpStar:
		it.min, it.max = 0, -1
	case syntax.OpPlus:
		it.min, it.max = 1, -1
	case syntax.OpRepeat:
		it.min, it.max = re.Min, re.Max
	}
	if it.min != 1 || it.max != 1 || re.Op == syntax.OpRepeat {
		re = re.Sub[0]
		if re.Flags&syntax.NonGreedy != 0 {
			return it, false
		}
	}
	switch re.Op {
	case syntax.OpCharClass:
		it.cls = newRuneClass(re.Rune)
	case syntax.OpLiteral:
		if len(re.Rune) != 1 || re.Flags&syntax.FoldCase != 0 {
			return it, false
		}
		it.cls = newRuneClass([]rune{re.Rune[0], re.Rune[0]})
	default:
		return it, false
	}
	return it, true
}

// find returns the leftmost match in s at or after pos. sure is false when
// it gave up: greedy runs of overlapping classes can make backtracking
// quadratic on long text (Go's regexp is linear), so the work per
// character passed is bounded, and past the bound the caller must ask the
// regexp instead.
func (c *classSeq) find(s string, pos int) (a, b int, ok, sure bool) {
	if c.atEnd && len(c.items) == 1 && c.items[0].max < 0 {
		// A run anchored at the end: the longest suffix of the class.
		it := c.items[0]
		j, n := len(s), 0
		for j > pos {
			r, w := utf8.DecodeLastRuneInString(s[:j])
			if !it.cls.has(r) {
				break
			}
			j -= w
			n++
		}
		if n >= it.min && n > 0 {
			return j, len(s), true, true
		}
		return 0, 0, false, true
	}
	steps := 0
	for i := pos; i < len(s); {
		if end, ok := c.matchAt(s, i, 0, &steps); ok && end > i {
			return i, end, true, true
		}
		if steps > 32*(i-pos+1)+64 {
			return 0, 0, false, false
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return 0, 0, false, true
}

// matchAt matches items[k:] at s[i:], greedily, backing off one character
// at a time as a backtracking engine does; steps counts the characters
// examined.
func (c *classSeq) matchAt(s string, i, k int, steps *int) (int, bool) {
	if k == len(c.items) {
		return i, !c.atEnd || i == len(s)
	}
	it := c.items[k]
	j, n := i, 0
	for j < len(s) && (it.max < 0 || n < it.max) {
		r, w := utf8.DecodeRuneInString(s[j:])
		*steps++
		if !it.cls.has(r) {
			break
		}
		j += w
		n++
	}
	for ; n >= it.min; n-- {
		if end, ok := c.matchAt(s, j, k+1, steps); ok {
			return end, true
		}
		if n == 0 {
			break
		}
		_, w := utf8.DecodeLastRuneInString(s[i:j])
		j -= w
		*steps++
	}
	return 0, false
}

// fastPattern is a pattern with a classSeq rendering: the direct matcher
// first, the regexp where it gives up.
type fastPattern struct {
	seq *classSeq
	re  *pattern
}

func (f fastPattern) find(s string, pos int) (int, int, bool) {
	if a, b, ok, sure := f.seq.find(s, pos); sure {
		return a, b, ok
	}
	return f.re.find(s, pos)
}
