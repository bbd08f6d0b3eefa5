package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodput-dev/goodput/tokenizer"
)

// Server is a simulated vLLM server: an http.Handler in front of the
// simulated engine, which runs in wall-clock time.
//
// Build it with New, call Start to run the engine loop, serve it (Serve, or
// any http.Server), and call Close when finished. Requests that arrive
// before Start or after Close are answered 503.
type Server struct {
	cfg     config
	eng     *engine // owned by the loop goroutine once Start has run
	m       *metrics
	dice    *faultDice
	mux     *http.ServeMux
	created int64 // Unix seconds, the "created" of every response
	lag     lagRecorder
	session *sessionLog

	nextID  atomic.Int64
	waiting atomic.Int64                  // the engine's waiting queue, published each step
	tick    atomic.Pointer[chan struct{}] // closed by each step's broadcast (see stream)

	mu      sync.Mutex // guards inbox, aborts, resets, state and cancel
	inbox   []*seq     // submitted, not yet handed to the engine, in arrival order
	aborts  []*seq     // to abort at the next step boundary
	resets  int        // prefix cache resets asked for, applied at the next step boundary
	state   serverState
	cancel  context.CancelFunc
	wake    chan struct{} // capacity 1: tells an idle or sleeping loop to look at the inbox
	done    chan struct{} // closed when the loop has returned
	closing chan struct{} // closed by Close: streams stop waiting
}

type serverState uint8

const (
	serverNew serverState = iota
	serverRunning
	serverClosed
)

// New builds a server from opts. It does not start the engine: call Start.
func New(opts Options) (*Server, error) {
	c, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     c,
		m:       newMetrics(c.model, c.maxModelLen),
		dice:    newFaultDice(c.faults, c.engine.seed),
		created: time.Now().Unix(),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		closing: make(chan struct{}),
	}
	s.eng = newEngine(c.engine, s.m)
	s.session = newSessionLog(s.m.reg)
	tick := make(chan struct{})
	s.tick.Store(&tick)
	s.routes()
	// Build the tokenizer's tables now rather than inside the first
	// request, which would otherwise see tens of milliseconds added.
	tokenizer.Count("")
	return s, nil
}

// Start runs the engine loop until ctx is done or Close is called. It
// returns at once; calling it twice, or after Close, is an error.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.state {
	case serverRunning:
		return errors.New("sim: server already started")
	case serverClosed:
		return errors.New("sim: server is closed")
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.state = serverRunning
	go s.loop(ctx)
	return nil
}

// Close stops the engine loop and ends every open stream. It waits for the
// loop to return. Close is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	prev := s.state
	s.state = serverClosed
	if prev != serverClosed {
		close(s.closing)
	}
	s.mu.Unlock()
	if prev == serverRunning {
		s.cancel()
		<-s.done
	}
	return nil
}

// Serve answers HTTP on ln with s until ctx is done, then shuts the HTTP
// server down, giving open responses a second to finish. It does not start
// or close the engine. It returns nil after a shutdown caused by ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("sim: serving on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		_ = hs.Close() // streams still open after the grace period are cut
	}
	<-errc
	return nil
}

// Info is a server's resolved configuration.
type Info struct {
	Profile             Profile
	Model               string // served model name
	MaxModelLen         int
	KVBlocks            int // KV cache blocks of BlockSize tokens
	BlockSize           int
	KVTokens            int // tokens the KV cache holds
	MaxNumSeqs          int
	MaxNumBatchedTokens int
	PrefixCaching       bool
	ChunkedPrefill      bool
	Offline             bool // vLLM's offline LLM class: no front end
	Faults              Faults
}

// Resolve applies defaults to opts and reports the configuration a server or
// virtual run built from them would have, or why they are invalid.
func Resolve(opts Options) (Info, error) {
	c, err := opts.resolve()
	if err != nil {
		return Info{}, err
	}
	return c.info(), nil
}

func (c config) info() Info {
	return Info{
		Profile:             c.profile,
		Model:               c.model,
		MaxModelLen:         c.maxModelLen,
		KVBlocks:            c.engine.blocks,
		BlockSize:           c.engine.blockSize,
		KVTokens:            c.kvTokens,
		MaxNumSeqs:          c.engine.maxSeqs,
		MaxNumBatchedTokens: c.engine.maxBatched,
		PrefixCaching:       c.engine.caching,
		ChunkedPrefill:      c.engine.chunked,
		Offline:             c.engine.offline,
		Faults:              c.faults,
	}
}

// String describes the configuration in a few lines, for the CLI banner.
func (i Info) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "profile: %s\n", i.Profile)
	fmt.Fprintf(&b, "model: %s (max model len %d)\n", i.Model, i.MaxModelLen)
	fmt.Fprintf(&b, "kv cache: %d blocks of %d tokens (%d tokens, %s), prefix caching %s\n",
		i.KVBlocks, i.BlockSize, i.KVTokens, kvFormat(i.Profile), onOff(i.PrefixCaching))
	fmt.Fprintf(&b, "scheduler: max num seqs %d, max num batched tokens %d, chunked prefill %s\n",
		i.MaxNumSeqs, i.MaxNumBatchedTokens, onOff(i.ChunkedPrefill))
	if r := i.Profile.Model.Reasoning; r.On() {
		fmt.Fprintf(&b, "reasoning: %s, streamed as reasoning on /v1/chat/completions and /v1/responses\n", r.describe())
	}
	fmt.Fprintf(&b, "faults: %s", i.Faults)
	return b.String()
}

// kvFormat names the KV cache's element format.
func kvFormat(p Profile) string {
	if d := p.KVCacheDType; d != "" && d != "auto" {
		return d
	}
	return fmt.Sprintf("%d-bit", int(8*p.kvElemBytes()))
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Info returns the server's resolved configuration.
func (s *Server) Info() Info { return s.cfg.info() }

// Profile returns the GPU, model and calibration the server simulates.
func (s *Server) Profile() Profile { return s.cfg.profile }

// StepTiming reports how late the engine loop has emitted its steps.
func (s *Server) StepTiming() StepTiming { return s.lag.summary() }

// ResetStepTiming starts a new StepTiming window, so that a benchmark can
// leave its warm-up (connections opening, prompts prefilling) out.
func (s *Server) ResetStepTiming() { s.lag.reset() }

// submit hands a new sequence to the engine loop, stamping its arrival time.
// It reports false when the server is not running.
func (s *Server) submit(q *seq) bool {
	s.mu.Lock()
	if s.state != serverRunning {
		s.mu.Unlock()
		return false
	}
	// Stamped under the lock so that the inbox stays in arrival order.
	q.arrival = s.cfg.clock.Now()
	s.inbox = append(s.inbox, q)
	s.mu.Unlock()
	s.poke()
	return true
}

// abort asks the engine loop to drop q, freeing its KV cache.
func (s *Server) abort(q *seq) {
	s.mu.Lock()
	s.aborts = append(s.aborts, q)
	s.mu.Unlock()
	s.poke()
}

// resetPrefixCache asks the engine loop to forget every cached prefix
// before it admits anything submitted after this call.
func (s *Server) resetPrefixCache() {
	s.mu.Lock()
	s.resets++
	s.mu.Unlock()
	s.poke()
}

func (s *Server) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// queued is how many requests wait for the engine: its waiting queue plus
// the inbox. The overload fault compares it with its bound.
func (s *Server) queued() int {
	s.mu.Lock()
	n := len(s.inbox)
	s.mu.Unlock()
	return n + int(s.waiting.Load())
}
