package load

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/record"
	"github.com/goodput-dev/goodput/transport"
)

// HTTP is a Doer that sends each request through a protocol adapter to a
// server and reads its stream. Set the fields, then use it from any number
// of goroutines.
type HTTP struct {
	// Transport carries the requests (see NewTransport); the caller
	// closes it.
	Transport transport.Transport
	Adapter   *backend.Adapter
	BaseURL   string
	Endpoint  string // empty: the adapter's default
	// Request returns what to ask for request seq, and its prompt length in
	// tokens (recorded even when the server reports none).
	Request func(seq int64) (req backend.Request, inputTokens int)
	// Timeout bounds one request from send to end of stream; 0 means none.
	Timeout time.Duration
	// Router, when set, spreads the requests over several endpoints
	// instead of BaseURL, keeping a session's or task's requests together
	// by the id in the record (Session, else Task) when its policy says
	// so, and names each record's endpoint.
	Router *Router

	mu       sync.Mutex // guards prepared
	prepared map[int64]prepared

	retried  atomic.Int64 // requests sent a second time
	chunks   atomic.Int64 // token-bearing chunks read
	usage    atomic.Int64 // tokens the servers reported, where they did
	counted  atomic.Int64 // chunks of the responses that reported a count
	mismatch atomic.Int64 // responses whose reported count differs from their chunk count
	// overLimit counts answers longer than the max_tokens they asked for;
	// overOut and overAsked are the first one's output and limit.
	overLimit          atomic.Int64
	overOut, overAsked atomic.Int64
	// limited counts the answers that succeeded under a max_tokens, with
	// their output and limits summed; early those of them the server
	// ended before the limit by its own choice (finish reason "stop").
	limited, limitedOut, limitedAsked atomic.Int64
	cut, cutOut, cutAsked             atomic.Int64
	early                             atomic.Int64
	// answers counts the responses read; badCounts those that reported
	// a token count that is no count, and badCount holds the first one's
	// (see backend.Stats.BadCount).
	answers, badCounts atomic.Int64
	badCount           atomic.Pointer[string]
	// waiting counts the requests sent whose exchange is not over; heard
	// is when, on the monotonic clock (mono), a server last sent bytes
	// or, when it is later, when the last request left with none waiting.
	waiting, heard atomic.Int64
}

// monoStart anchors mono.
var monoStart = time.Now()

// mono is the process's monotonic clock, in ns.
func mono() int64 { return int64(time.Since(monoStart)) }

// Quiet reports how many requests wait for their exchange to end and,
// when any does, for how long no server has sent a byte (counted from
// the send when the ones waiting were sent after a spell with none): a
// server that stopped answering shows as a silence that grows while
// requests wait. Safe for concurrent use.
func (h *HTTP) Quiet() (waiting int64, silent time.Duration) {
	w := h.waiting.Load()
	if w <= 0 {
		return 0, 0
	}
	return w, time.Duration(max(mono()-h.heard.Load(), 0))
}

var (
	_ Doer     = (*HTTP)(nil)
	_ Preparer = (*HTTP)(nil)
	_ Warmer   = (*HTTP)(nil)
)

// ClientOptions shape the transport and HTTP client of a benchmark (see
// transport.Options).
type ClientOptions = transport.Options

// NewClient returns an http.Client with a benchmark's settings, for the
// requests around a run: readiness, model discovery, tokenizing, scraping.
func NewClient(o ClientOptions) *http.Client { return transport.NewClient(o) }

// NewTransport returns the transport that carries a benchmark's requests
// to baseURL (see transport.New).
func NewTransport(baseURL string, o ClientOptions) (transport.Transport, error) {
	return transport.New(baseURL, o)
}

// prepared is a request built ahead of its send: what Request returned,
// and the HTTP request the adapter built of it (or why it could not);
// enc is that request encoded for the wire, when the transport can and
// its body is at most encodeAhead bytes.
type prepared struct {
	req      backend.Request
	inTokens int
	hreq     *http.Request
	enc      *transport.Encoded
	err      error
}

// encodeAhead is the largest body a prepared request is encoded with: a
// prepared request encoded holds its body twice, and for a long prompt
// the copy, not the rest of the encoding, is the cost.
const encodeAhead = 16 << 10

// Prepare builds request seq ahead of its send, its body encoded, so that
// Do need not; see Preparer.
func (h *HTTP) Prepare(seq int64) {
	h.mu.Lock()
	_, done := h.prepared[seq]
	h.mu.Unlock()
	if done {
		return
	}
	p := h.build(context.Background(), seq)
	if enc, ok := h.Transport.(transport.Encoder); ok && p.err == nil && p.hreq.ContentLength <= encodeAhead {
		// An error here is met again when the request is sent, and told.
		p.enc, _ = enc.Encode(p.hreq)
	}
	h.mu.Lock()
	if h.prepared == nil {
		h.prepared = map[int64]prepared{}
	}
	h.prepared[seq] = p
	h.mu.Unlock()
}

// build asks Request for seq and builds its HTTP request with ctx.
func (h *HTTP) build(ctx context.Context, seq int64) prepared {
	req, in := h.Request(seq)
	base := h.BaseURL
	if h.Router != nil {
		base = h.Router.URL(0) // retargeted when sent (see Do)
	}
	hreq, err := h.Adapter.BuildRequest(ctx, base, h.Endpoint, &req)
	return prepared{req: req, inTokens: in, hreq: hreq, err: err}
}

// request returns what to send for seq, with ctx: what Prepare built, or
// what building it now gives.
func (h *HTTP) request(ctx context.Context, seq int64) prepared {
	h.mu.Lock()
	p, ok := h.prepared[seq]
	delete(h.prepared, seq)
	h.mu.Unlock()
	if !ok {
		return h.build(ctx, seq)
	}
	// An encoded request is sent under ctx as it is; only one that goes
	// through Do, or that a Router may point elsewhere, carries ctx.
	if p.hreq != nil && (p.enc == nil || h.Router != nil) {
		p.hreq = p.hreq.WithContext(ctx)
	}
	return p
}

// retarget returns hreq sent to base instead, its body as encoded.
func (h *HTTP) retarget(hreq *http.Request, base string) (*http.Request, error) {
	target, err := h.Adapter.URL(base, h.Endpoint)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	out := hreq.Clone(hreq.Context())
	out.URL, out.Host = u, u.Host
	if hreq.GetBody != nil {
		if out.Body, err = hreq.GetBody(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Warm opens n connections to the server before they are needed, and
// makes the read buffers of n responses; see Warmer. With a Router the n
// connections are spread evenly over its endpoints.
func (h *HTTP) Warm(ctx context.Context, n int) error {
	// The start's responses are read at once: buffers made while their
	// first tokens arrive made the first wave read them late
	// (BenchmarkFirstWave, wave1-read-ms).
	backend.ReserveBuffers(n)
	bases := []string{h.BaseURL}
	if h.Router != nil {
		bases = h.Router.URLs()
	}
	each := (n + len(bases) - 1) / len(bases)
	for _, base := range bases {
		target, err := h.Adapter.URL(base, h.Endpoint)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, nil)
		if err != nil {
			return err
		}
		if err := h.Transport.Warm(ctx, req, each); err != nil {
			return err
		}
	}
	return nil
}

// Ahead keeps n spare connections dialled; see Warmer.
func (h *HTTP) Ahead(n int) { h.Transport.Ahead(n) }

// nameTimeout says in a timed-out record's message that it was the
// request's own limit (--request-timeout) that passed, not the server's
// or the network's: ctx, the request's, ran out while parent did not.
func (h *HTTP) nameTimeout(parent, ctx context.Context, rec *record.Record) {
	if rec.Error == record.ErrTimeout && errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
		rec.Msg = fmt.Sprintf("--request-timeout %v passed: %s", h.Timeout, rec.Msg)
	}
}

// Do performs request seq; see Doer.
//
// A request that fails on a pooled connection before any response byte
// arrived is sent once more, on a new connection, and rec.Retries counts
// it (see transport.Transport). The record keeps the first attempt's
// Scheduled and Sent, so TTFT counts the retry's cost. A request that got
// any response byte, timed out or was cancelled is never sent again.
func (h *HTTP) Do(ctx context.Context, seq int64, rec *record.Record, now func() int64) {
	if h.Timeout > 0 {
		parent := ctx
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.Timeout)
		defer cancel()
		defer h.nameTimeout(parent, ctx, rec) // before cancel, LIFO
	}
	p := h.request(ctx, seq)
	inTokens := p.inTokens
	rec.InputTokens = inTokens
	rec.RequestID = p.req.RequestID
	if h.Router != nil {
		// The endpoint is chosen as the request leaves: the prepared
		// request, built for the first endpoint, is pointed at it.
		key := rec.Session
		if key == "" {
			key = rec.Task
		}
		i := h.Router.Pick(key)
		defer h.Router.Done(i)
		base := h.Router.URL(i)
		rec.Endpoint = base
		if p.err == nil && base != h.Router.URL(0) {
			p.hreq, p.err = h.retarget(p.hreq, base)
			p.enc = nil // encoded for the first endpoint
		}
	}
	if p.err != nil {
		rec.Sent = now()
		rec.End = rec.Sent
		rec.Error, rec.Msg = record.ErrOther, p.err.Error()
		return
	}
	hreq := p.hreq
	rd := h.Adapter.NewReader(rec)
	rd.Hear(&h.heard, mono)
	var ex transport.Exchange
	var err error
	if h.waiting.Add(1) == 1 {
		h.heard.Store(mono()) // nothing was awaited before: the silence starts now
	}
	defer h.waiting.Add(-1)
	rec.Sent = now()
	if p.enc != nil {
		ex, err = h.Transport.(transport.Encoder).Send(ctx, p.enc, now, rd)
	} else {
		ex, err = h.Transport.Do(ctx, hreq, now, rd)
	}
	if ex.Retried {
		rec.Retries++
		h.retried.Add(1)
	}
	if err != nil {
		backend.RecordError(rec, err, now())
		if nh := (*transport.NotHTTPError)(nil); errors.As(err, &nh) {
			rec.Error = record.ErrProtocol
		}
		return
	}
	if rec.InputTokens == 0 {
		rec.InputTokens = inTokens
	}
	if m := p.req.MaxTokens; m > 0 && rec.OutputTokens > m && h.overLimit.Add(1) == 1 {
		h.overOut.Store(int64(rec.OutputTokens))
		h.overAsked.Store(int64(m))
	}
	if m := p.req.MaxTokens; m > 0 && rec.OK() && !rec.Warmup {
		h.limited.Add(1)
		h.limitedOut.Add(int64(rec.OutputTokens))
		h.limitedAsked.Add(int64(m))
		if rec.OutputTokens < m && rec.Finish == "length" && rec.TokenSource == record.SourceUsage {
			h.cut.Add(1)
			h.cutOut.Add(int64(rec.OutputTokens))
			h.cutAsked.Add(int64(m))
		}
		if rec.OutputTokens < m && rec.Finish == "stop" {
			h.early.Add(1)
		}
	}
	st := rd.Stats()
	h.answers.Add(1)
	if st.BadCount != "" && h.badCounts.Add(1) == 1 {
		first := st.BadCount // only this one escapes
		h.badCount.Store(&first)
	}
	h.chunks.Add(int64(st.Chunks))
	if st.UsageTokens >= 0 {
		h.usage.Add(int64(st.UsageTokens))
		h.counted.Add(int64(st.Chunks))
		// A whole (non-streamed) answer is one chunk of every token: its
		// count differs from its chunks by design, and it has no
		// inter-token times to differ.
		if st.Discrepancy() != 0 && h.Adapter.Streaming() {
			h.mismatch.Add(1)
		}
	}
}

// Retried returns how many requests were sent a second time.
func (h *HTTP) Retried() int64 { return h.retried.Load() }

// TokenCheck compares the servers' token counts with the chunks that arrived.
type TokenCheck struct {
	Chunks      int64 // token-bearing chunks read
	UsageTokens int64 // tokens reported by servers (responses with a count only)
	UsageChunks int64 // chunks of those responses
	Mismatched  int64 // streamed responses whose count differs from their chunk count
	// OverLimit counts answers of more output tokens than the max_tokens
	// they asked for: the first was OverOutput tokens for OverAsked.
	OverLimit             int64
	OverOutput, OverAsked int64
	// Limited counts the answers that succeeded under a max_tokens:
	// LimitedOutput tokens came for LimitedAsked asked. EndedEarly of them
	// the server ended short of their limit by its own choice (finish
	// reason "stop": an end-of-sequence token or a stop string).
	Limited, LimitedOutput, LimitedAsked int64
	EndedEarly                           int64
	// CutShort counts the answers that the server ended short of their
	// max_tokens with finish reason "length" and a token count of its
	// own (usage): a limit of the server's, most often its context
	// (prompt and max_tokens beyond it), cut them. CutOutput tokens came
	// of their CutAsked.
	CutShort, CutOutput, CutAsked int64
	// Answers counts the responses read. BadCounts of them reported a
	// token count that is no count (a string, a fraction, a negative
	// number, one past int32), which was left out as if not reported:
	// their output tokens came from the chunks, their input tokens from
	// the prompt. BadCount names the first such count, its field and
	// value (usage.completion_tokens "12").
	Answers   int64
	BadCounts int64  `json:",omitempty"`
	BadCount  string `json:",omitempty"`
}

// TokenCheck returns the totals so far.
func (h *HTTP) TokenCheck() TokenCheck {
	return TokenCheck{Chunks: h.chunks.Load(), UsageTokens: h.usage.Load(), UsageChunks: h.counted.Load(), Mismatched: h.mismatch.Load(),
		OverLimit: h.overLimit.Load(), OverOutput: h.overOut.Load(), OverAsked: h.overAsked.Load(),
		Limited: h.limited.Load(), LimitedOutput: h.limitedOut.Load(), LimitedAsked: h.limitedAsked.Load(), EndedEarly: h.early.Load(),
		CutShort: h.cut.Load(), CutOutput: h.cutOut.Load(), CutAsked: h.cutAsked.Load(),
		Answers: h.answers.Load(), BadCounts: h.badCounts.Load(), BadCount: h.badCountSeen()}
}

// badCountSeen returns the first count that was no count, "" when none
// was or its record is not stored yet.
func (h *HTTP) badCountSeen() string {
	if p := h.badCount.Load(); p != nil {
		return *p
	}
	return ""
}
