package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/goodput-dev/goodput/tokenizer"
)

// Random streams of the system prompts.
const (
	rngSystemPick = 0x7379737069636b // "syspick": which prompt each request gets
	rngSystemText = 0x73797374657874 // "systext": the words of prompt k
)

// MaxSystemPrompts bounds --system-prompts.
const MaxSystemPrompts = 100_000

// SystemPromptConfig puts one of Count system prompts of Len tokens before
// every prompt (--system-prompts, --system-prompt-len), chosen with a Zipf
// popularity of exponent Zipf (--system-prompt-zipf): the prompt of rank k
// with probability ∝ 1/k^Zipf, so that a few prompts are shared by most
// requests and many by few, as the system prompts of an API's applications
// are. Zipf 0 chooses uniformly. Count 0 adds none, whatever Len and Zipf
// say (DefaultConfig sets them to 256 and 1).
type SystemPromptConfig struct {
	Count int
	Len   int
	Zipf  float64
}

func (s SystemPromptConfig) validate(dataset string) []error {
	if s.Count == 0 {
		return nil
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch {
	case s.Count < 0 || s.Count > MaxSystemPrompts:
		bad("--system-prompts must be in [1, %d], got %d", MaxSystemPrompts, s.Count)
	case dataset == DatasetTrace || dataset == DatasetTimedTrace:
		bad("--system-prompts: a trace's prompts and their shared blocks are the trace's own")
	}
	if s.Len < 1 || s.Len > MaxPromptTokens {
		bad("--system-prompt-len must be in [1, %d], got %d", MaxPromptTokens, s.Len)
	}
	if math.IsNaN(s.Zipf) || math.IsInf(s.Zipf, 0) || s.Zipf < 0 || s.Zipf > 10 {
		bad("--system-prompt-zipf must be in [0, 10], got %v", s.Zipf)
	}
	return errs
}

// SystemPrompts puts one of its system prompts before every item of a
// source (see SystemPromptConfig). Prompt k is Len tokens of words of its
// own ending in a line break, the same for every request that gets it, so a
// server's prefix cache can serve it; which prompt a request gets depends
// on the seed and its sequence number alone. Each item's Group is
// "system-k", k its prompt's popularity rank from 1, after which the
// source's own group follows ("system-2/prefix-5").
type SystemPrompts struct {
	src  Source
	cfg  SystemPromptConfig
	seed uint64
	fit  Fit       // sizes the prompts for the server's tokenizer
	cum  []float64 // cum[k] = P(rank ≤ k+1)
}

var _ Source = (*SystemPrompts)(nil)

// NewSystemPrompts wraps src; c.SystemPrompts must be valid with Count > 0.
func NewSystemPrompts(src Source, c Config) (*SystemPrompts, error) {
	s := c.SystemPrompts
	if errs := s.validate(c.Dataset); len(errs) > 0 || s.Count == 0 {
		return nil, errors.Join(append(errs, errors.New("--system-prompts must be ≥ 1"))...)
	}
	w := &SystemPrompts{src: src, cfg: s, seed: c.Seed, fit: c.Fit, cum: make([]float64, s.Count)}
	var total float64
	for k := range s.Count {
		total += math.Pow(float64(k+1), -s.Zipf)
		w.cum[k] = total
	}
	for k := range w.cum {
		w.cum[k] /= total
	}
	w.cum[len(w.cum)-1] = 1
	return w, nil
}

// Rank returns the popularity rank (from 1) of the system prompt request
// seq gets.
func (w *SystemPrompts) Rank(seq int64) int {
	u := rand.New(rand.NewPCG(w.seed^rngSystemPick, uint64(seq))).Float64()
	return sort.SearchFloat64s(w.cum, u) + 1
}

// Share returns the share of requests that get the prompt of rank k.
func (w *SystemPrompts) Share(k int) float64 {
	if k < 1 || k > len(w.cum) {
		return 0
	}
	if k == 1 {
		return w.cum[0]
	}
	return w.cum[k-1] - w.cum[k-2]
}

// prompt returns the ids of the system prompt of rank k: words, then a
// line break, which keeps the words of the prompt after it from joining
// its last word when the two are tokenized as one text.
func (w *SystemPrompts) prompt(k int) []int {
	ids := tokenizer.Words(w.fit.Words(w.cfg.Len-1), rand.New(rand.NewPCG(w.seed^rngSystemText, uint64(k))))
	return append(ids, '\n')
}

// Item returns the source's item seq behind its system prompt.
func (w *SystemPrompts) Item(seq int64) Item {
	it := w.src.Item(seq)
	k := w.Rank(seq)
	sys := w.prompt(k)
	text := tokenizer.Decode(sys)
	if it.PromptTokenIDs != nil {
		it.PromptTokenIDs = w.fit.ids(append(sys, it.PromptTokenIDs...))
	}
	it.System = text + it.System
	it.Prompt = text + it.Prompt
	it.InputTokens += w.cfg.Len
	it.ReusableTokens = 0 // the source's count knew nothing of the prompt before it
	group := fmt.Sprintf("system-%d", k)
	if it.Group != "" {
		group += "/" + it.Group
	}
	it.Group = group
	return it
}

// Len returns the source's.
func (w *SystemPrompts) Len() int { return w.src.Len() }

// String describes the source and the system prompts.
func (w *SystemPrompts) String() string {
	var b strings.Builder
	b.WriteString(w.src.String())
	fmt.Fprintf(&b, "; behind one of %d system prompts of %d tokens", w.cfg.Count, w.cfg.Len)
	if w.cfg.Zipf == 0 {
		b.WriteString(" chosen uniformly")
	} else {
		fmt.Fprintf(&b, " chosen with Zipf popularity %g (the first gets %.1f%% of requests", w.cfg.Zipf, 100*w.Share(1))
		if w.cfg.Count > 1 {
			fmt.Fprintf(&b, ", the last %.2f%%", 100*w.Share(w.cfg.Count))
		}
		b.WriteString(")")
	}
	return b.String()
}
