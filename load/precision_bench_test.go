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

// pacedServer streams tokens every gap, on absolute deadlines, and notes the
// moment each event was handed to the kernel (after Flush returns).
type pacedServer struct {
	tokens int
	gap    time.Duration
	epoch  time.Time

	mu   sync.Mutex // guards sent
	sent map[int64][]int64
}

func (p *pacedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	seq, _ := strconv.ParseInt(r.Header.Get("X-Seq"), 10, 64)
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	at := make([]int64, 0, p.tokens)
	start := time.Now()
	buf := make([]byte, 0, 256)
	for i := range p.tokens {
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * p.gap)))
		buf = append(buf[:0], `data: {"id":"x","object":"text_completion","choices":[{"index":0,"text":" tok","finish_reason":null}],"usage":{"prompt_tokens":4,"completion_tokens":`...)
		buf = strconv.AppendInt(buf, int64(i+1), 10)
		buf = append(buf, `,"total_tokens":5}}`+"\n\n"...)
		if _, err := w.Write(buf); err != nil {
			return
		}
		fl.Flush()
		at = append(at, int64(time.Since(p.epoch)))
	}
	w.Write([]byte("data: [DONE]\n\n"))
	p.mu.Lock()
	p.sent[seq] = at
	p.mu.Unlock()
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
	ps := &pacedServer{tokens: tokens, gap: gap, sent: map[int64][]int64{}}
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
	// The server's clock must be the run's: Run sets its epoch on entry.
	ps.epoch = time.Now()
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
