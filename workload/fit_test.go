package workload

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/tokenizer"
)

// serverLike counts text as a server whose tokenizer splits every
// built-in token into 1.25 of its own, after a 7-token template.
func serverLike(text string) (int, error) {
	return 7 + int(math.Round(1.25*float64(len(tokenizer.Encode(text))))), nil
}

var serverFit = Fit{PerToken: 1.25, Overhead: 7}

func TestMeasureFitReadsTheLine(t *testing.T) {
	f, err := MeasureFit(serverLike, 1)
	if err != nil {
		t.Fatal(err)
	}
	if f != serverFit {
		t.Fatalf("fit %+v, want %+v", f, serverFit)
	}
	// A server that counts as the built-in tokenizer does fits exactly.
	same, err := MeasureFit(func(s string) (int, error) { return len(tokenizer.Encode(s)), nil }, 1)
	if err != nil || same != (Fit{PerToken: 1}) {
		t.Fatalf("the built-in count: fit %+v, %v", same, err)
	}
	for _, tt := range []struct {
		n, words, prompt int
	}{
		{100, 80, 74}, // (100-7)/1.25 = 74.4
		{107, 86, 80},
		{8, 6, 1}, // shorter than the template and a word: one word
		{1, 1, 1},
		{0, 0, 1},
	} {
		if w, p := f.Words(tt.n), f.Prompt(tt.n); w != tt.words || p != tt.prompt {
			t.Errorf("n %d: Words %d, Prompt %d; want %d and %d", tt.n, w, p, tt.words, tt.prompt)
		}
	}
	var none Fit
	if none.Active() || none.Words(37) != 37 || none.Prompt(37) != 37 || none.String() != "no fit" {
		t.Errorf("the zero Fit changes lengths: %d %d %q", none.Words(37), none.Prompt(37), none)
	}
	if got := f.String(); got != "1.250 server tokens per built-in token, 7.0 more per prompt" {
		t.Errorf("String %q", got)
	}
}

func TestMeasureFitRefuses(t *testing.T) {
	down := errors.New("connection refused")
	for _, tt := range []struct {
		name  string
		count Counter
		want  string
	}{
		{"a failing count", func(string) (int, error) { return 0, down }, "connection refused"},
		{"a count of nothing", func(string) (int, error) { return 0, nil }, "counted 0 tokens in a text of 32 built-in tokens"},
		{"a count blind to the text", func(string) (int, error) { return 5, nil }, "not a count of their text"},
		{"a template of a million tokens", func(s string) (int, error) { return 1e6 + len(tokenizer.Encode(s)), nil }, "not a count of their text"},
	} {
		f, err := MeasureFit(tt.count, 1)
		if err == nil || !strings.Contains(err.Error(), tt.want) || f.Active() {
			t.Errorf("%s: fit %+v, error %v; want one containing %q", tt.name, f, err, tt.want)
		}
	}
}

// With a fit, every dataset that makes text for a length makes text the
// server counts as that length, within a token of rounding, and gives no
// token ids (theirs would be the built-in tokenizer's lengths).
func TestFitSizesMadeUpText(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  Config
	}{
		{"trace", traceConfig(mooncake40, nil)},
		{"scaled trace", traceConfig(azure40, func(c *Config) { c.Trace.LengthScale = 0.25 })},
		{"burstgpt", vllmConfig(DatasetBurstGPT, "testdata/burstgpt_small.csv", 0)},
		{"servegen", serveGenConfig(smallServeGen, nil)},
		{"prefix_repetition", vllmConfig(DatasetPrefixRepetition, "", 20)},
		{"system prompts", systemConfig(func(c *Config) { c.Dataset, c.Path = DatasetBurstGPT, "testdata/burstgpt_small.csv" })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cfg
			c.Fit = serverFit
			src, err := New(c)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := New(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for seq := range int64(min(src.Len(), 40)) {
				it, was := src.Item(seq), plain.Item(seq)
				if it.InputTokens != was.InputTokens || it.OutputTokens != was.OutputTokens || it.PromptTokenIDs != nil {
					t.Fatalf("item %d: %d in, %d out, %d ids; without the fit %d in, %d out", seq,
						it.InputTokens, it.OutputTokens, len(it.PromptTokenIDs), was.InputTokens, was.OutputTokens)
				}
				if it.InputTokens < 9 {
					continue // shorter than the template and a word
				}
				if n, _ := serverLike(it.Prompt); n < it.InputTokens-1 || n > it.InputTokens+1 {
					t.Errorf("item %d: the server counts %d tokens of a prompt of %d", seq, n, it.InputTokens)
				}
				if n, _ := serverLike(was.Prompt); tt.cfg.Dataset != DatasetPrefixRepetition && n < was.InputTokens+6 {
					t.Errorf("item %d without the fit: the server counts %d of %d, as if fitted: the check proves nothing", seq, n, was.InputTokens)
				}
				checked++
			}
			if checked < 2 {
				t.Errorf("only %d items checked", checked)
			}
		})
	}
}

// A fitted trace whose shortest row is shorter than what the server adds
// to every prompt says that such rows go out longer; one whose rows are
// all longer says nothing of it.
func TestFittedTraceNamesItsShortRows(t *testing.T) {
	const note = "a row not longer than the 7 tokens the server adds to every prompt goes out as one word"
	for _, tt := range []struct {
		scale float64
		says  bool
	}{{1, false}, {1.0 / 256, true}} {
		src := newTrace(t, traceConfig(azure40, func(c *Config) { c.Fit, c.Trace.LengthScale = serverFit, tt.scale }))
		if got := strings.Contains(src.String(), note); got != tt.says {
			t.Errorf("scale %v, shortest row %d: %q", tt.scale, src.length(src.Summary().Input.Min), src.String())
		}
	}
}

// A fitted trace keeps its shared prefixes: rows that begin with the same
// hash ids begin with the same text, a fitted block of words per id.
func TestFitKeepsTheTracesPrefixes(t *testing.T) {
	c := traceConfig(mooncake40, func(c *Config) { c.Fit = serverFit })
	src := newTrace(t, c)
	rows := traceRows(t, mooncake40)
	block := serverFit.Words(512)
	words := make([][]int, len(rows))
	for i := range rows {
		words[i] = tokenizer.Encode(src.Item(int64(i)).Prompt)
	}
	compared := 0
	for i := range rows {
		for j := range i {
			k := leadingIDs(rows[i], rows[j])
			if k == 0 {
				continue
			}
			shared := min(k*block, len(words[i]), len(words[j])) - 1 // the last word may join the next block's
			if !slices.Equal(words[i][:shared], words[j][:shared]) {
				t.Errorf("rows %d and %d share %d ids but not their first %d words", j, i, k, shared)
			}
			compared++
		}
	}
	if compared < 10 {
		t.Errorf("only %d pairs of rows share a prefix", compared)
	}
}
