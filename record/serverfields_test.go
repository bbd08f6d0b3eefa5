package record

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The prompt cache, retry and server timing fields round-trip, and a file
// written before they existed reads as "not reported".
func TestServerFieldsRoundTrip(t *testing.T) {
	in := []Record{
		{ // llama.cpp: cache hit, server timings, one retry
			Seq: 0, Scheduled: 0, Sent: 10, End: 900,
			Chunks:      []Chunk{{At: 100, Tokens: 1}, {At: 200, Tokens: 1}},
			InputTokens: 64, OutputTokens: 2, TokenSource: SourceUsage, Status: 200, Finish: "stop",
			CachedTokens: 48, CacheReported: true, Retries: 1,
			ServerPrefill: 1_647_000, ServerDecode: 3_898_000,
		},
		{ // the server reported a cache count of zero: reported, not absent
			Seq: 1, Scheduled: 5, Sent: 6, End: 50,
			Chunks:      []Chunk{{At: 20, Tokens: 1}},
			InputTokens: 3, OutputTokens: 1, TokenSource: SourceUsage, Status: 200,
			CacheReported: true,
		},
		{ // a server that says nothing of its cache
			Seq: 2, Scheduled: 7, Sent: 8, End: 60, Status: 200,
			Chunks: []Chunk{{At: 30, Tokens: 1}}, InputTokens: 3, OutputTokens: 1,
		},
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Start: time.Unix(0, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if err := w.Write(&in[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(Trailer{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	for i, want := range []string{
		`"cached":48,"retries":1,"prefill_ns":1647000,"decode_ns":3898000,`,
		`"cached":0,`,
	} {
		if !strings.Contains(lines[1+i], want) {
			t.Errorf("record %d: %s lacks %s", i, lines[1+i], want)
		}
	}
	for _, key := range []string{"cached", "retries", "prefill_ns", "decode_ns"} {
		if strings.Contains(lines[3], `"`+key+`"`) {
			t.Errorf("record 2 writes %q although nothing was reported: %s", key, lines[3])
		}
	}

	d := NewDecoder(&buf, "run.jsonl")
	for i := range in {
		var r Record
		if err := d.Next(&r); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r, in[i]) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i, r, in[i])
		}
	}
	var r Record
	if err := d.Next(&r); err != io.EOF {
		t.Errorf("after the records: %v, want EOF", err)
	}
}

// A record line of a file written before the cache, retry and timing
// fields existed decodes with all of them unset.
func TestOldRecordHasNoServerFields(t *testing.T) {
	const line = `{"seq":3,"s":0,"t0":1,"te":9,"ct":[2],"in":5,"out":1,"src":"usage","status":200}` + "\n"
	var r Record
	if err := NewDecoder(strings.NewReader(line), "old.jsonl").Next(&r); err != nil {
		t.Fatal(err)
	}
	if r.CacheReported || r.CachedTokens != 0 || r.Retries != 0 || r.ServerPrefill != 0 || r.ServerDecode != 0 {
		t.Errorf("old record reads as %+v", r)
	}
}

// The server fields are counts and durations: a negative one is an
// impossible record, named by its key.
func TestServerFieldsAreChecked(t *testing.T) {
	for _, tt := range []struct {
		line, want string
	}{
		{`{"seq":1,"s":0,"t0":1,"te":9,"in":5,"cached":-1}`, `"cached" -1 is negative`},
		{`{"seq":1,"s":0,"t0":1,"te":9,"retries":-2}`, `"retries" -2 is negative`},
		{`{"seq":1,"s":0,"t0":1,"te":9,"prefill_ns":-5}`, `"prefill_ns" -5 or "decode_ns" 0 is negative`},
		{`{"seq":1,"s":0,"t0":1,"te":9,"decode_ns":-5}`, `"prefill_ns" 0 or "decode_ns" -5 is negative`},
		// A cache count above the prompt is what a server said: kept.
		{`{"seq":1,"s":0,"t0":1,"te":9,"in":5,"cached":7}`, ""},
	} {
		var r Record
		err := NewDecoder(strings.NewReader(tt.line+"\n"), "x.jsonl").Next(&r)
		if err == nil {
			err = r.Check()
		}
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: err = %v, want %q", tt.line, err, tt.want)
		}
	}
}

// An answer that came whole is marked so through a write and a read; a
// streamed one, and a file written before the key existed, read unmarked.
func TestWholeRoundTrips(t *testing.T) {
	whole := Record{Seq: 3, Scheduled: 1, Sent: 2, End: 40, Chunks: []Chunk{{At: 40, Tokens: 5}},
		OutputTokens: 5, TokenSource: SourceUsage, Whole: true, Status: 200}
	line := string(AppendJSON(nil, &whole))
	if want := `{"seq":3,"s":1,"t0":2,"te":40,"ct":[38],"ck":[5],"in":0,"out":5,"src":"usage","status":200,"whole":true}`; line != want {
		t.Fatalf("encoded\n got %s\nwant %s", line, want)
	}
	streamed := whole
	streamed.Seq, streamed.Whole = 4, false
	var back [2]Record
	d := NewDecoder(strings.NewReader(line+"\n"+string(AppendJSON(nil, &streamed))+"\n"), "w.jsonl")
	for i := range back {
		if err := d.Next(&back[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(back[0], whole) || !reflect.DeepEqual(back[1], streamed) {
		t.Errorf("decoded %+v and %+v, want %+v and %+v", back[0], back[1], whole, streamed)
	}
}
