package fit

import "math"

// Param is one free parameter of a fit: a positive value searched between
// Lo and Hi on a logarithmic scale, since the cost model's parameters are
// rates and durations whose plausible values span orders of magnitude.
type Param struct {
	Name   string
	Lo, Hi float64
}

// Minimize searches for the parameters that minimize f, starting from x0
// (clamped into the bounds), by pattern search: each round tries every
// parameter multiplied and divided by a step factor and keeps what lowers
// f; a round that improves nothing halves the step's logarithm. It stops
// when the step is below 0.5 % or after maxEvals evaluations of f, and
// returns the best parameters and f there. f must be deterministic; it
// may return +Inf for parameters it cannot evaluate.
func Minimize(f func([]float64) float64, params []Param, x0 []float64, maxEvals int) ([]float64, float64) {
	x := make([]float64, len(params))
	for i, p := range params {
		x[i] = math.Min(math.Max(x0[i], p.Lo), p.Hi)
	}
	best := f(x)
	evals := 1
	step := math.Log(1.5)
	try := make([]float64, len(x))
	for step > math.Log(1.005) && evals < maxEvals {
		improved := false
		for i, p := range params {
			for _, dir := range []float64{1, -1} {
				if evals >= maxEvals {
					break
				}
				copy(try, x)
				try[i] = math.Min(math.Max(x[i]*math.Exp(dir*step), p.Lo), p.Hi)
				if try[i] == x[i] {
					continue
				}
				v := f(try)
				evals++
				if v < best {
					best = v
					copy(x, try)
					improved = true
					break
				}
			}
		}
		if !improved {
			step /= 2
		}
	}
	return x, best
}
