package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

// TestTrendHTML: the trend page is well-formed, plots one point per run
// that has the metric, and tabulates every run with its change.
func TestTrendHTML(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	tr := Trend{Metric: "ttft_p99", Seconds: true, Better: -1, Comparability: "model m; load rate 8",
		Points: []TrendPoint{
			{ID: 1, Name: "one", Start: t0, Value: 0.200, Defined: true},
			{ID: 2, Name: "two", Start: t0.Add(time.Hour), Value: math.NaN()}, // a run without the metric
			{ID: 3, Name: "three", Start: t0.Add(2 * time.Hour), Server: "0.9.1 (/version)", Value: 0.300, Defined: true},
		}}
	var b bytes.Buffer
	if err := WriteTrendHTML(&b, tr, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	root := parsePage(t, b.Bytes())
	circles := root.all(func(n *node) bool { return n.name == "circle" })
	if len(circles) != 2 {
		t.Errorf("%d points plotted, want 2 (the run without the metric has none)", len(circles))
	}
	rows := root.all(func(n *node) bool { return n.name == "tr" })
	if len(rows) != 4 { // heading and three runs
		t.Errorf("%d table rows, want a heading and 3 runs", len(rows))
	}
	page := b.String()
	for _, want := range []string{"300.00 ms", "200.00 ms", "+50.0 %", "0.9.1 (/version)", "worse", `"id":2`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if err := WriteTrendHTML(&b, Trend{Metric: "x"}, HTMLOptions{}); err == nil {
		t.Error("a trend of no runs did not fail")
	}
}
