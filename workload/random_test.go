package workload

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

func randomConfig(change func(*Config)) Config {
	c := DefaultConfig()
	if change != nil {
		change(&c)
	}
	return c
}

func newRandom(t *testing.T, c Config) *Random {
	t.Helper()
	r, err := NewRandom(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestLengthBounds(t *testing.T) {
	tests := []struct {
		n      int
		r      float64
		lo, hi int
	}{
		{1024, 0, 1024, 1024}, // no range: exact
		{1024, 0.5, 512, 1536},
		{10, 0.1, 9, 11},  // 10·1.1 is 11.000000000000002 in floating point
		{3, 0.5, 1, 5},    // floor(1.5), ceil(4.5)
		{1, 0.99, 0, 2},   // the lower bound may reach 0; callers raise it
		{0, 0.5, 0, 0},    // zero stays zero
		{7, 0.999, 0, 14}, // just below the largest ratio
	}
	for _, tt := range tests {
		if lo, hi := lengthBounds(tt.n, tt.r); lo != tt.lo || hi != tt.hi {
			t.Errorf("lengthBounds(%d, %v) = [%d, %d], want [%d, %d]", tt.n, tt.r, lo, hi, tt.lo, tt.hi)
		}
	}
}

func TestRandomLengths(t *testing.T) {
	tests := []struct {
		name       string
		rc         RandomConfig
		maxTokens  int
		inLo, inHi int // bounds of InputTokens, prefix included
		outLo      int
		outHi      int
	}{
		{"exact", RandomConfig{InputLen: 100, OutputLen: 50}, 0, 100, 100, 50, 50},
		{"range", RandomConfig{InputLen: 100, OutputLen: 50, RangeRatio: 0.5}, 0, 50, 150, 25, 75},
		// vLLM's {"input": 0.3, "output": 0.5}: each its own range.
		{"ranges apart", RandomConfig{InputLen: 100, OutputLen: 50, RangeRatio: 0.3, OutputRangeRatio: ptr(0.5)}, 0, 70, 130, 25, 75},
		{"output exact", RandomConfig{InputLen: 100, OutputLen: 50, RangeRatio: 0.3, OutputRangeRatio: ptr(0.0)}, 0, 70, 130, 50, 50},
		{"prefix", RandomConfig{InputLen: 20, OutputLen: 8, PrefixLen: 64}, 0, 84, 84, 8, 8},
		// Without a prefix a prompt keeps at least one token; outputs too.
		{"tiny", RandomConfig{InputLen: 1, OutputLen: 1, RangeRatio: 0.9}, 0, 1, 2, 1, 2},
		// A prefix alone is a valid prompt.
		{"prefix only", RandomConfig{InputLen: 0, OutputLen: 4, PrefixLen: 10}, 0, 10, 10, 4, 4},
		// --max-tokens caps the drawn output length.
		{"capped", RandomConfig{InputLen: 10, OutputLen: 100, RangeRatio: 0.5}, 60, 5, 15, 50, 60},
	}
	for _, tt := range tests {
		c := randomConfig(func(c *Config) { c.Random, c.Request.MaxTokens = tt.rc, tt.maxTokens })
		r := newRandom(t, c)
		var inMin, inMax, outMin, outMax = math.MaxInt, 0, math.MaxInt, 0
		for seq := int64(0); seq < 400; seq++ {
			it := r.Item(seq)
			inMin, inMax = min(inMin, it.InputTokens), max(inMax, it.InputTokens)
			outMin, outMax = min(outMin, it.OutputTokens), max(outMax, it.OutputTokens)
			if got := tokenizer.Count(it.Prompt); got != it.InputTokens {
				t.Fatalf("%s: item %d counts %d tokens, InputTokens %d", tt.name, seq, got, it.InputTokens)
			}
			if len(it.PromptTokenIDs) != it.InputTokens || tokenizer.Decode(it.PromptTokenIDs) != it.Prompt {
				t.Fatalf("%s: item %d ids and text disagree", tt.name, seq)
			}
		}
		// 400 uniform draws over at most 101 values reach both ends.
		if inMin != tt.inLo || inMax != tt.inHi || outMin != tt.outLo || outMax != tt.outHi {
			t.Errorf("%s: input %d–%d output %d–%d, want %d–%d and %d–%d",
				tt.name, inMin, inMax, outMin, outMax, tt.inLo, tt.inHi, tt.outLo, tt.outHi)
		}
	}
}

func TestRandomSharedPrefix(t *testing.T) {
	r := newRandom(t, randomConfig(func(c *Config) { c.Random = RandomConfig{InputLen: 30, OutputLen: 5, PrefixLen: 40} }))
	a, b := r.Item(0), r.Item(1)
	if !slices.Equal(a.PromptTokenIDs[:40], b.PromptTokenIDs[:40]) {
		t.Fatal("items do not share their first 40 token ids")
	}
	if slices.Equal(a.PromptTokenIDs[40:], b.PromptTokenIDs[40:]) {
		t.Fatal("items share more than the prefix")
	}
	prefix := tokenizer.Decode(a.PromptTokenIDs[:40])
	if !strings.HasPrefix(b.Prompt, prefix) || tokenizer.Count(prefix) != 40 {
		t.Fatalf("prefix text %q is not a 40-token prefix of every prompt", prefix)
	}
	// Another seed, another prefix.
	other := newRandom(t, randomConfig(func(c *Config) {
		c.Random, c.Seed = RandomConfig{InputLen: 30, OutputLen: 5, PrefixLen: 40}, 1
	}))
	if slices.Equal(other.Item(0).PromptTokenIDs[:40], a.PromptTokenIDs[:40]) {
		t.Fatal("different seeds gave the same prefix")
	}
}

func TestRandomDeterministic(t *testing.T) {
	c := randomConfig(func(c *Config) { c.Random.RangeRatio, c.Seed = 0.3, 17 })
	r1, r2 := newRandom(t, c), newRandom(t, c)
	// The item of a sequence number does not depend on call order: shard
	// 1 of 2 asks only for odd numbers and must get the same prompts.
	odd := r2.Item(7)
	for seq := int64(0); seq < 10; seq++ {
		if a, b := r1.Item(seq), r2.Item(seq); a.Prompt != b.Prompt || a.OutputTokens != b.OutputTokens {
			t.Fatalf("item %d differs between two sources of the same config", seq)
		}
	}
	if r1.Item(7).Prompt != odd.Prompt {
		t.Fatal("item 7 depends on which items were asked for first")
	}
	if r1.Item(0).Prompt == r1.Item(1).Prompt {
		t.Fatal("items 0 and 1 are identical")
	}
	c.Seed = 18
	if newRandom(t, c).Item(0).Prompt == r1.Item(0).Prompt {
		t.Fatal("different seeds gave the same item")
	}
}

func TestRandomConcurrentUse(t *testing.T) {
	r := newRandom(t, randomConfig(func(c *Config) { c.Random = RandomConfig{InputLen: 50, OutputLen: 5, PrefixLen: 20} }))
	want := Items(r, 64)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for seq := int64(63); seq >= 0; seq-- {
				if got := r.Item(seq); got.Prompt != want[seq].Prompt {
					t.Errorf("item %d differs under concurrent use", seq)
					return
				}
			}
		})
	}
	wg.Wait()
}

// charCounter is a fake server tokenizer: one token per three bytes,
// rounded up, a finer vocabulary than the built-in one.
func charCounter(calls *int) Counter {
	return func(text string) (int, error) {
		*calls++
		return (len(text) + 2) / 3, nil
	}
}

func TestRandomCalibration(t *testing.T) {
	calls := 0
	c := randomConfig(func(c *Config) {
		c.Random = RandomConfig{InputLen: 400, OutputLen: 10, RangeRatio: 0.2, PrefixLen: 100}
		c.Counter = charCounter(&calls)
	})
	cal := newRandom(t, c)
	// One prefix fit and 16 samples, each a handful of calls.
	if calls < calibrationSamples+1 || calls > (calibrationSamples+1)*12 {
		t.Errorf("calibration made %d counter calls, want %d–%d", calls, calibrationSamples+1, (calibrationSamples+1)*12)
	}
	// The built-in tokenizer averages about 4.4 bytes per token of its
	// prose, the fake server 3, so each server token needs about 0.69
	// built-in tokens.
	if s := cal.Scale(); s < 0.6 || s > 0.75 {
		t.Errorf("scale %.3f, want 0.6–0.75", s)
	}
	count := charCounter(new(int))
	// The prefix is fitted exactly: the shortest text reaching 100 tokens,
	// so 100, or 101 where one built-in token spans a rounding step.
	if n, _ := count(tokenizer.Decode(cal.prefix)); n != 100 && n != 101 {
		t.Errorf("calibrated prefix counts %d server tokens, want 100 or 101", n)
	}
	errs := func(r *Random) (bias, mae, worst float64) {
		const n = 200
		for seq := int64(0); seq < n; seq++ {
			it := r.Item(seq)
			server, _ := count(it.Prompt)
			e := float64(server-it.InputTokens) / float64(it.InputTokens)
			bias += e / n
			mae += math.Abs(e) / n
			worst = max(worst, math.Abs(e))
		}
		return bias, mae, worst
	}
	// Each prompt's own words vary its length by about 2% (standard
	// deviation); calibration must leave no bias beyond that.
	if bias, mae, worst := errs(cal); math.Abs(bias) > 0.02 || mae > 0.03 || worst > 0.10 {
		t.Errorf("calibrated prompts vs the server count: bias %.1f%%, mean error %.1f%%, worst %.1f%%; want ≤ 2, 3, 10",
			100*bias, 100*mae, 100*worst)
	}
	// The check above can fail: without calibration the same config
	// misses by far more.
	c.Counter = nil
	if _, mae, _ := errs(newRandom(t, c)); mae < 0.25 {
		t.Errorf("uncalibrated prompts miss by only %.1f%%: the fake counter does not exercise calibration", 100*mae)
	}
	if !strings.Contains(cal.String(), "calibrated: 0.") {
		t.Errorf("String does not report calibration: %s", cal)
	}
}

func TestCalibrationPrefixOnly(t *testing.T) {
	calls := 0
	r := newRandom(t, randomConfig(func(c *Config) {
		c.Random = RandomConfig{OutputLen: 10, PrefixLen: 60}
		c.Counter = charCounter(&calls)
	}))
	if r.Scale() != 1 {
		t.Errorf("scale %v without an input part, want 1", r.Scale())
	}
	it := r.Item(3)
	if n, _ := charCounter(new(int))(it.Prompt); n != 60 && n != 61 || it.InputTokens != 60 {
		t.Errorf("prefix-only prompt counts %d server tokens with InputTokens %d, want 60 (or 61) and 60", n, it.InputTokens)
	}
}

func TestFitLength(t *testing.T) {
	tests := []struct {
		name   string
		count  func(string) int
		target int
		want   int
	}{
		// A server that counts like the built-in tokenizer needs the target.
		{"same tokenizer", tokenizer.Count, 100, 100},
		// Each built-in token is two server tokens: half as many.
		{"double", func(s string) int { return 2 * tokenizer.Count(s) }, 100, 50},
		// An odd target with double counting: 51 built-in tokens are the
		// fewest that reach 101.
		{"double, odd target", func(s string) int { return 2 * tokenizer.Count(s) }, 101, 51},
		// Three built-in tokens per server token, rounded up: ⌈p/3⌉ ≥ 100
		// first holds at p = 298.
		{"third", func(s string) int { return (tokenizer.Count(s) + 2) / 3 }, 100, 298},
		// One server token per byte: far more server tokens than built-in.
		{"bytes", func(s string) int { return len(s) }, 500, -1},
	}
	for _, tt := range tests {
		calls := 0
		count := func(s string) (int, error) { calls++; return tt.count(s), nil }
		fitted, err := fitLength(count, tt.target, newRng(1))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := len(fitted)
		if tt.want >= 0 && got != tt.want {
			t.Errorf("%s: fitLength = %d, want %d", tt.name, got, tt.want)
		}
		// Whatever the answer, it is the smallest length that reaches the
		// target on the same text.
		rng := newRng(1)
		ids := tokenizer.Words(2*tt.target+16, rng)
		for len(ids) < got { // fitLength extends its text the same way
			ids = tokenizer.AppendWords(ids, len(ids), rng)
		}
		if !slices.Equal(fitted, ids[:got]) {
			t.Errorf("%s: the fitted ids are not the start of the generated text", tt.name)
		}
		if c := tt.count(tokenizer.Decode(ids[:got])); c < tt.target {
			t.Errorf("%s: %d tokens count %d, short of %d", tt.name, got, c, tt.target)
		}
		if c := tt.count(tokenizer.Decode(ids[:got-1])); c >= tt.target {
			t.Errorf("%s: %d tokens already count %d ≥ %d", tt.name, got-1, c, tt.target)
		}
		if calls > 30 {
			t.Errorf("%s: %d counter calls, want ≤ 30", tt.name, calls)
		}
	}
}

func TestCalibrationErrors(t *testing.T) {
	boom := errors.New("connection refused")
	tests := []struct {
		name  string
		count Counter
		want  string
	}{
		{"counter fails", func(string) (int, error) { return 0, boom },
			"calibrating --random-input-len against the server's tokenizer: sample 0: connection refused"},
		{"counter says zero", func(string) (int, error) { return 0, nil },
			"counter returned 0 tokens for"},
		{"counter negative", func(string) (int, error) { return -3, nil },
			"counter returned -3 tokens"},
		{"counter never reaches the target", func(string) (int, error) { return 1, nil },
			"count only 1, short of 1024"},
	}
	for _, tt := range tests {
		_, err := NewRandom(randomConfig(func(c *Config) { c.Counter = tt.count }))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if tt.name == "counter fails" && !errors.Is(err, boom) {
			t.Errorf("%s: the counter's error is not wrapped", tt.name)
		}
	}
}

func TestRandomString(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"defaults", nil, "random: input 1024 tokens, output 128 tokens, seed 0"},
		{"range and prefix", func(c *Config) {
			c.Random, c.Seed = RandomConfig{InputLen: 100, OutputLen: 20, RangeRatio: 0.5, PrefixLen: 32}, 4
		}, "random: input 50–150 tokens after a shared prefix of 32, output 10–30 tokens, seed 4"},
		{"capped", func(c *Config) { c.Request.MaxTokens = 64 },
			"random: input 1024 tokens, output 64 tokens (capped by --max-tokens 64), seed 0"},
	}
	for _, tt := range tests {
		if got := newRandom(t, randomConfig(tt.change)).String(); got != tt.want {
			t.Errorf("%s: String = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func newRng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }

func ptr[T any](v T) *T { return &v }
