package export

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/slo"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenRecords cover the cases a row must write: a plain success,
// multi-token chunks, a warm-up, an HTTP failure with a message that needs
// quoting, a request never sent, and a success without tokens.
func goldenRecords() []record.Record {
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
		{Seq: 5, Scheduled: 500 * ms, Sent: 500 * ms, End: 520 * ms, InputTokens: 10, Status: 200, Finish: "stop", Labels: map[string]string{"point": "c1"}},
	}
}

// reasoningRecords are a reasoning model's replies: one that thinks and
// answers (counted over the chunks), one whose count the server reported
// (more than it streamed), one cut off while thinking, and one that did
// not reason.
func reasoningRecords() []record.Record {
	ms := int64(time.Millisecond)
	return []record.Record{
		{Seq: 0, Scheduled: 0, Sent: 0, End: 101 * ms, InputTokens: 10, OutputTokens: 5, TokenSource: record.SourceUsage, Status: 200, Finish: "stop",
			ReasoningTokens: 3, ReasoningSource: record.SourceChunks,
			Chunks: []record.Chunk{{At: 20 * ms, Tokens: 1, Reasoning: true}, {At: 30 * ms, Tokens: 2, Reasoning: true},
				{At: 80 * ms, Tokens: 1}, {At: 100 * ms, Tokens: 1}}},
		{Seq: 1, Scheduled: 100 * ms, Sent: 100 * ms, End: 300 * ms, InputTokens: 10, OutputTokens: 9, TokenSource: record.SourceUsage, Status: 200, Finish: "stop",
			ReasoningTokens: 6, ReasoningSource: record.SourceUsage,
			Chunks: []record.Chunk{{At: 150 * ms, Tokens: 3, Reasoning: true}, {At: 250 * ms, Tokens: 2}, {At: 290 * ms, Tokens: 1}}},
		{Seq: 2, Scheduled: 200 * ms, Sent: 200 * ms, End: 260 * ms, InputTokens: 10, OutputTokens: 2, TokenSource: record.SourceChunks, Status: 200, Finish: "length",
			ReasoningTokens: 2, ReasoningSource: record.SourceChunks,
			Chunks: []record.Chunk{{At: 230 * ms, Tokens: 1, Reasoning: true}, {At: 250 * ms, Tokens: 1, Reasoning: true}}},
		{Seq: 3, Scheduled: 300 * ms, Sent: 300 * ms, End: 345 * ms, InputTokens: 10, OutputTokens: 2, TokenSource: record.SourceUsage, Status: 200, Finish: "stop",
			Chunks: []record.Chunk{{At: 320 * ms, Tokens: 1}, {At: 340 * ms, Tokens: 1}}},
	}
}

// TestExportGolden pins every format's bytes for the cases above; rerun
// with -update when a change is intended. A run without reasoning has no
// reasoning columns; one with reasoning has them after the base columns.
func TestExportGolden(t *testing.T) {
	cs, err := slo.ParseConditions("ttft<=30ms")
	if err != nil {
		t.Fatal(err)
	}
	goldenTables(t, "requests", goldenRecords(), cs)
	cs, err = slo.ParseConditions("ttfa<=100ms")
	if err != nil {
		t.Fatal(err)
	}
	goldenTables(t, "requests_reasoning", reasoningRecords(), cs)
}

func goldenTables(t *testing.T, name string, recs []record.Record, cs slo.Conditions) {
	t.Helper()
	for _, format := range []string{FormatCSV, FormatJSONL} {
		tab := NewTable(Options{SLO: cs, Chunks: true})
		for i := range recs {
			tab.Add(&recs[i])
		}
		var b bytes.Buffer
		if err := tab.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", name+"."+format)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./export -run Golden -update to create it)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from the golden file; run with -update if the change is intended\n--- got ---\n%s", path, b.Bytes())
		}
	}
}

// failWriter fails every write, as a full disk does.
type failWriter struct{}

var errFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errFull }

// TestExportReportsWriteErrors checks that no format hides a failed write.
func TestExportReportsWriteErrors(t *testing.T) {
	recs := goldenRecords()
	tab := NewTable(Options{})
	for i := range recs {
		tab.Add(&recs[i])
	}
	for _, format := range Formats {
		if err := tab.Write(failWriter{}, format); !errors.Is(err, errFull) {
			t.Errorf("%s: error %v, want the writer's", format, err)
		}
	}
}
