package workload

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/goodput-dev/goodput/tokenizer"
)

// MaxFitEach bounds how many items the random dataset fits one by one
// (Config.FitSeqs): about four Counter calls each, 20,000 items take tens
// of seconds of a fast /tokenize. Items past it are sized by the scale.
const MaxFitEach = 20000

// fitWorkers is how many items are fitted at once: enough to keep a
// server's /tokenize busy across the round trips, few enough not to
// crowd it.
const fitWorkers = 4

// fittedLen sizes one fitted item: gen built-in tokens of words are drawn
// after the prefix, of which the first keep make the prompt, then pad
// filler words. Words are drawn for a length (AppendWords ends its text on
// a word or a period), so the item draws gen of them again and keeps as
// many.
type fittedLen struct{ gen, keep, pad int32 }

// filler is the word that pads a prompt whose last word would overshoot
// the target by more than the words before it fall short: a common word
// that real tokenizers count as one token.
var filler = tokenizer.Encode(" the")

// maxPad is the most filler words a prompt is padded with.
const maxPad = 8

// appendFiller appends n filler words to ids.
func appendFiller(ids []int, n int) []int {
	for range n {
		ids = append(ids, filler...)
	}
	return ids
}

// fitEach fits the items seqs to count one by one (see Random).
func (r *Random) fitEach(count Counter, seqs []int64) error {
	n := len(seqs)
	fitted := make([]fittedLen, n)
	var (
		next   atomic.Int64
		failed atomic.Bool
		once   sync.Once
		first  error
		wg     sync.WaitGroup
	)
	for range min(fitWorkers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				f, err := r.fitItem(count, seqs[i])
				if err != nil {
					once.Do(func() { first = fmt.Errorf("prompt %d: %w", seqs[i], err) })
					failed.Store(true)
					return
				}
				fitted[i] = f
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	r.fitted = make(map[int64]fittedLen, n)
	for i, seq := range seqs {
		r.fitted[seq] = fitted[i]
	}
	return nil
}

// fitItem fits item seq: it draws the item's words, more than the scale
// says it needs, and finds how many of them make the prompt whose count is
// closest to the target. Text that counts short even whole is drawn again,
// twice as long, up to maxScale built-in tokens per target token.
func (r *Random) fitItem(count Counter, seq int64) (fittedLen, error) {
	_, in, _ := r.draw(seq)
	if in == 0 {
		return fittedLen{}, nil // the prompt is the prefix alone
	}
	target := r.cfg.PrefixLen + in
	guess := r.builtin(in)
	for gen := guess + guess/4 + 16; ; gen *= 2 {
		rng, _, _ := r.draw(seq)
		ids := r.body(gen, rng)
		keep, pad, err := fitNear(count, target, ids, len(r.prefix), guess)
		if err == nil {
			return fittedLen{gen: int32(gen), keep: int32(keep), pad: int32(pad)}, nil
		}
		if !errors.Is(err, errShort) {
			return fittedLen{}, err
		}
		if gen >= maxScale*in {
			return fittedLen{}, fmt.Errorf("%d built-in tokens count short of %d", gen, target)
		}
	}
}

// errShort says that the whole text counts short of the target.
var errShort = errors.New("text counts short")

// fitNear returns how many of the tokens of ids after its first base (the
// prefix, which stays) make the text whose count is closest to target, at
// least one, and how many filler words after them: where the word that
// reaches the target overshoots it, the words before it padded with
// filler may count it exactly. Ties go to the longer text. It starts from
// guess and assumes, as holds for real tokenizers, that a longer start
// never counts fewer tokens. It returns errShort when all of ids count
// short.
func fitNear(count Counter, target int, ids []int, base, guess int) (keep, pad int, err error) {
	body := len(ids) - base
	countPad := func(p, k int) (int, error) {
		if base+p+k == 0 {
			return 0, nil
		}
		return countIDs(count, appendFiller(slices.Clip(ids[:base+p]), k))
	}
	countAt := func(p int) (int, error) { return countPad(p, 0) }

	// Bracket from the guess: lo counts below target, hi at or above,
	// each step as far as the count's gap in proportion, and growing.
	p := min(max(guess, 1), body)
	c, err := countAt(p)
	if err != nil {
		return 0, 0, err
	}
	lo, cLo, hi, cHi := -1, 0, -1, 0
	if c >= target {
		hi, cHi = p, c
	} else {
		lo, cLo = p, c
	}
	for grow := 1; lo < 0 || hi < 0; grow *= 2 {
		if hi < 0 { // go up
			if lo == body {
				return 0, 0, errShort
			}
			p = min(body, lo+max(1, (target-cLo)*lo/max(cLo, 1))+grow)
		} else { // go down
			p = max(0, hi-max(1, (cHi-target)*hi/cHi)-grow)
		}
		if c, err = countAt(p); err != nil {
			return 0, 0, err
		}
		if c >= target {
			hi, cHi = p, c
		} else {
			lo, cLo = p, c
		}
		if hi == 0 { // the prefix alone reaches the target
			return 1, 0, nil
		}
	}
	if lo, cLo, hi, cHi, err = shrink(countAt, target, lo, cLo, hi, cHi); err != nil {
		return 0, 0, err
	}
	if cHi == target || lo == 0 {
		return hi, 0, nil
	}
	keep, gap := hi, cHi-target
	if target-cLo < gap {
		keep, gap = lo, target-cLo
	}
	// Pad the shorter text with a filler word per missing token, and once
	// more by what that count missed.
	for k, try := target-cLo, 0; try < 2 && gap > 0 && k > 0 && k <= maxPad; try++ {
		c, err := countPad(lo, k)
		if err != nil {
			return 0, 0, err
		}
		if d := abs(c - target); d < gap {
			keep, pad, gap = lo, k, d
		}
		k += target - c
	}
	return keep, pad, nil
}

// shrink narrows a bracket of lengths, lo counting cLo < target and hi
// counting cHi ≥ target, to adjacent lengths. Interpolation steps land
// close when the count grows evenly; bisection steps guarantee progress
// when it does not.
func shrink(countAt func(int) (int, error), target, lo, cLo, hi, cHi int) (int, int, int, int, error) {
	for step := 0; hi-lo > 1; step++ {
		p := (lo + hi) / 2
		if step%2 == 0 {
			p = lo + int(float64(hi-lo)*float64(target-cLo)/float64(cHi-cLo))
			p = min(max(p, lo+1), hi-1)
		}
		c, err := countAt(p)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		if c >= target {
			hi, cHi = p, c
		} else {
			lo, cLo = p, c
		}
	}
	return lo, cLo, hi, cHi, nil
}
