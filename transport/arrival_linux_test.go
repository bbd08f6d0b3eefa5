package transport_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/transport"
)

// The event loop times a chunk by when it reached this machine (the
// kernel's receive stamp), not by when the loop got to read it: with the
// loop held up for 100 ms by the Receiver of the first chunk, the second,
// written 5 ms after the first, still carries its own arrival time. The
// stream's end is timed when it was read, when the client could act on
// it (a closed loop sends its next request then).
func TestAChunkReadLateKeepsItsArrivalTime(t *testing.T) {
	const hold = 100 * time.Millisecond
	now := clock()
	var written [2]atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for i := range written {
			if i > 0 {
				time.Sleep(5 * time.Millisecond)
			}
			written[i].Store(now())
			fmt.Fprint(w, completionEvent(fmt.Sprint(" t", i), i+1, map[bool]string{true: "length"}[i == 1]))
			fl.Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	tr := newTransport(t, transport.EventLoop, srv.URL, transport.Options{})
	rec, _ := exchange(t, tr, context.Background(), srv.URL, "hi", now,
		func(r transport.Receiver) transport.Receiver {
			return &onFilled{Receiver: r, f: func() { time.Sleep(hold) }}
		})
	if !rec.OK() || len(rec.Chunks) != 2 {
		t.Fatalf("record %s %s, %d chunks", rec.Error, rec.Msg, len(rec.Chunks))
	}
	// The kernel stamps on the wall clock: a step of it while the chunk
	// waited (some VMs step theirs by half a millisecond ten times a
	// second) moves its time by the step, which the millisecond allows.
	at, w := time.Duration(rec.Chunks[1].At), time.Duration(written[1].Load())
	if at < w-time.Millisecond || at >= w+hold/2 {
		t.Errorf("the second chunk, written at %v and read after the loop was held %v, is timed %v: want its arrival", w, hold, at)
	}
	// The end is timed when the client learned of it: after the hold.
	if end, w0 := time.Duration(rec.End), time.Duration(written[0].Load()); end < w0+hold {
		t.Errorf("the stream's end, read after the loop was held %v from %v, is timed %v: want the time it was read", hold, w0, end)
	}
	if s := tr.Stats(); s.ReadDelay.Count() == 0 || s.ReadDelay.Max() < hold/2 {
		t.Errorf("read delays: %d, the longest %v; want the held read's wait counted", s.ReadDelay.Count(), s.ReadDelay.Max())
	}
}
