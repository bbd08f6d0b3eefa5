package pretrained

// The split patterns of the common byte-level vocabularies, written out by
// hand: they end in \s+(?!\S), a look-ahead that Go's regexp lacks, and a
// hand-written scanner is several times faster than a regexp anyway. Each
// function returns the end of the piece that starts at s[i], choosing among
// the pattern's alternatives in order, as a backtracking engine does. The
// tests hold each one to a regexp rendering of its pattern.

// Pattern texts, exactly as tokenizer.json files spell them.
const (
	gpt2Pattern   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	qwen2Pattern  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// handSplitters maps a pattern to its scanner.
var handSplitters = map[string]func(s string, i int) int{
	gpt2Pattern:   gpt2Next,
	llama3Pattern: llama3Next,
	qwen2Pattern:  qwen2Next,
}

// gpt2Next is GPT-2's pattern:
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
func gpt2Next(s string, i int) int {
	r, n := runeAt(s, i)
	if r == '\'' {
		if k := contraction(s, i+1, false); k > 0 {
			return i + 1 + k
		}
	}
	c, j := classOf(r), i
	if r == ' ' && i+n < len(s) {
		if r2, _ := runeAt(s, i+n); classOf(r2) != space {
			c, j = classOf(r2), i+n // " ?" took the space
		}
	}
	if c != space {
		return runOf(s, j, c)
	}
	return spaceRunEnd(s, i)
}

// llama3Next is Llama 3's pattern:
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func llama3Next(s string, i int) int { return llamaNext(s, i, 3) }

// qwen2Next is Qwen 2's pattern: Llama 3's with \p{N} for \p{N}{1,3}.
func qwen2Next(s string, i int) int { return llamaNext(s, i, 1) }

func llamaNext(s string, i, digits int) int {
	r, n := runeAt(s, i)
	if r == '\'' {
		if k := contraction(s, i+1, true); k > 0 {
			return i + 1 + k
		}
	}
	c := classOf(r)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c == letter {
		return runOf(s, i, letter)
	}
	if c != number && r != '\r' && r != '\n' && i+n < len(s) {
		if r2, _ := runeAt(s, i+n); classOf(r2) == letter {
			return runOf(s, i+n, letter)
		}
	}
	// \p{N}{1,digits}
	if c == number {
		j := i
		for k := 0; k < digits && j < len(s); k++ {
			r2, n2 := runeAt(s, j)
			if classOf(r2) != number {
				break
			}
			j += n2
		}
		return j
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*'
	j := i
	if r == ' ' && i+n < len(s) {
		if r2, _ := runeAt(s, i+n); classOf(r2) == other {
			j, c = i+n, other
		}
	}
	if c == other {
		k := runOf(s, j, other)
		for k < len(s) && (s[k] == '\r' || s[k] == '\n') {
			k++
		}
		return k
	}
	// \s*[\r\n]+ takes the run up to its last line break.
	end, last, lastBreak := i, i, -1
	for end < len(s) {
		r, n := runeAt(s, end)
		if classOf(r) != space {
			break
		}
		if r == '\r' || r == '\n' {
			lastBreak = end
		}
		last = end
		end += n
	}
	if lastBreak >= 0 {
		return lastBreak + 1
	}
	if end == len(s) || last == i {
		return end
	}
	return last
}

// spaceRunEnd is \s+(?!\S)|\s+ at a whitespace character: the whole run
// when it ends the text or is one character, else the run less its last
// character, which is left to lead the next piece.
func spaceRunEnd(s string, i int) int {
	end, last := i, i
	for end < len(s) {
		r, n := runeAt(s, end)
		if classOf(r) != space {
			break
		}
		last = end
		end += n
	}
	if end == len(s) || last == i {
		return end
	}
	return last
}

// contraction returns the length of 's 't 're 've 'm 'll 'd after an
// apostrophe at s[i-1], or 0; fold makes it case-insensitive (ASCII).
func contraction(s string, i int, fold bool) int {
	lower := func(k int) byte {
		if k >= len(s) {
			return 0
		}
		c := s[k]
		if fold && c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		return c
	}
	switch lower(i) {
	case 's', 't', 'm', 'd':
		return 1
	case 'r', 'v':
		if lower(i+1) == 'e' {
			return 2
		}
	case 'l':
		if lower(i+1) == 'l' {
			return 2
		}
	}
	return 0
}
