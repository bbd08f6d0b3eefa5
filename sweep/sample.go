package sweep

import (
	"fmt"
	"math"
	"strings"
)

// Dist is a latency distribution at the percentiles a sweep reads, in
// seconds. A field is NaN when the measurement did not define it (no
// request produced two tokens, so no TPOT; or the percentile was not
// computed).
type Dist struct {
	Mean float64
	P50  float64
	P90  float64
	P99  float64
}

// Sample is one measurement of one load level. Latencies are in seconds,
// throughputs per second of the measurement window, and Attainment is the
// fraction of requests (failures included) that met the per-request SLO.
// When the measurement had no SLO, every successful request counts as good:
// Goodput equals OutputThroughput and Attainment is the success rate.
type Sample struct {
	Requests  int     // measured requests, failures included
	ErrorRate float64 // failed ÷ Requests
	Window    float64 // the measurement window W, seconds

	RequestThroughput float64 // completed requests per second
	OutputThroughput  float64 // output tokens per second
	Goodput           float64 // output tokens per second of requests that met the SLO
	RequestGoodput    float64 // requests per second that met the SLO
	Attainment        float64 // good requests ÷ Requests

	TTFT Dist
	TPOT Dist
	ITL  Dist
	E2E  Dist

	// LittleL is L, the time-average of requests in flight; LittleLambdaW
	// is λ·W̄, completions per second times mean e2e. Far apart, they say
	// the load was not in steady state.
	LittleL       float64
	LittleLambdaW float64

	// ClientLagP99 is the 99th percentile of the client's own queueing
	// (sent − scheduled): large values mean the load generator, not the
	// server, limited the offered load.
	ClientLagP99 float64
}

// Stat names one number of a Sample, such as "e2e_mean" or "ttft_p99". The
// names are the keys of the sweep's JSON and CSV output.
type Stat string

// Stats that analysis options commonly use.
const (
	StatE2EMean           Stat = "e2e_mean"
	StatE2EP50            Stat = "e2e_p50"
	StatTTFTP99           Stat = "ttft_p99"
	StatTPOTP99           Stat = "tpot_p99"
	StatOutputThroughput  Stat = "output_throughput"
	StatRequestThroughput Stat = "request_throughput"
	StatGoodput           Stat = "goodput"
	StatAttainment        Stat = "attainment"
)

// field binds a Stat name to the Sample field that holds it. The table is
// the single list of a Sample's numbers: aggregation over repeats, JSON,
// CSV and Stat lookup all walk it, so a new field is added in one place.
type field struct {
	name  Stat
	label string // how prose names it
	ptr   func(*Sample) *float64
}

var fields = buildFields()

func buildFields() []field {
	fs := []field{
		{"error_rate", "error rate", func(s *Sample) *float64 { return &s.ErrorRate }},
		{"window", "window", func(s *Sample) *float64 { return &s.Window }},
		{StatRequestThroughput, "request throughput", func(s *Sample) *float64 { return &s.RequestThroughput }},
		{StatOutputThroughput, "output throughput", func(s *Sample) *float64 { return &s.OutputThroughput }},
		{StatGoodput, "goodput", func(s *Sample) *float64 { return &s.Goodput }},
		{"request_goodput", "request goodput", func(s *Sample) *float64 { return &s.RequestGoodput }},
		{StatAttainment, "SLO attainment", func(s *Sample) *float64 { return &s.Attainment }},
	}
	dists := []struct {
		name, label string
		get         func(*Sample) *Dist
	}{
		{"ttft", "TTFT", func(s *Sample) *Dist { return &s.TTFT }},
		{"tpot", "TPOT", func(s *Sample) *Dist { return &s.TPOT }},
		{"itl", "ITL", func(s *Sample) *Dist { return &s.ITL }},
		{"e2e", "e2e", func(s *Sample) *Dist { return &s.E2E }},
	}
	for _, d := range dists {
		get := d.get
		fs = append(fs,
			field{Stat(d.name + "_mean"), "mean " + d.label, func(s *Sample) *float64 { return &get(s).Mean }},
			field{Stat(d.name + "_p50"), "p50 " + d.label, func(s *Sample) *float64 { return &get(s).P50 }},
			field{Stat(d.name + "_p90"), "p90 " + d.label, func(s *Sample) *float64 { return &get(s).P90 }},
			field{Stat(d.name + "_p99"), "p99 " + d.label, func(s *Sample) *float64 { return &get(s).P99 }},
		)
	}
	return append(fs,
		field{"little_l", "L (mean in flight)", func(s *Sample) *float64 { return &s.LittleL }},
		field{"little_lambda_w", "λ·W̄", func(s *Sample) *float64 { return &s.LittleLambdaW }},
		field{"client_lag_p99", "p99 client lag", func(s *Sample) *float64 { return &s.ClientLagP99 }},
	)
}

func lookup(s Stat) (field, bool) {
	for _, f := range fields {
		if f.name == s {
			return f, true
		}
	}
	return field{}, false
}

// Stats lists every Stat name in output order.
func Stats() []Stat {
	out := make([]Stat, len(fields))
	for i, f := range fields {
		out[i] = f.name
	}
	return out
}

// ParseStat checks that s names a Sample number and returns it.
func ParseStat(s string) (Stat, error) {
	st := Stat(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := lookup(st); !ok {
		return "", fmt.Errorf("statistic %q: unknown (want one of %s)", s, joinStats())
	}
	return st, nil
}

func joinStats() string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = string(f.name)
	}
	return strings.Join(names, ", ")
}

// Of returns the value of s in x, or NaN when s names no Sample number.
func (s Stat) Of(x Sample) float64 {
	f, ok := lookup(s)
	if !ok {
		return math.NaN()
	}
	return *f.ptr(&x)
}

// Label is how prose names s: "mean e2e", "p99 TTFT", "output throughput".
func (s Stat) Label() string {
	if f, ok := lookup(s); ok {
		return f.label
	}
	return string(s)
}

// isLatency reports whether s is a latency, printed as a duration.
func (s Stat) isLatency() bool {
	for _, p := range []string{"ttft_", "tpot_", "itl_", "e2e_", "client_lag"} {
		if strings.HasPrefix(string(s), p) {
			return true
		}
	}
	return s == "window"
}

// nanSample returns a Sample whose every number is NaN, the starting point
// for "nothing known".
func nanSample() Sample {
	var s Sample
	for _, f := range fields {
		*f.ptr(&s) = math.NaN()
	}
	return s
}

// Bounds on a Sample's figures far above any server's, so that a sweep
// file holding more (1e308 tok/s, edited or corrupt) is refused instead
// of sizing a fleet at "inf tok/s" and pricing its tokens at nothing.
const (
	MaxTokenThroughput   = 1e9 // output tokens per second (output_throughput, goodput)
	MaxRequestThroughput = 1e7 // requests per second (request_throughput, request_goodput)
	MaxSeconds           = 1e7 // a latency or the window, seconds (about 116 days)
)

// Check reports the first number of s outside its domain, naming its key:
// the fractions (attainment, error rate) lie in [0, 1], every other number
// (rates, latencies, the window, Little's Law terms) is finite and ≥ 0,
// and throughputs, latencies and the window are at most MaxTokenThroughput,
// MaxRequestThroughput or MaxSeconds. NaN, a number the measurement did
// not define, is in every domain. Readers of sweep files check every
// sample, so that no plan is sized from an attainment of 200 %, a negative
// throughput or one no server delivers.
func (s Sample) Check() error {
	if s.Requests < 0 {
		return fmt.Errorf(`"requests" %d: must be ≥ 0`, s.Requests)
	}
	for _, f := range fields {
		v := *f.ptr(&s)
		switch {
		case math.IsNaN(v):
		case f.name.fraction() && (v < 0 || v > 1):
			return fmt.Errorf("%q %v: must be from 0 to 1", f.name, v)
		case math.IsInf(v, 0):
			return fmt.Errorf("%q %v: must be a finite number", f.name, v)
		case v < 0:
			return fmt.Errorf("%q %v: must be ≥ 0", f.name, v)
		}
		if max, unit, ok := f.name.bound(); ok && v > max {
			return fmt.Errorf("%q %v: above %s, more than any run measures", f.name, v, unit)
		}
	}
	return nil
}

// bound returns the largest value of s any run can have, and that bound
// as prose; false when s has none but its domain.
func (s Stat) bound() (float64, string, bool) {
	switch {
	case s == StatOutputThroughput || s == StatGoodput:
		return MaxTokenThroughput, "1e9 tok/s", true
	case s == StatRequestThroughput || s == "request_goodput":
		return MaxRequestThroughput, "1e7 req/s", true
	case s.isLatency():
		return MaxSeconds, "1e7 s", true
	}
	return 0, "", false
}

// checkOrder fails when a latency's percentiles of s are out of order
// (p50 ≤ p90 ≤ p99, where both are given: files of earlier versions may
// lack one): no sample of requests has a p99 below its median. A Spread
// is no sample, and is not checked.
func (s Sample) checkOrder() error {
	for _, d := range []struct {
		name string
		d    Dist
	}{{"ttft", s.TTFT}, {"tpot", s.TPOT}, {"itl", s.ITL}, {"e2e", s.E2E}} {
		ps := []struct {
			name string
			v    float64
		}{{"p50", d.d.P50}, {"p90", d.d.P90}, {"p99", d.d.P99}}
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				a, b := ps[i].v, ps[j].v
				if a > 0 && b > 0 && a > b*(1+1e-9) { // 0 and NaN: not given
					return fmt.Errorf(`"%s_%s" %v is above "%s_%s" %v: percentiles out of order`, d.name, ps[i].name, a, d.name, ps[j].name, b)
				}
			}
		}
	}
	return nil
}

// fraction reports whether s is a share of requests, from 0 to 1.
func (s Stat) fraction() bool { return s == StatAttainment || s == "error_rate" }
