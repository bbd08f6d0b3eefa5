package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/report/svgchart"
)

// Trend is one metric across comparable runs, oldest first, as a run
// history holds it, for WriteTrendHTML.
type Trend struct {
	Metric string // its key, "ttft_p99"
	// Seconds says the values are latencies in seconds (shown in ms);
	// Fraction that they are shares (shown as percentages).
	Seconds, Fraction bool
	// Better is -1 when lower is better, +1 when higher is, 0 neither.
	Better int
	// Comparability says in words what the runs share.
	Comparability string
	Points        []TrendPoint
}

// TrendPoint is one run of a Trend.
type TrendPoint struct {
	ID      int64     `json:"id"`
	Name    string    `json:"name"`
	Start   time.Time `json:"start"`
	Server  string    `json:"server_version,omitempty"`
	Value   float64   `json:"value"` // NaN when the run lacks the metric
	Defined bool      `json:"defined"`
}

// WriteTrendHTML writes a self-contained page charting t run by run, with
// a table of the values and their changes.
func WriteTrendHTML(w io.Writer, t Trend, o HTMLOptions) error {
	if len(t.Points) == 0 {
		return fmt.Errorf("html report: trend of %s has no runs", t.Metric)
	}
	title := o.Title
	if title == "" {
		title = "goodput trend: " + t.Metric
	}
	show := func(v float64) string {
		switch {
		case math.IsNaN(v):
			return "n/a"
		case t.Seconds:
			return ms(v) + " ms"
		case t.Fraction:
			return percent(v)
		}
		return human.Brief(v)
	}
	var p page
	p.head(title, fmt.Sprintf("%d comparable runs · %s", len(t.Points), t.Comparability))
	first, last := math.NaN(), math.NaN()
	lo, hi := math.Inf(1), math.Inf(-1)
	var pts []svgchart.Point
	for i, pt := range t.Points {
		if !pt.Defined {
			continue
		}
		if math.IsNaN(first) {
			first = pt.Value
		}
		last = pt.Value
		lo, hi = math.Min(lo, pt.Value), math.Max(hi, pt.Value)
		y := pt.Value
		if t.Seconds {
			y *= 1e3
		}
		pts = append(pts, svgchart.Point{X: float64(i + 1), Y: y,
			Hover: fmt.Sprintf("run %d (%s), %s: %s", pt.ID, pt.Name, pt.Start.UTC().Format("2006-01-02 15:04"), show(pt.Value))})
	}
	cards := []card{{key: "latest", value: show(last)}, {key: "first", value: show(first)}}
	if !math.IsNaN(first) && first != 0 {
		change := (last - first) / math.Abs(first)
		detail := ""
		switch {
		case t.Better != 0 && change*float64(t.Better) > 0:
			detail = "better"
		case t.Better != 0 && change != 0:
			detail = "worse"
		}
		cards = append(cards, card{key: "change", value: signedPercent(change), detail: detail})
	}
	if !math.IsInf(lo, 0) {
		cards = append(cards, card{key: "range", value: show(lo) + " – " + show(hi)})
	}
	p.cards(cards)

	p.section("trend", t.Metric+" run by run")
	p.intro("Each point is one stored run, oldest on the left; only runs with the same workload, load and SLO are drawn, so a step is the server, the model or the setup changing, not the test.")
	yl := t.Metric
	switch {
	case t.Seconds:
		yl += " (ms)"
	case t.Fraction:
		yl += " (fraction)"
	}
	// Runs are whole numbers: ticks between them are left unlabelled.
	runTick := func(v, step float64) string {
		if v != math.Trunc(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	p.chart(svgchart.CurveChart(t.Metric, svgchart.Axis{Label: "run (oldest first)", Tick: runTick}, svgchart.Axis{Label: yl},
		[]svgchart.Curve{{Name: t.Metric, Class: "s0", Points: pts}}, nil))
	p.sectionEnd()

	p.section("runs", "Runs")
	var rows [][]cell
	prev := math.NaN()
	for _, pt := range t.Points {
		change := ""
		if pt.Defined && !math.IsNaN(prev) && prev != 0 {
			change = signedPercent((pt.Value - prev) / math.Abs(prev))
		}
		val := "n/a"
		if pt.Defined {
			val = show(pt.Value)
			prev = pt.Value
		}
		server := pt.Server
		if server == "" {
			server = "–"
		}
		rows = append(rows, []cell{{s: strconv.FormatInt(pt.ID, 10), class: "l"}, {s: pt.Start.UTC().Format("2006-01-02 15:04:05"), class: "l"},
			{s: pt.Name, class: "l"}, {s: server, class: "l"}, {s: val}, {s: change}})
	}
	p.table("trend", []string{"run", "started (UTC)", "name", "server version", t.Metric, "change"}, rows)
	p.sectionEnd()

	// JSON cannot hold NaN: undefined values are left out.
	type jsonPoint struct {
		TrendPoint
		Value *float64 `json:"value,omitempty"`
	}
	var jp []jsonPoint
	for _, pt := range t.Points {
		j := jsonPoint{TrendPoint: pt}
		if pt.Defined {
			v := pt.Value
			j.Value = &v
		}
		jp = append(jp, j)
	}
	data, err := json.Marshal(struct {
		Metric string      `json:"metric"`
		Points []jsonPoint `json:"points"`
	}{t.Metric, jp})
	if err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	p.tail("goodput-trend", safeJSON(data), o.Tool)
	_, err = p.finish(w)
	return err
}
