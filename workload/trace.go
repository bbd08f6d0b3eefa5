package workload

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/goodput-dev/goodput/arrival"
	"github.com/goodput-dev/goodput/tokenizer"
	"github.com/goodput-dev/goodput/trace"
)

// Random streams of the trace dataset.
const (
	rngTraceBlock = 0x626c6f636b // "block": the tokens of one hash id
	rngTraceRow   = 0x726f77     // "row": the tokens of a row beyond its ids
)

// fileSalt names a trace file by its first line (its first row, or its
// header), up to 4 KiB of it: every window of one file, and an excerpt cut
// from its start, share it, so their blocks of one hash id are the same
// tokens, while another trace's id 0 is other tokens. A file that cannot
// be read here has salt 0 (the reading proper reports it).
func fileSalt(path string) uint64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	head := make([]byte, 4<<10)
	n, _ := io.ReadFull(f, head)
	if i := bytes.IndexByte(head[:n], '\n'); i >= 0 {
		n = i
	}
	h := fnv.New64a()
	h.Write(head[:n])
	return h.Sum64()
}

// traceRowKey names a row for the random stream of its words: its line, its
// time from the file's first row and its lengths as the file gives them.
// The row's place in the window would not do: row k of every window, and of
// every trace, would then start with the same words, and a replay after
// another would find its prompts in the server's prefix cache.
func traceRowKey(row trace.Row) uint64 {
	k := uint64(0)
	for _, v := range []uint64{uint64(row.Line), uint64(row.At), uint64(row.Input), uint64(row.Output)} {
		k = splitmix(k ^ v)
	}
	return k
}

// splitmix is SplitMix64's finaliser: a bijection of 64-bit words that
// spreads every bit of its input over its output.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// TraceConfig shapes the trace and servegen datasets (--trace-*). The
// speed of a replay is the arrival process's (--trace-speedup).
type TraceConfig struct {
	Format trace.Format // --trace-format: "" sniffs it from the file
	// Start and Duration select the rows arriving in [Start,
	// Start+Duration) from the trace's first row (--trace-start,
	// --trace-duration); Duration 0 means to the end.
	Start, Duration time.Duration
	// BlockSize is how many prompt tokens one hash id stands for
	// (--trace-block-size); 0 means 512, Mooncake's.
	BlockSize int
	// LengthScale multiplies every prompt and output length, and the
	// block size with them (--trace-length-scale), for a scaled-down
	// replay on a smaller server or in a test; 0 means 1.
	LengthScale float64
	// NoSelfTimed sends a trace's rows (trace or timed_trace) by the run's
	// arrival process (--request-rate, --burstiness, --max-concurrency)
	// instead of at their timestamps (--no-self-timed): the first
	// --num-prompts rows, in file order, each once.
	NoSelfTimed bool
}

// TimedTraceConfig shapes vLLM's timed_trace dataset (--timed-trace-*): a
// trace file of JSON Lines like Mooncake's, read with these field names
// and time unit, and replayed as the trace dataset is. Start from
// DefaultConfig's, vLLM's defaults.
type TimedTraceConfig struct {
	// Fields names the fields and the seconds a timestamp unit is
	// (--timed-trace-label-*, --timed-trace-sec-multiplier).
	Fields trace.Timed
	// ChunkSize is how many prompt tokens one hash id stands for
	// (--timed-trace-chunk-hash-size); 0 means 16, vLLM's.
	ChunkSize int
}

// validateTimedTrace reports the problems of a timed_trace config: the
// trace flags that do not apply to it, and its own.
func (c Config) validateTimedTrace() []error {
	var errs []error
	if c.Path == "" {
		errs = append(errs, errors.New("--dataset-name timed_trace needs --dataset-path, the trace file"))
	}
	if c.Trace.Format != "" {
		errs = append(errs, errors.New("--trace-format does not apply to --dataset-name timed_trace: its format is vLLM's, its fields named by --timed-trace-label-*"))
	}
	if c.Trace.BlockSize != 0 {
		errs = append(errs, errors.New("--trace-block-size does not apply to --dataset-name timed_trace: give --timed-trace-chunk-hash-size"))
	}
	if n := c.TimedTrace.ChunkSize; n < 0 || n > trace.MaxTokens {
		errs = append(errs, fmt.Errorf("--timed-trace-chunk-hash-size must be in [1, %d], got %d", trace.MaxTokens, n))
	}
	if err := c.TimedTrace.Fields.Validate(); err != nil {
		errs = append(errs, err)
	}
	return append(errs, c.Trace.validate(c.traceConfig().Block())...)
}

func (t TraceConfig) scale() float64 {
	if t.LengthScale == 0 {
		return 1
	}
	return t.LengthScale
}

// validate checks t for a replay whose hash ids stand for block tokens
// each (0: none given).
func (t TraceConfig) validate(block int) []error {
	var errs []error
	if _, err := trace.ParseFormat(string(t.Format)); err != nil {
		errs = append(errs, err)
	}
	if s := t.LengthScale; math.IsNaN(s) || math.IsInf(s, 0) || s < 0 || s > 1000 {
		errs = append(errs, fmt.Errorf("--trace-length-scale must be in (0, 1000], got %v", s))
	} else if b := block; b > 0 && math.Round(float64(b)*t.scale()) < 1 {
		errs = append(errs, fmt.Errorf("--trace-length-scale %v leaves no token of a %d-token block", s, b))
	}
	return errs
}

// traceConfig is the trace package's view of c.
func (c Config) traceConfig() trace.Config {
	tc := trace.Config{
		Path: c.Path, Format: c.Trace.Format, BlockSize: c.Trace.BlockSize,
		Window: trace.Window{Start: c.Trace.Start, Duration: c.Trace.Duration, Limit: c.Limit},
	}
	if c.Dataset == DatasetTimedTrace {
		tc.Format, tc.BlockSize, tc.Timed = trace.FormatTimed, c.TimedTrace.ChunkSize, c.TimedTrace.Fields
	}
	return tc
}

// replay reports whether the dataset is a trace file's rows: trace or
// timed_trace.
func (c Config) replay() bool { return c.Dataset == DatasetTrace || c.Dataset == DatasetTimedTrace }

// IgnoreEOS reports whether requests ask the server to ignore its
// end-of-sequence token: --ignore-eos, or a replay, whose output lengths
// are the trace's and are enforced so (max_tokens and ignore_eos), as vLLM
// does for its timed_trace.
func (c Config) IgnoreEOS() bool {
	return c.Request.IgnoreEOS || c.replay() || c.Dataset == DatasetServeGen
}

// RequestOptions returns c.Request as requests are sent: with IgnoreEOS
// set as c.IgnoreEOS says.
func (c Config) RequestOptions() Request {
	r := c.Request
	r.IgnoreEOS = c.IgnoreEOS()
	return r
}

// TokenIDs reports whether the dataset's items carry token ids
// (Item.PromptTokenIDs), which a server that takes them gets as the prompt,
// with exact lengths.
func (c Config) TokenIDs() bool {
	switch c.Dataset {
	case DatasetRandom, DatasetTrace, DatasetTimedTrace, DatasetServeGen, DatasetPrefixRepetition, DatasetBurstGPT:
		return true
	}
	return false
}

// Calibrated reports whether the dataset fits its prompts to a server's
// count itself, given Config.Counter: random and txt-slices. The other
// datasets that make text of a length are sized by a Fit.
func (c Config) Calibrated() bool {
	return c.Dataset == DatasetRandom || c.Dataset == DatasetTxtSlices
}

// Arrivals returns the arrival process the dataset brings with it, for
// arrival.Config.Replay: the trace's timestamps (trace and timed_trace,
// unless NoSelfTimed), or arrivals generated from ServeGen's statistics
// (servegen); nil for the datasets whose requests any arrival process can
// send. It reads nothing until the plan is built.
func (c Config) Arrivals() arrival.Replay {
	switch c.Dataset {
	case DatasetTrace, DatasetTimedTrace:
		if c.Trace.NoSelfTimed {
			return nil
		}
		return traceArrivals{c}
	case DatasetServeGen:
		return serveGenArrivals{c}
	}
	return nil
}

// traceArrivals replays a trace's timestamps.
type traceArrivals struct{ c Config }

// Times reads the window's first n rows' arrival times.
func (a traceArrivals) Times(n int, _ uint64) ([]time.Duration, error) {
	tc := a.c.traceConfig()
	tc.Window.Limit = n
	s, err := trace.Scan(tc, true)
	if err != nil {
		return nil, err
	}
	return s.Times, nil
}

func (a traceArrivals) String() string {
	s := a.c.Dataset + " " + a.c.Path
	if w := a.c.traceConfig().Window.String(); w != "" {
		s += " " + w
	}
	return s
}

// Trace replays the rows of a trace file as requests: row i of the window
// is item i, with the row's prompt and output lengths. Prompts are built
// from the row's hash ids when it has them: the tokens of id h are
// generated from h and the seed alone, so two prompts that begin with the
// same ids begin with the same tokens, and a server's prefix cache sees the
// trace's own reuse. Tokens past the ids, and the prompts of rows without
// ids, are words of their own, drawn from the seed and the row (see
// traceRowKey): a row has the same prompt in every window that holds it.
// Each item carries both token ids (exact lengths, for servers that take
// them) and their text, which a server's tokenizer counts differently but
// whose shared prefixes it still shares.
//
// The file is read at New, once, to check every row and summarise the
// window, and then again as items are asked for, in order, keeping only a
// window of recent rows: a trace of millions of rows costs little memory.
// Items asked for far behind the rows read start the reading over.
type Trace struct {
	cfg   trace.Config
	seed  uint64
	req   Request
	scale float64
	block int // tokens of one hash id, scaled
	// salt sets the file's blocks apart from another file's: traces
	// number their hash ids from 0 alike, and the same id in two files
	// is no shared prefix (see fileSalt).
	salt uint64
	fit  Fit // sizes the text of rows without their own
	sum  *trace.Summary
	// untimed: the rows are sent by the run's arrival process
	// (--no-self-timed).
	untimed bool

	mu      sync.Mutex // guards cur, rereads and err
	cur     *traceCursor
	rereads int
	err     error
}

var _ Source = (*Trace)(nil)

// NewTrace checks the trace file of c and summarises its window. c must
// have Dataset "trace" or "timed_trace".
func NewTrace(c Config) (*Trace, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if !c.replay() {
		return nil, fmt.Errorf("--dataset-name %s is not trace or timed_trace", c.Dataset)
	}
	tc := c.traceConfig()
	sum, err := trace.Scan(tc, false)
	if err != nil {
		return nil, err
	}
	t := &Trace{cfg: tc, seed: c.Seed, req: c.Request, scale: c.Trace.scale(), fit: c.Fit, sum: sum, untimed: c.Trace.NoSelfTimed}
	t.block = max(1, int(math.Round(float64(tc.Block())*t.scale)))
	t.salt = fileSalt(c.Path)
	if in := t.length(sum.Input.Max); in > MaxPromptTokens {
		return nil, fmt.Errorf("%s: a prompt of %d tokens (scaled) exceeds the limit of %d: lower --trace-length-scale", c.Path, in, MaxPromptTokens)
	}
	return t, nil
}

// length scales a trace length, keeping at least one token.
func (t *Trace) length(n int) int {
	if t.scale == 1 {
		return n
	}
	return max(1, int(math.Round(float64(n)*t.scale)))
}

// Len returns the number of rows in the window.
func (t *Trace) Len() int { return t.sum.Rows }

// Summary returns what reading the window at New found.
func (t *Trace) Summary() *trace.Summary { return t.sum }

// Err returns the error that stopped reading the file again during the
// run, if any (the file changed or went away after New): items from then
// on are one-token prompts, which the caller should say.
func (t *Trace) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// String describes the window and how its rows become requests.
func (t *Trace) String() string {
	var b strings.Builder
	b.WriteString(t.sum.String())
	if t.scale != 1 {
		fmt.Fprintf(&b, "; lengths scaled by %g (blocks of %d tokens)", t.scale, t.block)
	}
	if t.untimed {
		b.WriteString("; sent by the run's arrival process, not at their timestamps (--no-self-timed)")
	}
	b.WriteString("; input and output lengths from the trace, output enforced with max_tokens and ignore_eos")
	if t.req.MaxTokens > 0 && t.length(t.sum.Output.Max) > t.req.MaxTokens {
		fmt.Fprintf(&b, " (capped by --max-tokens %d)", t.req.MaxTokens)
	}
	if f := t.fit; f.Active() && float64(t.length(t.sum.Input.Min)) < f.Overhead+f.PerToken {
		fmt.Fprintf(&b, "; a row not longer than the %.0f tokens the server adds to every prompt goes out as one word, which the server counts longer than the row", f.Overhead)
	}
	return b.String()
}

// Item returns the request of row seq of the window; seq cycles.
func (t *Trace) Item(seq int64) Item {
	n := int64(t.sum.Rows)
	seq = (seq%n + n) % n
	row, err := t.row(seq)
	if err != nil {
		return Item{Prompt: " ", PromptTokenIDs: tokenizer.Encode(" "), InputTokens: 1, OutputTokens: 1}
	}
	it := Item{OutputTokens: t.req.capOutput(min(row.output, MaxOutputTokens)), ReusableTokens: row.reused}
	if row.prompt != "" {
		it.Prompt, it.InputTokens = row.prompt, row.input
		return it
	}
	// With a Fit, the row's length is the server's, and its blocks are
	// of the words that count a block there; the prompt's overhead
	// shortens its tail.
	block, words := t.fit.Words(t.block), t.fit.Prompt(row.input)
	ids := make([]int, 0, words)
	for i, h := range row.ids {
		n := min(block, words-i*block)
		if n <= 0 {
			break
		}
		// The whole block is drawn even when only its start is needed,
		// so that a block's first tokens never depend on its length.
		ids = append(ids, tokenizer.Words(block, rand.New(rand.NewPCG(t.seed^rngTraceBlock^t.salt, uint64(h))))[:n]...)
	}
	if rest := words - len(ids); rest > 0 {
		ids = tokenizer.AppendWords(ids, rest, rand.New(rand.NewPCG(t.seed^rngTraceRow, row.key)))
	}
	it.Prompt, it.PromptTokenIDs, it.InputTokens = tokenizer.Decode(ids), t.fit.ids(ids), row.input
	return it
}

// row returns row seq of the window, reading the file as far as needed.
func (t *Trace) row(seq int64) (traceRow, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return traceRow{}, t.err
	}
	if t.cur != nil {
		if r, ok := t.cur.cached(seq); ok {
			return r, nil
		}
	}
	if t.cur == nil || seq < t.cur.next {
		if t.cur != nil {
			t.cur.close()
			t.rereads++
		}
		cur, err := t.openCursor()
		if err != nil {
			t.err = err
			return traceRow{}, err
		}
		t.cur = cur
	}
	r, err := t.cur.advance(seq)
	if err != nil {
		t.err = fmt.Errorf("reading %s again: %w", t.cfg.Path, err)
		t.cur.close()
		t.cur = nil
		return traceRow{}, t.err
	}
	return r, nil
}

// traceRow is one row of the window as requests use it: lengths scaled,
// hash ids copied, and its reusable prompt tokens.
type traceRow struct {
	seq           int64
	key           uint64 // traceRowKey: seeds the words past its ids
	input, output int
	ids           []int64
	prompt        string
	reused        int
}

// traceRing is how many recent rows a cursor keeps: enough for a run that
// prepares up to a thousand requests ahead, and for a sweep that builds its
// prompts on every CPU in chunks of 256.
const traceRing = 8192

// traceCursor reads the rows of the window in order.
type traceCursor struct {
	rows  *trace.Rows
	next  int64 // the seq of the next row to read
	reuse *trace.Reuse
	ring  []traceRow // row s at s % len(ring), when its seq is s
	trace *Trace
}

func (t *Trace) openCursor() (*traceCursor, error) {
	rows, err := t.cfg.Open()
	if err != nil {
		return nil, err
	}
	ring := make([]traceRow, traceRing)
	for i := range ring {
		ring[i].seq = -1
	}
	return &traceCursor{rows: rows, reuse: trace.NewReuse(t.block), ring: ring, trace: t}, nil
}

func (c *traceCursor) close() { c.rows.Close() }

func (c *traceCursor) cached(seq int64) (traceRow, bool) {
	r := c.ring[seq%int64(len(c.ring))]
	return r, r.seq == seq
}

// advance reads rows up to seq, which must not be behind the cursor, and
// returns it.
func (c *traceCursor) advance(seq int64) (traceRow, error) {
	for c.next <= seq {
		row, err := c.rows.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("the window ended after %d rows, %d at New", c.next, c.trace.sum.Rows)
			}
			return traceRow{}, err
		}
		t := c.trace
		r := traceRow{seq: c.next, key: traceRowKey(row), input: t.length(row.Input), output: t.length(row.Output), prompt: row.Prompt}
		if row.Prompt != "" {
			r.input = row.Input // a given text keeps its length
		}
		if row.HashIDs != nil {
			r.ids = append([]int64(nil), row.HashIDs...)
			r.reused = c.reuse.Add(r.ids, r.input)
		}
		c.ring[c.next%int64(len(c.ring))] = r
		c.next++
	}
	r, _ := c.cached(seq)
	return r, nil
}
