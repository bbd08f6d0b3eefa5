package pretrained

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func split(step preStep, s string) []string { return step.apply(nil, s, true) }

func TestHandSplitters(t *testing.T) {
	tests := []struct {
		pattern string
		text    string
		want    []string
	}{
		// GPT-2: a space leads the word after it.
		{gpt2Pattern, "Hello world", []string{"Hello", " world"}},
		// Contractions are pieces of their own, case-sensitively; another
		// apostrophe is punctuation.
		{gpt2Pattern, "I'm here, y'all", []string{"I", "'m", " here", ",", " y", "'", "all"}},
		{gpt2Pattern, "I'M", []string{"I", "'", "M"}},
		// Of a run of spaces before a word, the last one leads the word.
		{gpt2Pattern, "a   b", []string{"a", "  ", " b"}},
		// A run of spaces that ends the text stays whole.
		{gpt2Pattern, "a  ", []string{"a", "  "}},
		// A lone newline before a word is its own piece.
		{gpt2Pattern, "\nHello", []string{"\n", "Hello"}},
		// Digits run together; punctuation runs together with one space.
		{gpt2Pattern, "12345 !!! ?", []string{"12345", " !!!", " ?"}},
		// Non-Latin letters are letters.
		{gpt2Pattern, " Привет мир", []string{" Привет", " мир"}},

		// Llama 3: contractions ignore case.
		{llama3Pattern, "I'M OK", []string{"I", "'M", " OK"}},
		// Digits go in threes.
		{llama3Pattern, "1234567", []string{"123", "456", "7"}},
		// Any one non-letter (not a line break) may lead a word.
		{llama3Pattern, "(hello)\tworld", []string{"(hello", ")", "\tworld"}},
		// Punctuation takes the line breaks after it.
		{llama3Pattern, "end.\n\nNext", []string{"end", ".\n\n", "Next"}},
		// A whitespace run takes up to its last line break.
		{llama3Pattern, "a \n \n b", []string{"a", " \n \n", " b"}},
		// Spaces before a word: the last one leads it.
		{llama3Pattern, "a   b", []string{"a", "  ", " b"}},
		// Qwen 2: digits one by one.
		{qwen2Pattern, "x 2024", []string{"x", " ", "2", "0", "2", "4"}},
	}
	for _, tt := range tests {
		step := scanSplit{handSplitters[tt.pattern]}
		if got := split(step, tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%.20s… on %q = %q, want %q", tt.pattern, tt.text, got, tt.want)
		}
	}
}

// TestHandSplittersMatchRegexp holds each hand-written scanner to the
// compiled rendering of its pattern (look-ahead emulated), on generated
// text rich in the cases the patterns distinguish.
func TestHandSplittersMatchRegexp(t *testing.T) {
	alphabet := []string{"a", "Z", "é", "日", "1", "٣", "²", " ", "  ", "\t", "\n", "\r", "\u00a0", "\u2028", "'", "'s", "'S", "'ll", "'LL", "'re", ".", "!", "😀", "\u0301", "\xff", "_"}
	r := rand.New(rand.NewPCG(3, 5))
	for pattern, next := range handSplitters {
		re, err := compilePattern(pattern)
		if err != nil {
			t.Fatal(err)
		}
		hand, generic := scanSplit{next}, regexSplitter(re, isolated, false)
		for i := range 20000 {
			var b strings.Builder
			for range 1 + r.IntN(12) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			s := b.String()
			if a, g := split(hand, s), split(generic, s); !slices.Equal(a, g) {
				t.Fatalf("%.24s… text %d %q:\n hand   %q\n regexp %q", pattern, i, s, a, g)
			}
		}
	}
}

func TestCompilePattern(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          []string
		err           string
	}{
		// \s is Unicode whitespace (NBSP, ideographic space), as in Oniguruma.
		{`\s+`, "a\u00a0\u3000b", []string{"a", "\u00a0\u3000", "b"}, ""},
		// \S inside a bracket expression has no Unicode rendering here.
		{`[\S]+`, "", nil, "not supported"},
		// \d is every decimal digit.
		{`\d+`, "x٣٤y", []string{"x", "٣٤", "y"}, ""},
		// A final \s+(?!\S) leaves a lone space before text to the gaps.
		{`\p{L}+|\s+(?!\S)`, "a  b", []string{"a", " ", " ", "b"}, ""},
		// \s+$ anchors at the end of each piece.
		{`\s+$`, "a  b  ", []string{"a  b", "  "}, ""},
		// Other look-arounds are refused.
		{`a(?=b)`, "", nil, "look-around"},
		// Go's syntax errors come through.
		{`a++`, "", nil, "invalid nested repetition"},
		// Look-ahead with ^ cannot be emulated by cutting the text.
		{`^a|\s+(?!\S)|\s+`, "", nil, "mixes"},
	}
	for _, tt := range tests {
		p, err := compilePattern(tt.pattern)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("compilePattern(%q) = %v, want an error containing %q", tt.pattern, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("compilePattern(%q): %v", tt.pattern, err)
			continue
		}
		if got := split(regexSplitter(p, isolated, false), tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("%q on %q = %q, want %q", tt.pattern, tt.text, got, tt.want)
		}
	}
}

func TestSplitBehaviors(t *testing.T) {
	p, err := compilePattern(`-`)
	if err != nil {
		t.Fatal(err)
	}
	const text = "a-b--c-"
	tests := []struct {
		b      splitBehavior
		invert bool
		want   []string
	}{
		{isolated, false, []string{"a", "-", "b", "-", "-", "c", "-"}},
		{removed, false, []string{"a", "b", "c"}},
		{mergedWithPrevious, false, []string{"a-", "b-", "-", "c-"}},
		{mergedWithNext, false, []string{"a", "-b", "-", "-c", "-"}},
		{contiguous, false, []string{"a", "-", "b", "--", "c", "-"}},
		// Inverted, the letters are the delimiters; each dash stays a
		// piece of its own.
		{removed, true, []string{"-", "-", "-", "-"}},
	}
	for _, tt := range tests {
		if got := split(regexSplitter(p, tt.b, tt.invert), text); !slices.Equal(got, tt.want) {
			t.Errorf("behavior %d invert %v: %q, want %q", tt.b, tt.invert, got, tt.want)
		}
	}
	if got := split(literalSplitter("--", isolated, false), text); !slices.Equal(got, []string{"a-b", "--", "c-"}) {
		t.Errorf("literal split: %q", got)
	}
}

func TestMetaspaceAndDigits(t *testing.T) {
	tests := []struct {
		step    preStep
		text    string
		atStart bool
		want    []string
	}{
		// Spaces become ▁ and each ▁ starts a piece; one is prepended.
		{metaspaceStep{"▁", prependAlways, true}, "Hey  friend", true, []string{"▁Hey", "▁", "▁friend"}},
		// Nothing is prepended to text that already starts with ▁.
		{metaspaceStep{"▁", prependAlways, true}, " x", true, []string{"▁x"}},
		// "first" prepends only at the start of the input.
		{metaspaceStep{"▁", prependFirst, false}, "a b", false, []string{"a▁b"}},
		{metaspaceStep{"▁", prependFirst, false}, "a b", true, []string{"▁a▁b"}},
		{metaspaceStep{"▁", prependNever, false}, "a", true, []string{"a"}},
		// Digits cut out, one by one or as runs.
		{digitsStep{true}, "ab123c", false, []string{"ab", "1", "2", "3", "c"}},
		{digitsStep{false}, "ab123c4", false, []string{"ab", "123", "c", "4"}},
		// ByteLevel with add_prefix_space gives a leading space.
		{byteLevelStep{addPrefixSpace: true, useRegex: true}, "Hi there", false, []string{" Hi", " there"}},
	}
	for _, tt := range tests {
		if got := tt.step.apply(nil, tt.text, tt.atStart); !slices.Equal(got, tt.want) {
			t.Errorf("%T on %q: %q, want %q", tt.step, tt.text, got, tt.want)
		}
	}
}

// TestClassSeqMatchesRegexp holds the direct matcher of simple patterns to
// Go's regexp on generated text, for every such pattern llama.cpp lists and
// a few shapes that need backtracking.
func TestClassSeqMatchesRegexp(t *testing.T) {
	patterns := []string{`\s?[a-c]+[b-d]`, `[ab]{2,3}b`, `\s*\s`, `\s+$`, ` ?\p{N}{1,3}`}
	for _, pt := range preTypes {
		patterns = append(patterns, pt.patterns...)
	}
	alphabet := []string{"a", "b", "c", "d", "Z", "é", "日", "한", "1", "٣", " ", "  ", "\t", "\n", "\r", "\u3000", "!", "。", "…", "$", "😀", "\xff"}
	r := rand.New(rand.NewPCG(9, 9))
	fast := 0
	for _, src := range patterns {
		if _, hand := handSplitters[src]; hand {
			continue
		}
		p, err := compilePattern(src)
		if err != nil {
			t.Fatal(err)
		}
		if p.fast == nil {
			continue
		}
		fast++
		generic := &splitter{f: p, behavior: isolated}
		direct := &splitter{f: fastPattern{p.fast, p}, behavior: isolated}
		for i := range 5000 {
			var b strings.Builder
			for range 1 + r.IntN(10) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			s := b.String()
			if a, g := split(direct, s), split(generic, s); !slices.Equal(a, g) {
				t.Fatalf("%q text %d %q:\n direct %q\n regexp %q", src, i, s, a, g)
			}
		}
	}
	if fast < 10 {
		t.Errorf("only %d patterns have the direct matcher, want the simple ones (10 or more)", fast)
	}
}

// TestClassSeqGivesUp checks that a pattern whose greedy runs overlap does
// not backtrack quadratically on long text: the direct matcher hands over
// to the regexp and the pieces are still right.
func TestClassSeqGivesUp(t *testing.T) {
	p, err := compilePattern(`[a-z]+b`)
	if err != nil || p.fast == nil {
		t.Fatalf("compilePattern: %v, fast %v", err, p.fast != nil)
	}
	// No b anywhere: every start backs off through the whole run.
	long := strings.Repeat("a", 200000)
	if _, _, _, sure := p.fast.find(long, 0); sure {
		t.Fatal("the direct matcher did not give up on 200,000 overlapping characters")
	}
	got := split(regexSplitter(p, isolated, false), long+" ab")
	if want := []string{long + " ", "ab"}; !slices.Equal(got, want) {
		t.Errorf("split gave %d pieces, want the run and then ab", len(got))
	}
}
