package session

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/workload"
)

// synthetic generates sessions without end: --session-turns turns each, a
// user message of --random-input-len tokens and a reply of
// --random-output-len tokens per turn (each drawn within
// --random-range-ratio), after an optional system prompt of
// --random-prefix-len tokens shared by every session, with --think-time
// between a reply and the next turn. Flow f depends only on the seed and
// f. Text is the built-in tokenizer's prose, so InputTokens is exact on it;
// with a workload.Fit, it is sized to the server's count instead.
type synthetic struct {
	turns        Span
	think        Think
	inLo, inHi   int
	outLo, outHi int
	system       string
	prefixLen    int
	seed         uint64
	fit          workload.Fit // sizes the texts for the server's tokenizer
}

var _ Source = (*synthetic)(nil)

func newSynthetic(wc workload.Config, c Config) *synthetic {
	r := wc.Random
	s := &synthetic{turns: c.Turns, think: c.Think, seed: wc.Seed, prefixLen: r.PrefixLen, fit: wc.Fit}
	s.inLo, s.inHi = bounds(r.InputLen, r.RangeRatio)
	s.outLo, s.outHi = bounds(r.OutputLen, r.OutputRatio())
	s.inLo, s.outLo = max(s.inLo, 1), max(s.outLo, 1) // never an empty message or a reply of nothing
	s.inHi, s.outHi = max(s.inHi, s.inLo), max(s.outHi, s.outLo)
	if wc.Request.MaxTokens > 0 {
		s.outLo, s.outHi = min(s.outLo, wc.Request.MaxTokens), min(s.outHi, wc.Request.MaxTokens)
	}
	if r.PrefixLen > 0 {
		s.system = tokenizer.Decode(tokenizer.Words(s.fit.Words(r.PrefixLen), rand.New(rand.NewPCG(wc.Seed^rngSystem, 0))))
	}
	return s
}

// bounds returns the inclusive range [n·(1−r), n·(1+r)], rounded inwards
// as the random dataset rounds it.
func bounds(n int, r float64) (int, int) {
	return int(math.Ceil(float64(n) * (1 - r))), int(math.Floor(float64(n) * (1 + r)))
}

func (s *synthetic) Len() int      { return 0 }
func (s *synthetic) MaxCalls() int { return s.turns.Hi }
func (s *synthetic) Kind() Kind    { return KindSession }

// Flow returns session f: its turns, lengths and think times drawn from
// the seed and f alone.
func (s *synthetic) Flow(f int64) *Flow {
	rng := rand.New(rand.NewPCG(s.seed^rngFlow, uint64(f)))
	n := s.turns.Draw(rng)
	fl := &Flow{ID: fmt.Sprintf("s%d", f), Kind: KindSession, System: s.system, Calls: make([]Call, n)}
	// The words come from a stream of their own, so that the lengths and
	// think times do not move with the server's tokenizer (see
	// workload.Fit): a seed's sessions have the same shape on any server.
	words := rand.New(rand.NewPCG(s.seed^rngText, uint64(f)))
	for k := range fl.Calls {
		c := &fl.Calls[k]
		c.InputTokens = s.inLo + rng.IntN(s.inHi-s.inLo+1)
		c.OutputTokens = s.outLo + rng.IntN(s.outHi-s.outLo+1)
		c.Text = tokenizer.Decode(tokenizer.Words(s.fit.Words(c.InputTokens), words))
		if k > 0 {
			c.After = []Dep{{Call: k - 1, Wait: s.think.Draw(rng)}}
		}
	}
	return fl
}

func (s *synthetic) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "synthetic sessions: %s turns each, user messages of %s tokens, replies of %s tokens",
		s.turns, span(s.inLo, s.inHi), span(s.outLo, s.outHi))
	if s.prefixLen > 0 {
		fmt.Fprintf(&b, ", after a system prompt of %d tokens shared by every session", s.prefixLen)
	}
	fmt.Fprintf(&b, ", %s, seed %d", s.think.describe(), s.seed)
	return b.String()
}

func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}
