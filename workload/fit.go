package workload

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/goodput-dev/goodput/tokenizer"
)

// Fit says how a server's tokenizer counts the built-in tokenizer's text:
// a text of n built-in tokens, sent as a prompt, counts about Overhead +
// n·PerToken tokens there. Overhead is what the server adds to every
// prompt besides its text: a BOS token, a chat template's markup. The
// datasets that make text of a given length (a trace's rows, BurstGPT,
// ServeGen, prefix_repetition, made-up session messages) size it by the
// Fit, so that the server counts the lengths asked for. The zero Fit
// leaves lengths to the built-in tokenizer.
type Fit struct {
	PerToken float64 `json:"server_tokens_per_token"`
	Overhead float64 `json:"server_tokens_per_prompt"`
}

// Active reports whether f sizes texts (it is not the zero Fit).
func (f Fit) Active() bool { return f.PerToken > 0 }

// Words returns how many built-in tokens a text needs for the server to
// count n tokens of it within a prompt (a message, a shared prefix): the
// overhead is not taken off. It is n for the zero Fit, 0 for n ≤ 0, and
// at least 1 otherwise.
func (f Fit) Words(n int) int {
	if !f.Active() || n <= 0 {
		return n
	}
	return max(1, int(math.Round(float64(n)/f.PerToken)))
}

// Prompt returns how many built-in tokens a whole prompt needs for the
// server to count n tokens, its overhead included: at least 1, however
// short n is beside the overhead.
func (f Fit) Prompt(n int) int {
	if !f.Active() {
		return n
	}
	return max(1, int(math.Round((float64(n)-f.Overhead)/f.PerToken)))
}

// ids returns the token ids of an item whose text was made for a
// length: ids, or none when f sized the text, since their length is the
// built-in tokenizer's and not the server's.
func (f Fit) ids(ids []int) []int {
	if f.Active() {
		return nil
	}
	return ids
}

func (f Fit) String() string {
	if !f.Active() {
		return "no fit"
	}
	return fmt.Sprintf("%.3f server tokens per built-in token, %.1f more per prompt", f.PerToken, f.Overhead)
}

// rngFit is the random stream of MeasureFit's sample texts.
const rngFit = 0x666974 // "fit"

// Lengths at which MeasureFit counts texts, and how many texts at each:
// the overhead is read off the short ones, the rate per token off the
// difference. A text's count varies with its words: against Llama-2's
// vocabulary, texts of 24 built-in tokens counted 1.13–1.63 server tokens
// each (5th to 95th percentile), texts of 300 counted 1.24–1.38. Eight
// long texts put the rate within about 1 %, and a long prompt within as
// much of its length; a short one is only as close as its words allow.
const (
	fitShort   = 32
	fitLong    = 1024
	fitSamples = 8
)

// maxOverhead bounds what a server may add to every prompt: a chat
// template of more tokens than this is not one.
const maxOverhead = 1 << 16

// MeasureFit counts made-up texts of two lengths with count, the server's
// tokenizer (its chat template included, for chat prompts), and returns
// the line through the two mean counts. It makes 2·fitSamples calls to
// count, and fails naming the count that was out of reason.
func MeasureFit(count Counter, seed uint64) (Fit, error) {
	mean := func(n int) (float64, error) {
		sum := 0
		for s := range fitSamples {
			rng := rand.New(rand.NewPCG(seed^rngFit, uint64(n*fitSamples+s)))
			c, err := count(tokenizer.Decode(tokenizer.Words(n, rng)))
			if err != nil {
				return 0, err
			}
			if c <= 0 {
				return 0, fmt.Errorf("the server counted %d tokens in a text of %d built-in tokens", c, n)
			}
			sum += c
		}
		return float64(sum) / fitSamples, nil
	}
	short, err := mean(fitShort)
	if err != nil {
		return Fit{}, err
	}
	long, err := mean(fitLong)
	if err != nil {
		return Fit{}, err
	}
	per := (long - short) / (fitLong - fitShort)
	overhead := short - per*fitShort
	if per < 1.0/maxScale || per > maxScale || overhead > maxOverhead {
		return Fit{}, fmt.Errorf("the server counted %.1f tokens in texts of %d built-in tokens and %.1f in texts of %d: not a count of their text",
			short, fitShort, long, fitLong)
	}
	return Fit{PerToken: per, Overhead: max(0, overhead)}, nil
}
