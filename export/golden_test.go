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

// TestExportGolden pins every format's bytes for the cases above; rerun
// with -update when a change is intended.
func TestExportGolden(t *testing.T) {
	cs, err := slo.ParseConditions("ttft<=30ms")
	if err != nil {
		t.Fatal(err)
	}
	recs := goldenRecords()
	for _, format := range []string{FormatCSV, FormatJSONL} {
		tab := NewTable(Options{SLO: cs, Chunks: true})
		for i := range recs {
			tab.Add(&recs[i])
		}
		var b bytes.Buffer
		if err := tab.Write(&b, format); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", "requests."+format)
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
