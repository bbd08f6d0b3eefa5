package backend

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/iotest"
)

// gotFrame is a frame copied out of the framer's buffer.
type gotFrame struct {
	Name, Data string
	Off        int64
}

func (g gotFrame) String() string { return fmt.Sprintf("{%q %q @%d}", g.Name, g.Data, g.Off) }

// frames runs a framer over r to the end and returns every event.
func frames(mode framing, r io.Reader) ([]gotFrame, error) {
	f := newFramer(mode)
	defer f.release()
	var out []gotFrame
	take := func() error {
		for {
			fr, ok, err := f.next()
			if err != nil || !ok {
				return err
			}
			out = append(out, gotFrame{string(fr.name), string(fr.data), fr.off})
		}
	}
	for empty := 0; empty < maxEmptyReads; {
		n, err := f.fill(r)
		if n == 0 {
			empty++
		}
		if terr := take(); terr != nil {
			return out, terr
		}
		if err == io.EOF {
			f.finish()
			return out, take()
		}
		if err != nil {
			return out, err
		}
	}
	return out, io.ErrNoProgress
}

// splits returns readers that deliver b whole, one byte at a time, in
// pieces of a few sizes, and split in two at every position: a correct
// framer gives the same events for all of them.
func splits(b []byte) map[string]func() io.Reader {
	rs := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(b) },
		"one-byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"data-err": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
	}
	for _, size := range []int{2, 3, 7, 64} {
		rs[fmt.Sprintf("pieces-%d", size)] = func() io.Reader { return &pieceReader{b: b, size: size} }
	}
	for p := 0; p <= len(b); p++ {
		rs[fmt.Sprintf("split-%d", p)] = func() io.Reader {
			return io.MultiReader(bytes.NewReader(b[:p]), bytes.NewReader(b[p:]))
		}
	}
	return rs
}

// pieceReader returns at most size bytes per Read.
type pieceReader struct {
	b    []byte
	size int
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.size)], r.b)
	r.b = r.b[n:]
	return n, nil
}

func TestFramerSSE(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []gotFrame
	}{
		{"two events, LF", "data: {\"a\":1}\n\ndata: {\"a\":2}\n\n",
			[]gotFrame{{"", `{"a":1}`, 0}, {"", `{"a":2}`, 15}}},
		{"CRLF", "data: x\r\n\r\ndata: y\r\n\r\n",
			[]gotFrame{{"", "x", 0}, {"", "y", 11}}},
		{"lone CR", "data: x\r\rdata: y\r\r",
			[]gotFrame{{"", "x", 0}, {"", "y", 9}}},
		{"mixed line ends", "data: x\r\n\ndata: y\n\r\n",
			[]gotFrame{{"", "x", 0}, {"", "y", 10}}},
		{"comments and keep-alives are skipped", ": ping\n\n:\ndata: x\n: mid-event comment\n\n",
			[]gotFrame{{"", "x", 10}}},
		{"event, id and retry lines", "event: delta\nid: 7\nretry: 100\ndata: x\n\ndata: y\n\n",
			[]gotFrame{{"delta", "x", 30}, {"", "y", 39}}},
		{"multi-line data joins with LF", "data: a\ndata:\ndata: b\n\n",
			[]gotFrame{{"", "a\n\nb", 0}}},
		{"no space after the colon", "data:x\n\n",
			[]gotFrame{{"", "x", 0}}},
		{"only one space is stripped", "data:  x \n\n",
			[]gotFrame{{"", " x ", 0}}},
		{"a bare field name is an empty value", "data\n\n",
			[]gotFrame{{"", "", 0}}},
		{"blank lines alone dispatch nothing", "\n\n\r\n\n", nil},
		{"an event name without data dispatches nothing", "event: ping\n\ndata: x\n\n",
			[]gotFrame{{"", "x", 13}}},
		{"unknown fields are ignored", "foo: bar\ndata: x\n\n",
			[]gotFrame{{"", "x", 9}}},
		{"an error field is the data of an event named error", "error: {\"code\":500}\n\ndata: [DONE]\n\n",
			[]gotFrame{{"error", `{"code":500}`, 0}, {"", "[DONE]", 21}}},
		{"missing blank line at the end", "data: x\n\ndata: y\n",
			[]gotFrame{{"", "x", 0}, {"", "y", 9}}},
		{"missing newline at the end", "data: x\n\ndata: [DONE]",
			[]gotFrame{{"", "x", 0}, {"", "[DONE]", 9}}},
		{"byte order mark", "\xef\xbb\xbfdata: x\n\n",
			[]gotFrame{{"", "x", 3}}},
		{"invalid UTF-8 passes through", "data: \xff\xfe junk\n\n",
			[]gotFrame{{"", "\xff\xfe junk", 0}}},
		{"colon inside the value", "data: {\"a\":\"b:c\"}\n\n",
			[]gotFrame{{"", `{"a":"b:c"}`, 0}}},
		{"empty stream", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for how, r := range splits([]byte(tt.in)) {
				got, err := frames(framingSSE, r())
				if err != nil {
					t.Fatalf("%s: %v", how, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("%s: got %v, want %v", how, got, tt.want)
				}
			}
		})
	}
}

func TestFramerNDJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []gotFrame
	}{
		{"lines", "{\"a\":1}\n{\"a\":2}\n",
			[]gotFrame{{"", `{"a":1}`, 0}, {"", `{"a":2}`, 8}}},
		{"CRLF", "{}\r\n[]\r\n",
			[]gotFrame{{"", "{}", 0}, {"", "[]", 4}}},
		{"blank and white-space lines are skipped", "\n  \t\n{}\n\r\n",
			[]gotFrame{{"", "{}", 5}}},
		{"no newline at the end", "{}\n[]",
			[]gotFrame{{"", "{}", 0}, {"", "[]", 3}}},
		{"a lone CR does not end a line", "a\rb\n",
			[]gotFrame{{"", "a\rb", 0}}},
		{"byte order mark", "\xef\xbb\xbf{}\n",
			[]gotFrame{{"", "{}", 3}}},
		{"SSE syntax is just a line", "data: x\n",
			[]gotFrame{{"", "data: x", 0}}},
		{"empty stream", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for how, r := range splits([]byte(tt.in)) {
				got, err := frames(framingNDJSON, r())
				if err != nil {
					t.Fatalf("%s: %v", how, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("%s: got %v, want %v", how, got, tt.want)
				}
			}
		})
	}
}

func TestFramerLimits(t *testing.T) {
	big := strings.Repeat("x", MaxEvent)
	tests := []struct {
		name    string
		mode    framing
		in      string
		events  int    // events before the error (or in all)
		wantErr string // "" when the stream must pass
	}{
		// The largest event allowed, as one line.
		{"event of exactly MaxEvent bytes", framingSSE, "data: " + big + "\n\n", 1, ""},
		// A line that no buffer within bounds can hold.
		{"line over the limit", framingSSE, "data: {}\n\ndata: " + big + strings.Repeat("y", lineSlack) + "\n\n", 1, "line longer than"},
		// Each line fits but the joined event does not.
		{"multi-line event over the limit", framingSSE, "data: " + big[:MaxEvent/2+1] + "\ndata: " + big[:MaxEvent/2] + "\n\n", 0, "event larger than 1048576 bytes at byte 0"},
		// NDJSON lines are bounded the same way.
		{"NDJSON line over the limit", framingNDJSON, "{}\n" + big + strings.Repeat("y", lineSlack+1) + "\n", 1, "line longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			readers := map[string]io.Reader{
				"whole":       strings.NewReader(tt.in),
				"pieces-4096": &pieceReader{b: []byte(tt.in), size: 4096},
			}
			for how, rd := range readers {
				got, err := frames(tt.mode, rd)
				if len(got) != tt.events {
					t.Errorf("%s: %d events before the end, want %d", how, len(got), tt.events)
				}
				if tt.wantErr == "" {
					if err != nil {
						t.Errorf("%s: %v", how, err)
					}
					continue
				}
				var fe *framingError
				if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("%s: error %v, want a framing error with %q", how, err, tt.wantErr)
				}
			}
		})
	}
}

func TestFramerPoolsOnlyDefaultBuffers(t *testing.T) {
	// A framer that grew its buffer must not hand it to the pool.
	f := newFramer(framingSSE)
	in := "data: " + strings.Repeat("x", 3*initialBuffer) + "\n\n"
	r := strings.NewReader(in)
	for {
		if _, err := f.fill(r); err != nil {
			break
		}
	}
	if f.pool != nil {
		t.Fatalf("framer still holds its pooled buffer after growing to %d bytes", len(f.buf))
	}
	if len(f.buf) < len(in) {
		t.Fatalf("buffer is %d bytes, want at least %d", len(f.buf), len(in))
	}
	f.release()
}

// The buffers ReserveBuffers makes are the ones the next stream readers
// take: n framers made after it allocate next to no read buffer of their
// own (without it, all n: 2 MiB).
func TestReservedBuffersAreTakenWithoutAllocating(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a collection would empty the pool
	const n = 64
	ReserveBuffers(n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	framers := make([]*framer, n)
	for i := range framers {
		framers[i] = newFramer(framingSSE)
	}
	runtime.ReadMemStats(&after)
	// n framers of their own, and not n buffers of 32 KiB: at most a few,
	// since sync.Pool gives a goroutine that moved to another processor
	// every buffer but the one kept private to the first (and a parallel
	// test may take one).
	if got, most := after.TotalAlloc-before.TotalAlloc, uint64(n/4*initialBuffer); got >= most {
		t.Errorf("%d framers after ReserveBuffers(%d) allocated %d bytes, want less than %d (%d buffers)", n, n, got, most, n/4)
	}
	for _, f := range framers {
		if len(f.buf) != initialBuffer {
			t.Fatalf("a framer's buffer has %d bytes, want %d", len(f.buf), initialBuffer)
		}
		f.release()
	}
}
