package sweep

import (
	"math"
	"slices"

	"github.com/goodput-dev/goodput/internal/human"
)

// Delivery compares what a rate point offered with what the server
// finished: the rate its requests arrived at against the rate they ended
// at, completed or failed.
type Delivery struct {
	Offered  float64 // the point's request rate, req/s
	Finished float64 // requests ended per second of the window, completed or failed
	Requests int     // measured requests, over every repeat
	// Short says the server finished well below the offered rate: the
	// point did not establish that the server sustains its load (see
	// Point.Delivery).
	Short bool
}

// Share is Finished ÷ Offered.
func (d Delivery) Share() float64 { return d.Finished / d.Offered }

// MinDelivered is the share of the offered rate that a rate point with
// enough requests must finish to count as delivered (see Point.Delivery).
const MinDelivered = 0.9

// Delivery reports whether p is a rate point whose server kept pace with
// the offered rate. ok is false for a concurrency point, an unbounded rate
// or an unknown throughput, which have nothing to compare.
//
// A short run can hide overload: its requests all arrive within a few
// seconds, a large batch absorbs them, and every one meets the SLO while
// the queue would grow without end in a longer run. What gives it away is
// that requests end more slowly than they arrive. The point is Short when
// Finished < Offered × (1 − slack), with slack the larger of 10 % and
// 3 ÷ √Requests, because a server that keeps pace also falls short of the
// offered rate, for two reasons that are not overload:
//
//   - the window ends when the last request does, so it is the arrivals'
//     span plus about one latency of draining; with many more requests
//     than are in flight at once, that costs a few per cent;
//   - the n arrivals of a Poisson process come at the offered rate only
//     on average: their span varies by 1 ÷ √n, so three standard
//     deviations are 3 ÷ √n (21 % at 200 requests, 10 % from 900 on).
//
// Within that slack the comparison cannot tell a short run from overload,
// so it says nothing. The rate counts completed and failed requests alike,
// because a failure ended too; whether it met the SLO is attainment's
// business. When a load counts sessions or tasks, each holds at least one
// request, so a point that finished fewer requests than it offered
// sessions is short too.
func (p Point) Delivery() (d Delivery, ok bool) {
	m := p.Mean
	if p.Load.Mode != ModeRate || p.Load.Unbounded() || !usable(m.RequestThroughput) {
		return Delivery{}, false
	}
	finished := m.RequestThroughput
	if e := m.ErrorRate; usable(e) && e > 0 && e < 1 {
		finished /= 1 - e
	}
	d = Delivery{Offered: p.Load.Value, Finished: finished, Requests: m.Requests * len(p.samples())}
	slack := 1 - MinDelivered
	if d.Requests > 0 {
		slack = max(slack, 3/math.Sqrt(float64(d.Requests)))
	}
	d.Short = d.Requests > 0 && d.Finished < d.Offered*(1-slack)
	return d, true
}

// short reports whether p is a rate point its server did not deliver.
func (p Point) short() bool {
	d, ok := p.Delivery()
	return ok && d.Short
}

// ShortWarnings returns one line for each point of s that met the SLO
// target but whose server did not keep pace with its rate (the operating
// point's Short loads), naming the point and both rates, and a last line
// saying what that means and what to do; nil when there is none. A short
// point that missed the target anyway needs no warning: it fails either
// way, and the table's notes still mark it.
func (s Summary) ShortWarnings() []string {
	var out []string
	for _, p := range s.Points {
		if !slices.ContainsFunc(s.Operating.Short, func(l Load) bool { return sameLoad(l, p.Load) }) {
			continue
		}
		if d, ok := p.Delivery(); ok {
			out = append(out, "at "+p.Load.Phrase()+" the server finished only "+human.Number(d.Finished)+
				" req/s ("+human.Percent(d.Share())+" of it): the requests arrived faster than they ended")
		}
	}
	if len(out) == 0 {
		return nil
	}
	return append(out, "such a load met the SLO only because the run ended before the queue grew; it counts as failing"+
		" (the table marks it short): give more --num-prompts or a --duration so that each point reaches steady state")
}
