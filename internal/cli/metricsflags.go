package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/slo"
)

// DefaultSLO is the per-request SLO used when none is given: the seeds'
// example promise, a first token within half a second and a stream at least
// 20 tokens per second.
const DefaultSLO = "ttft<=500ms,tpot<=50ms"

// metricsFlags are the flags that shape the numbers, shared by every command
// that computes a summary (bench, analyze, sweep).
type metricsFlags struct {
	goodput     []string // --goodput, vLLM's form: ttft:500 tpot:50
	slo         string   // --slo: ttft<=500ms,tpot<=50ms, or none
	gates       []string
	percentiles string
	method      string
	warmup      bool // --include-warmup
}

func (m *metricsFlags) register(cmd *cobra.Command, warmupFlag bool) {
	fl := cmd.Flags()
	fl.StringArrayVar(&m.goodput, "goodput", nil, `per-request SLO in vLLM's form, milliseconds: --goodput "ttft:500 tpot:50" (AIPerf's time_to_first_token, inter_token_latency and request_latency too)`)
	fl.Var(nonEmpty{&m.slo, `give conditions such as "ttft<=500ms,tpot<=50ms", or "none"`}, "slo", `per-request SLO, e.g. "ttft<=500ms,tpot<=50ms,e2e<=10s" (default `+DefaultSLO+`; "none" for no goodput)`)
	fl.StringArrayVar(&m.gates, "gate", nil, `pass/fail gate, e.g. "p99(ttft)<=500ms", "attainment>=0.9" or, for sessions, "session_attainment>=0.8" (repeatable; exit code 3 when one fails)`)
	fl.StringVar(&m.percentiles, "metric-percentiles", "50,90,99", "percentiles to report")
	fl.StringVar(&m.method, "percentile-method", "linear", "linear (NumPy's, as vllm bench serve) or nearest-rank")
	if warmupFlag {
		fl.BoolVar(&m.warmup, "include-warmup", false, "count warm-up requests in the statistics")
	}
}

// apply puts the flags into o and returns the parsed gates.
func (m *metricsFlags) apply(o *metrics.Options) (slo.Gates, error) {
	var err error
	if o.Percentiles, err = metrics.ParsePercentiles(m.percentiles); err != nil {
		return nil, usageErr("--metric-percentiles: %v", err)
	}
	if o.Method, err = metrics.ParseMethod(m.method); err != nil {
		return nil, usageErr("--percentile-method: %v", err)
	}
	o.IncludeWarmup = m.warmup
	expr := m.slo
	switch {
	case len(m.goodput) > 0 && m.slo != "":
		return nil, usageErr("give the SLO with --goodput or --slo, not both")
	case len(m.goodput) > 0:
		expr = strings.Join(m.goodput, " ")
	case expr == "":
		expr = DefaultSLO
	}
	if !strings.EqualFold(expr, "none") {
		conds, err := slo.ParseConditions(expr)
		if err != nil {
			flag := "--slo"
			if len(m.goodput) > 0 {
				flag = "--goodput"
			}
			return nil, usageErr("%s: %v", flag, err)
		}
		conds.Apply(o)
	}
	var gates slo.Gates
	for _, g := range m.gates {
		gs, err := slo.ParseGates(g)
		if err != nil {
			return nil, usageErr("--gate: %v", err)
		}
		gates = append(gates, gs...)
	}
	gates.Require(o)
	return gates, nil
}

// reportGates prints each gate's verdict and returns an ExitGateFail error
// when any failed.
func reportGates(env *Env, gates slo.Gates, res *metrics.Result) error {
	if len(gates) == 0 {
		return nil
	}
	results, ok := gates.Eval(res)
	for _, r := range results {
		fmt.Fprintf(env.Stdout, "Gate: %s\n", r)
	}
	if !ok {
		return &ExitError{Code: ExitGateFail, Err: fmt.Errorf("%d of %d gates failed", countFailed(results), len(results))}
	}
	return nil
}

func countFailed(rs []slo.GateResult) int {
	n := 0
	for _, r := range rs {
		if !r.Pass {
			n++
		}
	}
	return n
}
