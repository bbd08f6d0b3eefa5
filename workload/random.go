package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/goodput-dev/goodput/tokenizer"
)

// Random-number streams of the random dataset, one per use of --seed, so
// that changing one use does not shift the others.
const (
	rngRandom    = 0x72616e646f6d     // "random": per-item lengths and words
	rngPrefix    = 0x707265666978     // "prefix": the shared prefix
	rngCalibrate = 0x63616c6962726174 // "calibrat": calibration samples
)

// Random generates prompts of prose-like text whose lengths are drawn
// uniformly in [len·(1−r), len·(1+r)] (r = --random-range-ratio), as
// `vllm bench serve --dataset-name random` does, or from a traffic
// scenario's distribution (RandomConfig.InputDist), after an optional prefix
// shared by every prompt (--random-prefix-len), which exercises a server's
// prefix cache. Each item carries both the token ids and their text; unless
// the source is calibrated, the text counts exactly InputTokens tokens on
// the built-in tokenizer.
//
// # Calibration
//
// A real server's tokenizer counts the same text differently. With a
// Counter, NewRandom calibrates before the run, in two steps:
//
//  1. The shared prefix, one text that every prompt repeats, is cut to the
//     shortest start of its generated text that the Counter counts as at
//     least --random-prefix-len tokens (the TextCounter, which leaves a
//     chat template out, where there is one); an error in it would bias
//     every prompt alike.
//  2. For each of 16 sample texts, the same search finds how many built-in
//     tokens the Counter counts as --random-input-len tokens. The ratios,
//     less the two highest and two lowest, are averaged into a scale, and
//     each item generates round(drawn length × scale) built-in tokens.
//
// The searches alternate interpolation with bisection and cost about five
// Counter calls each, about 90 in all. InputTokens reports the target, the
// drawn length plus the prefix length. The server's count of a prompt then
// matches it on average, and each prompt within a few percent (the words
// of one prompt differ from another's) for prompts of a few hundred tokens.
//
//  3. With Config.FitSeqs, each of those items (at most MaxFitEach) is
//     fitted on its own: from the scale's guess, a search
//     finds the start of its words whose whole prompt, prefix included,
//     the Counter counts closest to the target, padded with one-token
//     filler words where the word that reaches the target overshoots it.
//     The server then counts nearly every one as the target, the rest a
//     token off. That costs about four Counter calls per item, made
//     fitWorkers at a time.
//
// All of it happens inside NewRandom: a run never waits on the server's
// tokenizer.
type Random struct {
	cfg  RandomConfig
	req  Request
	seed uint64

	inLo, inHi   int // drawn input length bounds, inclusive
	outLo, outHi int // drawn output length bounds, inclusive

	prefix []int   // the shared prefix's ids; read-only after NewRandom
	scale  float64 // built-in tokens per target token: 1, or the calibrated ratio
	// fitted sizes the items fitted one by one to the Counter, by
	// sequence number (Config.FitSeqs); read-only after NewRandom.
	fitted map[int64]fittedLen

	scenario string // the traffic scenario that set cfg, "" when none
}

var _ Source = (*Random)(nil)

// NewRandom builds the random source of c, calibrating it when c.Counter is
// set. c must have Dataset "random".
func NewRandom(c Config) (*Random, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Dataset != DatasetRandom {
		return nil, fmt.Errorf("--dataset-name %s is not random", c.Dataset)
	}
	rc := c.Random
	r := &Random{cfg: rc, req: c.Request, seed: c.Seed, scale: 1, scenario: c.Scenario}
	r.inLo, r.inHi = lengthBounds(rc.InputLen, rc.RangeRatio)
	if rc.PrefixLen == 0 {
		r.inLo = max(r.inLo, 1) // never an empty prompt
	}
	r.outLo, r.outHi = lengthBounds(rc.OutputLen, rc.OutputRatio())
	r.outLo = max(r.outLo, 1) // never ask for nothing
	if d := rc.InputDist; d != nil {
		r.inLo, r.inHi = d.Lo, d.Hi
	}
	if d := rc.OutputDist; d != nil {
		r.outLo, r.outHi = d.Lo, d.Hi
	}
	if c.Counter != nil {
		text := c.TextCounter
		if text == nil {
			text = c.Counter
		}
		if err := r.calibrate(c.Counter, text); err != nil {
			return nil, fmt.Errorf("calibrating --random-input-len against the server's tokenizer: %w", err)
		}
	}
	if r.prefix == nil {
		r.prefix = tokenizer.Words(rc.PrefixLen, rand.New(rand.NewPCG(c.Seed, rngPrefix)))
	}
	if c.Counter != nil && len(c.FitSeqs) > 0 {
		if err := r.fitEach(c.Counter, c.FitSeqs[:min(len(c.FitSeqs), MaxFitEach)]); err != nil {
			return nil, fmt.Errorf("fitting random prompts to the server's tokenizer: %w", err)
		}
	}
	return r, nil
}

// lengthBounds returns floor(n·(1−r)) and ceil(n·(1+r)). The small slack
// keeps float error from widening exact bounds (10·1.1 is 11.000000000000002).
func lengthBounds(n int, r float64) (lo, hi int) {
	const slack = 1e-9
	return int(math.Floor(float64(n)*(1-r) + slack)), int(math.Ceil(float64(n)*(1+r) - slack))
}

// builtin converts a target length to built-in tokens.
func (r *Random) builtin(n int) int {
	if r.scale == 1 || n == 0 {
		return n
	}
	return max(1, int(math.Round(float64(n)*r.scale)))
}

// Item generates item seq.
func (r *Random) Item(seq int64) Item {
	rng, in, out := r.draw(seq)
	var ids []int
	if f, ok := r.fitted[seq]; ok {
		ids = appendFiller(r.body(int(f.gen), rng)[:len(r.prefix)+int(f.keep)], int(f.pad))
	} else {
		ids = r.body(r.builtin(in), rng)
	}
	return Item{
		Prompt:         tokenizer.Decode(ids),
		PromptTokenIDs: ids,
		InputTokens:    r.cfg.PrefixLen + in,
		OutputTokens:   r.req.capOutput(out),
	}
}

// draw returns item seq's random stream and its drawn input and output
// lengths; the stream goes on to draw the item's words.
func (r *Random) draw(seq int64) (rng *rand.Rand, in, out int) {
	rng = rand.New(rand.NewPCG(r.seed^rngRandom, uint64(seq)))
	// A uniform scenario's bounds are inLo..inHi (see NewRandom); a
	// normal one draws its own.
	if d := r.cfg.InputDist; d != nil && d.Normal {
		in = d.draw(rng, MaxPromptTokens-r.cfg.PrefixLen)
	} else {
		in = r.inLo + rng.IntN(r.inHi-r.inLo+1)
	}
	if d := r.cfg.OutputDist; d != nil && d.Normal {
		out = d.draw(rng, MaxOutputTokens)
	} else {
		out = r.outLo + rng.IntN(r.outHi-r.outLo+1)
	}
	return rng, in, out
}

// body returns the shared prefix's ids followed by n built-in tokens of
// words drawn from rng.
func (r *Random) body(n int, rng *rand.Rand) []int {
	ids := make([]int, len(r.prefix), len(r.prefix)+n)
	copy(ids, r.prefix)
	return tokenizer.AppendWords(ids, n, rng)
}

// Len returns 0: the source generates items without end.
func (r *Random) Len() int { return 0 }

// Scale returns the calibrated ratio of built-in tokens to server tokens, or
// 1 when the source was not calibrated.
func (r *Random) Scale() float64 { return r.scale }

// String describes the generator.
func (r *Random) String() string {
	var b strings.Builder
	b.WriteString("random")
	if s := r.scenario; s != "" {
		fmt.Fprintf(&b, " (traffic scenario %s)", s)
	}
	if d := r.cfg.InputDist; d != nil && d.Normal {
		fmt.Fprintf(&b, ": input %s tokens", d)
	} else {
		fmt.Fprintf(&b, ": input %s tokens", span(r.inLo, r.inHi))
	}
	if r.cfg.PrefixLen > 0 {
		fmt.Fprintf(&b, " after a shared prefix of %d", r.cfg.PrefixLen)
	}
	if d := r.cfg.OutputDist; d != nil && d.Normal {
		fmt.Fprintf(&b, ", output %s tokens", d)
	} else {
		fmt.Fprintf(&b, ", output %s tokens", span(r.req.capOutput(r.outLo), r.req.capOutput(r.outHi)))
	}
	if r.req.MaxTokens > 0 && r.outHi > r.req.MaxTokens {
		fmt.Fprintf(&b, " (capped by --max-tokens %d)", r.req.MaxTokens)
	}
	fmt.Fprintf(&b, ", seed %d", r.seed)
	if r.scale != 1 {
		fmt.Fprintf(&b, "; calibrated: %.3f built-in tokens per server token", r.scale)
	}
	if n := len(r.fitted); n > 0 {
		fmt.Fprintf(&b, "; %d prompts fitted one by one", n)
	}
	return b.String()
}

// span renders an inclusive range, or its single value.
func span(lo, hi int) string {
	if lo >= hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}
