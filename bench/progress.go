package bench

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/goodput-dev/goodput/metrics"
	"github.com/goodput-dev/goodput/record"
)

// rolling is how many recent requests the live TTFT/TPOT percentiles cover.
const rolling = 512

// progress shows a run while it goes: on a terminal a line rewritten in
// place twice a second, never wider than the terminal (a line that wraps
// cannot be rewritten: each redraw would add a line); otherwise a plain
// line every ten seconds, fit for logs.
type progress struct {
	w        io.Writer
	terminal bool
	total    int
	began    time.Time
	// width returns the terminal's width in columns, 0 when unknown.
	width func() int

	// quiet, when set, says how many requests wait and for how long no
	// server has sent a byte (load.HTTP.Quiet); timeout is what each of
	// them waits at most (0: no limit). A silence of quietAfter or more
	// is said on its own line, and again each time it doubles.
	quiet     func() (waiting int64, silent time.Duration)
	timeout   time.Duration
	quietNext time.Duration // the silence the next notice waits for

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

// defaultWidth is the width assumed for a terminal that does not say.
const defaultWidth = 80

func newProgress(w io.Writer, terminal bool, total int) *progress {
	p := &progress{w: w, terminal: terminal, total: total, began: time.Now(), width: func() int { return 0 }, quietNext: quietAfter}
	if f, ok := w.(interface{ Fd() uintptr }); ok && terminal {
		fd := int(f.Fd())
		if !term.IsTerminal(fd) {
			// Standard output is a terminal but this writer is not: a log
			// file wants plain lines, not carriage returns.
			p.terminal = false
		}
		// Asked at every redraw, so that a resized window is followed.
		p.width = func() int {
			if cols, _, err := term.GetSize(fd); err == nil {
				return cols
			}
			return 0
		}
	}
	return p
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
		if cK, _ := r.LastToken(); n >= 2 && !r.Whole {
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

// quietAfter is the silence of the servers, while requests wait, that
// the progress says on a line of its own.
var quietAfter = 30 * time.Second

// logEvery is how often a progress that is not a terminal's writes a line.
const logEvery = 10 * time.Second

// start begins periodic output; the returned function stops it. A
// terminal's line is redrawn twice a second, a log's written every
// logEvery; the servers' silence is looked at twice a second in both.
func (p *progress) start() func() {
	if p.w == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		const tick = 500 * time.Millisecond
		t := time.NewTicker(tick)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-t.C:
				p.sayQuiet()
				if p.terminal || n%int(logEvery/tick) == 0 {
					p.print()
				}
			}
		}
	}()
	return func() { close(stop); <-done }
}

// sayQuiet writes a line when the servers have sent nothing for
// quietAfter while requests wait, and again each time the silence
// doubles; a silence that ended starts the count again.
func (p *progress) sayQuiet() {
	if p.quiet == nil {
		return
	}
	waiting, silent := p.quiet()
	if waiting == 0 || silent < quietAfter {
		p.quietNext = quietAfter
		return
	}
	if silent < p.quietNext {
		return
	}
	for p.quietNext <= silent {
		p.quietNext *= 2
	}
	limit := fmt.Sprintf("each gives up after %v (--request-timeout)", p.timeout)
	if p.timeout <= 0 {
		limit = "none gives up (--request-timeout 0)"
	}
	what := "requests wait"
	if waiting == 1 {
		what = "request waits"
	}
	msg := fmt.Sprintf("goodput: no byte from the server for %v while %d %s for an answer: %s; Ctrl-C ends the run and keeps what was measured",
		silent.Round(time.Second), waiting, what, limit)
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s\n", msg)
		return
	}
	fmt.Fprintln(p.w, msg)
}

func (p *progress) print() {
	if !p.terminal {
		fmt.Fprintln(p.w, p.line())
		return
	}
	cols := p.width()
	if cols <= 0 {
		cols = defaultWidth
	}
	// One column is left free: a line that fills the last column leaves
	// some terminals' cursor on the next line.
	fmt.Fprintf(p.w, "\r\033[K%s", p.fit(max(cols-1, 1)))
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

// line is the progress in full, as a log line.
func (p *progress) line() string { return p.fit(0) }

// fit returns the progress in at most width columns (0: no limit): in
// full when it fits, else in shorter wordings that drop the least needed
// figures first, and cut short as a last resort.
func (p *progress) fit(width int) string {
	st := p.state()
	for _, form := range st.forms() {
		if width <= 0 || utf8.RuneCountInString(form) <= width {
			return form
		}
	}
	short := []rune(st.forms()[len(st.forms())-1])
	return string(short[:max(width, 0)])
}

// progressState is what one progress line shows.
type progressState struct {
	count, elapsed string
	failed         int
	ttft, tpot     [2]string // p50, p99
	rate           float64   // output tokens per second over the last 5 s
}

func (p *progress) state() progressState {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	// Output rate over the last 5 s.
	cut := now.Add(-rateWindow)
	i := 0
	for i < len(p.tokens) && p.tokens[i].at.Before(cut) {
		i++
	}
	p.tokens = p.tokens[i:]
	n := 0
	for _, t := range p.tokens {
		n += t.n
	}
	span := min(rateWindow, now.Sub(p.began))
	rate := 0.0
	if span > 0 {
		rate = float64(n) / span.Seconds()
	}
	count := fmt.Sprint(p.done)
	if p.total > 0 {
		count = fmt.Sprintf("%d/%d", p.done, p.total)
	}
	return progressState{
		count: count, elapsed: elapsed(now.Sub(p.began)), failed: p.failed, rate: rate,
		ttft: [2]string{pctMS(p.ttft, 50), pctMS(p.ttft, 99)},
		tpot: [2]string{pctMS(p.tpot, 50), pctMS(p.tpot, 99)},
	}
}

// rateWindow is the span the progress line's tokens per second cover. The
// line says so ("last 5s"): the summary's throughput is over the whole
// run and differs from it.
const rateWindow = 5 * time.Second

// forms returns the line in every wording, longest first.
func (s progressState) forms() []string {
	rate := fmt.Sprintf("%.0f", s.rate)
	return []string{
		fmt.Sprintf("[%s] %s  failed %d  TTFT p50 %s p99 %s  TPOT p50 %s p99 %s  %s out tok/s (last 5s)",
			s.count, s.elapsed, s.failed, s.ttft[0], s.ttft[1], s.tpot[0], s.tpot[1], rate),
		fmt.Sprintf("[%s] %s fail %d TTFT p50 %s p99 %s TPOT p50 %s p99 %s %s tok/s (last 5s)",
			s.count, s.elapsed, s.failed, s.ttft[0], s.ttft[1], s.tpot[0], s.tpot[1], rate),
		fmt.Sprintf("[%s] %s fail %d TTFT p50 %s p99 %s %s tok/s (last 5s)", s.count, s.elapsed, s.failed, s.ttft[0], s.ttft[1], rate),
		fmt.Sprintf("[%s] %s fail %d %s tok/s (last 5s)", s.count, s.elapsed, s.failed, rate),
		fmt.Sprintf("[%s] %s", s.count, s.elapsed),
		fmt.Sprintf("[%s]", s.count),
	}
}

func pctMS(v []float64, q float64) string {
	if len(v) == 0 {
		return "-"
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return fmt.Sprintf("%.0fms", 1e3*metrics.Percentile(s, q, metrics.Linear))
}
