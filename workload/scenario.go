package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
)

// Dist is a distribution of random prompt or answer lengths other than
// the range ratio's uniform spread around one length: genai-bench's
// normal and uniform traffic scenarios (--traffic-scenario).
type Dist struct {
	Normal bool // N(Mean, SD²), rounded down; else uniform integers in [Lo, Hi]
	Mean   float64
	SD     float64
	// Lo is the least length drawn, and for a uniform one Hi the most.
	Lo, Hi int
}

// draw returns one length from a normal d, at least d.Lo and at most
// limit. (A uniform d's lengths are drawn from its bounds as the range
// ratio's are.)
func (d *Dist) draw(rng *rand.Rand, limit int) int {
	v := math.Floor(d.Mean + d.SD*rng.NormFloat64())
	return int(min(max(v, float64(d.Lo)), float64(limit)))
}

// check says what is wrong with d as the lengths of what ("prompt",
// "answer"), which a uniform d must keep in [least, most]; "" when
// nothing is.
func (d *Dist) check(what string, least, most int) string {
	switch {
	case d.Normal && (d.Mean < 1 || d.SD < 0 || math.IsNaN(d.Mean+d.SD)):
		return fmt.Sprintf("--traffic-scenario: %s lengths want a mean of 1 or more and a standard deviation of 0 or more", what)
	case !d.Normal && (d.Lo < least || d.Hi < d.Lo || d.Hi > most):
		return fmt.Sprintf("--traffic-scenario: %s lengths want %d to %d tokens, got %d to %d", what, least, most, d.Lo, d.Hi)
	}
	return ""
}

// String describes d: "normal, mean 480, sd 240, at least 1" or "1–200".
func (d *Dist) String() string {
	if d.Normal {
		return fmt.Sprintf("normal (mean %s, sd %s, at least %d)", fmtNum(d.Mean), fmtNum(d.SD), d.Lo)
	}
	return span(d.Lo, d.Hi)
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// A traffic scenario in genai-bench's notation (--traffic-scenario),
// which sets the random dataset's lengths in one string:
//
//	D(in,out)          every prompt in tokens, every answer out
//	N(mi,si)/(mo,so)   prompts normal with mean mi and standard deviation
//	                   si, at least 1 token; answers so with mo and so, at
//	                   least 2 (a TPOT needs two tokens)
//	U(a,b)/(c,d)       prompts uniform in [a, b], answers in [c, d]
//	U(a,b)             prompts uniform in [1, a], answers in [1, b]
//	P(p,s)/out         a prefix of p tokens that every prompt shares, then
//	                   s of its own; answers out
//
// Embedding (E), rerank (R) and multimodal (I, V, A) scenarios ask for
// APIs goodput does not measure and are refused.
var (
	scenarioD   = regexp.MustCompile(`^D\((\d+),(\d+)\)$`)
	scenarioN   = regexp.MustCompile(`^N\((\d+),(\d+)\)/\((\d+),(\d+)\)$`)
	scenarioU2  = regexp.MustCompile(`^U\((\d+),(\d+)\)/\((\d+),(\d+)\)$`)
	scenarioU1  = regexp.MustCompile(`^U\((\d+),(\d+)\)$`)
	scenarioP   = regexp.MustCompile(`^P\((\d+),(\d+)\)/(\d+)$`)
	scenarioNum = regexp.MustCompile(`\d+`)
)

// ApplyScenario sets c to the random dataset with the lengths of the
// traffic scenario s (see above), or says what is wrong with s. The
// lengths are checked with the rest of c by Validate.
func (c *Config) ApplyScenario(s string) error {
	// Lengths beyond any limit are refused here, naming the scenario,
	// before they reach the flags' own checks.
	for _, m := range scenarioNum.FindAllString(s, -1) {
		if n, err := strconv.Atoi(m); err != nil || n > MaxOutputTokens {
			return fmt.Errorf("--traffic-scenario %q: %s tokens is more than any run sends", s, m)
		}
	}
	nums := func(m []string) []int {
		out := make([]int, 0, len(m)-1)
		for _, v := range m[1:] {
			n, _ := strconv.Atoi(v) // checked above
			out = append(out, n)
		}
		return out
	}
	r := RandomConfig{}
	switch {
	case scenarioD.MatchString(s):
		n := nums(scenarioD.FindStringSubmatch(s))
		r.InputLen, r.OutputLen = n[0], n[1]
	case scenarioN.MatchString(s):
		n := nums(scenarioN.FindStringSubmatch(s))
		r.InputLen, r.OutputLen = n[0], n[2]
		r.InputDist = &Dist{Normal: true, Mean: float64(n[0]), SD: float64(n[1]), Lo: 1}
		r.OutputDist = &Dist{Normal: true, Mean: float64(n[2]), SD: float64(n[3]), Lo: 2}
	case scenarioU2.MatchString(s):
		n := nums(scenarioU2.FindStringSubmatch(s))
		if n[0] > n[1] || n[2] > n[3] {
			return fmt.Errorf("--traffic-scenario %q: a uniform range is (least,most), least first", s)
		}
		r.InputDist, r.OutputDist = &Dist{Lo: n[0], Hi: n[1]}, &Dist{Lo: n[2], Hi: n[3]}
		r.InputLen, r.OutputLen = (n[0]+n[1])/2, (n[2]+n[3])/2
	case scenarioU1.MatchString(s):
		n := nums(scenarioU1.FindStringSubmatch(s))
		r.InputDist, r.OutputDist = &Dist{Lo: 1, Hi: n[0]}, &Dist{Lo: 1, Hi: n[1]}
		r.InputLen, r.OutputLen = (1+n[0])/2, (1+n[1])/2
	case scenarioP.MatchString(s):
		n := nums(scenarioP.FindStringSubmatch(s))
		r.PrefixLen, r.InputLen, r.OutputLen = n[0], n[1], n[2]
	case len(s) > 0 && (s[0] == 'E' || s[0] == 'R'):
		return fmt.Errorf("--traffic-scenario %q: embedding and rerank scenarios are not supported (goodput measures generation)", s)
	case len(s) > 0 && (s[0] == 'I' || s[0] == 'V' || s[0] == 'A'):
		return fmt.Errorf("--traffic-scenario %q: multimodal scenarios are not supported", s)
	default:
		return fmt.Errorf("--traffic-scenario %q: want D(in,out), N(mean,sd)/(mean,sd), U(least,most)/(least,most), U(most_in,most_out) or P(prefix,suffix)/out, lengths in tokens, no spaces", s)
	}
	c.Dataset, c.Random, c.Scenario = DatasetRandom, r, s
	return nil
}
