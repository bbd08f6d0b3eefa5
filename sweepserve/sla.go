package sweepserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Criterion is one SLA constraint on a figure of vLLM's result, as vLLM's
// serve_sla takes them: {"p99_e2el_ms": "<=500"}.
type Criterion struct {
	Key    string  // a key of the result, such as p99_ttft_ms or request_throughput
	Op     string  // <=, >=, < or >
	Target float64 // the bound
}

// SLA is a set of criteria that must all hold.
type SLA []Criterion

// Text writes the criteria as vLLM does, "p99_e2el_ms<=500.00", joined by
// sep.
func (s SLA) Text(sep string) string {
	var parts []string
	for _, c := range s {
		parts = append(parts, fmt.Sprintf("%s%s%.2f", c.Key, c.Op, c.Target))
	}
	return strings.Join(parts, sep)
}

// ReadSLAParams reads a file of SLAs: a JSON list of objects whose values
// are an operator and a number, as [{"p99_e2el_ms": "<=200"}, …].
func ReadSLAParams(path string) ([]SLA, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var list []json.RawMessage
	if err := json.Unmarshal(b, &list); err != nil {
		if t := bytes.TrimSpace(b); len(t) > 0 && t[0] != '[' {
			return nil, fmt.Errorf("%s: want a JSON list of SLAs, as [{\"p99_e2el_ms\": \"<=500\"}]", path)
		}
		return nil, jsonError(path, b, err)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%s: holds no SLA", path)
	}
	var slas []SLA
	for i, raw := range list {
		var o Object
		if err := json.Unmarshal(raw, &o); err != nil || len(o) == 0 {
			return nil, fmt.Errorf("%s: SLA %d: want an object of constraints, as {\"p99_e2el_ms\": \"<=500\"}", path, i+1)
		}
		var sla SLA
		for _, f := range o {
			c, err := parseCriterion(f.Key, f.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: SLA %d: %w", path, i+1, err)
			}
			sla = append(sla, c)
		}
		slas = append(slas, sla)
	}
	return slas, nil
}

func parseCriterion(key string, v json.RawMessage) (Criterion, error) {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return Criterion{}, fmt.Errorf("%s: want a string of an operator and a number, as \"<=500\"", key)
	}
	s = strings.TrimSpace(s)
	for _, op := range []string{"<=", ">=", "<", ">"} {
		if rest, ok := strings.CutPrefix(s, op); ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return Criterion{}, fmt.Errorf("%s %q: %q is not a number", key, s, rest)
			}
			return Criterion{Key: key, Op: op, Target: x}, nil
		}
	}
	return Criterion{}, fmt.Errorf("%s %q: want an operator (<=, >=, < or >) and a number, as \"<=500\"", key, s)
}

// margin is how far runs are from meeting the SLA, by the mean of each
// figure over the runs: the largest, over the criteria, of how far the
// figure is past its bound as a fraction of the bound (0 on the bound),
// and whether every criterion holds. A figure the results lack is an
// error naming it.
func (s SLA) margin(runs []Object) (m float64, ok bool, err error) {
	m, ok = math.Inf(-1), true
	for _, c := range s {
		mean, has := meanOf(runs, c.Key)
		if !has {
			return 0, false, fmt.Errorf("the SLA's %s is not a figure of the benchmark's result", c.Key)
		}
		scale := math.Abs(c.Target)
		if scale == 0 {
			scale = 1
		}
		var past float64
		var holds bool
		switch c.Op {
		case "<=":
			past, holds = (mean-c.Target)/scale, mean <= c.Target
		case "<":
			past, holds = (mean-c.Target)/scale, mean < c.Target
		case ">=":
			past, holds = (c.Target-mean)/scale, mean >= c.Target
		case ">":
			past, holds = (c.Target-mean)/scale, mean > c.Target
		}
		m = max(m, past)
		ok = ok && holds
	}
	return m, ok, nil
}

// SLA search bounds: a load of 1, and 65,536 standing for unbounded, as
// vLLM's serve_sla has them.
const (
	slaMin = 1
	slaMax = 65536
	// slaMaxIterations bounds the loads one search measures.
	slaMaxIterations = 16
)

// SLAOutcome is what an SLA search found for one combination.
type SLAOutcome struct {
	SLA      SLA
	Variable string  // request_rate or max_concurrency
	Best     float64 // the highest load measured that met the SLA; 0 when none did
	Failing  float64 // the lowest load measured that missed it; 0 when none did
	Tried    []float64
	BestRuns []Object // the runs at Best
}

// slaSearch finds the highest value of the SLA variable (an integer, from
// 1 to 65,536) at which c's runs meet sla: it measures the top, then 1,
// then between the highest passing and the lowest failing load, where the
// margin interpolated between them in log load crosses zero (kept within
// the middle third of the bracket), until the two are adjacent. A failed
// concurrency above the most requests the runs ever had active in one
// second (max_concurrent_requests, at least the most in flight at once)
// counts as failing at that many, since the excess changed nothing.
func (r *runner) slaSearch(ctx context.Context, srv *server, c *Combination, sla SLA) (*SLAOutcome, error) {
	v := r.cfg.SLAVariable
	out := &SLAOutcome{SLA: sla, Variable: v}
	// A point is a load measured and its margin; peak is the most
	// requests its runs had active in one second (their mean), 0 when
	// unknown.
	type point struct{ x, m, peak float64 }
	var pass, fail *point
	measure := func(x float64) (point, bool, error) {
		dir := filepath.Join(c.Dir, v+"="+strconv.FormatFloat(x, 'f', -1, 64))
		item := c.Bench.With(v, json.RawMessage(strconv.FormatFloat(x, 'f', -1, 64)))
		r.printf("  %s, %s %g for %s:\n", comboLabel(c), v, x, sla.Text(", "))
		runs, err := r.iteration(ctx, srv, c, item, dir)
		if err != nil || r.cfg.DryRun {
			return point{}, false, err
		}
		out.Tried = append(out.Tried, x)
		c.Runs = append(c.Runs, runs...)
		m, ok, err := sla.margin(runs)
		if err != nil {
			return point{}, false, err
		}
		verdict := "missed"
		if ok {
			verdict = "met"
			if x > out.Best {
				out.Best, out.BestRuns = x, runs
			}
		}
		r.printf("  → SLA %s at %s %g (margin %+.3f)\n", verdict, v, x, m)
		peak, _ := meanOf(runs, "max_concurrent_requests")
		return point{x, m, peak}, ok, nil
	}
	next := func() float64 {
		switch {
		case pass == nil && fail == nil:
			return slaMax
		case pass == nil:
			if fail.x <= slaMin {
				return 0
			}
			return slaMin
		case fail == nil || fail.x-pass.x <= 1:
			return 0
		}
		// Interpolate where the margin crosses zero, in log load, but
		// never closer to either end than a third of the way: a curve that
		// bends (or a plateau) then still halves the bracket every two
		// loads or so.
		t := 0.5
		if pass.m < 0 && fail.m > 0 {
			t = min(max(-pass.m/(fail.m-pass.m), 1.0/3), 2.0/3)
		}
		lo, hi := math.Log(pass.x), math.Log(fail.x)
		x := math.Round(math.Exp(lo + t*(hi-lo)))
		return min(max(x, pass.x+1), fail.x-1)
	}
	for range slaMaxIterations {
		x := next()
		if x == 0 {
			break
		}
		p, ok, err := measure(x)
		if err != nil {
			return out, err
		}
		if r.cfg.DryRun {
			break
		}
		if ok {
			pass = &p
		} else {
			fail = &p
			// A concurrency above the most requests that were ever in
			// flight at once changed nothing: the load that failed is
			// that many.
			if e := math.Floor(p.peak); v == "max_concurrency" && e >= slaMin && e < fail.x && (pass == nil || e > pass.x) {
				fail.x = e
			}
		}
	}
	if fail != nil {
		out.Failing = fail.x
	}
	return out, nil
}

// iteration runs the benchmark NumRuns times at one load into dir, as a
// combination's runs (run=N.json, summary.json), and returns them.
func (r *runner) iteration(ctx context.Context, srv *server, c *Combination, item Item, dir string) ([]Object, error) {
	var runs []Object
	for n := range r.cfg.NumRuns {
		data, err := r.bench(ctx, srv, c, item, n, runPath(dir, n))
		if err != nil {
			return nil, err
		}
		if data != nil {
			runs = append(runs, data)
		}
	}
	if r.cfg.DryRun {
		return nil, nil
	}
	b, err := writeJSON(runs)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644)
	}
	return runs, err
}

// meanOf is the mean of key over runs, when every run has it.
func meanOf(runs []Object, key string) (float64, bool) {
	if len(runs) == 0 {
		return 0, false
	}
	var sum float64
	for _, o := range runs {
		x, ok := o.Number(key)
		if !ok {
			return 0, false
		}
		sum += x
	}
	return sum / float64(len(runs)), true
}

// slaPath is where an SLA search's runs are gathered, as vLLM names it.
func slaPath(c *Combination, sla SLA) string {
	return filepath.Join(c.Dir, sanitize("SLA--"+sla.Text("-")+".json"))
}
