package sweepserve

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/goodput-dev/goodput/sweep"
)

// sweepResult writes a goodput sweep's findings (its folder's sweep.json)
// as one run's result at out: the operating point (the highest load that
// met the SLO target) and its figures, the goodput peak and the knees,
// each load as a number (concurrency or req/s; null when none was found,
// or when the load is an unbounded rate) and as text ("concurrency=16").
// Latencies are in ms and throughputs per second, as vLLM's keys are.
func sweepResult(dir, out string) error {
	s, err := sweep.ReadFile(filepath.Join(dir, "sweep.json"))
	if err != nil {
		return fmt.Errorf("wrote no sweep we can read: %w", err)
	}
	o := Object{
		{"load_mode", quote(string(s.Points[0].Load.Mode))},
		{"points", number(float64(len(s.Points)))},
		{"slo_target", number(s.Operating.Target)},
	}
	pick := func(key string, p sweep.Pick) {
		o = append(o, Field{key, loadValue(p)}, Field{key + "_load", loadText(p)})
	}
	pick("operating_point", s.Operating.Pick)
	if op := s.Operating.Pick; op.Found {
		m := s.Points[op.Index].Mean
		o = append(o,
			Field{"operating_point_request_throughput", number(m.RequestThroughput)},
			Field{"operating_point_output_throughput", number(m.OutputThroughput)},
			Field{"operating_point_goodput", number(m.Goodput)},
			Field{"operating_point_attainment", number(m.Attainment)},
			Field{"operating_point_p99_ttft_ms", number(1000 * m.TTFT.P99)},
			Field{"operating_point_p99_tpot_ms", number(1000 * m.TPOT.P99)},
			Field{"operating_point_p99_e2el_ms", number(1000 * m.E2E.P99)})
	}
	pick("goodput_peak", s.GoodputPeak)
	peak := json.RawMessage("null")
	if s.GoodputPeak.Found {
		peak = number(s.GoodputPeak.Score)
	}
	o = append(o, Field{"peak_goodput", peak})
	pick("power_knee", s.Power)
	pick("curvature_knee", s.Curvature)
	o = append(o, Field{"verdict", quote(s.Verdict)})
	b, err := writeJSON(o)
	if err == nil {
		err = os.WriteFile(out, b, 0o644)
	}
	return err
}

func number(x float64) json.RawMessage {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return json.RawMessage("null")
	}
	return json.RawMessage(strconv.FormatFloat(x, 'g', -1, 64))
}

func loadValue(p sweep.Pick) json.RawMessage {
	if !p.Found {
		return json.RawMessage("null")
	}
	return number(p.Load.Value)
}

func loadText(p sweep.Pick) json.RawMessage {
	if !p.Found {
		return json.RawMessage("null")
	}
	return quote(p.Load.String())
}
