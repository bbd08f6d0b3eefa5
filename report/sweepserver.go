package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/report/svgchart"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/sweep"
)

// serverPoint is the server's own account of one load of a sweep: each
// number the mean over the load's measurements that have it (as the
// sweep's client numbers are means over repeats), a peak the highest. A
// number no measurement has is NaN.
type serverPoint struct {
	measured int // the load's measurements (its repeats)
	with     int // of those, the ones whose summary holds server data
	engine   promscrape.Engine
	// endpoints is how many endpoints served the load, when several did
	// (their accounts added up: serverview.Fleet); 0 or 1 for one.
	endpoints int
	scrapes   int    // scrapes inside the measured windows, summed
	why       string // when with is 0: why there is no server data

	// Means from the server's histograms: sums over counts, exact.
	ttftMean, queueMean, prefillMean, decodeMean float64
	// ttftP99 is the server's p99 TTFT, a bucket estimate: its mean over
	// the measurements, which lies within [ttftLo, ttftHi], the lowest
	// and highest bucket bounds of theirs. over is true when a
	// measurement's p99 fell above the highest finite bucket, ttftHi.
	ttftP99, ttftLo, ttftHi float64
	over                    bool

	running, waiting float64 // mean of the gauge over the scrapes in the window
	kvPeak           float64 // highest KV cache usage scraped, a fraction
	preemptions      float64 // per measurement
}

// hasServerData reports whether c holds any of what the sweep page shows
// of the server.
func hasServerData(c *serverview.Comparison) bool {
	if c == nil {
		return false
	}
	return c.TTFT.ServerMean != nil || c.TTFT.P99 != nil && c.TTFT.P99.Server != nil || len(c.Phases) > 0 ||
		c.Running != nil || c.Waiting != nil || c.KVCacheUsage != nil || c.Preemptions != nil
}

// runningMean is the mean of the values added to it, NaN ones left out; NaN
// when none was added.
type runningMean struct{ sum, n float64 }

func (m *runningMean) add(v float64) {
	if !math.IsNaN(v) {
		m.sum, m.n = m.sum+v, m.n+1
	}
}

func (m runningMean) value() float64 {
	if m.n == 0 {
		return math.NaN()
	}
	return m.sum / m.n
}

// serverAt sums up the server's account of the measurements ms of the
// load pt.
func serverAt(pt sweep.Point, ms []MeasuredServer) serverPoint {
	sp := serverPoint{measured: max(len(pt.Repeats), len(ms), 1), kvPeak: math.NaN(), ttftLo: math.Inf(1), ttftHi: math.Inf(-1)}
	var ttft, queue, prefill, decode, p99, running, waiting, preempt runningMean
	for _, m := range ms {
		c := m.Server
		if !hasServerData(c) {
			if sp.why == "" && c != nil && len(c.Missing) > 0 {
				sp.why = c.Missing[0]
			}
			continue
		}
		sp.with++
		if sp.engine == promscrape.Unknown {
			sp.engine = c.Engine
		}
		sp.endpoints = max(sp.endpoints, c.Endpoints)
		sp.scrapes += c.Scrapes
		ttft.add(deref(c.TTFT.ServerMean))
		phases := map[promscrape.Hist]*runningMean{promscrape.Queue: &queue, promscrape.Prefill: &prefill, promscrape.Decode: &decode}
		for _, ph := range c.Phases {
			if m := phases[ph.Name]; m != nil {
				m.add(ph.Mean)
			}
		}
		if q := c.TTFT.P99; q != nil && q.Server != nil {
			e := q.Server
			p99.add(e.Value)
			sp.ttftLo, sp.ttftHi = math.Min(sp.ttftLo, e.Lower), math.Max(sp.ttftHi, e.Upper)
			sp.over = sp.over || e.Overflow
		}
		if g := c.Running; g != nil {
			running.add(g.Mean)
		}
		if g := c.Waiting; g != nil {
			waiting.add(g.Mean)
		}
		if g := c.KVCacheUsage; g != nil && (math.IsNaN(sp.kvPeak) || g.Peak > sp.kvPeak) {
			sp.kvPeak = g.Peak
		}
		if k := c.Preemptions; k != nil {
			preempt.add(k.Count)
		}
	}
	sp.ttftMean, sp.queueMean, sp.prefillMean, sp.decodeMean = ttft.value(), queue.value(), prefill.value(), decode.value()
	sp.ttftP99, sp.running, sp.waiting, sp.preemptions = p99.value(), running.value(), waiting.value(), preempt.value()
	if p99.n == 0 {
		sp.ttftLo, sp.ttftHi = math.NaN(), math.NaN()
	}
	switch {
	case sp.with > 0:
	case len(ms) == 0:
		sp.why = "no summary file of this load beside the sweep file"
	case sp.why == "" && len(ms) == 1:
		sp.why = "its summary holds no server metrics"
	case sp.why == "":
		sp.why = "its summaries hold no server metrics"
	}
	return sp
}

func deref(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// serverAcross returns the server's account of every load of s, in the
// order of its points, and whether any load has one.
func serverAcross(s *Sweep) ([]serverPoint, bool) {
	out := make([]serverPoint, len(s.Summary.Points))
	some := false
	for i, pt := range s.Summary.Points {
		out[i] = serverAt(pt, s.Servers[pt.Load.String()])
		some = some || out[i].with > 0
	}
	return out, some
}

// p99Text writes the server's p99 TTFT estimate of sp with the bucket
// bounds it lies within.
func (sp serverPoint) p99Text() string {
	switch {
	case math.IsNaN(sp.ttftP99):
		return "n/a"
	case sp.over:
		return "above " + seconds(sp.ttftHi)
	case sp.with > 1:
		return fmt.Sprintf("≈ %s (mean of %d; buckets %s–%s)", seconds(sp.ttftP99), sp.with, seconds(sp.ttftLo), seconds(sp.ttftHi))
	}
	return fmt.Sprintf("≈ %s (bucket %s–%s)", seconds(sp.ttftP99), seconds(sp.ttftLo), seconds(sp.ttftHi))
}

// source says where sp's numbers come from, or why there are none.
func (sp serverPoint) source() string {
	if sp.with == 0 {
		return "no server data: " + sp.why
	}
	parts := []string{engineName(sp.engine)}
	if sp.endpoints > 1 {
		parts[0] += fmt.Sprintf(" over %d endpoints", sp.endpoints)
	}
	if sp.measured > 1 {
		parts = append(parts, fmt.Sprintf("%d of %d measurements", sp.with, sp.measured))
	}
	if sp.scrapes == 1 {
		parts = append(parts, "1 scrape")
	} else {
		parts = append(parts, fmt.Sprintf("%d scrapes", sp.scrapes))
	}
	return strings.Join(parts, ", ")
}

// serverSweepSection shows the server's own account of each load beside
// the client's: the queue growing past the knee, where the client sees
// only its latency climb. Loads whose summaries hold no server data show
// as such; a sweep in which none does says so once.
func serverSweepSection(p *page, s *Sweep, xa svgchart.Axis, xpos []float64) {
	sum := s.Summary
	sps, some := serverAcross(s)
	p.section("server", "Server across load")
	if !some {
		p.intro(noServerData(s))
		p.sectionEnd()
		return
	}
	p.intro("What the server's own /metrics said at each load, beside the client's numbers at the same load. Means from the server's histograms are exact (sums over counts); its p99 is only an estimate, interpolated inside the bucket that holds it (shown beside it). Gauges are means over the scrapes inside the measured window, KV cache its peak. With repeats, each number is the mean over the measurements that have it, as the client's are. A load spread over several endpoints shows their account together: its p99 is read from their histograms summed, which needs the same buckets everywhere. A load without server data shows n/a, and the server's curves break there.")
	p.gridStart()
	var inFlight, running, waiting, cTTFT, sTTFT, queue, kv []svgchart.Point
	// A load without server data has NaN numbers (serverAt): its points
	// are left out of the server's curves, which break there.
	for i, pt := range sum.Points {
		sp, x := sps[i], xpos[i]
		hover := func(what string, v string) string {
			return fmt.Sprintf("%s %s\nload %s: %s", what, v, pt.Load.Short(), sp.source())
		}
		inFlight = append(inFlight, svgchart.Point{X: x, Y: pt.Mean.LittleL, Hover: hover("in flight (client, L)", human.Brief(pt.Mean.LittleL))})
		running = append(running, svgchart.Point{X: x, Y: sp.running, Hover: hover("running (server, mean)", human.Brief(sp.running))})
		waiting = append(waiting, svgchart.Point{X: x, Y: sp.waiting, Hover: hover("waiting (server, mean)", human.Brief(sp.waiting))})
		cTTFT = append(cTTFT, svgchart.Point{X: x, Y: 1e3 * pt.Mean.TTFT.Mean, Hover: hover("TTFT mean (client)", seconds(pt.Mean.TTFT.Mean))})
		sTTFT = append(sTTFT, svgchart.Point{X: x, Y: 1e3 * sp.ttftMean, Hover: hover("TTFT mean (server, exact)", seconds(sp.ttftMean))})
		queue = append(queue, svgchart.Point{X: x, Y: 1e3 * sp.queueMean, Hover: hover("queue time mean (server, exact)", seconds(sp.queueMean))})
		kv = append(kv, svgchart.Point{X: x, Y: 100 * sp.kvPeak, Hover: hover("KV cache peak (server)", percent(sp.kvPeak))})
	}
	onWaiting := pickNotes(sum, func(i int) (float64, float64) { return xpos[i], waiting[i].Y })
	p.chart(svgchart.CurveChart("Requests in the server against load", xa, svgchart.Axis{Label: "requests", Zero: true}, []svgchart.Curve{
		{Name: "in flight (client, L)", Class: "s0", Points: inFlight},
		{Name: "running (server)", Class: "s2", Points: running},
		{Name: "waiting (server)", Class: "s3", Points: waiting, Dashed: true},
	}, onWaiting))
	ys := svgchart.Axis{Label: "mean (ms)", Zero: true, Log: spansDecades(cTTFT, sTTFT, queue)}
	p.chart(svgchart.CurveChart("TTFT and queue time against load (means)", xa, ys, []svgchart.Curve{
		{Name: "TTFT (client)", Class: "s0", Points: cTTFT},
		{Name: "TTFT (server)", Class: "s2", Points: sTTFT},
		{Name: "queue time (server)", Class: "s3", Points: queue, Dashed: true},
	}, pickNotes(sum, func(i int) (float64, float64) { return xpos[i], cTTFT[i].Y })))
	if usablePoints(kv) {
		p.chart(svgchart.CurveChart("KV cache usage against load (peak)", xa, svgchart.Axis{Label: "KV cache used (%)", Zero: true}, []svgchart.Curve{
			{Name: "KV cache peak (server)", Class: "s4", Points: kv},
		}, nil))
	}
	p.gridEnd()
	var rows [][]cell
	for i, pt := range sum.Points {
		sp, m := sps[i], pt.Mean
		srv := func(v string) string {
			if sp.with == 0 {
				return "n/a"
			}
			return v
		}
		rows = append(rows, []cell{
			{s: pt.Load.Short(), class: "l"},
			{s: human.Brief(m.LittleL)},
			{s: srv(human.Brief(sp.running))},
			{s: srv(human.Brief(sp.waiting))},
			{s: srv(percent(sp.kvPeak))},
			{s: srv(human.Brief(sp.preemptions))},
			{s: seconds(m.TTFT.Mean)},
			{s: srv(seconds(sp.ttftMean))},
			{s: seconds(m.TTFT.P99)},
			{s: srv(sp.p99Text())},
			{s: srv(seconds(sp.queueMean))},
			{s: srv(seconds(sp.prefillMean))},
			{s: srv(seconds(sp.decodeMean))},
			{s: sp.source(), class: "l"},
		})
	}
	p.table("server-load", []string{"load", "in flight L (client)", "running (server mean)", "waiting (server mean)", "KV cache (server peak)", "preemptions (server)",
		"TTFT mean (client)", "TTFT mean (server, exact)", "TTFT p99 (client)", "TTFT p99 (server, estimate)",
		"queue mean (server)", "prefill mean (server)", "decode mean (server)", "server data"}, rows)
	p.sectionEnd()
}

// noServerData says, once for the sweep, why no load of s has server
// data.
func noServerData(s *Sweep) string {
	if s.Context.Clock == "virtual" {
		return "This sweep ran in virtual time: the simulator's engine ran without a server, so there are no server metrics to show."
	}
	summaries := 0
	for _, ms := range s.Servers {
		summaries += len(ms)
	}
	if summaries == 0 {
		return "No measurement's summary file lies beside the sweep file, so there is no account of the server to show."
	}
	for _, pt := range s.Summary.Points {
		for _, m := range s.Servers[pt.Load.String()] {
			c := m.Server
			if c == nil {
				continue
			}
			if c.Engine != promscrape.Unknown {
				// Scraped, and the engine known: what it lacks, and
				// why a window measured nothing, say why.
				why := shownMissing(c)
				if len(c.Notes) > 0 {
					why = append(why, c.Notes[0])
				}
				return fmt.Sprintf("The server's metrics (%s) hold none of what this section shows at any load: %s.", engineName(c.Engine), strings.Join(why, "; "))
			}
			if len(c.Missing) > 0 {
				// It was scraped, and the scrapes say why they gave nothing.
				return "The server exported no metrics: no measurement's summary holds its own account (" + c.Missing[0] + ")."
			}
		}
	}
	return "The server exported no metrics, or they were not scraped (--no-server-metrics): no measurement's summary holds its own account."
}

// shownMissing returns what c says is missing of the quantities this
// section shows, at most four of them.
func shownMissing(c *serverview.Comparison) []string {
	var out []string
	for _, m := range c.Missing {
		for _, q := range []string{"server ttft:", "server queue time:", "running:", "waiting:", "kv cache usage:", "preemptions:"} {
			if strings.HasPrefix(m, q) && len(out) < 4 {
				out = append(out, m)
			}
		}
	}
	return out
}

// usablePoints reports whether any of pts can be drawn.
func usablePoints(pts []svgchart.Point) bool {
	for _, p := range pts {
		if usable(p.X) && usable(p.Y) {
			return true
		}
	}
	return false
}
