package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/slo"
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

// csvRecords covers the cases a per-request row must write: a plain
// success, multi-token chunks, a warm-up, an HTTP failure with a message
// that needs quoting, a request never sent, and a success without tokens.
func csvRecords() []record.Record {
	ms := int64(time.Millisecond)
	return []record.Record{
		{Seq: 0, Scheduled: 0, Sent: 1 * ms, End: 61 * ms, InputTokens: 10, OutputTokens: 3, TokenSource: record.SourceUsage, Status: 200, Finish: "stop",
			Chunks: []record.Chunk{{At: 20 * ms, Tokens: 1}, {At: 40 * ms, Tokens: 1}, {At: 60 * ms, Tokens: 1}}},
		{Seq: 1, Scheduled: 100 * ms, Sent: 100 * ms, End: 200 * ms, InputTokens: 12, OutputTokens: 5, TokenSource: record.SourceTokenizer, Status: 200, Finish: "length",
			Chunks: []record.Chunk{{At: 150 * ms, Tokens: 1}, {At: 190 * ms, Tokens: 4}}},
		{Seq: 2, Scheduled: 200 * ms, Sent: 200 * ms, End: 230 * ms, InputTokens: 10, OutputTokens: 1, Status: 200, Warmup: true,
			Chunks: []record.Chunk{{At: 225 * ms, Tokens: 1}}},
		{Seq: 3, Scheduled: 300 * ms, Sent: 301 * ms, End: 305 * ms, InputTokens: 10, Status: 503, Error: record.ErrUnavailable, Msg: "busy, \"retry\"\nlater"},
		{Seq: 4, Scheduled: 400 * ms, End: 400 * ms, InputTokens: 10, Error: record.ErrDropped, Msg: "no worker free"},
		{Seq: 5, Scheduled: 500 * ms, Sent: 500 * ms, End: 520 * ms, InputTokens: 10, Status: 200, Finish: "stop"},
	}
}

func TestRecordCSVGolden(t *testing.T) {
	var b bytes.Buffer
	c := NewRecordCSV(&b, mustSLO(t, "ttft<=30ms"))
	recs := csvRecords()
	for i := range recs {
		if err := c.Write(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	golden(t, "records.csv", b.Bytes())
	// The file reads back as CSV with a row per record, each as wide as
	// the header.
	rows, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
	if err != nil || len(rows) != len(recs)+1 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if strings.Join(rows[0], ",") != strings.Join(RecordColumns, ",") {
		t.Errorf("header %v", rows[0])
	}
	// Request 0: TTFT 20 ms met ttft<=30ms; request 1: 50 ms did not.
	good := indexOf(RecordColumns, "good")
	if rows[1][good] != "true" || rows[2][good] != "false" || rows[4][good] != "false" {
		t.Errorf("good column %q %q %q", rows[1][good], rows[2][good], rows[4][good])
	}
}

func TestRecordCSVWithoutSLO(t *testing.T) {
	var b bytes.Buffer
	c := NewRecordCSV(&b, slo.Conditions(nil))
	r := csvRecords()[0]
	if err := c.Write(&r); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(&b).ReadAll()
	if rows[1][indexOf(RecordColumns, "good")] != "" {
		t.Errorf("good column %q without an SLO, want empty", rows[1][indexOf(RecordColumns, "good")])
	}
	// A writer that fails reports it.
	c = NewRecordCSV(failWriter{}, nil)
	_ = c.Write(&r)
	if err := c.Flush(); err == nil {
		t.Error("Flush hid a write error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFail }

var errFail = &failError{}

type failError struct{}

func (*failError) Error() string { return "disk full" }

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
