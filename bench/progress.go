package bench

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// rolling is how many recent requests the live TTFT/TPOT percentiles cover.
const rolling = 512

// progress shows a run while it goes: on a terminal a line rewritten twice a
// second; otherwise a plain line every ten seconds, fit for logs.
type progress struct {
	w        io.Writer
	terminal bool
	total    int
	began    time.Time

	mu     sync.Mutex // guards the fields below
	done   int
	failed int
	ttft   []float64 // ring of recent TTFTs, seconds
	tpot   []float64
	next   int
	tokens []tokAt // output tokens of recent completions, for the rate
}

type tokAt struct {
	at time.Time
	n  int
}

func newProgress(w io.Writer, terminal bool, total int) *progress {
	return &progress{w: w, terminal: terminal, total: total, began: time.Now()}
}

func (p *progress) add(r *record.Record) {
	if p.w == nil {
		return
	}
	// The live view needs three numbers, read straight from the first and
	// last chunks: the Summary computes every metric of the record anyway.
	ttft, tpot, n := -1.0, -1.0, r.OutputTokens
	if c1, ok := r.FirstToken(); ok {
		ttft = float64(c1-r.Scheduled) / 1e9
		if cK, _ := r.LastToken(); n >= 2 {
			tpot = float64(cK-c1) / 1e9 / float64(n-1)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if !r.OK() {
		p.failed++
		return
	}
	if ttft >= 0 {
		p.ttft = ring(p.ttft, p.next, ttft)
	}
	if tpot >= 0 {
		p.tpot = ring(p.tpot, p.next, tpot)
	}
	p.next = (p.next + 1) % rolling
	p.tokens = append(p.tokens, tokAt{time.Now(), n})
}

func ring(v []float64, i int, x float64) []float64 {
	if len(v) < rolling {
		return append(v, x)
	}
	v[i%len(v)] = x
	return v
}

// start begins periodic output; the returned function stops it.
func (p *progress) start() func() {
	if p.w == nil {
		return func() {}
	}
	every := 10 * time.Second
	if p.terminal {
		every = 500 * time.Millisecond
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.print()
			}
		}
	}()
	return func() { close(stop); <-done }
}

func (p *progress) print() {
	line := p.line()
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// finish ends the live line.
func (p *progress) finish() {
	if p.w == nil {
		return
	}
	p.print()
	if p.terminal {
		fmt.Fprintln(p.w)
	}
}

func (p *progress) line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	// Output rate over the last 5 s.
	cut := now.Add(-5 * time.Second)
	i := 0
	for i < len(p.tokens) && p.tokens[i].at.Before(cut) {
		i++
	}
	p.tokens = p.tokens[i:]
	n := 0
	for _, t := range p.tokens {
		n += t.n
	}
	span := min(5*time.Second, now.Sub(p.began))
	rate := 0.0
	if span > 0 {
		rate = float64(n) / span.Seconds()
	}
	count := fmt.Sprint(p.done)
	if p.total > 0 {
		count = fmt.Sprintf("%d/%d", p.done, p.total)
	}
	return fmt.Sprintf("[%s] %s  failed %d  TTFT p50 %s p99 %s  TPOT p50 %s p99 %s  %.0f out tok/s",
		count, elapsed(now.Sub(p.began)), p.failed, pctMS(p.ttft, 50), pctMS(p.ttft, 99), pctMS(p.tpot, 50), pctMS(p.tpot, 99), rate)
}

func pctMS(v []float64, q float64) string {
	if len(v) == 0 {
		return "-"
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return fmt.Sprintf("%.0fms", 1e3*metrics.Percentile(s, q, metrics.Linear))
}
