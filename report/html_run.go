package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/report/svgchart"
	"github.com/goodput-dev/goodput/serverview"
	"github.com/goodput-dev/goodput/vllmresult"
)

// maxBars is how many bars a latency histogram has at most (one more holds
// the values beyond its range).
const maxBars = 60

// latencyChart is one histogram of a run report.
type latencyChart struct {
	m           metrics.Metric
	title, axis string
	what        string
}

// latencyCharts are the histograms of a run report, in order.
var latencyCharts = []latencyChart{
	{metrics.MetricTTFT, "Time to first token", "TTFT (ms)", "requests"},
	{metrics.MetricTPOT, "Time per output token", "TPOT (ms)", "requests"},
	{metrics.MetricITL, "Inter-token latency (every token)", "ITL (ms)", "tokens"},
	{metrics.MetricE2E, "End-to-end latency", "e2e (ms)", "requests"},
}

// ttfaChart is drawn after TTFT's for a run in which a request reasoned.
var ttfaChart = latencyChart{metrics.MetricTTFA, "Time to first answer token (after the reasoning)", "TTFA (ms)", "requests"}

// chartsOf returns the histograms to draw for run.
func chartsOf(run *Run) []latencyChart {
	if run.Result.Reasoning == nil {
		return latencyCharts
	}
	return slices.Insert(slices.Clone(latencyCharts), 1, ttfaChart)
}

// tableMetrics returns the metrics of run's latency table.
func tableMetrics(run *Run) []metrics.Metric {
	ms := metrics.Metrics()
	if run.Result.Reasoning != nil {
		ms = append(ms, metrics.ReasoningMetrics()...)
	}
	return ms
}

// WriteRunHTML writes run as one self-contained HTML page: the verdict
// against its SLO and gates, headline numbers, latency histograms with
// percentile markers and the SLO, its sessions (with TTFT by turn), agent
// tasks and endpoints when it had them, the run over time, the server's
// view when its series was saved, errors, and the configuration. The page loads
// nothing; its one script lets the reader try other SLO bounds on the
// embedded per-request figures and save charts.
func WriteRunHTML(w io.Writer, run *Run, o HTMLOptions) error {
	if run == nil || run.Result == nil {
		return fmt.Errorf("html report: no run")
	}
	data, err := json.Marshal(run.Result)
	if err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	title := o.Title
	if title == "" {
		title = "goodput run: " + run.Name
	}
	var p page
	p.head(title, runSubtitle(run))
	p.verdict(runVerdict(run))
	p.cards(runCards(run))
	requests := sloSection(&p, run)
	workloadSection(&p, run)
	latencySection(&p, run)
	probeSection(&p, run)
	flowSections(&p, run)
	requestsSection(&p, run, o.LongGap)
	timelineSection(&p, run)
	serverSection(&p, "server", "Server", run.Server, run.ServerWindow)
	for i, e := range run.Endpoints {
		serverSection(&p, fmt.Sprintf("server-%d", i+1), fmt.Sprintf("Server %d of %d: %s", i+1, len(run.Endpoints), e.Series.URL), e.Series, e.Window)
	}
	errorSection(&p, run)
	configSection(&p, run)
	p.data("goodput-requests", requests)
	p.tail("goodput-result", safeJSON(data), o.Tool)
	_, err = p.finish(w)
	return err
}

func runSubtitle(run *Run) string {
	parts := []string{fmt.Sprintf("%d requests", run.Result.Counts.Total)}
	if !run.Header.Start.IsZero() {
		parts = append(parts, "started "+run.Header.Start.UTC().Format("2006-01-02 15:04:05 MST"))
	}
	if run.Header.Tool != "" {
		parts = append(parts, run.Header.Tool)
	}
	if run.Path != "" {
		parts = append(parts, run.Path)
	}
	return strings.Join(parts, " · ")
}

// runVerdict states the run against its gates, else its SLO.
func runVerdict(run *Run) verdict {
	res := run.Result
	v := verdict{class: "info"}
	slo := ""
	if g := res.Goodput; g != nil {
		slo = fmt.Sprintf("%s of requests met the SLO %s; goodput %s tok/s of %s tok/s output.",
			percent(g.Attainment), g.SLO, human.Brief(g.OutputTokensPerSecond), human.Brief(res.Throughput.OutputTokensPerSecond))
	}
	switch failed := countFailed(run); {
	case len(run.Gates) > 0 && failed == 0:
		v.class = "pass"
		v.headline = fmt.Sprintf("PASS: all %d gates passed.", len(run.Gates))
		if len(run.Gates) == 1 {
			v.headline = "PASS: the gate passed."
		}
	case len(run.Gates) > 0:
		v.class = "fail"
		v.headline = fmt.Sprintf("FAIL: %d of %d gates failed.", failed, len(run.Gates))
	case slo != "":
		v.headline = slo
		slo = ""
	default:
		tl, tv := namedTail(&res.Latency.TTFT, 99)
		pl, pv := namedTail(&res.Latency.TPOT, 99)
		v.headline = fmt.Sprintf("%d requests, %s output tok/s, TTFT %s %s, TPOT %s %s. No SLO was given: pass --goodput (for example 'ttft:500 tpot:50') to see goodput and attainment.",
			res.Counts.Total, human.Brief(res.Throughput.OutputTokensPerSecond), tl, seconds(tv), pl, seconds(pv))
	}
	for _, g := range run.Gates {
		cls := "gate-pass"
		if !g.Pass {
			cls = "gate-fail"
		}
		v.items = append(v.items, verdictItem{class: cls, text: g.String()})
	}
	if slo != "" {
		v.items = append(v.items, verdictItem{class: "slo", text: slo})
	}
	v.notes = runNotes(run)
	return v
}

func countFailed(run *Run) int {
	n := 0
	for _, g := range run.Gates {
		if !g.Pass {
			n++
		}
	}
	return n
}

// runNotes lists what a reader must know before trusting the numbers.
func runNotes(run *Run) []string {
	var notes []string
	res := run.Result
	if s := run.Summary; s != nil {
		if s.Interrupted {
			notes = append(notes, "The run was interrupted; these are the requests measured before it stopped.")
		}
		notes = append(notes, s.Warnings...)
		notes = append(notes, s.Findings...)
	}
	if c := res.Counts; c.Failed > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d requests failed (%s); see Errors.", c.Failed, c.Total, percent(c.ErrorRate)))
	}
	if c := res.Counts; c.Total == 0 {
		notes = append(notes, "No request was measured.")
	}
	if ll := res.LittlesLaw; ll.InFlight > 0 && ll.RelativeGap > 0.2 {
		why := "the load was not in a steady state, so averages over the run mix phases"
		if c := res.Counts; c.Failed > 0 {
			// L counts every request while in flight, λ·W̄ the completions.
			why = fmt.Sprintf("L counts the %d failed requests while they were in flight, λ·W̄ only the completions; or the load was not in a steady state", c.Failed)
		}
		notes = append(notes, fmt.Sprintf("Little's Law does not hold (L = %s, λ·W̄ = %s, gap %s): %s.",
			human.Brief(ll.InFlight), human.Brief(ll.RateTimesLatency), percent(ll.RelativeGap), why))
	}
	return append(notes, run.Notes...)
}

// pctOr returns percentile p of d, or its largest computed percentile
// below p when p was not computed, or NaN; NaN too when d holds no
// values.
func pctOr(d *metrics.Distribution, p float64) float64 {
	_, v := namedTail(d, p)
	return v
}

// namedTail returns the label and value of d's percentile p ("p99"), or of
// its largest computed percentile below p, named as what it is ("p90"),
// when p was not computed: a card never calls one percentile another.
// Without values it returns p's label and NaN.
func namedTail(d *metrics.Distribution, p float64) (string, float64) {
	label := "p" + pct(p)
	if d == nil || d.Count == 0 {
		return label, math.NaN()
	}
	if v, ok := d.Percentile(p); ok {
		return label, v
	}
	best := math.NaN()
	for _, pv := range d.Percentiles {
		if pv.P <= p {
			label, best = "p"+pct(pv.P), pv.Value
		}
	}
	return label, best
}

// median returns d's median, NaN when d holds no values.
func median(d *metrics.Distribution) float64 {
	if d == nil || d.Count == 0 {
		return math.NaN()
	}
	return d.Median
}

func runCards(run *Run) []card {
	res := run.Result
	c := res.Counts
	failed := "all succeeded"
	if c.Failed > 0 {
		failed = fmt.Sprintf("%d failed (%s)", c.Failed, percent(c.ErrorRate))
	}
	cards := []card{
		{"Requests", strconv.FormatInt(c.Total, 10), failed},
		{"Duration (window W)", human.Brief(res.Window.Seconds) + " s", ""},
		{"Output throughput", human.Brief(res.Throughput.OutputTokensPerSecond) + " tok/s", human.Brief(res.Throughput.RequestsPerSecond) + " req/s"},
		{"Input throughput", human.Brief(res.Throughput.InputTokensPerSecond) + " tok/s", "total " + human.Brief(res.Throughput.TotalTokensPerSecond) + " tok/s"},
	}
	if g := res.Goodput; g != nil {
		cards = append(cards, card{"Goodput", human.Brief(g.OutputTokensPerSecond) + " tok/s", "attainment " + percent(g.Attainment)})
	}
	cards = append(cards, flowCards(res)...)
	for _, lc := range chartsOf(run) {
		d := res.Distribution(lc.m)
		short := strings.Fields(lc.axis)[0]
		label, tail := namedTail(d, 99)
		cards = append(cards, card{short + " p50", seconds(median(d)), label + " " + seconds(tail)})
	}
	if ll := res.LittlesLaw; ll.InFlight > 0 {
		cards = append(cards, card{littlesL(res), human.Brief(ll.InFlight), "λ·W̄ " + human.Brief(ll.RateTimesLatency)})
	}
	return cards
}

func latencySection(p *page, run *Run) {
	res := run.Result
	p.section("latency", "Latency")
	p.intro(fmt.Sprintf("Distributions over completed requests; TTFT counts from each request's scheduled time, so a lagging client cannot hide queueing. Dashed lines mark percentiles (%s), a red line the SLO.", res.Method))
	p.gridStart()
	for _, lc := range chartsOf(run) {
		d := res.Distribution(lc.m)
		var ms []svgchart.Marker
		for _, pv := range d.Percentiles {
			ms = append(ms, svgchart.Marker{Label: "p" + pct(pv.P), Value: pv.Value, Class: "marker",
				Hover: fmt.Sprintf("p%s = %s", pct(pv.P), seconds(pv.Value)), Edge: seconds(pv.Value)})
		}
		for _, c := range run.SLO {
			if c.Metric == lc.m {
				b := c.Bound.Seconds()
				ms = append(ms, svgchart.Marker{Label: "SLO", Value: b, Class: "slo", Hover: "SLO: " + c.String(), Edge: seconds(b)})
			}
		}
		h := run.Latency[lc.m]
		if h == nil {
			h = &Histogram{}
		}
		p.chart(markedHistogram(lc.title, lc.axis, lc.what, h, 1e3, ms))
	}
	p.gridEnd()
	head := []string{"metric (ms)", "count", "mean", "median"}
	for _, pv := range res.Percentiles {
		if pv != 50 {
			head = append(head, "p"+pct(pv))
		}
	}
	head = append(head, "max")
	var rows [][]cell
	same := sameDistribution(res.Distribution(metrics.MetricITL), res.Distribution(metrics.MetricInterChunk))
	for _, m := range tableMetrics(run) {
		d := res.Distribution(m)
		name := string(m)
		switch {
		case same && m == metrics.MetricInterChunk:
			continue
		case same && m == metrics.MetricITL:
			name = "itl = inter_chunk"
		}
		row := []cell{{s: name, class: "l"}, {s: strconv.FormatInt(d.Count, 10)}}
		if d.Count == 0 {
			for range head[2:] {
				row = append(row, cell{s: "n/a"})
			}
			rows = append(rows, row)
			continue
		}
		row = append(row, cell{s: ms(d.Mean)}, cell{s: ms(d.Median)})
		for _, pv := range res.Percentiles {
			if pv != 50 {
				v, _ := d.Percentile(pv)
				row = append(row, cell{s: ms(v)})
			}
		}
		rows = append(rows, append(row, cell{s: ms(d.Max)}))
	}
	p.table("latency", head, rows)
	if same && res.Distribution(metrics.MetricITL).Count > 0 {
		p.intro("Every chunk carried one token, so the per-token ITL and the inter-chunk latency are the same numbers: one row shows both.")
	}
	if rs := res.Reasoning; rs != nil {
		p.intro(reasoningNote(res, rs))
	}
	p.sectionEnd()
}

// reasoningNote says in words what the reasoning rows and chart show.
func reasoningNote(res *metrics.Result, rs *metrics.Reasoning) string {
	s := fmt.Sprintf("%d of %d completed requests reasoned before answering: %d reasoning and %d answer tokens (%s and %s tok/s). TTFT counts to the first token of either kind, TTFA to the first answer token; tpot_reasoning and tpot_answer are TPOT over each kind.",
		rs.Requests, res.Counts.Completed, rs.ReasoningTokens, rs.AnswerTokens, human.Brief(rs.ReasoningTokensPerSecond), human.Brief(rs.AnswerTokensPerSecond))
	if rs.Unanswered > 0 {
		s += fmt.Sprintf(" %d never answered (cut off while thinking) and have no TTFA.", rs.Unanswered)
	}
	return s
}

// sameDistribution reports whether two distributions hold the same
// numbers, as ITL and inter-chunk latency do when every chunk carries one
// token.
func sameDistribution(a, b *metrics.Distribution) bool {
	if a.Count != b.Count || a.Mean != b.Mean || a.Max != b.Max || a.Min != b.Min || a.Median != b.Median || len(a.Percentiles) != len(b.Percentiles) {
		return false
	}
	for i := range a.Percentiles {
		if a.Percentiles[i] != b.Percentiles[i] {
			return false
		}
	}
	return true
}

// workloadSection draws the token lengths of the completed requests: what
// was asked of the server, before how fast it answered.
func workloadSection(p *page, run *Run) {
	p.section("workload", "Workload")
	if len(run.InputLens) == 0 {
		p.intro("No request completed, so there are no token lengths to show.")
		p.sectionEnd()
		return
	}
	p.intro(fmt.Sprintf("Token lengths of the %d completed requests. Latency per request and throughput depend on them: compare runs only with like lengths.", len(run.InputLens)))
	p.gridStart()
	for _, l := range []struct {
		title, axis string
		lens        []int32
	}{
		{"Input tokens per request", "prompt", run.InputLens},
		{"Output tokens per request", "output", run.OutputLens},
	} {
		h := &Histogram{}
		vals := make([]float64, len(l.lens))
		for i, n := range l.lens {
			vals[i] = float64(n)
			h.Add(vals[i], 1)
		}
		slices.Sort(vals)
		mean := 0.0
		for _, v := range vals {
			mean += v / float64(len(vals))
		}
		var ms []svgchart.Marker
		for _, q := range []float64{50, 99} {
			v := metrics.Percentile(vals, q, run.Result.Method)
			ms = append(ms, svgchart.Marker{Label: "p" + pct(q), Value: v, Class: "marker", Hover: fmt.Sprintf("p%s = %s tokens", pct(q), human.Brief(v)), Edge: human.Brief(v)})
		}
		f := markedHistogram(l.title, l.axis+" (tokens)", "requests", h, 1, ms)
		f.Title = fmt.Sprintf("%s: mean %s, min %s, max %s", l.title, human.Brief(mean), human.Brief(vals[0]), human.Brief(vals[len(vals)-1]))
		p.chart(f)
	}
	p.gridEnd()
	p.sectionEnd()
}

func timelineSection(p *page, run *Run) {
	t := buildTimeline(run, maxTimePoints)
	p.section("timeline", "Over time")
	if len(t.starts) == 0 {
		p.intro("No request was measured, so there is nothing to draw over time.")
		p.sectionEnd()
		return
	}
	p.intro(fmt.Sprintf("Buckets of %s s from the run's start; hover for the values of a bucket.", human.Brief(t.step)))
	p.gridStart()
	out := []svgchart.Line{{Name: "output tok/s (client)", Class: "s0", Ys: t.output}}
	inflight := []svgchart.Line{{Name: "in flight (client)", Class: "s0", Ys: t.inFlight}}
	srvOut, srvInflight, kv := serverLines(&t, run)
	out, inflight = append(out, srvOut...), append(inflight, srvInflight...)
	p.chart(svgchart.TimeChart("Output tokens per second", "tok/s", t.starts, t.step, out))
	p.chart(svgchart.TimeChart("Requests in flight", "requests", t.starts, t.step, inflight))
	p.chart(svgchart.TimeChart("Completions and errors per second", "requests/s", t.starts, t.step, []svgchart.Line{
		{Name: "completed/s", Class: "s2", Ys: t.completions},
		{Name: "failed/s", Class: "s1", Ys: t.errors},
	}))
	lagMs := func(v float64) string { return seconds(v) }
	p.chart(svgchart.TimeChart("Client lag: scheduled to sent", "ms", t.starts, t.step, []svgchart.Line{
		{Name: "mean", Class: "s0", Ys: scaled(t.lagMean, 1e3), Format: func(v float64) string { return lagMs(v / 1e3) }},
		{Name: "max", Class: "s1", Ys: scaled(t.lagMax, 1e3), Format: func(v float64) string { return lagMs(v / 1e3) }, Dashed: true},
	}))
	if len(kv) > 0 {
		p.chart(svgchart.TimeChart("KV cache usage (server)", "%", t.starts, t.step, kv))
	}
	p.gridEnd()
	p.sectionEnd()
}

// serverLines returns the server's own series on the timeline t of run:
// its generated tokens per second, its running and waiting requests, and
// its KV cache usage; none when the run has no server series or no
// wall-clock start to place it by.
func serverLines(t *timeline, run *Run) (out, inflight, kv []svgchart.Line) {
	s := run.Server
	if s == nil || run.Header.Start.IsZero() {
		return nil, nil, nil
	}
	epoch := run.Header.Start
	if pts := s.Rate(promscrape.GenerationTokens); len(pts) > 0 {
		ys := t.rate(pts, firstScrape(s, promscrape.GenerationTokens), epoch, 1)
		out = append(out, svgchart.Line{Name: "generated tok/s (server)", Class: "s2", Ys: ys, Dashed: true})
	}
	// Gauges are drawn where they were scraped.
	if pts := s.Gauge(promscrape.Running); len(pts) > 0 {
		ys, xs := t.gauge(pts, epoch, 1)
		inflight = append(inflight, svgchart.Line{Name: "running (server)", Class: "s2", Ys: ys, Xs: xs, Dashed: true})
	}
	if pts := s.Gauge(promscrape.Waiting); len(pts) > 0 {
		ys, xs := t.gauge(pts, epoch, 1)
		inflight = append(inflight, svgchart.Line{Name: "waiting (server)", Class: "s3", Ys: ys, Xs: xs, Dashed: true})
	}
	if pts := s.Gauge(promscrape.KVCacheUsage); len(pts) > 0 {
		ys, xs := t.gauge(pts, epoch, 100)
		kv = append(kv, svgchart.Line{Name: "KV cache used (%)", Class: "s4", Ys: ys, Xs: xs})
	}
	return out, inflight, kv
}

// requestsSection draws the per-request timeline.
func requestsSection(p *page, run *Run, longGap float64) {
	p.section("requests", "Requests")
	f, stride := requestTimeline(run, longGap)
	intro := "Each request is a bar from when it was due to its last token, in order of its scheduled time: where requests queued in the client, waited for a first token, or stalled mid-stream. Hover over a bar for its numbers."
	if stride > 1 {
		intro += fmt.Sprintf(" Every %s request of %d is drawn.", ordinal(stride), run.Result.Counts.Total)
	}
	p.intro(intro)
	p.chart(f)
	p.sectionEnd()
}

// ordinal writes n as "2nd", "3rd", "10th".
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(n) + suffix
}

func scaled(vs []float64, f float64) []float64 {
	out := make([]float64, len(vs))
	for i, v := range vs {
		out[i] = v * f
	}
	return out
}

// serverSection shows a server's own view of the measured window, w from
// its series s, in a section of that id and title; nothing when w is nil
// (no series was saved with the run, or it covers no part of the window).
func serverSection(p *page, id, title string, s *promscrape.Series, w *promscrape.Window) {
	if w == nil {
		return
	}
	p.section(id, title)
	p.intro(fmt.Sprintf("The server's own metrics (%s) over the measured window, from %d scrapes. Its histograms count requests in buckets: a mean is exact, but a percentile is only an estimate, interpolated inside the bucket that holds it (shown beside it), and can lie far from the mean.", engineName(w.Engine), w.Scrapes))
	var segs []svgchart.Segment
	var total float64
	phases := w.Phases()
	for _, ph := range phases {
		total += ph.Mean
	}
	for i, ph := range phases {
		segs = append(segs, svgchart.Segment{Label: fmt.Sprintf("%s %s", ph.Name, seconds(ph.Mean)), Value: ph.Mean, Class: "s" + strconv.Itoa(i%6),
			Hover: fmt.Sprintf("%s: mean %s per request, %s of the request's time", ph.Name, seconds(ph.Mean), percent(ph.Share))})
	}
	if len(segs) > 0 {
		p.w(svgchart.StackChart("Where a request's time went: queue, prefill, decode", "mean time per request, as the server measured it (exact: sums over counts)", segs))
	} else {
		p.intro("The server exported no queue, prefill or decode histogram, or no request finished in the window.")
	}
	var rows [][]cell
	for _, h := range promscrape.AllHists {
		hist, ok := w.Histograms[h]
		if !ok || hist.Count == 0 {
			continue
		}
		mean, _ := hist.Mean()
		row := []cell{{s: string(h), class: "l"}, {s: strconv.FormatFloat(hist.Count, 'f', 0, 64)}, {s: seconds(mean)}}
		for _, q := range []float64{0.5, 0.99} {
			e, err := hist.Quantile(q)
			if err != nil {
				row = append(row, cell{s: "n/a"})
				continue
			}
			s := fmt.Sprintf("≈ %s (bucket %s–%s)", seconds(e.Value), seconds(e.Lower), seconds(e.Upper))
			if e.Overflow {
				s = "above " + seconds(e.Upper)
			}
			row = append(row, cell{s: s})
		}
		rows = append(rows, row)
	}
	if len(rows) > 0 {
		p.table("server-hist", []string{"server histogram", "observations", "mean (exact)", "p50 (estimate)", "p99 (estimate)"}, rows)
	}
	rows = nil
	for _, g := range promscrape.AllGauges {
		st, ok := w.Gauges[g]
		if !ok {
			continue
		}
		f := human.Brief
		if g.Fraction() {
			f = percent
		}
		rows = append(rows, []cell{{s: string(g), class: "l"}, {s: f(st.Mean)}, {s: f(st.Peak)}, {s: strconv.Itoa(st.Samples)}})
	}
	if len(rows) > 0 {
		p.table("server-gauges", []string{"server gauge", "mean", "peak", "samples"}, rows)
	}
	var facts []string
	if n, ok := w.Counters[promscrape.Preemptions]; ok {
		facts = append(facts, fmt.Sprintf("preemptions: %s", human.Brief(n)))
	}
	if r, ok := w.PrefixHitRate(); ok {
		facts = append(facts, "prefix cache hit rate: "+percent(r))
	}
	if sd := serverview.SpecDecodeOf(*w); sd != nil {
		facts = append(facts, "speculative decoding: "+sd.String())
	}
	if d := serverview.DiffusionOf(*w); d != nil {
		facts = append(facts, "diffusion decoding: "+d.String())
	}
	if cov := s.Coverage(); cov.Scrapes > cov.OK {
		facts = append(facts, "coverage: "+cov.String())
	}
	facts = append(facts, w.Notes...)
	p.facts(facts)
	p.sectionEnd()
}

// probeSection shows the one-token probes sent beside the run, with
// vLLM's figures of them, when the run had any.
func probeSection(p *page, run *Run) {
	if run.Summary == nil || run.Summary.Probes == nil {
		return
	}
	pr := run.Summary.Probes
	p.section("probes", "Probe requests")
	p.intro(fmt.Sprintf("One-token requests sent at %s/s beside the run, one at a time on a connection of their own, outside its concurrency cap and its figures: how long the run's load kept a request that asks almost nothing of the server waiting.", human.Brief(pr.Rate)))
	st, ok := vllmresult.Probes{Latencies: pr.Latencies, Failed: pr.Failed}.Stats()
	row := []cell{{s: strconv.Itoa(len(pr.Latencies) + pr.Failed)}, {s: strconv.Itoa(st.Completed)}, {s: strconv.Itoa(pr.Failed)}}
	for _, v := range []float64{st.Median, st.P99, st.Max} {
		if !ok {
			row = append(row, cell{s: "n/a"})
			continue
		}
		row = append(row, cell{s: seconds(v / 1e3)})
	}
	p.table("probe-figures", []string{"sent", "completed", "failed", "median e2e", "p99 e2e", "max e2e"}, [][]cell{row})
	var facts []string
	if pr.Late > 0 {
		facts = append(facts, fmt.Sprintf("%d sent late: the probe before was still in flight at their due time", pr.Late))
	}
	if pr.FirstError != "" {
		facts = append(facts, "first failure: "+pr.FirstError)
	}
	p.facts(facts)
	p.sectionEnd()
}

// facts writes a list of facts, nothing when there is none.
func (p *page) facts(facts []string) {
	if len(facts) == 0 {
		return
	}
	p.w(`<ul class="facts">`)
	for _, f := range facts {
		p.plain("li", f)
	}
	p.w("</ul>\n")
}

func engineName(e promscrape.Engine) string {
	if e == promscrape.Unknown {
		return "unknown engine"
	}
	return string(e)
}

func errorSection(p *page, run *Run) {
	p.section("errors", "Errors")
	if len(run.Errors) == 0 {
		p.intro("No request failed.")
		p.sectionEnd()
		return
	}
	total := run.Result.Counts.Total
	var rows [][]cell
	for _, g := range run.Errors {
		status := ""
		if g.Status != 0 {
			status = strconv.Itoa(g.Status)
		}
		share := 0.0
		if total > 0 {
			share = float64(g.Count) / float64(total)
		}
		rows = append(rows, []cell{{s: string(g.Kind), class: "l"}, {s: status}, {s: strconv.FormatInt(g.Count, 10)}, {s: percent(share)}, {s: g.Example, class: "msg"}})
	}
	p.table("errors", []string{"kind", "HTTP status", "requests", "share", "first message"}, rows)
	p.sectionEnd()
}

func configSection(p *page, run *Run) {
	res := run.Result
	p.section("config", "Configuration")
	rows := [][]cell{}
	seen := map[string]bool{}
	// add writes one setting once: the header's configuration repeats some
	// that are shown under a plainer name, and a value with line breaks
	// keeps them.
	add := func(k, v string, keys ...string) {
		for _, key := range append(keys, k) {
			if seen[key] {
				return
			}
		}
		for _, key := range append(keys, k) {
			seen[key] = true
		}
		if v != "" {
			cls := "l"
			if strings.Contains(v, "\n") {
				cls = "l pre"
			}
			rows = append(rows, []cell{{s: k, class: "l"}, {s: strings.TrimRight(v, "\n"), class: cls}})
		}
	}
	if run.Path != "" {
		add("records", fmt.Sprintf("%s (%s)", run.Path, run.Format))
	}
	add("tool", run.Header.Tool)
	if !run.Header.Start.IsZero() {
		add("start", run.Header.Start.UTC().Format("2006-01-02 15:04:05.000 MST"))
	}
	add("percentile method", res.Method.String(), "percentile_method")
	if g := res.Goodput; g != nil {
		add("SLO", g.SLO, "slo")
	}
	if res.Counts.WarmupExcluded > 0 {
		add("warm-up requests excluded", strconv.FormatInt(res.Counts.WarmupExcluded, 10))
	}
	if len(res.TokenSources) > 0 {
		add("output token counts from", sources(res.TokenSources))
	}
	add("labels", joinMap(run.Header.Labels))
	for _, kv := range configPairs(run.Header) {
		add(kv[0], kv[1])
	}
	if s := run.Summary; s != nil && (s.Generator.LagP99 > 0 || s.Generator.Limited) {
		add("generator dispatch lag", fmt.Sprintf("p99 %s, max %s", seconds(s.Generator.LagP99), seconds(s.Generator.LagMax)))
	}
	p.table("config", []string{"setting", "value"}, rows)
	p.sectionEnd()
}

// configPairs returns the header's configuration as sorted key–value
// pairs, values written as JSON would write them (strings bare).
func configPairs(h record.Header) [][2]string {
	if len(h.Config) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(h.Config, &m) != nil {
		return [][2]string{{"config", string(h.Config)}}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([][2]string, 0, len(keys))
	for _, k := range keys {
		v := strings.TrimSpace(string(m[k]))
		var s string
		if json.Unmarshal(m[k], &s) == nil {
			v = s
		}
		if v == "" || v == `""` || v == "null" {
			continue
		}
		out = append(out, [2]string{k, v})
	}
	return out
}

func joinMap(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ", ")
}
