package session

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// ThinkKind names a think-time distribution.
type ThinkKind string

// Think-time distributions.
const (
	ThinkFixed       ThinkKind = "fixed"   // always Mean
	ThinkExponential ThinkKind = "exp"     // exponential with mean Mean: a user who may answer at any moment
	ThinkUniform     ThinkKind = "uniform" // uniform in [Lo, Hi]
)

// MaxThink bounds a think time: longer is a unit mistake.
const MaxThink = 24 * time.Hour

// Think is the distribution of the time a user takes between a reply and
// the next turn (--think-time). The zero value is a fixed 0.
type Think struct {
	Kind   ThinkKind
	Mean   time.Duration // fixed and exp
	Lo, Hi time.Duration // uniform
}

// ParseThink reads a think-time distribution: "2s" (fixed), "exp:2s"
// (exponential with mean 2 s) or "uniform:1s-5s". Durations are Go
// durations ("500ms", "1m30s"); a bare number is seconds.
func ParseThink(s string) (Think, error) {
	kind, arg, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		kind, arg = string(ThinkFixed), kind
	}
	var t Think
	var err error
	switch ThinkKind(strings.ToLower(kind)) {
	case ThinkFixed:
		t.Kind = ThinkFixed
		t.Mean, err = parseDuration(arg)
	case ThinkExponential, "exponential":
		t.Kind = ThinkExponential
		t.Mean, err = parseDuration(arg)
	case ThinkUniform:
		t.Kind = ThinkUniform
		lo, hi, ok := strings.Cut(arg, "-")
		if !ok {
			return Think{}, fmt.Errorf("%q: want uniform:LO-HI, e.g. uniform:1s-5s", s)
		}
		if t.Lo, err = parseDuration(lo); err == nil {
			t.Hi, err = parseDuration(hi)
		}
		if err == nil && t.Hi < t.Lo {
			err = fmt.Errorf("the upper bound %v is below the lower %v", t.Hi, t.Lo)
		}
	default:
		return Think{}, fmt.Errorf("%q: want a duration (2s), exp:MEAN or uniform:LO-HI", s)
	}
	if err != nil {
		return Think{}, fmt.Errorf("%q: %w", s, err)
	}
	return t, nil
}

// parseDuration reads a non-negative duration no longer than MaxThink: a
// Go duration, or a number of seconds.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil {
		v, nerr := strconv.ParseFloat(s, 64)
		if nerr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a duration", s)
		}
		if v < 0 || v > MaxThink.Seconds() {
			return 0, fmt.Errorf("%v s is outside [0, %v]", v, MaxThink)
		}
		d = time.Duration(math.Round(v * 1e9))
	}
	if d < 0 || d > MaxThink {
		return 0, fmt.Errorf("%v is outside [0, %v]", d, MaxThink)
	}
	return d, nil
}

// Draw returns one think time.
func (t Think) Draw(rng *rand.Rand) time.Duration {
	switch t.Kind {
	case ThinkExponential:
		return min(time.Duration(rng.ExpFloat64()*float64(t.Mean)), MaxThink)
	case ThinkUniform:
		return t.Lo + time.Duration(rng.Int64N(int64(t.Hi-t.Lo)+1))
	}
	return t.Mean
}

// String renders t as ParseThink reads it.
func (t Think) String() string {
	switch t.Kind {
	case ThinkExponential:
		return "exp:" + t.Mean.String()
	case ThinkUniform:
		return "uniform:" + t.Lo.String() + "-" + t.Hi.String()
	}
	return t.Mean.String()
}

// describe says what t means, for a source's String.
func (t Think) describe() string {
	switch t.Kind {
	case ThinkExponential:
		return fmt.Sprintf("think time exponential, mean %v", t.Mean)
	case ThinkUniform:
		return fmt.Sprintf("think time uniform in [%v, %v]", t.Lo, t.Hi)
	}
	return fmt.Sprintf("think time %v", t.Mean)
}

// Span is a count, fixed or drawn uniformly in [Lo, Hi] (--session-turns).
type Span struct{ Lo, Hi int }

// ParseSpan reads "4" or "2-6".
func ParseSpan(s string) (Span, error) {
	lo, hi, ranged := strings.Cut(strings.TrimSpace(s), "-")
	a, err := strconv.Atoi(strings.TrimSpace(lo))
	if err != nil {
		return Span{}, fmt.Errorf("%q: want a count (4) or a range (2-6)", s)
	}
	b := a
	if ranged {
		if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
			return Span{}, fmt.Errorf("%q: want a count (4) or a range (2-6)", s)
		}
	}
	if a < 1 || b < a {
		return Span{}, fmt.Errorf("%q: want 1 ≤ low ≤ high", s)
	}
	return Span{a, b}, nil
}

// Draw returns a count in [Lo, Hi].
func (s Span) Draw(rng *rand.Rand) int { return s.Lo + rng.IntN(s.Hi-s.Lo+1) }

// String renders s as ParseSpan reads it.
func (s Span) String() string {
	if s.Lo == s.Hi {
		return strconv.Itoa(s.Lo)
	}
	return fmt.Sprintf("%d-%d", s.Lo, s.Hi)
}
