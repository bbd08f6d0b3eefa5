package fit

import (
	"math"
	"testing"
)

func TestMinimize(t *testing.T) {
	// A bowl in log space with its floor at (0.3, 2e-3): found to within
	// the search's final step of 0.5 %.
	f := func(x []float64) float64 {
		a, b := math.Log(x[0]/0.3), math.Log(x[1]/2e-3)
		return a*a + 3*b*b
	}
	x, v := Minimize(f, []Param{{"a", 0.01, 1}, {"b", 1e-6, 1}}, []float64{0.9, 1e-4}, 10000)
	if math.Abs(x[0]/0.3-1) > 0.01 || math.Abs(x[1]/2e-3-1) > 0.01 || v > 1e-3 {
		t.Errorf("minimum at %v (f = %g), want (0.3, 0.002)", x, v)
	}
	// A floor outside the bounds ends on the bound.
	x, _ = Minimize(f, []Param{{"a", 0.5, 1}, {"b", 1e-6, 1}}, []float64{0.9, 1e-4}, 10000)
	if x[0] != 0.5 {
		t.Errorf("bounded minimum at a = %v, want the bound 0.5", x[0])
	}
	// The budget is kept: no more evaluations than asked.
	n := 0
	Minimize(func(x []float64) float64 { n++; return f(x) }, []Param{{"a", 0.01, 1}, {"b", 1e-6, 1}}, []float64{0.9, 1e-4}, 7)
	if n > 7 {
		t.Errorf("%d evaluations, want at most 7", n)
	}
	// A start outside the bounds is clamped into them.
	x, _ = Minimize(func([]float64) float64 { return 0 }, []Param{{"a", 0.1, 0.2}}, []float64{5}, 1)
	if x[0] != 0.2 {
		t.Errorf("start 5 clamped to %v, want 0.2", x[0])
	}
}
