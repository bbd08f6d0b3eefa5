package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Reasoning makes a simulated model think before it answers: the first
// tokens of each reply are streamed as reasoning, the way vLLM serves a
// reasoning model started with --reasoning-parser: chat deltas carry them
// in "reasoning" instead of "content", and the usage counts them in
// completion_tokens_details.reasoning_tokens; /v1/responses streams them
// as a reasoning item before the message. /v1/completions streams them as
// plain text, as vLLM does. The zero value does not reason.
//
// A reply's reasoning tokens R come from Min and Max (drawn uniformly in
// [Min, Max] per request, reproducibly from the seed; Min = Max is fixed)
// or, when Percent is positive, are that share of the reply, rounded. A
// reply that ends by itself (finish reason "stop") always keeps at least
// its last token for the answer; one cut off at max_tokens while R was
// still running is all reasoning, with no answer, as a real reasoning
// model cut off mid-thought. Reasoning tokens are output tokens like any
// other: they take the same decode steps.
type Reasoning struct {
	Min, Max int
	Percent  float64 // a share of each reply, in percent (0 to 100)
}

// On reports whether r makes the model reason.
func (r Reasoning) On() bool { return r.Max > 0 || r.Percent > 0 }

// ReasoningSyntax says how ParseReasoning reads a reasoning spec.
const ReasoningSyntax = "N (tokens), A-B (drawn uniformly per reply), P% (a share of each reply), or off"

// ParseReasoning reads a reasoning spec: "256" (the first 256 tokens of
// every reply), "100-400" (drawn uniformly per reply), "30%" (that share of
// each reply), or "off" / "0" / "" (no reasoning).
func ParseReasoning(s string) (Reasoning, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "", "off", "none", "0":
		return Reasoning{}, nil
	}
	if p, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v > 0 && v <= 100) {
			return Reasoning{}, fmt.Errorf("reasoning %q: a share must be a percentage above 0%% and at most 100%%", s)
		}
		return Reasoning{Percent: v}, nil
	}
	lo, hi, isRange := strings.Cut(t, "-")
	a, err := reasoningTokens(s, lo)
	if err != nil {
		return Reasoning{}, err
	}
	b := a
	if isRange {
		if b, err = reasoningTokens(s, hi); err != nil {
			return Reasoning{}, err
		}
	}
	r := Reasoning{Min: a, Max: b}
	return r, r.validate()
}

func reasoningTokens(spec, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("reasoning %q: want %s", spec, ReasoningSyntax)
	}
	return n, nil
}

// validate reports a spec no reply can follow.
func (r Reasoning) validate() error {
	switch {
	case r.Min < 0 || r.Max < 0:
		return fmt.Errorf("reasoning %s: token counts must not be negative", r)
	case r.Min > r.Max:
		return fmt.Errorf("reasoning %d-%d: the range runs backwards", r.Min, r.Max)
	case math.IsNaN(r.Percent) || r.Percent < 0 || r.Percent > 100:
		return fmt.Errorf("reasoning share %v%%: must be between 0%% and 100%%", r.Percent)
	case r.Percent > 0 && r.Max > 0:
		return fmt.Errorf("reasoning %s: give tokens or a share, not both", r)
	}
	return nil
}

// String writes r as ParseReasoning reads it.
func (r Reasoning) String() string {
	switch {
	case r.Percent > 0:
		return strconv.FormatFloat(r.Percent, 'f', -1, 64) + "%"
	case r.Min == r.Max && r.Max > 0:
		return strconv.Itoa(r.Max)
	case r.Max > 0:
		return fmt.Sprintf("%d-%d", r.Min, r.Max)
	}
	return "off"
}

// describe says in words which tokens r makes reasoning.
func (r Reasoning) describe() string {
	switch {
	case r.Percent > 0:
		return "the first " + r.String() + " of each reply's tokens"
	case r.Min == r.Max:
		return "the first " + r.String() + " tokens of each reply"
	}
	return "the first " + r.String() + " tokens of each reply (drawn per reply)"
}

// MarshalText writes r as String does, for profile files and JSON.
func (r Reasoning) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads r as ParseReasoning does, so that a profile file's
// model may say "reasoning: 30%".
func (r *Reasoning) UnmarshalText(b []byte) error {
	v, err := ParseReasoning(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// UnmarshalYAML reads a profile file's "reasoning: 30%", naming the line
// of a bad spec.
func (r *Reasoning) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: reasoning: want %s", n.Line, ReasoningSyntax)
	}
	v, err := ParseReasoning(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*r = v
	return nil
}

// tokens returns how many of a reply's first tokens are reasoning: the
// reply is length tokens long and stopped says it ended by itself. A
// range is drawn from seed and the request's number, so that a run
// repeats.
func (r Reasoning) tokens(length int, stopped bool, seed uint64, id int64) int {
	if !r.On() || length <= 0 {
		return 0
	}
	var n int
	switch {
	case r.Percent > 0:
		n = int(math.Round(r.Percent * float64(length) / 100))
	case r.Min == r.Max:
		n = r.Max
	default:
		span := uint64(r.Max-r.Min) + 1
		n = r.Min + int(splitmix(seed^0x7265_6173_6f6e^uint64(id))%span)
	}
	if stopped {
		return min(n, length-1)
	}
	return min(n, length)
}
