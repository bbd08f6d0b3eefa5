package record

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"
)

// A shard's header carries its host, clock and place in the run through a
// write and a read, and a decoder tells its trailer once read.
func TestShardHeaderRoundTripAndTrailer(t *testing.T) {
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	h := Header{
		Start: start, Tool: "goodput test", Host: "bench-2-x7k", Node: "gpu-node-3",
		Clock: &Clock{Source: "http-date", Reference: "http://vllm:8000/health", Offset: -1_250_000, Uncertainty: 4_000_000, Samples: 7,
			NTP: &NTP{Synced: true, EstError: 150_000, MaxError: 16_000_000}},
		Shard: &Shard{Index: 2, Count: 4, Attempt: 1, StartAt: start, Ready: start.Add(41 * time.Second),
			Planned: 250, Total: 1000, Skipped: 83, SkippedBefore: 41_005_000_000},
	}
	cases := []struct {
		name    string
		trailer *Trailer // nil: the writer was killed before its trailer
	}{
		// A run that ended: its trailer is read back.
		{"complete", &Trailer{Records: 1, End: 2_000_000_000}},
		// A killed writer leaves no trailer.
		{"cut off", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, h)
			if err != nil {
				t.Fatal(err)
			}
			r := Record{Seq: 2, Scheduled: 41_010_000_000, Sent: 41_010_000_100, End: 41_500_000_000}
			if err := w.Write(&r); err != nil {
				t.Fatal(err)
			}
			if c.trailer != nil {
				if err := w.Close(*c.trailer); err != nil {
					t.Fatal(err)
				}
			}
			f := NewDecoder(&buf, "shard.jsonl")
			got, err := f.Header()
			if err != nil {
				t.Fatal(err)
			}
			if got.Host != h.Host || got.Node != h.Node || !reflect.DeepEqual(got.Clock, h.Clock) {
				t.Errorf("host, node, clock = %q %q %+v, want %q %q %+v", got.Host, got.Node, got.Clock, h.Host, h.Node, h.Clock)
			}
			if got.Shard == nil || !got.Shard.StartAt.Equal(start) || !got.Shard.Ready.Equal(h.Shard.Ready) {
				t.Fatalf("shard = %+v", got.Shard)
			}
			gs, ws := *got.Shard, *h.Shard
			gs.StartAt, gs.Ready, ws.StartAt, ws.Ready = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			if gs != ws {
				t.Errorf("shard = %+v, want %+v", gs, ws)
			}
			if _, ok := f.Trailer(); ok {
				t.Error("a trailer is known before the records are read")
			}
			var rec Record
			for {
				if err := f.Next(&rec); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatal(err)
				}
			}
			tr, ok := f.Trailer()
			if ok != (c.trailer != nil) || (ok && (tr.Records != 1 || tr.End != c.trailer.End)) {
				t.Errorf("trailer = %+v, %v", tr, ok)
			}
		})
	}
}

// Clock.Measured is false for a missing clock and one without a source.
func TestClockMeasured(t *testing.T) {
	var none *Clock
	if none.Measured() || (&Clock{NTP: &NTP{}}).Measured() || !(&Clock{Source: "http-date"}).Measured() {
		t.Error("Measured is wrong")
	}
}
