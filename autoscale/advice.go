// Package autoscale turns a server's queue into a replica count an
// autoscaler can act on: Little's Law read twice, once at the server and
// once at the operating point a sweep measured.
//
// At the server, the requests in the system (running plus waiting,
// averaged over a window) and the mean time a request spent there (its
// end-to-end latency, from the server's own histogram) give the arrival
// rate: λ = L ÷ W. That holds while the queue grows too, when the count of
// running requests alone would not show the load: requests that finish
// late came in when the queue was shorter. At the operating point, the
// highest load whose SLO attainment met its target, one replica sustains X
// requests per second (or at a lower load that finished more within the
// SLO, when throughput fell past the knee). The fleet needs ⌈λ × (1 + headroom) ÷ X⌉ replicas
// (capacity.Compute). A server that exports no latency histogram is sized
// by its requests in the system alone, against the operating point's
// concurrency L = X × W: an upper bound while a queue builds.
package autoscale

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/goodput-dev/goodput/capacity"
	"github.com/goodput-dev/goodput/sweep"
)

// Operating is one replica at its operating point, as a sweep measured it.
type Operating struct {
	Load        sweep.Load
	QPS         float64 // X: requests per second one replica sustains
	Latency     float64 // W: mean e2e there, seconds
	Concurrency float64 // L = X × W: requests in flight there
	Attainment  float64 // SLO attainment measured there
	Target      float64 // the attainment the operating point had to meet
	// OperatingPoint is the sweep's operating point when it is not Load:
	// a lower Load finished more requests per second within the SLO.
	// Zero otherwise.
	OperatingPoint sweep.Load
}

// FromSweep reads one replica's figures from a sweep: those of its
// operating point, or of the lower load that finished more requests per
// second within the SLO when throughput fell past the knee, as goodput
// plan takes them (capacity.ReplicaPoint).
func FromSweep(s sweep.Summary) (Operating, error) {
	op := s.Operating
	i := capacity.ReplicaPoint(s)
	if i < 0 {
		note := op.Note
		if note == "" {
			note = "no load met the attainment target"
		}
		return Operating{}, fmt.Errorf("the sweep has no operating point: %s", note)
	}
	p := s.Points[i]
	o := Operating{Load: p.Load, QPS: p.Mean.RequestThroughput, Latency: p.Mean.E2E.Mean, Attainment: p.Mean.Attainment, Target: op.Target}
	if i == op.Index {
		o.Attainment = op.Score
	} else {
		o.OperatingPoint = op.Load
	}
	if !(o.QPS > 0) || math.IsInf(o.QPS, 0) || !(o.Latency > 0) || math.IsInf(o.Latency, 0) {
		return Operating{}, fmt.Errorf("the operating point (%s) has no usable throughput and latency: %v req/s, %v s", p.Load.Phrase(), o.QPS, o.Latency)
	}
	o.Concurrency = o.QPS * o.Latency
	return o, nil
}

// Reading is what the servers said over a window.
type Reading struct {
	// Replicas is how many servers gave usable metrics in the window, of
	// Scraped asked.
	Replicas, Scraped int
	// Running and Waiting are summed over the replicas, each the mean of
	// its scrapes in the window.
	Running, Waiting float64
	// Latency is the mean end-to-end latency, in seconds, of the requests
	// that finished in the window, pooled over the replicas; NaN when no
	// request finished or the servers export no such histogram.
	Latency float64
	// Finished is how many requests Latency averages.
	Finished float64
	Window   time.Duration
}

// Policy bounds the advice.
type Policy struct {
	// Headroom is demand to absorb beyond the arrival rate measured, as
	// a fraction (0.2 sizes for 120 %).
	Headroom float64
	// Min and Max bound the replicas advised; Min 0 means 1, Max 0 no
	// bound.
	Min, Max int
}

// Validate reports the first problem of p, naming its flag.
func (p Policy) Validate() error {
	switch {
	case math.IsNaN(p.Headroom) || p.Headroom < 0 || p.Headroom > 10:
		return fmt.Errorf("--headroom %v: want a fraction from 0 to 10", p.Headroom)
	case p.Min < 0:
		return fmt.Errorf("--min-replicas %d: must not be negative", p.Min)
	case p.Max < 0:
		return fmt.Errorf("--max-replicas %d: must not be negative", p.Max)
	case p.Max > 0 && p.Max < max(p.Min, 1):
		return fmt.Errorf("--max-replicas %d is below --min-replicas %d", p.Max, max(p.Min, 1))
	}
	return nil
}

// Basis says how an Advice was computed.
type Basis string

// Bases of advice.
const (
	// BasisArrivals sized the fleet by the arrival rate, Little's Law at
	// the server: λ = (running + waiting) ÷ mean latency.
	BasisArrivals Basis = "arrival_rate"
	// BasisInSystem sized it by the requests in the system against the
	// operating point's concurrency (no server latency to read).
	BasisInSystem Basis = "in_system"
	// BasisIdle found nothing running or waiting.
	BasisIdle Basis = "idle"
	// BasisNone could not advise: no server gave usable metrics.
	BasisNone Basis = "none"
)

// Advice is the replica count for a Reading, with its reasoning.
type Advice struct {
	// Desired is the replicas to run; 0 when Basis is BasisNone.
	Desired  int     `json:"desired_replicas"`
	Current  int     `json:"current_replicas"` // servers that gave metrics
	Basis    Basis   `json:"basis"`
	InSystem float64 `json:"requests_in_system"` // running + waiting
	Running  float64 `json:"running"`
	Waiting  float64 `json:"waiting"`
	// Latency is the server's mean latency (NaN: none), ArrivalRate the λ
	// read from it (NaN: none), PerReplica the operating point's X.
	Latency     float64 `json:"-"`
	ArrivalRate float64 `json:"-"`
	PerReplica  float64 `json:"per_replica_qps"`
	// Reason is the advice in words.
	Reason string `json:"reason"`
}

// ErrNoMetrics is the error of Advise when no server gave usable metrics.
var ErrNoMetrics = errors.New("no server gave running or waiting counts in the window")

// Advise computes the replicas the fleet needs for r at op, within p.
func Advise(r Reading, op Operating, p Policy) (Advice, error) {
	a := Advice{Current: r.Replicas, Running: r.Running, Waiting: r.Waiting, InSystem: r.Running + r.Waiting,
		Latency: r.Latency, ArrivalRate: math.NaN(), PerReplica: op.QPS, Basis: BasisNone}
	if r.Replicas == 0 {
		a.Reason = fmt.Sprintf("%v (%d scraped): no advice", ErrNoMetrics, r.Scraped)
		return a, ErrNoMetrics
	}
	lo, hi := max(p.Min, 1), p.Max
	clamp := func(n int) (int, string) {
		switch {
		case n < lo:
			return lo, fmt.Sprintf(", raised to the minimum of %d", lo)
		case hi > 0 && n > hi:
			return hi, fmt.Sprintf(", capped at the maximum of %d", hi)
		}
		return n, ""
	}
	at := fmt.Sprintf("the sweep's operating point (%s)", op.Load.Phrase())
	if !op.OperatingPoint.IsZero() {
		at = fmt.Sprintf("%s, which finished more requests within the SLO than the sweep's operating point (%s),",
			op.Load.Phrase(), op.OperatingPoint.Phrase())
	}
	opText := fmt.Sprintf("one replica at %s serves %s req/s at a mean latency of %s, holding %s in flight",
		at, num(op.QPS), secs(op.Latency), num(op.Concurrency))
	inSys := fmt.Sprintf("%s requests in the system (%s running, %s waiting, mean over %s on %s)",
		num(a.InSystem), num(r.Running), num(r.Waiting), r.Window, replicas(r.Replicas))
	if a.InSystem < 0.05 {
		a.Basis = BasisIdle
		n, why := clamp(0)
		a.Desired = n
		a.Reason = fmt.Sprintf("idle: nothing running or waiting over %s: %d %s%s", r.Window, n, plural(n, "replica"), why)
		return a, nil
	}
	var demand float64
	var how string
	if r.Latency > 0 && !math.IsInf(r.Latency, 0) {
		a.Basis = BasisArrivals
		a.ArrivalRate = a.InSystem / r.Latency
		demand = a.ArrivalRate
		how = fmt.Sprintf("%s over a mean server latency of %s: %s req/s arriving (Little's Law, λ = L ÷ W); %s",
			inSys, secs(r.Latency), num(a.ArrivalRate), opText)
	} else {
		a.Basis = BasisInSystem
		// λ × W at the operating point: the same demand if the servers ran
		// at the operating point's latency.
		demand = a.InSystem / op.Latency
		how = fmt.Sprintf("%s; the servers export no request latency, so they are taken to run at the operating point's: %s; %s ÷ %s",
			inSys, opText, num(a.InSystem), num(op.Concurrency))
	}
	plan, err := capacity.Compute(capacity.Input{PerReplicaQPS: op.QPS, PeakQPS: demand, Headroom: p.Headroom})
	if err != nil {
		return a, fmt.Errorf("advice: %w", err)
	}
	n, why := clamp(plan.Replicas)
	a.Desired = n
	head := ""
	if p.Headroom > 0 {
		head = fmt.Sprintf(" with %s headroom", pct(p.Headroom))
	}
	a.Reason = fmt.Sprintf("%s → %s%s ÷ %s = %s → %d %s%s", how, num(demand), head, num(op.QPS),
		plan.ReplicaQuotient(), n, plural(n, "replica"), why)
	return a, nil
}

func replicas(n int) string { return fmt.Sprintf("%d %s", n, plural(n, "replica")) }

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// num writes a count or a rate: whole from 100 up, else to 3 significant
// digits.
func num(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func secs(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.0f ms", 1e3*s)
	}
	return fmt.Sprintf("%.2f s", s)
}

func pct(f float64) string { return fmt.Sprintf("%.0f %%", 100*f) }
