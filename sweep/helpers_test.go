package sweep

import (
	"math"
	"testing"
)

// tokensPerRequest converts the synthetic curves' request rates to output
// tokens per second.
const tokensPerRequest = 100

// synth is a Sample on a synthetic curve: a server completing reqs
// requests per second at mean e2e latency lat seconds, with attainment att.
// Its other numbers follow simple fixed shapes so that tests can compute
// them by hand: TTFT is a fifth of e2e, tpot a hundredth, p99s are 1.5×
// their mean, and Little's Law holds exactly.
func synth(reqs, lat, att float64) Sample {
	d := func(mean float64) Dist { return Dist{Mean: mean, P50: mean, P90: 1.2 * mean, P99: 1.5 * mean} }
	return Sample{
		Requests:          1000,
		ErrorRate:         0,
		Window:            60,
		RequestThroughput: reqs,
		OutputThroughput:  reqs * tokensPerRequest,
		Goodput:           reqs * tokensPerRequest * att,
		RequestGoodput:    reqs * att,
		Attainment:        att,
		TTFT:              d(lat / 5),
		TPOT:              d(lat / 100),
		ITL:               d(lat / 100),
		E2E:               d(lat),
		LittleL:           reqs * lat,
		LittleLambdaW:     reqs * lat,
		ClientLagP99:      0.001,
	}
}

// curve builds one Point per load from functions of the load's value.
func curve(t *testing.T, loads []Load, reqs, lat, att func(x float64) float64) []Point {
	t.Helper()
	out := make([]Point, len(loads))
	for i, l := range loads {
		p, err := NewPoint(l, synth(reqs(l.Value), lat(l.Value), att(l.Value)))
		if err != nil {
			t.Fatalf("NewPoint(%s): %v", l, err)
		}
		out[i] = p
	}
	return out
}

func always(v float64) func(float64) float64 { return func(float64) float64 { return v } }

// concurrencies returns concurrency loads from..to by step.
func concurrencies(from, to, step int) []Load {
	var out []Load
	for c := from; c <= to; c += step {
		out = append(out, Concurrency(c))
	}
	return out
}

// rates returns rate loads from..to by step, rounded to kill float drift.
func rates(from, to, step float64) []Load {
	var out []Load
	for r := from; r <= to+step/2; r += step {
		out = append(out, Rate(math.Round(r*1e9)/1e9))
	}
	return out
}

// mm1 is the M/M/1 queue with service rate μ = 1: at arrival rate λ it
// completes λ requests per second with mean latency 1/(μ − λ).
func mm1(t *testing.T) []Point {
	return curve(t, rates(0.05, 0.95, 0.05),
		func(l float64) float64 { return l },
		func(l float64) float64 { return 1 / (1 - l) },
		always(1))
}

// plateau is a server that saturates at concurrency 32: below, each added
// request adds throughput; above, none. Latency rises linearly with
// concurrency throughout (each request slows the batch), from 1.2 s at 4
// to 4.2 s at 64.
func plateau(t *testing.T) []Point {
	return curve(t, concurrencies(4, 64, 4),
		func(c float64) float64 { return min(c, 32) / 2 },
		func(c float64) float64 { return 1 + 0.05*c },
		always(1))
}

func near(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
