package load

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/internal/childproc"
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

// pacedServerEnv, when set to "tokens,gap-ns", makes the test binary run a
// pacedServer on loopback instead of running tests (see servePaced).
const pacedServerEnv = "GOODPUT_LOAD_PACED_SERVER"

func TestMain(m *testing.M) {
	if v := os.Getenv(pacedServerEnv); v != "" {
		os.Exit(servePaced(v))
	}
	os.Exit(m.Run())
}

// servePaced runs a pacedServer in this process for a parent benchmark. It
// prints the listening address on a line, serves until stdin closes (the
// parent is done or gone; ten minutes at most), then prints its epoch as
// wall-clock ns ("epoch N") and one line per finished stream: its sequence
// number and the emission time of each event, in ns from the epoch.
func servePaced(spec string) int {
	var tokens int
	var gap time.Duration
	if _, err := fmt.Sscanf(spec, "%d,%d", &tokens, &gap); err != nil || tokens < 1 || gap < pacedTick {
		fmt.Fprintf(os.Stderr, "%s=%q: want tokens,gap-ns\n", pacedServerEnv, spec)
		return 2
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ps := newPacedServer(tokens, gap)
	srv := &http.Server{Handler: ps, MaxHeaderBytes: 1 << 16}
	ps.epoch = time.Now()
	go ps.run()
	go func() { _ = srv.Serve(ln) }()
	fmt.Println(ln.Addr())
	childproc.WaitForParent(10 * time.Minute)
	_ = srv.Close()
	close(ps.stop)
	<-ps.done
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(w, "epoch", ps.epoch.UnixNano())
	ps.mu.Lock()
	for seq, at := range ps.sent {
		fmt.Fprint(w, seq)
		for _, t := range at {
			fmt.Fprint(w, " ", t)
		}
		fmt.Fprintln(w)
	}
	ps.mu.Unlock()
	if err := w.Flush(); err != nil {
		return 1
	}
	return 0
}

// pacedRig is a pacedServer for the benchmark: in this process, or in a
// child process so that the server's Go scheduler and heap are not the
// client's.
type pacedRig struct {
	url   string
	start func()                                              // starts the emission clock
	stop  func(runEpoch time.Time) (map[int64][]int64, error) // emission times in ns of the run's clock
}

func newInProcessRig(b *testing.B, tokens int, gap time.Duration) *pacedRig {
	ps := newPacedServer(tokens, gap)
	srv := httptest.NewUnstartedServer(ps)
	srv.Config.MaxHeaderBytes = 1 << 16
	srv.Start()
	return &pacedRig{
		url: srv.URL,
		start: func() {
			ps.epoch = time.Now()
			go ps.run()
		},
		stop: func(runEpoch time.Time) (map[int64][]int64, error) {
			srv.Close()
			close(ps.stop)
			<-ps.done
			// Both epochs come from this process's monotonic clock.
			shift := int64(ps.epoch.Sub(runEpoch))
			for _, at := range ps.sent {
				for i := range at {
					at[i] += shift
				}
			}
			return ps.sent, nil
		},
	}
}

func newChildRig(b *testing.B, tokens int, gap time.Duration) *pacedRig {
	child := childproc.Start(b, fmt.Sprintf("%s=%d,%d", pacedServerEnv, tokens, int64(gap)))
	return &pacedRig{
		url:   "http://" + child.Addr,
		start: func() {}, // the child's clock runs from its start
		stop: func(runEpoch time.Time) (map[int64][]int64, error) {
			child.Close()
			sent, err := readPacedTimes(child.Out, runEpoch)
			if werr := child.Stop(); err == nil {
				err = werr
			}
			return sent, err
		},
	}
}

// readPacedTimes reads servePaced's report and converts its times to ns
// of the run's clock. The two processes share the system's wall clock;
// the conversion assumes it was not stepped during the run.
func readPacedTimes(r io.Reader, runEpoch time.Time) (map[int64][]int64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("paced server process: no report: %v", sc.Err())
	}
	var epoch int64
	if _, err := fmt.Sscanf(sc.Text(), "epoch %d", &epoch); err != nil {
		return nil, fmt.Errorf("paced server process: report starts %q", sc.Text())
	}
	shift := epoch - runEpoch.UnixNano()
	sent := map[int64][]int64{}
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		seq, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("paced server process: report line %q", sc.Text())
		}
		at := make([]int64, len(f)-1)
		for i, v := range f[1:] {
			t, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("paced server process: report line %q", sc.Text())
			}
			at[i] = t + shift
		}
		sent[seq] = at
	}
	return sent, sc.Err()
}

// BenchmarkTimingPrecision drives streams concurrent streams whose server
// emits a token every 50 ms and measures how much later than the server's
// emission the client timestamps each chunk (client-added error: loopback,
// the kernel, the Go scheduler and the client's own work). The server runs
// in this process (same-process) or in a child (server-process). Stream
// starts are spread over 500 ms and each stream lasts 2 s. Reported, in ms:
// p50, p99 and max over every chunk of every stream; p99 over the chunks
// emitted while every stream was open (inflight-p99), which leaves out the
// ramp of connection set-ups and the tail; and the p99 of the client's own
// dispatch lag.
func BenchmarkTimingPrecision(b *testing.B) {
	for _, rig := range []struct {
		name string
		new  func(*testing.B, int, time.Duration) *pacedRig
	}{{"same-process", newInProcessRig}, {"server-process", newChildRig}} {
		for _, streams := range []int{500, 5000} {
			b.Run(fmt.Sprint(rig.name, "/", streams, "-streams"), func(b *testing.B) {
				for b.Loop() {
					benchPrecision(b, rig.new, streams, 40, 50*time.Millisecond)
				}
			})
		}
	}
}

func benchPrecision(b *testing.B, newRig func(*testing.B, int, time.Duration) *pacedRig, streams, tokens int, gap time.Duration) {
	rig := newRig(b, tokens, gap)
	a, _ := backend.Lookup("openai")
	client := NewClient(ClientOptions{Conns: streams})
	defer client.CloseIdleConnections()
	d := &HTTP{Client: client, Adapter: a, BaseURL: rig.url,
		Request: func(seq int64) (backend.Request, int) {
			return backend.Request{Model: "m", Prompt: "hi", MaxTokens: tokens,
				Headers: http.Header{"X-Seq": {strconv.FormatInt(seq, 10)}}}, 4
		}}
	const ramp = 500 * time.Millisecond
	offs := make([]time.Duration, streams)
	for i := range offs {
		offs[i] = time.Duration(i) * ramp / time.Duration(streams)
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
	rig.start()
	res, err := Run(b.Context(), Plan{Offsets: offs}, d, out)
	close(out)
	<-done
	sent, serr := rig.stop(res.Epoch)
	if err != nil {
		b.Fatal(err)
	}
	if serr != nil {
		b.Fatal(serr)
	}
	// The window in which every stream was open: from the last stream's
	// first event to the first stream's last.
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	for _, at := range sent {
		if len(at) > 0 {
			lo, hi = max(lo, at[0]), min(hi, at[len(at)-1])
		}
	}
	var all, inflight []float64
	failed := 0
	for _, r := range recs {
		at := sent[r.Seq]
		if !r.OK() || len(at) != len(r.Chunks) {
			failed++
			continue
		}
		for i, c := range r.Chunks {
			e := float64(c.At-at[i]) / 1e6
			all = append(all, e)
			if at[i] >= lo && at[i] <= hi {
				inflight = append(inflight, e)
			}
		}
	}
	if failed > 0 {
		b.Fatalf("%d of %d streams failed or lost chunks", failed, streams)
	}
	slices.Sort(all)
	slices.Sort(inflight)
	b.ReportMetric(all[len(all)/2], "p50-ms")
	b.ReportMetric(all[len(all)*99/100], "p99-ms")
	b.ReportMetric(all[len(all)-1], "max-ms")
	if len(inflight) > 0 {
		b.ReportMetric(inflight[len(inflight)*99/100], "inflight-p99-ms")
	} else {
		// The server fell so far behind that streams never all overlapped.
		b.ReportMetric(math.NaN(), "inflight-p99-ms")
	}
	lag := slices.Clone(res.Lag)
	slices.Sort(lag)
	b.ReportMetric(float64(lag[len(lag)*99/100])/1e6, "dispatch-p99-ms")
}
