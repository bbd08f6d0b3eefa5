package workload

import (
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

// safeCounter counts text as count does and is safe to call from several
// goroutines, as fitting one by one calls it; calls counts its calls.
func safeCounter(calls *atomic.Int64, count func(string) int) Counter {
	return func(text string) (int, error) {
		calls.Add(1)
		return count(text), nil
	}
}

// splitting is a fake server tokenizer that, like a real one, splits
// long words: a word of more than seven bytes (punctuation included) is
// two tokens, any other one.
func splitting(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		n++
		if len(w) > 7 {
			n++
		}
	}
	return n
}

// thirds is a fake server tokenizer finer than the built-in one: a token
// per three bytes, rounded up.
func thirds(s string) int { return (len(s) + 2) / 3 }

func seqRange(lo, hi int64) []int64 {
	var seqs []int64
	for s := lo; s < hi; s++ {
		seqs = append(seqs, s)
	}
	return seqs
}

// Each planned prompt is fitted on its own: the server counts it, prefix
// included, as the length drawn for it (filler words make up for a last
// word worth two of its tokens), and never more than a token over;
// prompts left out are only as close as the scale gets them.
func TestFitEachMakesEveryPlannedPromptItsLength(t *testing.T) {
	var calls atomic.Int64
	c := randomConfig(func(c *Config) {
		c.Random = RandomConfig{InputLen: 300, OutputLen: 10, RangeRatio: 0.3, PrefixLen: 40}
		c.Counter = safeCounter(&calls, splitting)
		c.FitSeqs = seqRange(0, 100)
	})
	r := newRandom(t, c)
	fitting := calls.Load()
	calls.Store(0)
	unfitted := c
	unfitted.FitSeqs = nil
	newRandom(t, unfitted)
	if per := float64(fitting-calls.Load()) / 100; per > 6 {
		t.Errorf("%.1f counter calls per fitted prompt, want ≤ 6", per)
	}
	exact := 0
	for seq := int64(0); seq < 100; seq++ {
		it := r.Item(seq)
		got := splitting(it.Prompt)
		if d := got - it.InputTokens; d < 0 || d > 1 {
			t.Errorf("prompt %d counts %d server tokens, drawn %d", seq, got, it.InputTokens)
		} else if d == 0 {
			exact++
		}
		if !slices.Equal(it.PromptTokenIDs[:len(r.prefix)], r.prefix) {
			t.Fatalf("prompt %d does not start with the shared prefix", seq)
		}
		if again := r.Item(seq); again.Prompt != it.Prompt || again.InputTokens != it.InputTokens {
			t.Fatalf("prompt %d differs when generated again", seq)
		}
	}
	if exact < 98 {
		t.Errorf("%d of 100 fitted prompts count exactly their length, want ≥ 98", exact)
	}
	// The same check fails on the prompts that were not fitted.
	off := 0
	for seq := int64(100); seq < 200; seq++ {
		it := r.Item(seq)
		if d := splitting(it.Prompt) - it.InputTokens; d < -1 || d > 1 {
			off++
		}
	}
	if off < 50 {
		t.Errorf("only %d of 100 prompts sized by the scale miss by more than a token: the test does not tell fitting from scaling", off)
	}
	if s := r.String(); !strings.Contains(s, "100 prompts fitted one by one") {
		t.Errorf("String does not say how many prompts were fitted: %s", s)
	}
}

// Where one built-in token is worth several server tokens, a prompt can
// rarely count exactly its length: it counts the closest length its words
// reach, and the words one more or one fewer would be farther.
func TestFitEachTakesTheClosestLength(t *testing.T) {
	var calls atomic.Int64
	bytes := func(s string) int { return len(s) }
	r := newRandom(t, randomConfig(func(c *Config) {
		c.Random = RandomConfig{InputLen: 400, OutputLen: 10, RangeRatio: 0.5}
		c.Counter = safeCounter(&calls, bytes)
		c.FitSeqs = []int64{1, 3, 5, 7, 9, 11}
	}))
	for _, seq := range []int64{1, 3, 5, 7, 9, 11} {
		f, ok := r.fitted[seq]
		if !ok {
			t.Fatalf("prompt %d was not fitted", seq)
		}
		_, in, _ := r.draw(seq)
		rng, _, _ := r.draw(seq)
		ids := r.body(int(f.gen), rng)
		gap := func(keep int) int {
			return int(math.Abs(float64(bytes(tokenizer.Decode(ids[:keep])) - in)))
		}
		k := int(f.keep)
		it := r.Item(seq)
		if it.Prompt != tokenizer.Decode(appendFiller(ids[:k], int(f.pad))) || it.InputTokens != in {
			t.Fatalf("prompt %d is not the fitted start of its words and its filler", seq)
		}
		miss := int(math.Abs(float64(bytes(it.Prompt) - in)))
		if miss > gap(k-1) || miss > gap(k) || miss > gap(k+1) {
			t.Errorf("prompt %d misses by %d; %d words by %d, %d by %d, %d by %d", seq, miss, k-1, gap(k-1), k, gap(k), k+1, gap(k+1))
		}
		if miss > 8 {
			t.Errorf("prompt %d misses %d bytes by %d", seq, in, miss)
		}
	}
	// Only the planned prompts are fitted.
	if len(r.fitted) != 6 {
		t.Errorf("%d prompts fitted, want the 6 planned", len(r.fitted))
	}
}

// A server tokenizer that fails while prompts are fitted fails NewRandom,
// naming the prompt, so that the run can fall back to the built-in count.
func TestFitEachError(t *testing.T) {
	var calls atomic.Int64
	boom := errors.New("connection reset")
	_, err := NewRandom(randomConfig(func(c *Config) {
		c.Random = RandomConfig{InputLen: 100, OutputLen: 10}
		c.Counter = func(text string) (int, error) {
			if calls.Add(1) > 400 {
				return 0, boom
			}
			return thirds(text), nil
		}
		c.FitSeqs = seqRange(0, 1000)
	}))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "fitting random prompts to the server's tokenizer: prompt ") {
		t.Errorf("err = %v, want the counter's error with the prompt it failed on", err)
	}
	if n := calls.Load(); n > 400+fitWorkers {
		t.Errorf("%d counter calls: fitting went on after the counter failed", n)
	}
}

// A prompt of the prefix alone has nothing to fit, and a prompt that the
// counter counts short however long is refused rather than looped on.
func TestFitEachEdges(t *testing.T) {
	var calls atomic.Int64
	r := newRandom(t, randomConfig(func(c *Config) {
		c.Random = RandomConfig{OutputLen: 10, PrefixLen: 30}
		c.Counter = safeCounter(&calls, thirds)
		c.FitSeqs = seqRange(0, 5)
	}))
	if it := r.Item(2); !slices.Equal(it.PromptTokenIDs, r.prefix) {
		t.Errorf("prefix-only prompt is %d ids, the prefix %d", len(it.PromptTokenIDs), len(r.prefix))
	}
	// Counts that stop growing: the calibration's samples fit, the
	// longer drawn prompts never do.
	capped := func(s string) int { return min(tokenizer.Count(s), 120) }
	_, err := NewRandom(randomConfig(func(c *Config) {
		c.Random = RandomConfig{InputLen: 100, OutputLen: 10, RangeRatio: 0.5}
		c.Counter = safeCounter(&calls, capped)
		c.FitSeqs = seqRange(0, 20)
	}))
	if err == nil || !strings.Contains(err.Error(), "count short of") {
		t.Errorf("err = %v, want prompts that count short refused", err)
	}
}

// With a chat template, the shared prefix is its length of text alone
// (TextCounter), and each fitted prompt its length with the template.
func TestFitEachWithATemplate(t *testing.T) {
	var calls atomic.Int64
	const template = 11
	r := newRandom(t, randomConfig(func(c *Config) {
		c.Random = RandomConfig{InputLen: 100, OutputLen: 10, PrefixLen: 200}
		c.Counter = safeCounter(&calls, func(s string) int { return splitting(s) + template })
		c.TextCounter = safeCounter(&calls, splitting)
		c.FitSeqs = seqRange(0, 20)
	}))
	if n := splitting(tokenizer.Decode(r.prefix)); n != 200 && n != 201 {
		t.Errorf("the prefix is %d tokens of text, want 200 (or 201)", n)
	}
	for seq := int64(0); seq < 20; seq++ {
		it := r.Item(seq)
		if n := splitting(it.Prompt) + template; n != it.InputTokens && n != it.InputTokens+1 {
			t.Errorf("prompt %d counts %d with the template, want %d", seq, n, it.InputTokens)
		}
	}
}
