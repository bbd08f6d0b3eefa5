package record

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestPlaceRoundTrips writes the keys that place a request in a session,
// an agent task and among endpoints, and reads them back.
func TestPlaceRoundTrips(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		line string // its encoding
	}{
		// a session's third turn
		{"session turn", Record{Seq: 7, Scheduled: 1, Sent: 2, End: 3, Session: "s-12", Turn: 3},
			`{"seq":7,"s":1,"t0":2,"te":3,"in":0,"out":0,"sid":"s-12","turn":3}`},
		// an agent call sent to one of several endpoints
		{"agent call", Record{Seq: 8, Session: "t-1", Task: "t-1", Call: "search \"a\"", Endpoint: "http://127.0.0.1:8001"},
			`{"seq":8,"s":0,"t0":0,"te":0,"in":0,"out":0,"sid":"t-1","task":"t-1","call":"search \"a\"","ep":"http://127.0.0.1:8001"}`},
		// a plain request: none of the keys
		{"plain", Record{Seq: 9}, `{"seq":9,"s":0,"t0":0,"te":0,"in":0,"out":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendJSON(nil, &tt.rec))
			if got != tt.line {
				t.Fatalf("encoded\n got %s\nwant %s", got, tt.line)
			}
			var back Record
			if err := NewDecoder(strings.NewReader(got+"\n"), "x").Next(&back); err != nil {
				t.Fatal(err)
			}
			back.Chunks = nil
			if !reflect.DeepEqual(back, tt.rec) {
				t.Errorf("decoded %+v, want %+v", back, tt.rec)
			}
		})
	}
}

// TestPlaceAbsentInOldFiles reads a record written before the keys
// existed: every one of them is zero.
func TestPlaceAbsentInOldFiles(t *testing.T) {
	old := `{"kind":"goodput.run","schema":1,"start":"2026-11-29T08:00:00Z","tool":"goodput 0.1"}
{"seq":0,"s":0,"t0":5,"te":90,"ct":[10,20],"in":12,"out":2,"src":"usage","status":200}
`
	d := NewDecoder(strings.NewReader(old), "old.jsonl")
	var r Record
	if err := d.Next(&r); err != nil {
		t.Fatal(err)
	}
	if r.Session != "" || r.Turn != 0 || r.Task != "" || r.Call != "" || r.Endpoint != "" {
		t.Errorf("an old record reads with a place: %+v", r)
	}
	if err := d.Next(&r); err != io.EOF {
		t.Errorf("after the one record: %v, want EOF", err)
	}
}

// TestNegativeTurnIsImpossible: no producer numbers a turn below 0, so a
// file that does is refused naming the key and the line.
func TestNegativeTurnIsImpossible(t *testing.T) {
	line := `{"seq":0,"s":0,"t0":0,"te":0,"in":0,"out":0,"sid":"s","turn":-1}` + "\n"
	var r Record
	err := NewDecoder(bytes.NewReader([]byte(line)), "bad.jsonl").Next(&r)
	if !errors.Is(err, ErrImpossible) || !strings.Contains(err.Error(), `"turn" -1`) || !strings.Contains(err.Error(), "bad.jsonl:1") {
		t.Errorf("err = %v, want an impossible record naming \"turn\" and bad.jsonl:1", err)
	}
}
