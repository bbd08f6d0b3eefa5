package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
)

// Explain returns the arithmetic behind p, one step a line, with every
// number, in the order Compute did it. Sections the Input did not allow
// (no peak, no token counts, no cost) are left out.
func (p Plan) Explain() string {
	in := p.Input
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, "  "+format+"\n", args...) }
	head := func(s string) { b.WriteString(s + "\n") }
	qps := func(v float64) string { return human.Number(v) + " req/s" }
	money := func(v float64) string { return formatMoney(in.Currency, v) }

	head("Per-replica throughput (Little's Law: L = λ × W, so λ = L ÷ W)")
	if in.Source != "" {
		line("from %s", in.Source)
	}
	little := !math.IsNaN(p.LittleQPS)
	if little {
		cap, lat := "max-num-seqs", "mean latency"
		switch {
		case in.Measured.Concurrency:
			cap, lat = "the measured concurrency", "measured mean latency"
		case in.Source != "":
			// Beside measured figures, say that these were not.
			cap, lat = "max-num-seqs, as given", "mean latency, as given"
		}
		line("λ = %s requests in flight (%s) ÷ %s %s = %s per replica",
			human.Count(float64(in.MaxNumSeqs)), cap, seconds(in.Latency.Seconds()), lat, qps(p.LittleQPS))
	}
	if in.PerReplicaQPS > 0 {
		how := "given"
		if in.Measured.QPS {
			how = "measured"
		}
		line("per-replica throughput, as %s: %s", how, qps(in.PerReplicaQPS))
		if little {
			// Only two measurements of one load can disagree for want of
			// a steady state; a given figure may describe another load.
			why := "they do not describe the same load"
			if in.Measured.QPS && in.Measured.Concurrency {
				why = "the measurement was not in steady state"
			}
			gap := p.LittleQPS/in.PerReplicaQPS - 1
			line("Little's Law check: %s against %s %s, %s apart (a large gap means %s)",
				qps(p.LittleQPS), qps(in.PerReplicaQPS), how, human.Percent(math.Abs(gap)), why)
		}
	}

	if in.PeakQPS > 0 {
		head("Replicas")
		if in.Headroom > 0 {
			line("demand = %s peak × (1 + %s headroom) = %s", qps(in.PeakQPS), human.Percent(in.Headroom), qps(p.DemandQPS))
		} else {
			line("demand = %s peak (no headroom)", qps(in.PeakQPS))
		}
		line("replicas = ⌈%s ÷ %s⌉ = ⌈%s⌉ = %s",
			qps(p.DemandQPS), qps(p.PerReplicaQPS), p.ReplicaQuotient(), human.Count(float64(p.Replicas)))
		line("at the peak each replica serves %s ÷ %s = %s, %s of its %s",
			qps(in.PeakQPS), human.Count(float64(p.Replicas)), qps(in.PeakQPS/float64(p.Replicas)),
			human.Percent(p.Utilisation), qps(p.PerReplicaQPS))
	}

	if !math.IsNaN(p.ReplicaTokensPerSecond) {
		head("Output tokens")
		m := in.Measured
		switch {
		case in.ReplicaTokensPerSecond > 0:
			line("per replica, as given: %s tok/s, so %s tok/s ÷ %s = %s tokens per request",
				human.Number(p.ReplicaTokensPerSecond), human.Number(p.ReplicaTokensPerSecond), qps(p.PerReplicaQPS), human.Number(p.TokensPerRequest))
		case m.OutputTokensPerSecond > 0 && m.RequestsPerSecond > 0:
			line("tokens per request, as measured: %s tok/s ÷ %s = %s", human.Number(m.OutputTokensPerSecond),
				qps(m.RequestsPerSecond), human.Number(p.TokensPerRequest))
			fallthrough
		default:
			line("per replica = %s × %s tokens per request = %s tok/s",
				qps(p.PerReplicaQPS), human.Number(p.TokensPerRequest), human.Number(p.ReplicaTokensPerSecond))
		}
		if p.Replicas > 0 {
			line("fleet capacity = %s × %s tok/s = %s tok/s",
				human.Count(float64(p.Replicas)), human.Number(p.ReplicaTokensPerSecond), human.Number(p.FleetTokensPerSecond))
			line("at the peak the fleet emits %s × %s tokens = %s tok/s",
				qps(in.PeakQPS), human.Number(p.TokensPerRequest), human.Number(p.PeakTokensPerSecond))
		}
	}

	if !math.IsNaN(p.ReplicaHourCost) {
		head("Cost")
		line("per replica-hour = %s × %s per GPU-hour = %s",
			gpus(p.GPUsPerReplica), money(in.GPUHourCost), money(p.ReplicaHourCost))
		if !math.IsNaN(p.CostPerMillion) {
			line("per million output tokens at the operating point = %s ÷ (%s tok/s × 3,600 s) × 1,000,000 = %s",
				money(p.ReplicaHourCost), human.Number(p.ReplicaTokensPerSecond), money(p.CostPerMillion))
		}
		if p.Replicas > 0 {
			line("fleet per hour = %s × %s = %s", human.Count(float64(p.Replicas)), money(p.ReplicaHourCost), money(p.FleetHourCost))
			if !math.IsNaN(p.PeakCostPerMillion) {
				line("per million output tokens at the peak = %s ÷ (%s tok/s × 3,600 s) × 1,000,000 = %s",
					money(p.FleetHourCost), human.Number(p.PeakTokensPerSecond), money(p.PeakCostPerMillion))
			}
		}
		if math.IsNaN(p.CostPerMillion) {
			line("no cost per token: give --output-tokens or --output-throughput")
		}
	}
	return b.String()
}

// ReplicaQuotient writes DemandQPS ÷ PerReplicaQPS, the number whose
// ceiling is Replicas, with three significant digits, or with as many more
// decimals as it takes for the number written to have that ceiling too,
// and to be a whole number only when the quotient is one: 10.001 needs 11
// replicas, where "⌈10.0⌉ = 11" would read as a mistake, and 333.5 needs
// 334, where "⌈334⌉" would hide that the last replica is half used. It is
// "n/a" without a peak.
func (p Plan) ReplicaQuotient() string {
	x := p.DemandQPS / p.PerReplicaQPS
	if p.Replicas == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return human.Number(math.NaN())
	}
	s := human.Number(x)
	for d := 1; d <= 12 && !readsAs(s, x, p.Replicas); d++ {
		s = human.Thousands(strconv.FormatFloat(x, 'f', d, 64))
	}
	return s
}

// readsAs reports whether s, x as written, needs n replicas as x does and
// is a whole number only if x is one.
func readsAs(s string, x float64, n int) bool {
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	return err == nil && max(1, ceilTolerant(v)) == float64(n) && (!whole(v) || whole(x))
}

// whole reports whether x is a whole number up to the rounding error that
// ceilTolerant forgives.
func whole(x float64) bool {
	return math.Abs(x-math.Round(x)) <= 1e-9*math.Max(1, math.Abs(x))
}

func gpus(n int) string {
	if n == 1 {
		return "1 GPU"
	}
	return human.Count(float64(n)) + " GPUs"
}

// Summary states the plan in one line: "8 replicas (16 GPUs) for 100
// req/s at peak with 20 % headroom: 32,000 tok/s of capacity, $40.00 an
// hour, $0.444 per million output tokens at the peak." Without a peak it
// gives one replica's rate.
func (p Plan) Summary() string {
	in := p.Input
	money := func(v float64) string { return formatMoney(in.Currency, v) }
	if p.Replicas == 0 {
		s := "One replica sustains " + human.Number(p.PerReplicaQPS) + " req/s"
		if !math.IsNaN(p.ReplicaTokensPerSecond) {
			s += " (" + human.Number(p.ReplicaTokensPerSecond) + " output tok/s)"
		}
		if !math.IsNaN(p.CostPerMillion) {
			s += " at " + money(p.CostPerMillion) + " per million output tokens"
		}
		return s + "; give --peak-qps to size a fleet."
	}
	replicas := "replicas"
	if p.Replicas == 1 {
		replicas = "replica"
	}
	s := fmt.Sprintf("%s %s (%s) for %s req/s at peak", human.Count(float64(p.Replicas)), replicas,
		gpus(p.Replicas*p.GPUsPerReplica), human.Number(in.PeakQPS))
	if in.Headroom > 0 {
		s += " with " + human.Percent(in.Headroom) + " headroom"
	}
	var parts []string
	if !math.IsNaN(p.FleetTokensPerSecond) {
		parts = append(parts, human.Number(p.FleetTokensPerSecond)+" output tok/s of capacity")
	}
	if !math.IsNaN(p.FleetHourCost) {
		parts = append(parts, money(p.FleetHourCost)+" an hour")
	}
	if !math.IsNaN(p.PeakCostPerMillion) {
		parts = append(parts, money(p.PeakCostPerMillion)+" per million output tokens at the peak")
	}
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s + "."
}
