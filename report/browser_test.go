//go:build linux

package report

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pageView is what a page holds once rendered, as the browser sees it.
type pageView struct {
	Charts int    `json:"charts"` // svg.chart elements
	Drawn  int    `json:"drawn"`  // of those, laid out at a visible size
	Bars   int    `json:"bars"`
	Lines  int    `json:"lines"`
	Points int    `json:"points"`
	Picks  int    `json:"picks"`
	Titles int    `json:"titles"` // hover texts inside charts
	Title  string `json:"title"`
}

const inspectPage = `(() => {
  const svgs = [...document.querySelectorAll('svg.chart')];
  return {
    charts: svgs.length,
    drawn: svgs.filter(s => { const r = s.getBoundingClientRect(); return r.width > 100 && r.height > 20; }).length,
    bars: document.querySelectorAll('svg.chart rect.bar').length,
    lines: document.querySelectorAll('svg.chart path.line').length,
    points: document.querySelectorAll('svg.chart circle.point').length,
    picks: document.querySelectorAll('svg.chart g.pick').length,
    titles: document.querySelectorAll('svg.chart title').length,
    title: document.title,
  };
})()`

// pageLoad is one page opened in the browser.
type pageLoad struct {
	view     pageView
	loaded   time.Duration // navigation to the load event
	rendered time.Duration // navigation to two frames painted after it
	requests []string      // URLs the page requested, the document included
	problems []string      // console errors, exceptions, failed loads
}

// open navigates to the file, waits until the page has loaded and painted,
// and reports what it holds and everything it did on the way.
func (b *browser) open(t testing.TB, path string) pageLoad {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	u := "file://" + abs
	c := b.page
	c.events = nil
	start := time.Now()
	res, err := c.call("Page.navigate", map[string]any{"url": u}, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if json.Unmarshal(res, &nav) == nil && nav.ErrorText != "" {
		t.Fatalf("navigate to %s: %s", u, nav.ErrorText)
	}
	if _, err := c.wait("Page.loadEventFired", 60*time.Second); err != nil {
		t.Fatal(err)
	}
	var pl pageLoad
	pl.loaded = time.Since(start)
	var painted bool
	if err := c.evaluate(`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, &painted); err != nil {
		t.Fatal(err)
	}
	pl.rendered = time.Since(start)
	if err := c.evaluate(inspectPage, &pl.view); err != nil {
		t.Fatal(err)
	}
	for _, ev := range c.events {
		switch ev.Method {
		case "Network.requestWillBeSent":
			var p struct {
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
			}
			_ = json.Unmarshal(ev.Params, &p)
			pl.requests = append(pl.requests, p.Request.URL)
		case "Network.loadingFailed":
			var p struct {
				ErrorText     string `json:"errorText"`
				BlockedReason string `json:"blockedReason"`
			}
			_ = json.Unmarshal(ev.Params, &p)
			pl.problems = append(pl.problems, fmt.Sprintf("load failed: %s %s", p.ErrorText, p.BlockedReason))
		case "Log.entryAdded":
			var p struct {
				Entry struct {
					Level, Text, URL string
				} `json:"entry"`
			}
			_ = json.Unmarshal(ev.Params, &p)
			if p.Entry.Level == "error" {
				pl.problems = append(pl.problems, fmt.Sprintf("console error: %s %s", p.Entry.Text, p.Entry.URL))
			}
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(ev.Params, &p)
			if p.Type == "error" || p.Type == "assert" {
				pl.problems = append(pl.problems, "console."+p.Type+" called")
			}
		case "Runtime.exceptionThrown":
			pl.problems = append(pl.problems, "exception: "+string(ev.Params))
		}
	}
	return pl
}

// screenshot saves the whole page as a PNG.
func (b *browser) screenshot(t testing.TB, path string) {
	t.Helper()
	res, err := b.page.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(res, &shot); err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || len(png) < 10_000 {
		t.Fatalf("screenshot is not a plausible PNG (%d bytes)", len(png))
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkOffline fails the test if the page requested anything but itself
// or logged any problem.
func checkOffline(t *testing.T, path string, pl pageLoad) {
	t.Helper()
	abs, _ := filepath.Abs(path)
	self := 0
	for _, u := range pl.requests {
		if u == "file://"+abs {
			self++
			continue
		}
		t.Errorf("the page requested %s", u)
	}
	// The browser reports the document's own load: the monitoring works.
	if self != 1 {
		t.Errorf("the document's own request was seen %d times, want 1: %v", self, pl.requests)
	}
	for _, p := range pl.problems {
		t.Errorf("%s", p)
	}
}

// layoutView is what the browser's layout says about a page: the checks a
// reader makes by eye.
type layoutView struct {
	// Overlaps names every pair of labels (SVG text) of one chart whose
	// boxes intersect.
	Overlaps []string `json:"overlaps"`
	// Segments counts the stacked segments; Unnamed lists those without
	// a legend entry of their own.
	Segments int      `json:"segments"`
	Unnamed  []string `json:"unnamed"`
	// Tables lists the points tables that are neither wholly visible nor
	// in a box that scrolls to them.
	CutTables []string `json:"cut_tables"`
	Tables    int      `json:"tables"`
	// PageOverflow says the page is wider than the window.
	PageOverflow bool `json:"page_overflow"`
	Requests     int  `json:"requests"` // bars of the per-request timeline
	Exports      int  `json:"exports"`  // charts with SVG and PNG buttons
	// OverData names the labels of picks and reference lines drawn over a
	// data point or a curve; Labels counts the labels checked.
	OverData []string `json:"over_data"`
	Labels   int      `json:"labels"`
}

const inspectLayout = `(() => {
  const overlaps = [];
  const tol = 0.5;
  const hit = (a, b) => a.left < b.right - tol && b.left < a.right - tol && a.top < b.bottom - tol && b.top < a.bottom - tol;
  for (const svg of document.querySelectorAll('svg.chart')) {
    const fig = svg.closest('figure');
    const name = fig && fig.querySelector('figcaption') ? fig.querySelector('figcaption').firstChild.textContent : '?';
    const texts = [...svg.querySelectorAll('text')].filter(t => t.textContent.trim() !== '');
    const boxes = texts.map(t => t.getBoundingClientRect());
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++)
        if (hit(boxes[i], boxes[j])) overlaps.push(name + ': "' + texts[i].textContent + '" and "' + texts[j].textContent + '"');
  }
  const segs = [...document.querySelectorAll('svg.chart g.seg')];
  const unnamed = segs.filter(g => !g.closest('svg').querySelector('g.segkey[data-seg="' + g.classList[1] + '"] text')).map(g => g.classList[1]);
  const width = document.documentElement.clientWidth;
  const cut = [];
  const tables = [...document.querySelectorAll('table.points, table.differences')];
  for (const t of tables) {
    const r = t.getBoundingClientRect();
    if (r.left >= -tol && r.right <= width + tol) continue;
    const wrap = t.closest('.scroll');
    const ox = wrap ? getComputedStyle(wrap).overflowX : '';
    const wr = wrap ? wrap.getBoundingClientRect() : null;
    if (wrap && (ox === 'auto' || ox === 'scroll') && wrap.scrollWidth > wrap.clientWidth && wr.right <= width + tol) continue;
    cut.push(t.className + ' ends at ' + Math.round(r.right) + ' of ' + width);
  }
  const overData = [];
  let labels = 0;
  for (const svg of document.querySelectorAll('svg.chart')) {
    const fig = svg.closest('figure');
    const name = fig && fig.querySelector('figcaption') ? fig.querySelector('figcaption').firstChild.textContent : '?';
    const texts = [...svg.querySelectorAll('g.pick text, g.slo text, g.target text')].filter(t => !t.closest('.marker, .legend'));
    labels += texts.length;
    const boxes = texts.map(t => t.getBoundingClientRect());
    const inside = (r, x, y) => x > r.left + 1 && x < r.right - 1 && y > r.top + 1 && y < r.bottom - 1;
    const points = [...svg.querySelectorAll('circle.point')].map(c => c.getBoundingClientRect());
    const m = svg.getScreenCTM();
    texts.forEach((t, i) => {
      const r = boxes[i];
      if (points.some(p => hit(r, p))) { overData.push(name + ': "' + t.textContent + '" over a point'); return; }
      for (const path of svg.querySelectorAll('path.line')) {
        const n = path.getTotalLength();
        for (let s = 0; s <= n; s += 2) {
          const q = path.getPointAtLength(s);
          const x = m.a * q.x + m.c * q.y + m.e, y = m.b * q.x + m.d * q.y + m.f;
          if (inside(r, x, y)) { overData.push(name + ': "' + t.textContent + '" over a curve'); return; }
        }
      }
    });
  }
  return {
    over_data: overData, labels,
    overlaps, segments: segs.length, unnamed, cut_tables: cut, tables: tables.length,
    page_overflow: document.documentElement.scrollWidth > width + 1,
    requests: document.querySelectorAll('svg.chart g.req').length,
    exports: document.querySelectorAll('figure.chart figcaption .export button').length / 2,
  };
})()`

// layout asks the open page for its layout.
func (b *browser) layout(t *testing.T) layoutView {
	t.Helper()
	var v layoutView
	if err := b.page.evaluate(inspectLayout, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// setWidth makes the window width pixels wide, as a narrow screen.
func (b *browser) setWidth(t *testing.T, width int) {
	t.Helper()
	if _, err := b.page.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 1600, "deviceScaleFactor": 1, "mobile": false}, 30*time.Second); err != nil {
		t.Fatal(err)
	}
}

// checkLayout fails the test for overlapping labels, unnamed segments and
// tables cut off.
func checkLayout(t *testing.T, v layoutView) {
	t.Helper()
	for _, o := range v.Overlaps {
		t.Errorf("labels overlap: %s", o)
	}
	for _, u := range v.Unnamed {
		t.Errorf("stacked segment %s has no legend entry", u)
	}
	for _, c := range v.CutTables {
		t.Errorf("a table is cut off: %s", c)
	}
	for _, o := range v.OverData {
		t.Errorf("a label is drawn over data: %s", o)
	}
}

// TestBrowserOpensReports opens a run report, the report of a run of
// sessions over two endpoints, a sweep report and two compare pages (of
// plain runs, and of runs of sessions) in headless Chromium and checks, from the page as laid out, what a
// reader would: every chart drawn at a visible size, no two labels of a
// chart over each other, a legend entry for every stacked segment, tables
// visible or scrollable (on a narrow window too), one timeline bar per
// request, every chart exportable, no request but for the page itself and
// no error. It saves a screenshot of each under the test's directory.
func TestBrowserOpensReports(t *testing.T) {
	path := chromiumPath(t)
	b := startBrowser(t, path)
	dir := t.TempDir()

	var runPage bytes.Buffer
	run := richRun(t)
	if err := WriteRunHTML(&runPage, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	var sessionsPage bytes.Buffer
	sessions := sessionsRun(t)
	if err := WriteRunHTML(&sessionsPage, sessions, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	var sweepPage bytes.Buffer
	sw := simpleSweep(t)
	ctx := SweepContext{Target: "built-in simulator: Llama-3.1-8B on H100-SXM", Workload: "random: input 512 tokens, output 256 tokens, seed 0",
		SLO: "ttft<=500ms,tpot<=50ms", Method: "linear", Settings: map[string]string{"num_prompts": "400"}}
	if err := WriteSweepHTML(&sweepPage, &Sweep{Name: "nightly", Summary: sw, Context: ctx}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	var comparePage bytes.Buffer
	if err := WriteCompareHTML(&comparePage, goldenComparison(t), HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	var sessionsCompare bytes.Buffer
	h, slower := sessionsRecords(t, 4, 30*time.Millisecond, func(i int) int { return (i * 7) % 45 })
	sc, err := Compare([]*Run{sessions, build(h, slower, RunOptions{SLO: sessions.SLO})}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteCompareHTML(&sessionsCompare, sc, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		page  []byte
		check func(t *testing.T, v pageView, l layoutView)
	}{
		{"run", runPage.Bytes(), func(t *testing.T, v pageView, l layoutView) {
			// Two token-length histograms, four latency histograms, the
			// request timeline, five time charts, the server's phases.
			if v.Charts != 13 || v.Drawn != 13 || l.Exports != 13 {
				t.Errorf("%d charts, %d drawn, %d exportable; want 13 of each", v.Charts, v.Drawn, l.Exports)
			}
			if v.Bars < 20 || v.Lines < 7 || v.Titles < v.Bars {
				t.Errorf("bars %d lines %d hover titles %d", v.Bars, v.Lines, v.Titles)
			}
			if v.Title != "goodput run: run" {
				t.Errorf("title %q", v.Title)
			}
			if l.Segments != 3 {
				t.Errorf("%d stacked segments, want queue, prefill and decode", l.Segments)
			}
			if want := int(run.Result.Counts.Total); l.Requests != want || want != 400 {
				t.Errorf("%d timeline bars for %d requests", l.Requests, want)
			}
		}},
		{"sessions", sessionsPage.Bytes(), func(t *testing.T, v pageView, l layoutView) {
			// The run's own eleven charts (no server series) and TTFT by
			// turn, whose p50 and p99 have a point per turn.
			if v.Charts != 12 || v.Drawn != 12 || l.Exports != 12 {
				t.Errorf("%d charts, %d drawn, %d exportable; want 12 of each", v.Charts, v.Drawn, l.Exports)
			}
			if v.Points != 2*4 {
				t.Errorf("%d points, want p50 and p99 of 4 turns", v.Points)
			}
			// The SLO's bounds on the TTFT and TPOT histograms and on
			// the turns chart, checked against the data.
			if l.Labels != 3 {
				t.Errorf("%d reference labels checked, want the SLO's three", l.Labels)
			}
			if want := int(sessions.Result.Counts.Total); l.Requests != want || want != 160 {
				t.Errorf("%d timeline bars for %d requests", l.Requests, want)
			}
		}},
		{"sweep", sweepPage.Bytes(), func(t *testing.T, v pageView, l layoutView) {
			n := len(sw.Points)
			if v.Charts != 4 || v.Drawn != 4 || l.Exports != 4 {
				t.Errorf("%d charts, %d drawn, %d exportable; want 4 of each", v.Charts, v.Drawn, l.Exports)
			}
			// p50 and p99 on each latency chart, throughput and goodput,
			// and attainment: seven curves of one point per load.
			if v.Points != 7*n || v.Lines != 7 || v.Picks < 4 {
				t.Errorf("points %d (want %d) lines %d picks %d", v.Points, 7*n, v.Lines, v.Picks)
			}
			if v.Title != "goodput sweep: nightly" || l.Tables != 1 {
				t.Errorf("title %q, %d points tables", v.Title, l.Tables)
			}
			// The picks' labels, the SLO on both latency curves and the
			// attainment target, all checked against the data.
			if l.Labels < 7 {
				t.Errorf("%d pick and reference labels checked, want at least 7", l.Labels)
			}
		}},
		{"compare", comparePage.Bytes(), func(t *testing.T, v pageView, l layoutView) {
			// The differences with their intervals, and four distributions.
			if v.Charts != 5 || v.Drawn != 5 || l.Exports != 5 {
				t.Errorf("%d charts, %d drawn, %d exportable; want 5 of each", v.Charts, v.Drawn, l.Exports)
			}
			if v.Title != "goodput compare: base vs slower vs shorter" || l.Tables != 1 {
				t.Errorf("title %q, %d difference tables", v.Title, l.Tables)
			}
		}},
		{"compare-sessions", sessionsCompare.Bytes(), func(t *testing.T, v pageView, l layoutView) {
			if v.Charts != 5 || v.Drawn != 5 || l.Exports != 5 {
				t.Errorf("%d charts, %d drawn, %d exportable; want 5 of each", v.Charts, v.Drawn, l.Exports)
			}
			// The differences chart's points: eight latencies and the
			// session duration's p50 and p99, each with its interval.
			if v.Points != 10 {
				t.Errorf("%d difference points, want 10", v.Points)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, tt.name+".html")
			if err := os.WriteFile(file, tt.page, 0o644); err != nil {
				t.Fatal(err)
			}
			b.setWidth(t, 1280)
			pl := b.open(t, file)
			checkOffline(t, file, pl)
			l := b.layout(t)
			checkLayout(t, l)
			tt.check(t, pl.view, l)
			shot := filepath.Join(dir, tt.name+".png")
			b.screenshot(t, shot)
			// On a narrow window the wide tables scroll in their box; the
			// page itself is never cut.
			b.setWidth(t, 720)
			narrow := b.layout(t)
			for _, c := range narrow.CutTables {
				t.Errorf("720 px wide: a table is cut off: %s", c)
			}
			t.Logf("%s: %d bytes, loaded in %v, painted in %v; screenshot %s", tt.name, len(tt.page), pl.loaded, pl.rendered, shot)
		})
	}
}

// TestBrowserSLOExplorer moves the run page's TTFT and TPOT bounds and
// checks that the attainment and goodput it shows are what goodput analyze
// --slo prints for the same bounds, and that a chart saves as SVG and PNG.
func TestBrowserSLOExplorer(t *testing.T) {
	path := chromiumPath(t)
	b := startBrowser(t, path)
	h, recs := richRecords(t)
	run := build(h, recs, RunOptions{SLO: mustSLO(t, "ttft<=120ms,tpot<=20ms")})
	var page bytes.Buffer
	if err := WriteRunHTML(&page, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "run.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	pl := b.open(t, file)
	checkOffline(t, file, pl)
	// analyzeSays is what goodput analyze prints for the records with slo:
	// its attainment and goodput lines, which report.Text writes.
	analyzeSays := func(slo string) (attainment, goodput string) {
		res := build(h, recs, RunOptions{SLO: mustSLO(t, slo)}).Result
		var out bytes.Buffer
		if err := Text(&out, res, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if v, ok := strings.CutPrefix(line, "SLO attainment:"); ok {
				attainment = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "Goodput (tok/s):"); ok {
				goodput = strings.TrimSpace(v) + " tok/s"
			}
		}
		return attainment, goodput
	}
	type shown struct {
		Expr       string `json:"expr"`
		Attainment string `json:"attainment"`
		Goodput    string `json:"goodput"`
	}
	read := `({expr: document.getElementById('slo-expr').textContent,
	  attainment: document.getElementById('slo-attainment').textContent,
	  goodput: document.getElementById('slo-goodput').textContent})`
	set := func(ttftUS, tpotUS string) shown {
		var s shown
		js := `(() => { const set = (id, v) => { const el = document.getElementById(id); el.value = v === 'max' ? el.max : v;
		  el.dispatchEvent(new Event('input', {bubbles: true})); }; set('slo-ttft', '` + ttftUS + `'); set('slo-tpot', '` + tpotUS + `'); return ` + read + `; })()`
		if err := b.page.evaluate(js, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	var first shown
	if err := b.page.evaluate(read, &first); err != nil {
		t.Fatal(err)
	}
	att, gp := analyzeSays("ttft<=120ms,tpot<=20ms")
	if first.Expr != "ttft<=120ms,tpot<=20ms" || first.Attainment != att || first.Goodput != gp {
		t.Errorf("as opened: %+v; analyze says %s, %s", first, att, gp)
	}
	for _, tc := range []struct {
		ttft, tpot string // slider values, microseconds ("max": no bound)
		slo        string // the same bounds for analyze
	}{
		// TTFTs run from 30 to 149 ms; every TPOT is exactly 15 ms, so a
		// bound of 15 ms keeps them all and 14.999 ms none.
		{"87500", "15000", "ttft<=87.5ms,tpot<=15ms"},
		{"87500", "14999", "ttft<=87.5ms,tpot<=14.999ms"},
		{"30001", "max", "ttft<=30.001ms"},
		{"max", "max", "none"},
		{"149000", "20000", "ttft<=149ms,tpot<=20ms"},
	} {
		got := set(tc.ttft, tc.tpot)
		if tc.slo == "none" {
			// No bound at all: every request that succeeded is good.
			res := build(h, recs, RunOptions{}).Result
			want := fmt.Sprintf("%.2f%% (%d of %d requests)", 100*float64(res.Counts.Completed)/float64(res.Counts.Total), res.Counts.Completed, res.Counts.Total)
			if got.Expr != "none" || got.Attainment != want {
				t.Errorf("no bounds: %+v, want %s", got, want)
			}
			continue
		}
		att, gp := analyzeSays(tc.slo)
		if got.Expr != tc.slo || got.Attainment != att || got.Goodput != gp {
			t.Errorf("sliders at %s µs, %s µs: page shows %+v; analyze --slo '%s' says %s and %s", tc.ttft, tc.tpot, got, tc.slo, att, gp)
		}
	}
	var svg string
	if err := b.page.evaluate(`window.goodput.chartSVG(document.querySelector('figure.chart'))`, &svg); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "<style") || !strings.Contains(svg, "rect class=\"bar") {
		t.Errorf("exported SVG: %.200s", svg)
	}
	var png string
	if err := b.page.evaluate(`window.goodput.chartPNG(document.querySelector('figure.chart'))`, &png); err != nil {
		t.Fatal(err)
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(png, "data:image/png;base64,"))
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) || len(data) < 5000 {
		t.Errorf("exported PNG: %v, %d bytes, %.40s", err, len(data), png)
	}
}

// TestBrowserSeesProblems is the control of TestBrowserOpensReports: a
// page that fetches from the network and throws must fail its checks, or
// their passing would mean nothing.
func TestBrowserSeesProblems(t *testing.T) {
	path := chromiumPath(t)
	b := startBrowser(t, path)
	file := filepath.Join(t.TempDir(), "bad.html")
	page := `<!DOCTYPE html><html><head><title>bad</title></head><body>
<img src="http://127.0.0.1:9/missing.png"/>
<script>throw new Error("boom")</script>
<svg class="chart" width="300" height="100"><rect class="bar" width="10" height="10"/></svg>
</body></html>`
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	pl := b.open(t, file)
	if !slicesContains(pl.requests, "http://127.0.0.1:9/missing.png") {
		t.Errorf("the image request was not seen: %v", pl.requests)
	}
	if !strings.Contains(strings.Join(pl.problems, "\n"), "boom") {
		t.Errorf("the exception was not seen: %v", pl.problems)
	}
	if pl.view.Charts != 1 || pl.view.Drawn != 1 || pl.view.Bars != 1 {
		t.Errorf("view %+v", pl.view)
	}
}

// TestBrowserSeesLayoutProblems is the control of the layout checks: a
// page with overlapping labels, a label over a point and over a curve, a
// segment without a legend entry and a table wider than the window must
// fail every one of them.
func TestBrowserSeesLayoutProblems(t *testing.T) {
	b := startBrowser(t, chromiumPath(t))
	file := filepath.Join(t.TempDir(), "bad.html")
	page := `<!DOCTYPE html><html><head><title>bad</title></head><body>
<figure class="chart"><figcaption>bad chart</figcaption>
<svg class="chart" viewBox="0 0 400 200" width="400" height="200" xmlns="http://www.w3.org/2000/svg">
<text x="10" y="20">first label</text><text x="14" y="22">second label</text>
<circle class="point" cx="100" cy="100" r="4"/><g class="pick"><text x="100" y="104" text-anchor="middle">knee</text></g>
<path class="line" d="M0 150L400 150"/><g class="slo"><text x="300" y="154">SLO</text></g>
<g class="seg s0"><rect x="0" y="180" width="50" height="10"/></g>
</svg></figure>
<table class="points"><tr><td><div style="width: 3000px">wide</div></td></tr></table>
</body></html>`
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	b.setWidth(t, 1280)
	b.open(t, file)
	l := b.layout(t)
	if len(l.Overlaps) != 1 || !strings.Contains(l.Overlaps[0], `"first label" and "second label"`) {
		t.Errorf("overlaps %q", l.Overlaps)
	}
	if len(l.OverData) != 2 || !strings.Contains(strings.Join(l.OverData, "|"), `"knee" over a point`) || !strings.Contains(strings.Join(l.OverData, "|"), `"SLO" over a curve`) {
		t.Errorf("labels over data %q", l.OverData)
	}
	if len(l.Unnamed) != 1 || len(l.CutTables) != 1 || !l.PageOverflow {
		t.Errorf("unnamed %q, cut tables %q, page overflow %v", l.Unnamed, l.CutTables, l.PageOverflow)
	}
}

func slicesContains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// BenchmarkBrowserOpen100k measures how long headless Chromium takes to
// open and paint the report of a 100,000-request run (ns/op), and its size
// (bytes/report). The browser is started once; each iteration loads the
// page afresh.
func BenchmarkBrowserOpen100k(b *testing.B) {
	path := chromiumPath(b)
	run := largeRun(b, 100_000)
	var page bytes.Buffer
	if err := WriteRunHTML(&page, run, HTMLOptions{}); err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(b.TempDir(), "large.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	br := startBrowser(b, path)
	br.open(b, file) // warm the browser's own start-up paths
	var loaded time.Duration
	b.ResetTimer()
	for range b.N {
		pl := br.open(b, file)
		loaded += pl.loaded
		if pl.view.Charts != 11 { // two token-length and four latency histograms, the request timeline, four time charts
			b.Fatalf("%d charts", pl.view.Charts)
		}
	}
	b.ReportMetric(float64(page.Len()), "bytes/report")
	b.ReportMetric(float64(loaded.Milliseconds())/float64(b.N), "ms-to-load/op")
}
