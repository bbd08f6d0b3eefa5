package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// TestPlaceColumnsOnlyWhenUsed: a run of sessions over several endpoints
// gains session, turn and endpoint columns; a plain run keeps its columns.
func TestPlaceColumnsOnlyWhenUsed(t *testing.T) {
	ok := func(seq int64) *record.Record {
		return &record.Record{Seq: seq, Scheduled: 0, Sent: 1, End: 9, Chunks: []record.Chunk{{At: 5, Tokens: 1}}, OutputTokens: 1, TokenSource: record.SourceChunks}
	}
	tests := []struct {
		name  string
		edit  func(r *record.Record)
		extra string // the header's columns after the base ones
		cell  string // the first row's cells in them
	}{
		// a plain run: no place column
		{"plain", func(r *record.Record) {}, "", ""},
		// a session turn on one of two endpoints
		{"sessions", func(r *record.Record) { r.Session, r.Turn, r.Endpoint = "s3", 2, "http://b" }, "session,turn,endpoint", "s3,2,http://b"},
		// an agent call
		{"tasks", func(r *record.Record) { r.Task, r.Call = "t1", "plan" }, "task,call", "t1,plan"},
	}
	base := len(BaseColumns())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := NewTable(Options{})
			r := ok(0)
			tt.edit(r)
			tb.Add(r)
			var b bytes.Buffer
			if err := tb.WriteCSV(&b); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
			if got := strings.Join(head[base:], ","); got != tt.extra {
				t.Errorf("extra columns %q, want %q", got, tt.extra)
			}
			if got := strings.Join(row[base:], ","); got != tt.cell {
				t.Errorf("extra cells %q, want %q", got, tt.cell)
			}
		})
	}
}
