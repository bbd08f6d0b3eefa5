package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/goodput-dev/goodput/metrics"
)

// maxEmbeddedRequests bounds the requests whose figures a page embeds for
// its SLO controls; a longer run embeds every k-th, and the page says its
// figures are then estimates.
const maxEmbeddedRequests = 100_000

// sloData writes the JSON the page's script reads: per request, TTFT
// and TPOT in whole microseconds rounded up (null when undefined), output
// tokens, and flags (1: succeeded; 2: met the SLO's other conditions);
// with the window, the number of requests held, and the stride that chose
// them. It is written by hand: a hundred thousand requests through
// encoding/json cost tens of megabytes of garbage.
func sloData(run *Run) (data []byte, stride int) {
	every := sampleEvery(len(run.Requests), maxEmbeddedRequests)
	stride = every * max(run.RequestStride, 1)
	other := []string{}
	for _, c := range run.SLO {
		if !tunable(c) {
			other = append(other, c.String())
		}
	}
	n := (len(run.Requests) + every - 1) / every
	head, _ := json.Marshal(struct {
		WindowS float64  `json:"window_s"`
		Total   int      `json:"total"`
		Stride  int      `json:"stride"`
		Other   []string `json:"other"`
	}{run.Result.Window.Seconds, n, stride, other})
	// Only the SLO's text can hold <, > or &, all in head.
	head = safeJSON(head)
	b := make([]byte, 0, len(head)+n*24+64)
	b = append(b, head[:len(head)-1]...)
	column := func(name string, value func(s *RequestSpan) (int64, bool)) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":[`...)
		for i := 0; i < len(run.Requests); i += every {
			if i > 0 {
				b = append(b, ',')
			}
			if v, ok := value(&run.Requests[i]); ok {
				b = strconv.AppendInt(b, v, 10)
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, ']')
	}
	column("ttft_us", func(s *RequestSpan) (int64, bool) { return micros(s.TTFT), s.HasTTFT })
	column("tpot_us", func(s *RequestSpan) (int64, bool) { return micros(s.TPOT), s.HasTPOT })
	column("tokens", func(s *RequestSpan) (int64, bool) { return int64(s.OutputTokens), true })
	column("flags", func(s *RequestSpan) (int64, bool) {
		f := int64(0)
		if s.OK {
			f |= 1
		}
		if s.Other {
			f |= 2
		}
		return f, true
	})
	return append(b, '}'), stride
}

// slider is one SLO control: its range in microseconds and where it
// starts.
type slider struct {
	metric     metrics.Metric
	label      string
	max, step  int64
	value      int64 // max: no bound
	valueLabel string
}

// newSlider sets the control of metric m: from 0 to beyond the slowest
// request and the run's bound, starting at that bound.
func newSlider(run *Run, m metrics.Metric, label string) slider {
	top := run.Result.Distribution(m).Max
	bound := int64(-1)
	for _, c := range run.SLO {
		if c.Metric == m && tunable(c) {
			bound = micros(int64(c.Bound))
		}
	}
	topUS := math.Max(1.1*top*1e6, 1.25*float64(bound))
	topUS = math.Max(topUS, 1000)
	step := int64(math.Ceil(topUS / 1000))
	s := slider{metric: m, label: label, step: step, max: int64(math.Ceil(topUS)) + step}
	s.value, s.valueLabel = s.max, "no bound"
	if bound >= 0 {
		s.value, s.valueLabel = bound, msText(bound)
	}
	return s
}

// msText writes whole microseconds as the page's script does: milliseconds
// with up to three decimals, a form slo.ParseConditions reads.
func msText(us int64) string {
	return strconv.FormatFloat(float64(us)/1e3, 'f', -1, 64) + "ms"
}

// sloSection writes the SLO explorer: bounds on TTFT and TPOT the reader
// can move, and the attainment and goodput they give, recomputed on the
// page from every request (as goodput analyze --slo recomputes them).
// It returns the data to embed.
func sloSection(p *page, run *Run) []byte {
	res := run.Result
	p.w(`<section id="slo-tuning" class="tuning"><h2>Try another SLO</h2>`)
	p.intro("Move a bound and the attainment and goodput below are recomputed from every request, as goodput analyze --slo would compute them; the expression can be pasted into --slo. The far right end means no bound.")
	p.w(`<div class="controls">`)
	for _, s := range []slider{newSlider(run, metrics.MetricTTFT, "TTFT ≤"), newSlider(run, metrics.MetricTPOT, "TPOT ≤")} {
		id := "slo-" + string(s.metric)
		p.f(`<label for="%s">%s</label><input type="range" id="%s" min="0" max="%d" step="any" value="%d" data-step="%d"/><output id="%s-v">%s</output>`,
			id, esc(s.label), id, s.max, s.value, s.step, id, esc(s.valueLabel))
	}
	p.w(`</div>`)
	expr, att, goodTok, goodReq := "none", 0.0, 0.0, 0.0
	var good, total int64 = 0, res.Counts.Total
	if g := res.Goodput; g != nil {
		expr, att, goodTok, goodReq, good = g.SLO, g.Attainment, g.OutputTokensPerSecond, g.RequestsPerSecond, g.GoodRequests
	} else if total > 0 {
		// Without an SLO every completed request counts, as on the page.
		good = res.Counts.Completed
		att = float64(good) / float64(total)
		goodTok, goodReq = res.Throughput.OutputTokensPerSecond, res.Throughput.RequestsPerSecond
	}
	p.f(`<p class="readout"><code id="slo-expr">%s</code>: attainment <b id="slo-attainment">%s</b>, goodput <b id="slo-goodput">%s tok/s</b> (<span id="slo-request-goodput">%s req/s</span>)</p>`,
		esc(expr), esc(fmt.Sprintf("%.2f%% (%d of %d requests)", 100*att, good, total)), fixed(goodTok, 2), fixed(goodReq, 2))
	data, stride := sloData(run)
	if stride > 1 {
		p.intro(fmt.Sprintf("This run has %d requests; the page holds every %s, so figures recomputed here are estimates.", run.Result.Counts.Total, ordinal(stride)))
	}
	p.sectionEnd()
	return data
}
