package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/goodput-dev/goodput/servegen"
	"github.com/goodput-dev/goodput/tokenizer"
)

// DatasetServeGen generates requests from ServeGen's per-window statistics.
const DatasetServeGen = "servegen"

// rngServeGen separates the lengths and words of ServeGen's requests from
// the other users of --seed.
const rngServeGen = 0x7367656e // "sgen"

func (c Config) validateServeGen() []error {
	var errs []error
	if c.Path == "" {
		errs = append(errs, fmt.Errorf("--dataset-name servegen needs --dataset-path: a chunk-N-trace.csv of ServeGen's data, or the directory of a model's chunks"))
	}
	if c.Trace.Format != "" {
		errs = append(errs, fmt.Errorf("--trace-format does not apply to --dataset-name servegen"))
	}
	if c.Trace.BlockSize != 0 {
		errs = append(errs, fmt.Errorf("--trace-block-size does not apply to --dataset-name servegen: its prompts share no blocks"))
	}
	t := c.Trace
	errs = append(errs, t.validate(0)...)
	if t.Start < 0 || t.Duration < 0 {
		errs = append(errs, fmt.Errorf("--trace-start and --trace-duration must be ≥ 0, got %v and %v", t.Start, t.Duration))
	}
	return errs
}

// serveGenWindow returns the span of ServeGen's period to generate: from
// --trace-start for --trace-duration (0: to the end).
func (c Config) serveGenWindow() (start, end time.Duration) {
	start = c.Trace.Start
	if c.Trace.Duration > 0 {
		end = start + c.Trace.Duration
	}
	return start, end
}

// serveGenArrivals generates arrivals from ServeGen's rate windows.
type serveGenArrivals struct{ c Config }

// Times generates the first n arrivals from seed, from the first.
func (a serveGenArrivals) Times(n int, seed uint64) ([]time.Duration, error) {
	clients, err := servegen.Load(a.c.Path)
	if err != nil {
		return nil, err
	}
	start, end := a.c.serveGenWindow()
	arr, err := servegen.Arrivals(clients, start, end, n, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.c.Path, err)
	}
	if len(arr) == 0 {
		return nil, fmt.Errorf("%s: no arrival in the window: the clients were idle", a.c.Path)
	}
	times := make([]time.Duration, len(arr))
	for i, x := range arr {
		times[i] = x.At - arr[0].At
	}
	return times, nil
}

func (a serveGenArrivals) String() string {
	s := "the arrivals ServeGen's rate windows give in " + a.c.Path
	if w := a.c.traceConfig().Window.String(); w != "" {
		s += " " + w
	}
	return s
}

// ServeGen generates requests from the statistics ServeGen published of a
// model's clients (see package servegen): request i arrives as the i-th
// arrival its rate windows generate, and its prompt and output lengths are
// drawn from the length distributions of its client at that time. Prompts
// are words of their own, as token ids and text. A multimodal model's
// prompt is text as long as its text and media tokens together: goodput
// sends no images.
type ServeGen struct {
	clients  []*servegen.Client
	arrivals []servegen.Arrival
	seed     uint64
	req      Request
	scale    float64
	fit      Fit // sizes the prompts' text
	path     string
	window   string
	in, out  LengthRange
}

var _ Source = (*ServeGen)(nil)

// NewServeGen reads ServeGen's files for c and generates the arrivals of
// its window, as many as c.Limit (every one when 0). c must have Dataset
// "servegen".
func NewServeGen(c Config) (*ServeGen, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Dataset != DatasetServeGen {
		return nil, fmt.Errorf("--dataset-name %s is not servegen", c.Dataset)
	}
	clients, err := servegen.Load(c.Path)
	if err != nil {
		return nil, err
	}
	start, end := c.serveGenWindow()
	arr, err := servegen.Arrivals(clients, start, end, c.Limit, c.Seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Path, err)
	}
	if len(arr) == 0 {
		return nil, fmt.Errorf("%s: no arrival in the window: the clients were idle", c.Path)
	}
	s := &ServeGen{clients: clients, arrivals: arr, seed: c.Seed, req: c.Request, scale: c.Trace.scale(), fit: c.Fit,
		path: c.Path, window: c.traceConfig().Window.String()}
	for i := range arr {
		in, out := s.lengths(int64(i), nil)
		if in > MaxPromptTokens {
			return nil, fmt.Errorf("%s: a prompt of %d tokens exceeds the limit of %d: lower --trace-length-scale", c.Path, in, MaxPromptTokens)
		}
		s.in.Add(in)
		s.out.Add(out)
	}
	return s, nil
}

// lengths draws request seq's prompt and output lengths, scaled, from rng
// (a fresh one for seq when nil).
func (s *ServeGen) lengths(seq int64, rng *rand.Rand) (in, out int) {
	if rng == nil {
		rng = s.rng(seq)
	}
	a := s.arrivals[seq]
	in, out = s.clients[a.Client].LengthsAt(a.At).Draw(rng)
	if s.scale != 1 {
		in = max(1, int(math.Round(float64(in)*s.scale)))
		out = max(1, int(math.Round(float64(out)*s.scale)))
	}
	return in, min(out, MaxOutputTokens)
}

func (s *ServeGen) rng(seq int64) *rand.Rand {
	return rand.New(rand.NewPCG(s.seed^rngServeGen, uint64(seq)))
}

// Item returns request seq; seq cycles through the arrivals generated.
func (s *ServeGen) Item(seq int64) Item {
	n := int64(len(s.arrivals))
	seq = (seq%n + n) % n
	rng := s.rng(seq)
	in, out := s.lengths(seq, rng)
	ids := tokenizer.Words(s.fit.Prompt(in), rng)
	return Item{Prompt: tokenizer.Decode(ids), PromptTokenIDs: s.fit.ids(ids), InputTokens: in, OutputTokens: s.req.capOutput(out)}
}

// Len returns the number of arrivals generated.
func (s *ServeGen) Len() int { return len(s.arrivals) }

// String describes the clients, the window and the lengths drawn.
func (s *ServeGen) String() string {
	var b strings.Builder
	c := s.clients[0]
	fmt.Fprintf(&b, "servegen %s: ", s.path)
	if len(s.clients) == 1 {
		fmt.Fprintf(&b, "1 client, active in %d of %d 10-minute windows", c.Active(), len(c.Windows))
	} else {
		fmt.Fprintf(&b, "%d clients", len(s.clients))
	}
	if s.window != "" {
		fmt.Fprintf(&b, "; window %s", s.window)
	}
	first, last := s.arrivals[0].At, s.arrivals[len(s.arrivals)-1].At
	fmt.Fprintf(&b, "; %d arrivals from %v over %v", len(s.arrivals), first.Round(time.Millisecond), (last - first).Round(time.Millisecond))
	if span := last - first; span > 0 {
		fmt.Fprintf(&b, " (mean %.3g req/s)", float64(len(s.arrivals)-1)/span.Seconds())
	}
	fmt.Fprintf(&b, "; input tokens %s; output tokens %s", s.in, s.out)
	if s.scale != 1 {
		fmt.Fprintf(&b, "; lengths scaled by %g", s.scale)
	}
	if c.Multimodal() {
		b.WriteString("; a multimodal model's text and media tokens sent as text of their total length")
	}
	b.WriteString("; lengths drawn from the windows' distributions, output enforced with max_tokens and ignore_eos")
	if s.req.MaxTokens > 0 && s.out.hi > s.req.MaxTokens {
		fmt.Fprintf(&b, " (capped by --max-tokens %d)", s.req.MaxTokens)
	}
	return b.String()
}
