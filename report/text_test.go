package report

import (
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/metrics"
)

// The errors block gives each kind's count and its first message, cut to
// 100 characters, so that a run whose requests all failed says why.
func TestTextErrorsComeWithAReason(t *testing.T) {
	long := "http 404 Not Found: " + strings.Repeat("x", 200)
	res := &metrics.Result{Counts: metrics.Counts{
		Total: 3, Failed: 3,
		Errors:        map[string]int64{"http": 2, "timeout": 1},
		ErrorExamples: map[string]string{"http": long},
	}}
	var b strings.Builder
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	want := "2 (first: " + shorten(long, 100) + ")"
	if !strings.Contains(out, want) || !strings.Contains(out, "…)") {
		t.Errorf("errors block lacks %q:\n%s", want, out)
	}
	if !strings.Contains(out, "timeout:") || strings.Contains(out, "1 (first:") {
		t.Errorf("a kind without a message should show its count alone:\n%s", out)
	}
}

// Requests canceled at an interrupt are said to be canceled, and to be
// outside attainment, which is a fraction of the others.
func TestTextSaysCanceledRequestsAreOutsideAttainment(t *testing.T) {
	res := &metrics.Result{
		Counts:  metrics.Counts{Total: 10, Completed: 6, Failed: 4, Canceled: 2, Errors: map[string]int64{"canceled": 2, "timeout": 2}},
		Goodput: &metrics.Goodput{SLO: "ttft<=1s", GoodRequests: 6, Attainment: 0.75},
	}
	var b strings.Builder
	if err := Text(&b, res, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"4 (2 canceled: in flight at the interrupt)",
		"75.00% (6 of 8 requests; the 2 canceled at the interrupt are outside it)",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}
