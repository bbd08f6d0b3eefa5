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

// TestBrowserOpensReports opens a run report and a sweep report in
// headless Chromium and checks that every chart was drawn at a visible
// size, that the page made no request but for itself and logged no error,
// and saves a screenshot of each under the test's temporary directory.
func TestBrowserOpensReports(t *testing.T) {
	path := chromiumPath(t)
	b := startBrowser(t, path)
	dir := t.TempDir()

	var runPage bytes.Buffer
	run := richRun(t)
	if err := WriteRunHTML(&runPage, run, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	var sweepPage bytes.Buffer
	sw := simpleSweep(t)
	if err := WriteSweepHTML(&sweepPage, &Sweep{Name: "nightly", Summary: sw}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		page  []byte
		check func(t *testing.T, v pageView)
	}{
		{"run", runPage.Bytes(), func(t *testing.T, v pageView) {
			// Four histograms, five time charts, the server's phases.
			if v.Charts != 10 || v.Drawn != 10 {
				t.Errorf("%d charts, %d drawn; want 10 and 10", v.Charts, v.Drawn)
			}
			if v.Bars < 20 || v.Lines < 7 || v.Titles < v.Bars {
				t.Errorf("bars %d lines %d hover titles %d", v.Bars, v.Lines, v.Titles)
			}
			if v.Title != "goodput run: run" {
				t.Errorf("title %q", v.Title)
			}
		}},
		{"sweep", sweepPage.Bytes(), func(t *testing.T, v pageView) {
			n := len(sw.Points)
			if v.Charts != 4 || v.Drawn != 4 {
				t.Errorf("%d charts, %d drawn; want 4 and 4", v.Charts, v.Drawn)
			}
			// p50 and p99 on each latency chart, throughput and goodput,
			// and attainment: seven curves of one point per load.
			if v.Points != 7*n || v.Lines != 7 || v.Picks < 4 {
				t.Errorf("points %d (want %d) lines %d picks %d", v.Points, 7*n, v.Lines, v.Picks)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, tt.name+".html")
			if err := os.WriteFile(file, tt.page, 0o644); err != nil {
				t.Fatal(err)
			}
			pl := b.open(t, file)
			checkOffline(t, file, pl)
			tt.check(t, pl.view)
			shot := filepath.Join(dir, tt.name+".png")
			b.screenshot(t, shot)
			t.Logf("%s: %d bytes, loaded in %v, painted in %v; screenshot %s", tt.name, len(tt.page), pl.loaded, pl.rendered, shot)
		})
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
		if pl.view.Charts != 8 { // four histograms, four time charts
			b.Fatalf("%d charts", pl.view.Charts)
		}
	}
	b.ReportMetric(float64(page.Len()), "bytes/report")
	b.ReportMetric(float64(loaded.Milliseconds())/float64(b.N), "ms-to-load/op")
}
