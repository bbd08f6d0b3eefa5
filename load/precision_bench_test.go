package load

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
)

// pacedServer streams a token every gap to each stream, on absolute
// deadlines, from one writer goroutine: streams are spread over 1 ms slots
// by arrival, and each tick the writer serves the slot's streams. A single
// writer with no timer per stream keeps the server's own CPU cost low, so
// that what the benchmark measures is the client. It notes the moment each
// event was handed to the kernel (after Flush returns).
type pacedServer struct {
	tokens int
	gap    time.Duration
	epoch  time.Time

	mu    sync.Mutex // guards slots and sent
	slots [][]*pacedStream
	sent  map[int64][]int64

	stop chan struct{}
	done chan struct{}
}

type pacedStream struct {
	mu    sync.Mutex // held while writing; guards gone
	gone  bool       // the handler returned: the writer must not touch w
	seq   int64
	w     http.ResponseWriter
	fl    http.Flusher
	first int64 // tick of the first token
	next  int   // tokens written
	at    []int64
	end   chan struct{}
}

const pacedTick = time.Millisecond

func newPacedServer(tokens int, gap time.Duration) *pacedServer {
	return &pacedServer{tokens: tokens, gap: gap, slots: make([][]*pacedStream, gap/pacedTick),
		sent: map[int64][]int64{}, stop: make(chan struct{}), done: make(chan struct{})}
}

func (p *pacedServer) tick() int64 { return int64(time.Since(p.epoch) / pacedTick) }

func (p *pacedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	seq, _ := strconv.ParseInt(r.Header.Get("X-Seq"), 10, 64)
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	fl.Flush()
	st := &pacedStream{seq: seq, w: w, fl: fl, first: p.tick() + int64(p.gap/pacedTick), end: make(chan struct{})}
	p.mu.Lock()
	k := st.first % int64(len(p.slots))
	p.slots[k] = append(p.slots[k], st)
	p.mu.Unlock()
	select {
	case <-st.end:
	case <-r.Context().Done():
	}
	st.mu.Lock()
	st.gone = true
	st.mu.Unlock()
}

// run is the writer. The caller must close stop and wait for done.
func (p *pacedServer) run() {
	defer close(p.done)
	buf := make([]byte, 0, 256)
	n := len(p.slots)
	for t := p.tick(); ; t++ {
		select {
		case <-p.stop:
			return
		case <-time.After(time.Until(p.epoch.Add(time.Duration(t) * pacedTick))):
		}
		p.mu.Lock()
		slot := p.slots[t%int64(n)]
		live := slot[:0]
		var due []*pacedStream
		for _, st := range slot {
			if st.next >= p.tokens {
				continue // finished: drop it from the slot
			}
			live = append(live, st)
			if st.first <= t {
				due = append(due, st)
			}
		}
		p.slots[t%int64(n)] = live
		p.mu.Unlock()
		for _, st := range due {
			st.mu.Lock()
			if st.gone {
				st.next = p.tokens
				st.mu.Unlock()
				continue
			}
			st.next++
			buf = append(buf[:0], `data: {"id":"x","object":"text_completion","choices":[{"index":0,"text":" tok","finish_reason":null}],"usage":{"prompt_tokens":4,"completion_tokens":`...)
			buf = strconv.AppendInt(buf, int64(st.next), 10)
			buf = append(buf, `,"total_tokens":5}}`+"\n\n"...)
			if st.next == p.tokens {
				buf = append(buf, "data: [DONE]\n\n"...)
			}
			st.w.Write(buf)
			st.fl.Flush()
			st.at = append(st.at, int64(time.Since(p.epoch)))
			st.mu.Unlock()
			if st.next == p.tokens {
				p.mu.Lock()
				p.sent[st.seq] = st.at
				p.mu.Unlock()
				close(st.end)
			}
		}
	}
}

// BenchmarkTimingPrecision drives streams concurrent streams whose server
// emits a token every 50 ms and measures how much later than the server's
// emission the client timestamps each chunk (client-added error: loopback,
// the kernel, the Go scheduler and the client's own work). Reported: p50,
// p99 and max in ms, over every chunk of every stream.
func BenchmarkTimingPrecision(b *testing.B) {
	for _, streams := range []int{500, 5000} {
		b.Run(fmt.Sprint(streams, "-streams"), func(b *testing.B) {
			for b.Loop() {
				benchPrecision(b, streams, 40, 50*time.Millisecond)
			}
		})
	}
}

func benchPrecision(b *testing.B, streams, tokens int, gap time.Duration) {
	ps := newPacedServer(tokens, gap)
	srv := httptest.NewUnstartedServer(ps)
	srv.Config.MaxHeaderBytes = 1 << 16
	srv.Start()
	defer srv.Close()
	a, _ := backend.Lookup("openai")
	d := &HTTP{Client: NewClient(streams, false), Adapter: a, BaseURL: srv.URL,
		Request: func(seq int64) (backend.Request, int) {
			return backend.Request{Model: "m", Prompt: "hi", MaxTokens: tokens,
				Headers: http.Header{"X-Seq": {strconv.FormatInt(seq, 10)}}}, 4
		}}
	// Starts spread over 500 ms; each stream lasts 2 s, so all are in
	// flight together for 1.5 s.
	offs := make([]time.Duration, streams)
	for i := range offs {
		offs[i] = time.Duration(i) * 500 * time.Millisecond / time.Duration(streams)
	}
	out := make(chan *record.Record, streams)
	var recs []*record.Record
	done := make(chan struct{})
	go func() {
		for r := range out {
			recs = append(recs, r)
		}
		close(done)
	}()
	// Both clocks start together; the shift below aligns them exactly.
	ps.epoch = time.Now()
	go ps.run()
	defer func() { close(ps.stop); <-ps.done }()
	res, err := Run(b.Context(), Plan{Offsets: offs}, d, out)
	close(out)
	<-done
	if err != nil {
		b.Fatal(err)
	}
	shift := int64(res.Epoch.Sub(ps.epoch)) // server time = run time + shift
	var errs []float64
	failed := 0
	for _, r := range recs {
		sent := ps.sent[r.Seq]
		if !r.OK() || len(sent) != len(r.Chunks) {
			failed++
			continue
		}
		for i, c := range r.Chunks {
			errs = append(errs, float64(c.At+shift-sent[i])/1e6)
		}
	}
	if failed > 0 {
		b.Fatalf("%d of %d streams failed or lost chunks", failed, streams)
	}
	slices.Sort(errs)
	b.ReportMetric(errs[len(errs)/2], "p50-ms")
	b.ReportMetric(errs[len(errs)*99/100], "p99-ms")
	b.ReportMetric(errs[len(errs)-1], "max-ms")
	lag := slices.Clone(res.Lag)
	slices.Sort(lag)
	b.ReportMetric(float64(lag[len(lag)*99/100])/1e6, "dispatch-p99-ms")
}
