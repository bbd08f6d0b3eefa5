package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

func TestRunMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteRunMarkdown(&b, richRun(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "run.md", b.Bytes())
}

func TestRunMarkdownWithoutSLO(t *testing.T) {
	recs := fixedRecords(10, time.Second, 0, 3, 10*time.Millisecond, func(int) time.Duration { return 20 * time.Millisecond })
	var b bytes.Buffer
	if err := WriteRunMarkdown(&b, build(record.Header{}, recs, RunOptions{})); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// No SLO: no goodput rows, no gates, no errors table, no configuration.
	for _, absent := range []string{"goodput |", "SLO attainment", "| error |", "<details>"} {
		if strings.Contains(out, absent) {
			t.Errorf("output has %q:\n%s", absent, out)
		}
	}
	if !strings.Contains(out, "| ttft | 10 | 20.00 | 20.00 | 20.00 | 20.00 | 20.00 |") {
		t.Errorf("latency table:\n%s", out)
	}
	if err := WriteRunMarkdown(&b, nil); err == nil {
		t.Error("a nil run renders")
	}
}

func TestSweepMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteSweepMarkdown(&b, &Sweep{Name: "nightly", Summary: simpleSweep(t)}); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep.md", b.Bytes())
	if err := WriteSweepMarkdown(&b, &Sweep{}); err == nil {
		t.Error("an empty sweep renders")
	}
}

func TestMarkdownCell(t *testing.T) {
	// A pipe or a line break in a value must not break the table.
	if got := mdCell("a|b\nc\t d"); got != `a\|b c d` {
		t.Errorf("mdCell = %q", got)
	}
}
