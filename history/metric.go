package history

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/sweep"
)

// ResultMetrics returns the numbers of a bench result by key: counts,
// rates, goodput and attainment (when the run had an SLO), and for every
// latency metric its mean, std, min, max and each percentile computed
// ("ttft_p99", "e2e_mean"). The keys are those goodput compare and the
// sweep files use. Numbers that are not finite are left out.
func ResultMetrics(r *metrics.Result) map[string]float64 {
	if r == nil {
		return nil
	}
	m := map[string]float64{
		"requests":           float64(r.Counts.Total),
		"completed":          float64(r.Counts.Completed),
		"failed":             float64(r.Counts.Failed),
		"error_rate":         r.Counts.ErrorRate,
		"window_seconds":     r.Window.Seconds,
		"input_tokens":       float64(r.Tokens.Input),
		"output_tokens":      float64(r.Tokens.Output),
		"request_throughput": r.Throughput.RequestsPerSecond,
		"output_throughput":  r.Throughput.OutputTokensPerSecond,
		"input_throughput":   r.Throughput.InputTokensPerSecond,
		"total_throughput":   r.Throughput.TotalTokensPerSecond,
		"littles_law_gap":    r.LittlesLaw.RelativeGap,
		"in_flight_mean":     r.LittlesLaw.InFlight,
	}
	if g := r.Goodput; g != nil {
		m["goodput"] = g.OutputTokensPerSecond
		m["request_goodput"] = g.RequestsPerSecond
		m["attainment"] = g.Attainment
	}
	for _, mt := range metrics.Metrics() {
		d := r.Distribution(mt)
		if d == nil || d.Count == 0 {
			continue
		}
		k := string(mt) + "_"
		m[k+"mean"], m[k+"std"], m[k+"min"], m[k+"max"] = d.Mean, d.Std, d.Min, d.Max
		for _, p := range d.Percentiles {
			m[k+"p"+strconv.FormatFloat(p.P, 'f', -1, 64)] = p.Value
		}
	}
	return finite(m)
}

// SweepMetrics returns the numbers of a sweep by key: its points, the
// operating point's load and throughputs, the goodput peak and the knee.
func SweepMetrics(s sweep.Summary) map[string]float64 {
	m := map[string]float64{"points": float64(len(s.Points))}
	if op := s.Operating; op.Found && op.Index < len(s.Points) {
		p := s.Points[op.Index]
		m["operating_load"] = op.Load.Value
		m["operating_request_throughput"] = p.Mean.RequestThroughput
		m["operating_output_throughput"] = p.Mean.OutputThroughput
		m["operating_goodput"] = p.Mean.Goodput
		m["operating_ttft_p99"] = p.Mean.TTFT.P99
		m["operating_e2e_mean"] = p.Mean.E2E.Mean
	}
	if g := s.GoodputPeak; g.Found {
		m["goodput_peak"] = g.Score
		m["goodput_peak_load"] = g.Load.Value
	}
	if k := s.Power; k.Found {
		m["knee_load"] = k.Load.Value
	}
	return finite(m)
}

// sweepMetricsJSON reads a sweep file's content and returns its numbers.
func sweepMetricsJSON(b []byte) (map[string]float64, error) {
	s, err := sweep.ReadJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return SweepMetrics(s), nil
}

func finite(m map[string]float64) map[string]float64 {
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			delete(m, k)
		}
	}
	return m
}

// Direction says which way a metric improves: -1 lower (latencies, errors),
// +1 higher (throughput, goodput, attainment), 0 neither (counts, lengths).
func Direction(key string) int {
	switch {
	case key == "error_rate" || key == "failed" || key == "littles_law_gap":
		return -1
	case IsLatency(key):
		return -1
	case strings.HasSuffix(key, "throughput") || strings.Contains(key, "goodput") || key == "attainment":
		return 1
	}
	return 0
}

// IsLatency reports whether key names a latency, in seconds.
func IsLatency(key string) bool {
	if strings.HasPrefix(key, "operating_") {
		key = strings.TrimPrefix(key, "operating_")
	}
	for _, mt := range metrics.Metrics() {
		if strings.HasPrefix(key, string(mt)+"_") {
			rest := strings.TrimPrefix(key, string(mt)+"_")
			// "ttft_p99" but not "tpot_…" read as "ttft_sent_…".
			if rest == "mean" || rest == "std" || rest == "min" || rest == "max" || (strings.HasPrefix(rest, "p") && isNumber(rest[1:])) {
				return true
			}
		}
	}
	return false
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && s != ""
}

// MetricKeys lists the keys of m, sorted.
func MetricKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
