package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// BenchmarkVirtual100k simulates 100,000 ShareGPT-like requests (about 200
// prompt and 250 output tokens each, Poisson arrivals at 8 requests/s, 25
// million tokens in all) in virtual time, streaming each record to a
// consumer that keeps only running sums, as a live summary would.
func BenchmarkVirtual100k(b *testing.B) {
	reqs := shareGPTLike(100_000, 8, 1)
	b.ReportAllocs()
	var tokens int
	for b.Loop() {
		tokens = 0
		err := StreamVirtual(context.Background(), Options{}, VirtualPlan{Requests: reqs}, func(r *record.Record) error {
			tokens += r.OutputTokens
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tokens)/(b.Elapsed().Seconds()/float64(b.N)), "tokens/s")
}

// BenchmarkRunVirtual100k is BenchmarkVirtual100k collecting every record,
// with its 25 million chunks, in memory.
func BenchmarkRunVirtual100k(b *testing.B) {
	reqs := shareGPTLike(100_000, 8, 1)
	b.ReportAllocs()
	for b.Loop() {
		recs, err := RunVirtual(Options{}, reqs)
		if err != nil {
			b.Fatal(err)
		}
		if len(recs) != len(reqs) {
			b.Fatalf("%d records for %d requests", len(recs), len(reqs))
		}
	}
}

// BenchmarkEngineStep measures one engine step with 256 sequences decoding.
func BenchmarkEngineStep(b *testing.B) {
	e := testEngine(b, 100_000, 256, 8192, true)
	for i := range 256 {
		e.enqueue(fixed(int64(i), 200, 100_000))
	}
	now, _ := e.step(0) // prefill
	b.ReportAllocs()
	for b.Loop() {
		d, _ := e.step(now)
		now += d
	}
}

// BenchmarkWallClock2000Streams serves 2,000 concurrent streams in
// wall-clock time over loopback HTTP, read by a small client in the same
// process, and reports the engine's step-time error: how long after each
// step's modelled end its tokens had been published (p50, p99 and max, in
// milliseconds), and how long after it the loop had also woken the 2,000
// stream goroutines that write them (the hand-off: p50, p99 and max).
//
// The engine runs Llama-3.1-8B on an H100 with max_num_seqs 2048 so that all
// 2,000 streams decode together, and a per-sequence overhead of 25 µs
// (instead of the calibrated 250 µs) so that a step lasts about 66 ms and
// the benchmark takes seconds, not minutes. Each stream asks for 128
// tokens; the figures cover the steps after every stream has its first
// token, the steady state of 2,000 streams decoding together: about 125
// steps, so that the p99 is not simply the largest. Both figures are as
// much the machine's as the simulator's: on a busy shared host, time the
// process spends descheduled shows up in them.
func BenchmarkWallClock2000Streams(b *testing.B) {
	const streams, tokens = 2000, 128
	cal := DefaultCalibration
	cal.SeqOverhead = 25 * time.Microsecond
	opts := Options{Profile: Profile{Calibration: cal}, MaxNumSeqs: 2048}
	body := `{"prompt":[` + strings.Repeat("3000,", 15) + `3000],"max_tokens":` + fmt.Sprint(tokens) + `,"ignore_eos":true,"stream":true}`
	var timing StepTiming
	for b.Loop() {
		timing = serveStreams(b, opts, streams, tokens, body)
	}
	ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 }
	b.ReportMetric(ms(timing.P50), "p50-step-ms")
	b.ReportMetric(ms(timing.P99), "p99-step-ms")
	b.ReportMetric(ms(timing.Max), "max-step-ms")
	b.ReportMetric(ms(timing.HandOffP50), "p50-handoff-ms")
	b.ReportMetric(ms(timing.HandOffP99), "p99-handoff-ms")
	b.ReportMetric(ms(timing.HandOffMax), "max-handoff-ms")
	b.ReportMetric(float64(timing.Steps), "steps")
}

// serveStreams starts a server, runs n streaming requests at once to their
// end and returns the engine's step timing from the moment every stream had
// its first token: the steady state, without the ramp-up of opening n
// connections and prefilling n prompts.
func serveStreams(b *testing.B, opts Options, n, tokens int, body string) StepTiming {
	b.Helper()
	s, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := s.Start(ctx); err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() { cancel(); <-served }()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, DisableCompression: true}}
	defer client.CloseIdleConnections()
	url := "http://" + ln.Addr().String() + "/v1/completions"
	var started, wg sync.WaitGroup
	started.Add(n)
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			got, err := countTokens(ctx, client, url, body, started.Done)
			if err == nil && got != tokens {
				err = fmt.Errorf("stream carried %d tokens, want %d", got, tokens)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	started.Wait()
	s.ResetStepTiming()
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	return s.StepTiming()
}

// countTokens streams one completion and counts its content events. It
// calls first once: at the first token, or when the stream fails.
func countTokens(ctx context.Context, c *http.Client, url, body string, first func()) (int, error) {
	var once sync.Once
	defer once.Do(first)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("data: {")) {
			n++
			once.Do(first)
		}
	}
	return n, sc.Err()
}

// BenchmarkStreamToken measures what each wire format does per output
// token: appending one token's event to the step's buffer, after the
// stream's first token (chat's role chunk, the opening of a responses
// item) is written.
func BenchmarkStreamToken(b *testing.B) {
	const id, model = "0123456789abcdef0123456789abcdef", "Llama-3.1-8B"
	for _, tt := range []struct {
		name string
		f    streamFormat
	}{
		{"completions", newChunkFormat(false, "cmpl-"+id, 1796234524, model, 200, nil)},
		{"chat", newChunkFormat(true, "chatcmpl-"+id, 1796234524, model, 200, nil)},
		{"responses", newResponsesFormat("resp_"+id, 1796234524, model, 200, newTextSource(1, 1))},
	} {
		b.Run(tt.name, func(b *testing.B) {
			text := []byte(" token")
			buf := tt.f.appendOpen(nil)
			buf = tt.f.appendToken(buf, streamToken{text: text, pos: 1})
			pos := 2
			b.ReportAllocs()
			for b.Loop() {
				buf = tt.f.appendToken(buf[:0], streamToken{text: text, pos: pos})
				pos++
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}
