package arrival

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Process is an arrival process reduced to its shape: Gap draws the next
// inter-arrival gap in operational time, where the mean gap is exactly 1.
// The rate profile scales operational time to seconds, so a Process decides
// only how regular or bursty arrivals are. Implementations must be pure
// functions of rng and return finite gaps ≥ 0.
type Process interface {
	Gap(rng *rand.Rand) float64
	String() string
}

var (
	_ Process = Constant{}
	_ Process = Poisson{}
	_ Process = Gamma{}
	_ Process = Weibull{}
)

// Constant sends requests at perfectly regular intervals.
type Constant struct{}

// Gap returns 1: every gap is the mean gap.
func (Constant) Gap(*rand.Rand) float64 { return 1 }

func (Constant) String() string { return "constant" }

// Poisson is the memoryless arrival process of independent users:
// exponentially distributed gaps, coefficient of variation 1.
type Poisson struct{}

// Gap draws an exponential gap of mean 1.
func (Poisson) Gap(rng *rand.Rand) float64 { return rng.ExpFloat64() }

func (Poisson) String() string { return "poisson" }

// Gamma draws gamma-distributed gaps with shape Burstiness and scale
// 1/Burstiness (mean 1), as `vllm bench serve --burstiness` does: 1 is
// Poisson, below 1 burstier, above 1 smoother; the coefficient of variation
// of the gaps is 1/sqrt(Burstiness). Burstiness must be positive and finite
// (Config.Validate checks it).
type Gamma struct {
	Burstiness float64
}

// Gap draws a gamma gap of mean 1.
func (g Gamma) Gap(rng *rand.Rand) float64 {
	return gammaVariate(rng, g.Burstiness) / g.Burstiness
}

func (g Gamma) String() string { return fmt.Sprintf("gamma (burstiness %g)", g.Burstiness) }

// Weibull draws Weibull-distributed gaps of shape Shape scaled to mean 1:
// below 1 the gaps are burstier than Poisson's (many short, a few very
// long), 1 is Poisson, above 1 more regular. ServeGen fits it, or Gamma, to
// the inter-arrival times of production LLM traffic. Shape must be positive
// and finite.
type Weibull struct {
	Shape float64
}

// Gap draws a Weibull gap of mean 1 by inverting its distribution function.
func (w Weibull) Gap(rng *rand.Rand) float64 {
	// 1 − Float64() lies in (0, 1]: the logarithm stays finite.
	return math.Pow(-math.Log(1-rng.Float64()), 1/w.Shape) / math.Gamma(1+1/w.Shape)
}

func (w Weibull) String() string { return fmt.Sprintf("weibull (shape %g)", w.Shape) }

// CV returns the coefficient of variation of the gaps.
func (w Weibull) CV() float64 {
	g1 := math.Gamma(1 + 1/w.Shape)
	return math.Sqrt(math.Gamma(1+2/w.Shape)/(g1*g1) - 1)
}

// gammaVariate draws from the gamma distribution of the given shape and
// scale 1 with Marsaglia and Tsang's squeeze method (ACM TOMS 26(3), 2000),
// which accepts more than 95% of candidates for every shape ≥ 1. Shapes
// below 1 use the boost Gamma(a) = Gamma(a+1) · U^(1/a).
func gammaVariate(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		// 1 − Float64() lies in (0, 1], so the power never sees 0^(1/a)
		// for an a that would make it undefined.
		return gammaVariate(rng, shape+1) * math.Pow(1-rng.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
