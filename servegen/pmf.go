package servegen

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
)

// PMF is a probability mass function over token lengths, ready to draw
// from.
type PMF struct {
	values []float64 // in increasing order
	cum    []float64 // cum[i] = P(value ≤ values[i]), the last 1
}

// ParsePMF reads a PMF written as a Python dict literal of value to
// probability, "{224: 0.0003, 225: 0.0008}", as ServeGen's dataset files
// hold them. Values and probabilities are numbers ≥ 0; the probabilities
// are normalised to sum to 1. An empty dict, or one of zero probabilities
// (ServeGen writes "{}" for a window without requests), is the empty PMF.
func ParsePMF(s string) (PMF, error) {
	p := dictParser{s: s}
	pairs, err := p.parse()
	if err != nil {
		return PMF{}, err
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	var total float64
	for _, kv := range pairs {
		total += kv[1]
	}
	if math.IsInf(total, 0) {
		return PMF{}, errors.New("the probabilities sum to infinity")
	}
	var m PMF
	if total == 0 {
		return m, nil
	}
	var run float64
	for _, kv := range pairs {
		if kv[1] == 0 {
			continue
		}
		if n := len(m.values); n > 0 && m.values[n-1] == kv[0] {
			return PMF{}, fmt.Errorf("value %v appears twice", kv[0])
		}
		run += kv[1]
		m.values = append(m.values, kv[0])
		m.cum = append(m.cum, run/total)
	}
	m.cum[len(m.cum)-1] = 1
	return m, nil
}

// Empty reports whether the PMF has nothing to draw.
func (m PMF) Empty() bool { return len(m.values) == 0 }

// Draw returns a value drawn from the PMF, which must not be empty.
func (m PMF) Draw(rng *rand.Rand) float64 {
	u := rng.Float64()
	return m.values[sort.SearchFloat64s(m.cum, u)]
}

// Mean returns the PMF's mean.
func (m PMF) Mean() float64 {
	var mean, prev float64
	for i, v := range m.values {
		mean += v * (m.cum[i] - prev)
		prev = m.cum[i]
	}
	return mean
}

// Max returns the largest value with a positive probability.
func (m PMF) Max() float64 { return m.values[len(m.values)-1] }

// dictParser reads a dict literal of numbers.
type dictParser struct {
	s string
	i int
}

func (p *dictParser) parse() ([][2]float64, error) {
	p.space()
	if !p.eat('{') {
		return nil, p.errorf("want '{'")
	}
	var out [][2]float64
	p.space()
	if p.eat('}') {
		return p.end(out)
	}
	for {
		k, err := p.number()
		if err != nil {
			return nil, err
		}
		p.space()
		if !p.eat(':') {
			return nil, p.errorf("want ':'")
		}
		v, err := p.number()
		if err != nil {
			return nil, err
		}
		out = append(out, [2]float64{k, v})
		p.space()
		if p.eat('}') {
			return p.end(out)
		}
		if !p.eat(',') {
			return nil, p.errorf("want ',' or '}'")
		}
		p.space()
		if p.eat('}') { // a trailing comma, as Python allows
			return p.end(out)
		}
	}
}

func (p *dictParser) end(out [][2]float64) ([][2]float64, error) {
	p.space()
	if p.i != len(p.s) {
		return nil, p.errorf("unexpected text after '}'")
	}
	return out, nil
}

func (p *dictParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *dictParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// number reads a finite number ≥ 0.
func (p *dictParser) number() (float64, error) {
	p.space()
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.' || p.s[p.i] == 'e' || p.s[p.i] == 'E' || p.s[p.i] == '-' || p.s[p.i] == '+') {
		p.i++
	}
	v, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) || v < 0 {
		p.i = start
		return 0, p.errorf("want a finite number ≥ 0")
	}
	return v, nil
}

func (p *dictParser) errorf(what string) error {
	near := p.s[p.i:min(len(p.s), p.i+20)]
	return fmt.Errorf("dict literal at byte %d (%q): %s", p.i, near, what)
}
