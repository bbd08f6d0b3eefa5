package sweep

import (
	"math"

	"github.com/goodput-dev/goodput/metrics"
)

// FromResult reads the numbers a sweep needs out of a metrics summary. A
// distribution with no values, or a percentile the summary was not asked
// for (see metrics.Options.Percentiles; a sweep needs 50, 90 and 99), is
// NaN rather than the zero the summary writes, so that an undefined TPOT
// never reads as a perfect one. With no SLO in the summary, every
// successful request counts as good (see Sample).
func FromResult(r *metrics.Result) Sample {
	s := nanSample()
	if r == nil {
		return s
	}
	s.Requests = int(min(r.Counts.Total, math.MaxInt32))
	s.ErrorRate = r.Counts.ErrorRate
	s.Window = r.Window.Seconds
	s.RequestThroughput = r.Throughput.RequestsPerSecond
	s.OutputThroughput = r.Throughput.OutputTokensPerSecond
	if g := r.Goodput; g != nil {
		s.Goodput = g.OutputTokensPerSecond
		s.RequestGoodput = g.RequestsPerSecond
		s.Attainment = g.Attainment
	} else {
		s.Goodput = s.OutputThroughput
		s.RequestGoodput = s.RequestThroughput
		s.Attainment = 0
		if n := r.Counts.Judged(); n > 0 {
			s.Attainment = float64(r.Counts.Completed) / float64(n)
		}
	}
	s.TTFT = distOf(&r.Latency.TTFT)
	s.TPOT = distOf(&r.Latency.TPOT)
	s.ITL = distOf(&r.Latency.ITL)
	s.E2E = distOf(&r.Latency.E2E)
	s.LittleL = r.LittlesLaw.InFlight
	s.LittleLambdaW = r.LittlesLaw.RateTimesLatency
	s.ClientLagP99 = percentile(&r.Latency.ClientQueue, 99)
	return s
}

func distOf(d *metrics.Distribution) Dist {
	if d.Count == 0 {
		return Dist{Mean: math.NaN(), P50: math.NaN(), P90: math.NaN(), P99: math.NaN()}
	}
	return Dist{Mean: d.Mean, P50: d.Median, P90: percentile(d, 90), P99: percentile(d, 99)}
}

func percentile(d *metrics.Distribution, p float64) float64 {
	if d.Count == 0 {
		return math.NaN()
	}
	v, ok := d.Percentile(p)
	if !ok {
		return math.NaN()
	}
	return v
}
