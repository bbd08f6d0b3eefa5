package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/internal/human"
	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/promscrape"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/sweep"
)

// node is an element of a parsed report. The reports are written as
// well-formed XML, so encoding/xml reads their whole structure.
type node struct {
	name  string
	attrs map[string]string
	kids  []*node
	text  string // character data directly inside
}

func parsePage(t testing.TB, b []byte) *node {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	dec.Entity = xml.HTMLEntity
	root := &node{name: "#document"}
	stack := []*node{root}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		top := stack[len(stack)-1]
		switch tk := tok.(type) {
		case xml.StartElement:
			n := &node{name: tk.Name.Local, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.text += string(tk)
		}
	}
	if len(stack) != 1 {
		t.Fatalf("%d elements left open", len(stack)-1)
	}
	return root
}

// all returns every element below n (n included) that match accepts.
func (n *node) all(match func(*node) bool) []*node {
	var out []*node
	var walk func(*node)
	walk = func(x *node) {
		if match(x) {
			out = append(out, x)
		}
		for _, k := range x.kids {
			walk(k)
		}
	}
	walk(n)
	return out
}

// find returns the elements named name whose class list holds class
// (any class when class is empty).
func (n *node) find(name, class string) []*node {
	return n.all(func(x *node) bool {
		if x.name != name {
			return false
		}
		if class == "" {
			return true
		}
		for _, c := range strings.Fields(x.attrs["class"]) {
			if c == class {
				return true
			}
		}
		return false
	})
}

func (n *node) byID(id string) *node {
	if got := n.all(func(x *node) bool { return x.attrs["id"] == id }); len(got) > 0 {
		return got[0]
	}
	return nil
}

// allText returns the text of n and everything below it.
func (n *node) allText() string {
	var b strings.Builder
	var walk func(*node)
	walk = func(x *node) {
		b.WriteString(x.text)
		for _, k := range x.kids {
			walk(k)
		}
	}
	walk(n)
	return b.String()
}

// checkSelfContained asserts what keeps a page offline: the
// Content-Security-Policy that forbids every fetch, no element that loads
// anything, no script but the JSON data, no URL in any attribute.
func checkSelfContained(t *testing.T, doc *node) {
	t.Helper()
	csp := doc.all(func(x *node) bool { return x.name == "meta" && x.attrs["http-equiv"] == "Content-Security-Policy" })
	if len(csp) != 1 || csp[0].attrs["content"] != contentPolicy {
		t.Errorf("Content-Security-Policy meta: %v", csp)
	}
	scripts := 0
	defer func() {
		if scripts != 1 {
			t.Errorf("%d copies of the page's script, want 1", scripts)
		}
	}()
	for _, el := range doc.all(func(*node) bool { return true }) {
		switch el.name {
		case "img", "iframe", "object", "embed", "audio", "video", "source", "base", "form":
			t.Errorf("the page has a <%s>", el.name)
		case "script":
			// Data, and the one script the policy allows by its hash.
			switch {
			case el.attrs["type"] == "application/json":
			case el.attrs["type"] == "" && el.text == strings.NewReplacer("<![CDATA[", "", "]]>", "").Replace(reportJS) &&
				strings.Contains(contentPolicy, "script-src '"+scriptHash(reportJS)+"'"):
				scripts++
			default:
				t.Errorf("the page has a script of type %q that its policy does not allow", el.attrs["type"])
			}
		case "link":
			if el.attrs["href"] != "data:," {
				t.Errorf("the page links %q", el.attrs["href"])
			}
		}
		for k, v := range el.attrs {
			if k == "xmlns" {
				continue // a namespace name, never fetched
			}
			if k == "src" || strings.Contains(v, "://") || strings.Contains(strings.ToLower(v), "url(") {
				t.Errorf("<%s %s=%q> names a resource", el.name, k, v)
			}
		}
	}
	if style := doc.find("style", ""); len(style) != 1 || strings.Contains(style[0].text, "url(") || strings.Contains(style[0].text, "@import") {
		t.Error("the style sheet must be inline and load nothing")
	}
}

// figure returns the chart figure whose caption is title.
func figure(t *testing.T, doc *node, title string) *node {
	t.Helper()
	for _, f := range doc.find("figure", "chart") {
		for _, c := range f.kids {
			if c.name == "figcaption" && c.text == title {
				return f
			}
		}
	}
	t.Fatalf("no chart %q", title)
	return nil
}

// markerLabels returns the labels of the markers of class in a chart.
func markerLabels(f *node, class string) []string {
	var out []string
	for _, g := range f.find("g", class) {
		for _, k := range g.kids {
			if k.name == "text" {
				out = append(out, k.text)
			}
		}
	}
	return out
}

// richRun is a run with an SLO, gates (one failing), failures with
// markup in their messages, and a server series.
func richRun(t *testing.T) *Run {
	t.Helper()
	h, recs := richRecords(t)
	run := build(h, recs, RunOptions{SLO: mustSLO(t, "ttft<=120ms,tpot<=20ms"), Gates: mustGates(t, "p99(ttft)<=200ms,attainment>=0.95")})
	run.AttachServer(serverSeries(h.Start, 25))
	return run
}

// richRecords are the records of richRun: 400 requests, 4 of them failed.
func richRecords(t *testing.T) (record.Header, []record.Record) {
	t.Helper()
	recs := fixedRecords(400, 50*time.Millisecond, time.Millisecond, 12, 15*time.Millisecond, func(i int) time.Duration {
		return time.Duration(30+(i*37)%120) * time.Millisecond
	})
	for _, i := range []int{7, 8, 9} {
		recs[i].Error, recs[i].Status, recs[i].Msg, recs[i].Chunks = record.ErrHTTP, 500, `upstream <error> & "quote"`, nil
	}
	recs[50].Error, recs[50].Msg, recs[50].Chunks = record.ErrTimeout, "timed out", recs[50].Chunks[:3]
	h, err := record.NewHeader("goodput test", map[string]any{"model": "m", "request_rate": 20})
	if err != nil {
		t.Fatal(err)
	}
	h.Start = time.Date(2025, 4, 5, 6, 7, 8, 0, time.UTC)
	return h, recs
}

func TestRunHTMLStructure(t *testing.T) {
	run := richRun(t)
	var b bytes.Buffer
	if err := WriteRunHTML(&b, run, HTMLOptions{Tool: "goodput test"}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, b.Bytes())
	checkSelfContained(t, doc)

	for _, id := range []string{"verdict", "latency", "timeline", "server", "errors", "config"} {
		if doc.byID(id) == nil {
			t.Errorf("no section %q", id)
		}
	}
	// Verdict: one gate failed (attainment), one passed.
	v := doc.byID("verdict")
	if !strings.Contains(v.attrs["class"], "fail") || len(v.find("li", "gate-fail")) != 1 || len(v.find("li", "gate-pass")) != 1 {
		t.Errorf("verdict %q: %s", v.attrs["class"], v.allText())
	}
	if !strings.Contains(v.allText(), "FAIL: 1 of 2 gates failed.") {
		t.Errorf("verdict headline: %s", v.allText())
	}
	// Four latency histograms, every bar with a hover title; TTFT and TPOT
	// carry their SLO bound, every one its percentile markers.
	for _, tc := range []struct {
		title string
		slo   bool
	}{{"Time to first token", true}, {"Time per output token", true}, {"Inter-token latency (every token)", false}, {"End-to-end latency", false}} {
		f := figure(t, doc, tc.title)
		bars := f.find("rect", "bar")
		if len(bars) == 0 || len(bars) > maxBars+1 {
			t.Errorf("%s: %d bars", tc.title, len(bars))
		}
		for _, r := range bars {
			if len(r.kids) != 1 || r.kids[0].name != "title" || r.kids[0].text == "" {
				t.Fatalf("%s: a bar without a hover title", tc.title)
			}
		}
		if got := strings.Join(markerLabels(f, "marker"), ","); got != "p50,p90,p99" {
			t.Errorf("%s: markers %q, want p50,p90,p99", tc.title, got)
		}
		if got := len(markerLabels(f, "slo")); (got == 1) != tc.slo {
			t.Errorf("%s: %d SLO lines", tc.title, got)
		}
	}
	// The TTFT bars hold every completed request: 396 of 400 requests.
	var sum int64
	for _, r := range figure(t, doc, "Time to first token").find("rect", "bar") {
		sum += barCount(t, r.kids[0].text)
	}
	if sum != 396 {
		t.Errorf("TTFT bars hold %d requests, want 396", sum)
	}
	// Time series: output, in-flight (with the server's running and
	// waiting), completions, lag, and the server's KV cache.
	tl := doc.byID("timeline")
	if n := len(tl.find("figure", "chart")); n != 5 {
		t.Errorf("%d time charts, want 5", n)
	}
	inflight := figure(t, doc, "Requests in flight")
	if n := len(inflight.find("path", "line")); n != 3 {
		t.Errorf("in-flight chart has %d lines, want client, running and waiting", n)
	}
	for _, f := range tl.find("figure", "chart") {
		if n := len(f.find("rect", "hover")); n == 0 || n > maxTimePoints {
			t.Errorf("%d hover bands", n)
		}
	}
	// The server's phases: queue, prefill, decode.
	if segs := doc.byID("server").find("g", "seg"); len(segs) != 3 {
		t.Errorf("%d phase segments, want 3", len(segs))
	}
	// Errors: two groups, markup in messages kept as text.
	rows := doc.byID("errors").find("tr", "")
	if len(rows) != 3 {
		t.Fatalf("error table has %d rows, want a header and 2", len(rows))
	}
	if txt := rows[1].allText(); !strings.Contains(txt, `upstream <error> & "quote"`) || !strings.Contains(txt, "500") {
		t.Errorf("first error row %q", txt)
	}
	// Configuration from the header.
	if txt := doc.byID("config").allText(); !strings.Contains(txt, "request_rate20") || !strings.Contains(txt, "SLOttft<=120ms,tpot<=20ms") {
		t.Errorf("configuration: %q", txt)
	}
	// The embedded data is the run's Result.
	data := doc.byID("goodput-result")
	var res metrics.Result
	if err := json.Unmarshal([]byte(data.text), &res); err != nil || res.Counts.Total != 400 || res.Counts.Failed != 4 {
		t.Errorf("embedded result: %v, %+v", err, res.Counts)
	}
	if !strings.Contains(doc.find("footer", "")[0].text, "goodput test") {
		t.Error("footer does not name the tool")
	}
}

// barCount reads the count from a bar's hover title, "lo–hi ms: n
// requests (s %)".
func barCount(t *testing.T, title string) int64 {
	t.Helper()
	_, rest, _ := strings.Cut(title, ": ")
	f := strings.Fields(rest)
	if len(f) == 0 {
		t.Fatalf("bar title %q", title)
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		t.Fatalf("bar title %q: %v", title, err)
	}
	return n
}

func TestRunHTMLWithoutSLO(t *testing.T) {
	recs := fixedRecords(50, 100*time.Millisecond, 0, 4, 10*time.Millisecond, func(i int) time.Duration { return time.Duration(10+i) * time.Millisecond })
	run := build(record.Header{}, recs, RunOptions{})
	var b bytes.Buffer
	if err := WriteRunHTML(&b, run, HTMLOptions{Title: "Nightly <run>"}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, b.Bytes())
	checkSelfContained(t, doc)
	if h1 := doc.find("h1", ""); len(h1) != 1 || h1[0].text != "Nightly <run>" {
		t.Errorf("heading %v", h1)
	}
	v := doc.byID("verdict")
	if !strings.Contains(v.attrs["class"], "info") || !strings.Contains(v.allText(), "No SLO was given") {
		t.Errorf("verdict: %s", v.allText())
	}
	if n := len(doc.find("g", "slo")); n != 0 {
		t.Errorf("%d SLO lines without an SLO", n)
	}
	if doc.byID("server") != nil {
		t.Error("a server section without a server series")
	}
	if txt := doc.byID("errors").allText(); !strings.Contains(txt, "No request failed.") {
		t.Errorf("errors: %q", txt)
	}
}

func TestRunHTMLEmptyRun(t *testing.T) {
	// A run with no measured request still renders a valid page that says so.
	run := build(record.Header{}, nil, RunOptions{SLO: mustSLO(t, "ttft<=1s")})
	var b bytes.Buffer
	if err := WriteRunHTML(&b, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, b.Bytes())
	checkSelfContained(t, doc)
	// Four histograms and the request timeline.
	if n := len(doc.all(func(x *node) bool { return x.name == "text" && x.attrs["class"] == "empty" })); n != 5 {
		t.Errorf("%d empty-chart notes, want 5", n)
	}
	if !strings.Contains(doc.byID("verdict").allText(), "No request was measured.") {
		t.Error("the verdict does not say nothing was measured")
	}
	if err := WriteRunHTML(&b, nil, HTMLOptions{}); err == nil {
		t.Error("a nil run renders")
	}
}

func TestSweepHTMLStructure(t *testing.T) {
	sum := simpleSweep(t)
	s := &Sweep{Name: "nightly", Path: "runs/sweep.json", Summary: sum, Records: map[string][]string{
		sweep.Concurrency(16).String(): {"c16.jsonl", "c16-r2.jsonl"},
	}}
	var b bytes.Buffer
	if err := WriteSweepHTML(&b, s, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, b.Bytes())
	checkSelfContained(t, doc)
	if !sum.Power.Found || !sum.GoodputPeak.Found || !sum.Operating.Found {
		t.Fatalf("the fixture should have a knee, a peak and an operating point: %+v", sum)
	}
	// The latency–throughput curves: p50 and p99 lines, a hover title on
	// every point, the picks marked.
	for _, title := range []string{"TTFT against throughput", "TPOT against throughput"} {
		f := figure(t, doc, title)
		if n := len(f.find("path", "line")); n != 2 {
			t.Errorf("%s: %d lines, want p50 and p99", title, n)
		}
		pts := f.find("circle", "point")
		if len(pts) != 2*len(sum.Points) {
			t.Errorf("%s: %d points, want %d", title, len(pts), 2*len(sum.Points))
		}
		for _, p := range pts {
			if len(p.kids) != 1 || !strings.Contains(p.kids[0].text, "load ") {
				t.Fatalf("%s: a point without its hover", title)
			}
		}
		labels := strings.Join(markerLabels(f, "pick"), " | ")
		for _, want := range []string{"knee", "peak", "operating"} {
			if !strings.Contains(labels, want) {
				t.Errorf("%s: picks %q lack %q", title, labels, want)
			}
		}
	}
	// Against load the knees, throughput's, are marked on the throughput
	// line, and the goodput peak on goodput's.
	tg := figure(t, doc, "Throughput and goodput")
	on := func(pick, line string) bool {
		for _, g := range tg.find("g", pick) {
			ring := g.find("circle", "")[0]
			for _, pt := range tg.find("circle", line) {
				if pt.attrs["cx"] == ring.attrs["cx"] && pt.attrs["cy"] == ring.attrs["cy"] {
					return true
				}
			}
		}
		return false
	}
	if m := sum.Points[sum.Power.Index].Mean; m.Goodput >= m.OutputThroughput {
		t.Fatalf("the fixture's knee should lose goodput: %+v", m)
	}
	if !on("knee", "s0") || !on("peak", "s2") {
		t.Errorf("against load: knee on the throughput line %v, peak on goodput's %v; want both", on("knee", "s0"), on("peak", "s2"))
	}
	att := figure(t, doc, "SLO attainment")
	if got := markerLabels(att, "target"); len(got) != 1 || got[0] != "target 90.0 %" {
		t.Errorf("attainment target line %v", got)
	}
	// Every point in the table, marks on the picked rows.
	rows := doc.byID("points").find("table", "points")[0].find("tr", "")
	if len(rows) != len(sum.Points)+1 {
		t.Errorf("points table has %d rows, want %d", len(rows), len(sum.Points)+1)
	}
	op := rows[sum.Operating.Index+1].allText()
	if !strings.Contains(op, "op") {
		t.Errorf("operating point row %q lacks its mark", op)
	}
	if txt := doc.byID("points").allText(); !strings.Contains(txt, "c16.jsonl, c16-r2.jsonl") {
		t.Error("the point's record files are not listed")
	}
	// The embedded data is the sweep file itself.
	back, err := sweep.ReadJSON(strings.NewReader(doc.byID("goodput-sweep").text))
	if err != nil || len(back.Points) != len(sum.Points) || back.Operating.Load != sum.Operating.Load {
		t.Errorf("embedded sweep: %v", err)
	}
	if err := WriteSweepHTML(&b, &Sweep{}, HTMLOptions{}); err == nil {
		t.Error("an empty sweep renders")
	}
}

func TestSweepHTMLUnboundedRate(t *testing.T) {
	// A rate sweep ending at an unbounded rate: the rate is drawn beyond
	// the highest finite one (a quarter further on this linear axis), and
	// the page says so.
	var points []sweep.Point
	for i, r := range []float64{1, 2, 4, math.Inf(1)} {
		s := sweep.Sample{Requests: 100, OutputThroughput: 100 * float64(i+1), Goodput: 90 * float64(i+1), RequestThroughput: float64(i + 1), Attainment: 0.9,
			TTFT: sweep.Dist{P50: 0.1, P99: 0.2}, TPOT: sweep.Dist{P50: 0.01, P99: 0.02}}
		p, err := sweep.NewPoint(sweep.Rate(r), s)
		if err != nil {
			t.Fatal(err)
		}
		points = append(points, p)
	}
	sum, err := sweep.Analyze(points, sweep.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSweepHTML(&b, &Sweep{Name: "rates", Summary: sum}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	doc := parsePage(t, b.Bytes())
	if txt := doc.byID("load").allText(); !strings.Contains(txt, "unbounded request rate (every request at once) is drawn at 5 req/s") {
		t.Errorf("load section: %q", txt)
	}
	if n := len(figure(t, doc, "Throughput and goodput").find("circle", "point")); n != 8 {
		t.Errorf("%d points, want all 8 (the unbounded rate included)", n)
	}
}

// TestReportSize100k is the size half of the 100,000-request
// promise (the opening time is measured by BenchmarkBrowserOpen): the
// page stays far below 5 MB because charts are reduced before drawing.
func TestReportSize100k(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 100,000-request run")
	}
	run := largeRun(t, 100_000)
	var b bytes.Buffer
	if err := WriteRunHTML(&b, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if b.Len() >= 5<<20 {
		t.Errorf("report of 100,000 requests is %d bytes, want under 5 MiB", b.Len())
	}
	t.Logf("report of %d requests: %d bytes", run.Result.Counts.Total, b.Len())
	doc := parsePage(t, b.Bytes())
	checkSelfContained(t, doc)
	if n := len(doc.byID("timeline").find("rect", "hover")); n > 5*maxTimePoints {
		t.Errorf("%d hover bands over the time charts, want at most %d", n, 5*maxTimePoints)
	}
}

// A gap threshold from the caller (vLLM's --timeline-itl-thresholds) marks
// the request timeline's gaps instead of the run's own choice.
func TestRunHTMLTakesTheTimelineGap(t *testing.T) {
	run := richRun(t)
	for _, tt := range []struct {
		gap  float64
		want string
	}{
		{0.05, "gap over 50 ms"},
		{2, "gap over 2 s"},
	} {
		var b bytes.Buffer
		if err := WriteRunHTML(&b, run, HTMLOptions{LongGap: tt.gap}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("LongGap %v: the timeline's legend lacks %q", tt.gap, tt.want)
		}
	}
}

// A card's tail names the percentile it shows: p99 when computed, else
// the highest computed one below it under its own name, never a p90
// called p99; a run in which every request failed shows n/a, not 0 ms.
func TestRunHTMLCardsNameTheirPercentile(t *testing.T) {
	recs := fixedRecords(50, 100*time.Millisecond, 0, 4, 10*time.Millisecond, func(i int) time.Duration { return time.Duration(10+i) * time.Millisecond })
	cardsOf := func(run *Run) []string {
		var b bytes.Buffer
		if err := WriteRunHTML(&b, run, HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range parsePage(t, b.Bytes()).find("div", "card") {
			out = append(out, c.allText())
		}
		return out
	}
	ttftCard := func(cards []string) string {
		for _, c := range cards {
			if strings.HasPrefix(c, "TTFT p50") {
				return c
			}
		}
		t.Fatalf("no TTFT card in %q", cards)
		return ""
	}
	// TTFTs 10..59 ms, linear: p90 54.1 ms, p99 58.51 ms.
	run := build(record.Header{}, recs, RunOptions{})
	cards := cardsOf(run)
	if c := ttftCard(cards); !strings.Contains(c, "p99 58.5 ms") {
		t.Errorf("default percentiles: %q, want p99 58.5 ms", c)
	}
	// The seeds' dashboard list names input tokens per second.
	in := "Input throughput" + human.Brief(run.Result.Throughput.InputTokensPerSecond) + " tok/s"
	if !slices.ContainsFunc(cards, func(c string) bool { return strings.HasPrefix(c, in) }) || run.Result.Throughput.InputTokensPerSecond <= 0 {
		t.Errorf("no card %q in %q", in, cards)
	}
	o := RunOptions{}
	o.Metrics.Percentiles = []float64{50, 90}
	if c := ttftCard(cardsOf(build(record.Header{}, recs, o))); !strings.Contains(c, "p90 54.1 ms") || strings.Contains(c, "p99") {
		t.Errorf("percentiles 50,90: %q, want p90 54.1 ms and no p99", c)
	}
	failed := slices.Clone(recs)
	for i := range failed {
		failed[i].Chunks, failed[i].OutputTokens, failed[i].Error, failed[i].Msg = nil, 0, record.ErrReset, "reset"
	}
	if c := ttftCard(cardsOf(build(record.Header{}, failed, RunOptions{}))); c != "TTFT p50n/ap99 n/a" {
		t.Errorf("every request failed: %q, want n/a for both", c)
	}
}

// When failed requests were long in flight, the Little's Law note names
// them as the gap's cause (L counts them, λ·W̄ does not) rather than
// calling the load unsteady.
func TestLittlesLawNoteNamesTheFailed(t *testing.T) {
	recs := fixedRecords(20, 100*time.Millisecond, 0, 4, 10*time.Millisecond, func(int) time.Duration { return 20 * time.Millisecond })
	for i := 0; i < len(recs); i += 2 {
		recs[i].Chunks, recs[i].OutputTokens, recs[i].Error, recs[i].Msg = nil, 0, record.ErrTimeout, "timed out"
		recs[i].End = recs[i].Sent + int64(2*time.Second)
	}
	run := build(record.Header{}, recs, RunOptions{})
	if ll := run.Result.LittlesLaw; ll.RelativeGap <= 0.2 {
		t.Fatalf("the fixture should break Little's Law: %+v", ll)
	}
	notes := strings.Join(runNotes(run), "\n")
	if !strings.Contains(notes, "L counts the 10 failed requests while they were in flight") {
		t.Errorf("notes:\n%s", notes)
	}
}

// A run page carries the summary's findings with its warnings, where a
// reader looks before trusting the numbers.
func TestRunNotesCarryTheFindings(t *testing.T) {
	run := build(record.Header{}, fixedRecords(4, 100*time.Millisecond, 0, 4, 10*time.Millisecond, func(int) time.Duration { return 20 * time.Millisecond }), RunOptions{})
	const finding = `Output lengths: 3 of 4 answers ended before their max_tokens (finish reason "stop"; 40 of the 64 output tokens asked for came)`
	run.Summary = &SummaryFile{Warnings: []string{"a warning"}, Findings: []string{finding}}
	notes := runNotes(run)
	if !slices.Contains(notes, finding) || !slices.Contains(notes, "a warning") {
		t.Errorf("notes %q, want the warning and the finding", notes)
	}
}

// The server section of a run page says how a speculative decoder did
// over the window, from its spec_decode counters.
func TestServerSectionSpeculativeDecoding(t *testing.T) {
	w := &promscrape.Window{Engine: promscrape.VLLM,
		Counters: map[promscrape.Counter]float64{promscrape.SpecDrafts: 300, promscrape.SpecDraftTokens: 900, promscrape.SpecAcceptedTokens: 600},
		CounterSeries: map[promscrape.Counter]map[string]float64{promscrape.SpecAcceptedByPosition: {
			`position="0"`: 250, `position="1"`: 200, `position="2"`: 150}}}
	var p page
	serverSection(&p, "server", "Server", &promscrape.Series{}, w)
	want := "<li>speculative decoding: 66.67 % of 900 draft tokens accepted, 3.00 tokens per step; by position 0: 83.3 %, 1: 66.7 %, 2: 50.0 %</li>"
	if !strings.Contains(p.b.String(), want) {
		t.Errorf("server section lacks %s:\n%s", want, p.b.String())
	}
	w.Counters = nil
	p = page{}
	if serverSection(&p, "server", "Server", &promscrape.Series{}, w); strings.Contains(p.b.String(), "speculative") {
		t.Error("a server without drafts is said to decode speculatively")
	}
}

// The server section of a run page says how a diffusion model decoded
// over the window, from its diffusion counters.
func TestServerSectionDiffusionDecoding(t *testing.T) {
	w := &promscrape.Window{Engine: promscrape.VLLM, Counters: map[promscrape.Counter]float64{
		promscrape.DiffusionSteps: 1200, promscrape.DiffusionPositions: 38400, promscrape.DiffusionCommitted: 6400}}
	var p page
	serverSection(&p, "server", "Server", &promscrape.Series{}, w)
	want := "<li>diffusion decoding: 5.00 denoising steps per canvas of 32 positions, 6.40 tokens committed per step (6400 tokens)</li>"
	if !strings.Contains(p.b.String(), want) {
		t.Errorf("server section lacks %s:\n%s", want, p.b.String())
	}
	w.Counters = nil
	p = page{}
	if serverSection(&p, "server", "Server", &promscrape.Series{}, w); strings.Contains(p.b.String(), "diffusion") {
		t.Error("a server without diffusion counters is said to decode by diffusion")
	}
}

// A run with probes beside it shows them in a section of their own, with
// vLLM's figures: 10, 20, 30, 40 ms give a median of 25 ms, a p99 of
// 39.7 ms (numpy's linear) and a max of 40 ms.
func TestRunPageShowsProbes(t *testing.T) {
	run := exampleRun(t, "sessions_worked_example.txt", false, nil)
	if doc := runPage(t, run); doc.byID("probes") != nil {
		t.Error("a run without probes has a probe section")
	}
	run.Summary = &SummaryFile{Probes: &ProbeRequests{Rate: 2, Latencies: []float64{0.04, 0.01, 0.03, 0.02}, Failed: 1, FirstError: "timeout: request timeout", Late: 3}}
	sec := runPage(t, run).byID("probes")
	if sec == nil {
		t.Fatal("no probe section")
	}
	text := sec.allText()
	for _, want := range []string{"sent at 2/s beside the run", "sentcompletedfailedmedian e2ep99 e2emax e2e54125 ms39.7 ms40 ms",
		"3 sent late: the probe before was still in flight at their due time", "first failure: timeout: request timeout"} {
		if !strings.Contains(text, want) {
			t.Errorf("probe section lacks %q:\n%s", want, text)
		}
	}
}
