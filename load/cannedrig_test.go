//go:build unix

package load

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/internal/canned"
	"github.com/goodput-dev/goodput/internal/cpuload"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// rig is a canned server for a benchmark, in this process or in a child
// process so that the server's Go scheduler, heap and CPU time are not
// the client's.
type rig struct {
	url  string
	stop func() ([]canned.Stream, error)
}

func newRig(b *testing.B, child bool, o canned.Options) rig {
	b.Helper()
	if child {
		r := canned.StartChild(b, o)
		return rig{url: r.URL, stop: r.Stop}
	}
	s, err := canned.Start(o)
	if err != nil {
		b.Fatal(err)
	}
	return rig{url: s.URL(), stop: func() ([]canned.Stream, error) { return s.Close(), nil }}
}

// measured is one run against a canned server, as the server and the
// client saw it.
type measured struct {
	recs    []*record.Record
	res     Result
	streams map[int64]canned.Stream // by sequence number
	cpu     time.Duration           // the client's CPU time over the run
	tokens  int64
	conns   transport.Stats
}

// runCanned runs plan through a transport of opts against r, every request
// asking for tokens tokens and naming its sequence number for the
// server's report.
func runCanned(b *testing.B, r rig, opts ClientOptions, plan Plan, tokens int) measured {
	b.Helper()
	a, _ := backend.Lookup("openai")
	tr, err := NewTransport(r.url, opts)
	if err != nil {
		b.Fatal(err)
	}
	d := &HTTP{Transport: tr, Adapter: a, BaseURL: r.url,
		Request: func(seq int64) (backend.Request, int) {
			return backend.Request{Model: "canned", Prompt: "hi", MaxTokens: tokens,
				Headers: http.Header{"X-Seq": {strconv.FormatInt(seq, 10)}}}, 4
		}}
	out := make(chan *record.Record, 1024)
	var m measured
	done := make(chan struct{})
	go func() {
		for rec := range out {
			m.recs = append(m.recs, rec)
			m.tokens += int64(rec.OutputTokens)
		}
		close(done)
	}()
	cpu0 := cpuload.Self()
	res, err := Run(b.Context(), plan, d, out)
	close(out)
	<-done
	m.cpu = cpuload.Self() - cpu0
	m.conns = tr.Stats()
	tr.Close()
	streams, serr := r.stop()
	if err != nil {
		b.Fatal(err)
	}
	if serr != nil {
		b.Fatal(serr)
	}
	m.res = res
	m.streams = map[int64]canned.Stream{}
	for _, st := range streams {
		seq, err := strconv.ParseInt(st.Key, 10, 64)
		if err != nil {
			b.Fatalf("stream key %q", st.Key)
		}
		m.streams[seq] = st
	}
	failed := 0
	for _, rec := range m.recs {
		if st, ok := m.streams[rec.Seq]; !rec.OK() || !ok || len(st.Flushed) != len(rec.Chunks) {
			if failed++; failed == 1 {
				b.Logf("seq %d: %s %s, %d chunks, server wrote %d", rec.Seq, rec.Error, rec.Msg, len(rec.Chunks), len(st.Flushed))
			}
		}
	}
	if failed > 0 {
		b.Fatalf("%d of %d requests failed or lost chunks", failed, len(m.recs))
	}
	return m
}

// ttftError is the TTFT the client added to rec: its TTFT less the
// server's, from the request's arrival (the kernel's receive time) to its
// first token's write. It counts the client's dispatch, connect and send
// before the server, and its read after; not the server's own delays.
func (m *measured) ttftError(rec *record.Record) time.Duration {
	st := m.streams[rec.Seq]
	return time.Duration(rec.Chunks[0].At-rec.Scheduled) - time.Duration(st.Flushed[0]-st.Arrived)
}

// chunkErrors returns, per chunk, how long after the server's write the
// client timestamped it, on the shared wall clock.
func (m *measured) chunkErrors() []float64 {
	epoch := m.res.Epoch.UnixNano()
	var out []float64
	for _, rec := range m.recs {
		st := m.streams[rec.Seq]
		for i, c := range rec.Chunks {
			out = append(out, float64(c.At+epoch-st.Flushed[i])/1e6)
		}
	}
	return out
}

// transports are the configurations the benchmarks compare side by side.
var benchTransports = []struct {
	name string
	opts ClientOptions
}{
	// What main sends with: net/http, each connection dialled when its
	// first request is due.
	{"nethttp-cold", ClientOptions{Kind: transport.NetHTTP, Cold: true}},
	{"nethttp-ahead", ClientOptions{Kind: transport.NetHTTP}},
	// The default: the event loop, connections dialled ahead.
	{"eventloop", ClientOptions{Kind: transport.EventLoop}},
}

func streamsName(n int) string { return fmt.Sprint(n, "-streams") }
