package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/report/svgchart"
	"github.com/goodput-dev/goodput/sweepserve"
)

// ParetoOptions is vllm bench sweep plot_pareto's command line.
type ParetoOptions struct {
	// UserCountVar is the key of the concurrent users a run served
	// (default max_concurrency); a run without it falls back to the most
	// requests it had active in one second, max_concurrent_requests.
	UserCountVar string
	// GPUCountVar is the key of the GPUs a run used; empty: the product of
	// tensor_parallel_size, pipeline_parallel_size and data_parallel_size
	// (or tp, pp, dp) where the runs have them, else 1.
	GPUCountVar string
	// LabelBy are the keys each point's hover names (default
	// max_concurrency and gpu_count).
	LabelBy []string
}

// ParetoPoint is one run placed by output tokens per second per user and
// per GPU.
type ParetoPoint struct {
	PerUser, PerGPU float64
	Users, GPUs     float64
	Label           string
	Frontier        bool // no other run is better on both
}

// Pareto is the runs of a sweep and their frontier.
type Pareto struct {
	Points  []ParetoPoint
	Skipped int // runs without a user count
}

// SweepPareto reads every summary.json under dir and places each run by
// output_throughput ÷ users (x) and ÷ GPUs (y), marking the frontier: the
// runs no other run beats on both, as vllm bench sweep plot_pareto does.
func SweepPareto(dir string, o ParetoOptions) (*Pareto, error) {
	if o.UserCountVar == "" {
		o.UserCountVar = "max_concurrency"
	}
	if o.LabelBy == nil {
		o.LabelBy = []string{"max_concurrency", "gpu_count"}
	}
	runs, from, err := readSummaries(dir)
	if err != nil {
		return nil, err
	}
	var p Pareto
	for i, r := range runs {
		tput, ok := number(r, "output_throughput")
		if !ok {
			return nil, fmt.Errorf("%s: a run has no output_throughput (run_number %s)", from[i], plotText(first(r.Get("run_number"))))
		}
		users, ok := number(r, o.UserCountVar)
		if !ok || users <= 0 {
			users, ok = number(r, "max_concurrent_requests")
		}
		if !ok || users <= 0 {
			p.Skipped++
			continue
		}
		gpus := 1.0
		if g, ok := number(r, o.GPUCountVar); o.GPUCountVar != "" && ok && g > 0 {
			gpus = g
		} else {
			for _, keys := range [][]string{{"tensor_parallel_size", "tp"}, {"pipeline_parallel_size", "pp"}, {"data_parallel_size", "dp"}} {
				for _, k := range keys {
					if v, ok := number(r, k); ok && v > 0 {
						gpus *= v
						break
					}
				}
			}
		}
		var labels []string
		for _, k := range o.LabelBy {
			switch v, ok := r.Get(dashAlike(r, k)); {
			case k == "gpu_count":
				labels = append(labels, fmt.Sprintf("gpu_count=%s", human.Brief(gpus)))
			case ok:
				labels = append(labels, k+"="+plotText(v))
			}
		}
		p.Points = append(p.Points, ParetoPoint{PerUser: tput / users, PerGPU: tput / gpus, Users: users, GPUs: gpus, Label: strings.Join(labels, ", ")})
	}
	if len(p.Points) == 0 {
		return nil, fmt.Errorf("%s: no run has a user count (%s or max_concurrent_requests)", dir, o.UserCountVar)
	}
	// The frontier: from the most tokens per user down, each run that gives
	// at least the tokens per GPU of every run before it.
	order := make([]int, len(p.Points))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		pa, pb := p.Points[a], p.Points[b]
		return cmp.Or(cmp.Compare(pb.PerUser, pa.PerUser), cmp.Compare(pb.PerGPU, pa.PerGPU))
	})
	best := math.Inf(-1)
	for _, i := range order {
		if p.Points[i].PerGPU >= best-1e-9 {
			p.Points[i].Frontier = true
			best = max(best, p.Points[i].PerGPU)
		}
	}
	return &p, nil
}

// first is a value of a lookup, without whether it was found.
func first(v []byte, _ bool) []byte { return v }

// number reads key as a number, with - and _ taken alike.
func number(r sweepserve.Object, key string) (float64, bool) {
	if key == "" {
		return 0, false
	}
	return r.Number(dashAlike(r, key))
}

// dashAlike is the spelling of key the run has: with _ or with -.
func dashAlike(r sweepserve.Object, key string) string {
	for _, k := range []string{key, strings.ReplaceAll(key, "-", "_"), strings.ReplaceAll(key, "_", "-")} {
		if _, ok := r.Get(k); ok {
			return k
		}
	}
	return key
}

// WriteParetoHTML writes the frontier as a self-contained page: every run
// a dot, the frontier a line, each point's labels on hover.
func WriteParetoHTML(w io.Writer, p *Pareto, o HTMLOptions) error {
	title := o.Title
	if title == "" {
		title = "goodput sweep plot_pareto: output tokens/s per user against per GPU"
	}
	var all, front []svgchart.Point
	n := 0
	for _, pt := range p.Points {
		hover := fmt.Sprintf("%s tok/s/user, %s tok/s/GPU (%s users, %s GPUs)", human.Brief(pt.PerUser), human.Brief(pt.PerGPU), human.Brief(pt.Users), human.Brief(pt.GPUs))
		if pt.Label != "" {
			hover += ": " + pt.Label
		}
		all = append(all, svgchart.Point{X: pt.PerUser, Y: pt.PerGPU, Hover: hover})
		if pt.Frontier {
			front = append(front, svgchart.Point{X: pt.PerUser, Y: pt.PerGPU, Hover: hover})
			n++
		}
	}
	slices.SortFunc(front, func(a, b svgchart.Point) int { return cmp.Compare(a.X, b.X) })
	var pg page
	sub := fmt.Sprintf("%d runs · %d on the frontier", len(p.Points), n)
	if p.Skipped > 0 {
		sub += fmt.Sprintf(" · %d without a user count left out", p.Skipped)
	}
	pg.head(title, sub)
	pg.section("pareto", "Pareto frontier")
	pg.intro("Each run placed by its output throughput divided by its concurrent users (x: how fast each user is served) and by its GPUs (y: how much each GPU delivers). The frontier joins the runs no other run beats on both: the settings worth choosing between.")
	pg.chart(svgchart.CurveChart("Tokens/s/GPU against tokens/s/user",
		svgchart.Axis{Label: "output tokens/s per user", Zero: true}, svgchart.Axis{Label: "output tokens/s per GPU", Zero: true},
		[]svgchart.Curve{{Name: "all runs", Class: "s5", Points: all, Scatter: true}, {Name: "Pareto frontier", Class: "s0", Points: front}}, nil))
	pg.sectionEnd()
	pg.tail("pareto", nil, o.Tool)
	_, err := pg.finish(w)
	return err
}
