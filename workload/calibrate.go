package workload

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/goodput-dev/goodput/tokenizer"
)

// calibrationSamples is how many sample texts calibration measures. Each
// sample's ratio varies by a few percent with its words; averaging 16 of
// them, less the two highest and two lowest, keeps the bias of the scale
// well under 1% for prompts of a few hundred tokens while shrugging off odd
// samples.
const (
	calibrationSamples = 16
	calibrationTrim    = 2
)

// maxScale bounds how many built-in tokens one server token may need
// before calibration gives up: beyond it the Counter is not counting text.
const maxScale = 16

// calibrate fits the shared prefix to its length on text's count and sets
// r.scale for the rest of each prompt on count's (see Random).
func (r *Random) calibrate(count, text Counter) error {
	if r.cfg.PrefixLen > 0 {
		// The prefix is one text shared by every prompt, so any error in
		// its length would bias them all alike: fit it exactly.
		ids, err := fitLength(text, r.cfg.PrefixLen, rand.New(rand.NewPCG(r.seed, rngPrefix)))
		if err != nil {
			return fmt.Errorf("prefix: %w", err)
		}
		r.prefix = ids
	}
	target := r.cfg.InputLen
	if target == 0 {
		return nil // prompts are the prefix alone
	}
	ratios := make([]float64, 0, calibrationSamples)
	for s := 0; s < calibrationSamples; s++ {
		rng := rand.New(rand.NewPCG(r.seed^rngCalibrate, uint64(s)))
		ids, err := fitLength(count, target, rng)
		if err != nil {
			return fmt.Errorf("sample %d: %w", s, err)
		}
		ratios = append(ratios, float64(len(ids))/float64(target))
	}
	r.scale = trimmedMean(ratios)
	return nil
}

// trimmedMean is the mean of ratios less the calibrationTrim highest and
// the calibrationTrim lowest. It sorts ratios, which must number more
// than 2·calibrationTrim.
func trimmedMean(ratios []float64) float64 {
	slices.Sort(ratios)
	sum := 0.0
	kept := ratios[calibrationTrim : len(ratios)-calibrationTrim]
	for _, x := range kept {
		sum += x
	}
	return sum / float64(len(kept))
}

// fitLength generates text with rng and returns its shortest start, in
// built-in token ids, that count counts as ≥ target tokens.
func fitLength(count Counter, target int, rng *rand.Rand) ([]int, error) {
	// Generated words are composable, so extending the text leaves the
	// counted start unchanged.
	more := func(ids []int) []int { return tokenizer.AppendWords(ids, len(ids), rng) }
	return fitStart(count, target, tokenizer.Words(2*target+16, rng), more)
}

// countIDs counts the text of ids with count, which must count it as at
// least one token.
func countIDs(count Counter, ids []int) (int, error) {
	text := tokenizer.Decode(ids)
	n, err := count(text)
	if err != nil {
		return 0, err
	}
	if n <= 0 {
		return 0, fmt.Errorf("counter returned %d tokens for %d bytes of text", n, len(text))
	}
	return n, nil
}

// fitStart returns the shortest start of the text of ids, in built-in
// token ids, that count counts as ≥ target tokens; more extends ids, at
// least doubling them and keeping them as they were, when they count
// short. It assumes, as holds for real tokenizers, that a longer start of
// a text never counts fewer tokens.
func fitStart(count Counter, target int, ids []int, more func([]int) []int) ([]int, error) {
	countAt := func(p int) (int, error) { return countIDs(count, ids[:p]) }

	// Bracket: lo counts below target (0 tokens count 0), hi at or above.
	lo, cLo := 0, 0
	hi, cHi := 0, 0
	for p := min(target, len(ids)); ; {
		c, err := countAt(p)
		if err != nil {
			return nil, err
		}
		if c >= target {
			hi, cHi = p, c
			break
		}
		lo, cLo = p, c
		if p == len(ids) {
			if len(ids) >= maxScale*target {
				return nil, fmt.Errorf("%d built-in tokens count only %d, short of %d", len(ids), c, target)
			}
			ids = more(ids)
		}
		// Aim past the target in proportion, then a little more.
		p = min(len(ids), max(p+1, p*target/c+p/8+1))
	}

	// Shrink the bracket to adjacent lengths.
	_, _, hi, _, err := shrink(countAt, target, lo, cLo, hi, cHi)
	if err != nil {
		return nil, err
	}
	return ids[:hi:hi], nil
}
