package arrival

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// moments returns the mean and coefficient of variation of n gaps.
func moments(p Process, n int, seed uint64) (mean, cv float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var sum, sumSq float64
	for i := 0; i < n; i++ {
		g := p.Gap(rng)
		sum += g
		sumSq += g * g
	}
	mean = sum / float64(n)
	variance := sumSq/float64(n) - mean*mean
	return mean, math.Sqrt(max(variance, 0)) / mean
}

func TestProcessMeanAndCV(t *testing.T) {
	const n = 200000
	tests := []struct {
		p      Process
		wantCV float64
	}{
		{Constant{}, 0},                      // perfectly regular
		{Poisson{}, 1},                       // exponential gaps
		{Gamma{Burstiness: 0.25}, 2},         // very bursty: CV = 1/sqrt(0.25)
		{Gamma{Burstiness: 0.5}, math.Sqrt2}, // bursty
		{Gamma{Burstiness: 1}, 1},            // gamma of shape 1 is Poisson
		{Gamma{Burstiness: 2}, 1 / math.Sqrt2},
		{Gamma{Burstiness: 4}, 0.5},   // smoother than Poisson
		{Gamma{Burstiness: 100}, 0.1}, // nearly constant
		{Weibull{Shape: 1}, 1},        // Weibull of shape 1 is Poisson
		// CV = sqrt(Γ(1+2/k)/Γ(1+1/k)² − 1): 0.5227 for k = 2, 0.3634 for 3.
		{Weibull{Shape: 2}, 0.5227},
		{Weibull{Shape: 3}, 0.3634},
	}
	for _, tt := range tests {
		mean, cv := moments(tt.p, n, 11)
		// The sample mean's standard error is CV/sqrt(n); allow 5 of them.
		if tol := 5*tt.wantCV/math.Sqrt(n) + 1e-12; math.Abs(mean-1) > tol {
			t.Errorf("%v: mean gap %.5f, want 1 ± %.5f", tt.p, mean, tol)
		}
		if math.Abs(cv-tt.wantCV) > 0.03*tt.wantCV+1e-12 {
			t.Errorf("%v: CV %.4f, want %.4f ± 3%%", tt.p, cv, tt.wantCV)
		}
	}
}

func TestGammaVariateMoments(t *testing.T) {
	const n = 200000
	// Gamma(shape, 1) has mean shape and variance shape.
	for _, shape := range []float64{
		0.05, // deep in the boosted branch: most draws are tiny
		0.5,  // boosted branch
		1,    // boundary of the squeeze method
		3,    // squeeze method
		250,  // large shape: nearly normal
	} {
		rng := rand.New(rand.NewPCG(3, uint64(shape*1000)))
		var sum, sumSq float64
		for i := 0; i < n; i++ {
			x := gammaVariate(rng, shape)
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("gammaVariate(%v) = %v", shape, x)
			}
			sum += x
			sumSq += x * x
		}
		mean := sum / n
		variance := sumSq/n - mean*mean
		if se := math.Sqrt(shape / n); math.Abs(mean-shape) > 5*se {
			t.Errorf("shape %v: mean %.4f, want %.4f ± %.4f", shape, mean, shape, 5*se)
		}
		if math.Abs(variance-shape) > 0.05*shape {
			t.Errorf("shape %v: variance %.4f, want %.4f ± 5%%", shape, variance, shape)
		}
	}
}

// ksExponential returns the Kolmogorov–Smirnov distance between the gaps and
// the exponential distribution of the given rate.
func ksExponential(gaps []float64, rate float64) float64 {
	sorted := slices.Sorted(slices.Values(gaps))
	n := float64(len(sorted))
	d := 0.0
	for i, x := range sorted {
		f := 1 - math.Exp(-rate*x)
		d = max(d, math.Abs(float64(i+1)/n-f), math.Abs(f-float64(i)/n))
	}
	return d
}

func scheduleGaps(t *testing.T, c Config) []float64 {
	t.Helper()
	s, err := c.schedule()
	if err != nil {
		t.Fatal(err)
	}
	gaps := make([]float64, s.Len()-1)
	for i := range gaps {
		gaps[i] = (s.Offsets[i+1] - s.Offsets[i]).Seconds()
	}
	return gaps
}

// TestPoissonGapsAreExponential runs a Kolmogorov–Smirnov test on the gaps
// of a Poisson schedule, with negative controls showing the test rejects
// other processes at the same mean rate.
func TestPoissonGapsAreExponential(t *testing.T) {
	const n, rate = 5000, 20.0
	critical := 1.95 / math.Sqrt(n) // α = 0.001
	base := DefaultConfig()
	base.RequestRate, base.NumPrompts = rate, n+1
	tests := []struct {
		name   string
		arr    Kind
		b      float64
		reject bool
	}{
		{"poisson", KindPoisson, 1, false},        // the null hypothesis holds
		{"default at burstiness 1", "", 1, false}, // the default is Poisson too
		{"constant", KindConstant, 1, true},       // every gap is 50 ms
		{"bursty gamma", KindGamma, 0.5, true},    // too many short and long gaps
		{"smooth gamma", KindGamma, 3, true},      // too few short gaps
	}
	for _, tt := range tests {
		c := base
		c.Arrival, c.Burstiness = tt.arr, tt.b
		d := ksExponential(scheduleGaps(t, c), rate)
		if rejected := d > critical; rejected != tt.reject {
			t.Errorf("%s: KS distance %.4f vs critical %.4f: rejected = %v, want %v", tt.name, d, critical, rejected, tt.reject)
		}
	}
}

func TestWeibullCV(t *testing.T) {
	for _, tt := range []struct{ shape, cv float64 }{
		{1, 1},
		{2, 0.522723},
		// ServeGen's bursty windows: shape 0.375 is a CV of 3.51.
		{0.375, 3.506435},
		{0.5, math.Sqrt(5)},
	} {
		if got := (Weibull{Shape: tt.shape}).CV(); math.Abs(got-tt.cv) > 1e-6 {
			t.Errorf("Weibull{%v}.CV() = %.6f, want %.6f", tt.shape, got, tt.cv)
		}
	}
}
