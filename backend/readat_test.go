package backend

import (
	"net/http"
	"testing"

	"github.com/goodput-dev/goodput/record"
)

// A Reader told when each read returned (transport.ReadTimer) ends its
// record when the terminator was read, while every chunk keeps the time
// its bytes arrived; told nothing, it ends at the terminator's arrival.
func TestTheRecordEndsWhenTheTerminatorWasRead(t *testing.T) {
	a, err := Lookup("openai")
	if err != nil {
		t.Fatal(err)
	}
	body := `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"text":"b","finish_reason":"length"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	for _, tell := range []bool{false, true} {
		rec := &record.Record{}
		r := a.NewReader(rec)
		r.Header(&http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}})
		if tell {
			r.ReadAt(900)
		}
		buf := r.Buffer()
		n := copy(buf, body)
		if n != len(body) {
			t.Fatalf("a buffer of %d bytes", len(buf))
		}
		if more := r.Filled(n, 100); more {
			t.Fatal("the Reader wants more after [DONE]")
		}
		r.End(nil, 950) // after it declined: ignored
		want := int64(100)
		if tell {
			want = 900
		}
		if !rec.OK() || len(rec.Chunks) != 2 || rec.Chunks[0].At != 100 || rec.Chunks[1].At != 100 || rec.End != want {
			t.Errorf("told the read's time: %v; record %s %s, chunks %+v, end %d, want %d", tell, rec.Error, rec.Msg, rec.Chunks, rec.End, want)
		}
	}
}
