package sim

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// api is the endpoint a generation request came through.
type api int

const (
	apiCompletions api = iota // /v1/completions
	apiChat                   // /v1/chat/completions
	apiResponses              // /v1/responses
)

// chat reports whether the endpoint takes a conversation: the front end
// renders it through the chat template, and a reasoning model's reply
// keeps its thinking apart from its answer, as vLLM's reasoning parsers
// split it on every endpoint but completions.
func (a api) chat() bool { return a != apiCompletions }

// genRequest is a validated generation request, from any endpoint.
type genRequest struct {
	api       api
	prompt    []int
	maxTokens int // resolved: never 0
	minTokens int
	ignoreEOS bool
	seed      *int64
	stream    bool
	options   *streamOptions
}

// completionsMaxTokens is what /v1/completions generates at most when the
// request does not say: vLLM's CompletionRequest defaults max_tokens to 16,
// the OpenAI legacy completions default. A max_tokens of null asks for the
// rest of the context, as chat's default does.
const completionsMaxTokens = 16

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	def := completionsMaxTokens
	// Decoding leaves the default where the body has no max_tokens and
	// clears it where the body says null.
	req := completionRequest{generationParams: generationParams{MaxTokens: &def}}
	if !s.readBody(w, r, &req) || !s.checkModel(w, req.Model) {
		return
	}
	if err := req.check(req.MaxTokens); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	prompt, err := promptIDs(req.Prompt, s.cfg.vocab)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.generate(w, r, req.generationParams, req.MaxTokens, prompt, apiCompletions)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if !s.readBody(w, r, &req) || !s.checkModel(w, req.Model) {
		return
	}
	maxTokens := req.MaxCompletionTokens
	if maxTokens == nil {
		maxTokens = req.MaxTokens
	}
	if err := req.check(maxTokens); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	prompt, err := chatPrompt(req.Messages)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.generate(w, r, req.generationParams, maxTokens, prompt, apiChat)
}

// generate validates lengths, applies faults, runs the request through the
// engine and answers it, streamed or whole.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, p generationParams, maxTokens *int, prompt []int, a api) {
	s.session.note(r)
	asked := 0
	if maxTokens != nil {
		asked = *maxTokens
	}
	resolved, err := checkLengths(len(prompt), asked, p.MinTokens, s.cfg.maxModelLen)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	g := genRequest{
		api: a, prompt: prompt, maxTokens: resolved, minTokens: p.MinTokens,
		ignoreEOS: p.IgnoreEOS, seed: p.Seed, stream: p.Stream, options: p.StreamOptions,
	}

	plan := s.dice.plan(g.maxTokens)
	if plan.fail {
		writeError(w, http.StatusInternalServerError, "simulated internal server error (fault injection: error-rate)")
		return
	}
	if bound := s.cfg.faults.Overload; bound > 0 {
		// The queue holds at most bound requests: refuse the one that would
		// exceed it.
		if n := s.queued(); n >= bound {
			writeError(w, s.cfg.faults.overloadStatus(),
				fmt.Sprintf("server overloaded: %d requests already waiting, the bound is %d (fault injection: overload)", n, bound))
			return
		}
	}
	if plan.firstByte > 0 && !sleepCtx(r.Context(), plan.firstByte) {
		return // the client left while the first byte was held back
	}

	id := s.nextID.Add(1)
	st := newStream()
	q := &seq{
		id:        id,
		prompt:    prompt,
		promptLen: len(prompt),
		maxTokens: g.maxTokens,
		minTokens: g.minTokens,
		ignoreEOS: g.ignoreEOS,
		chat:      a.chat(),
		sink:      st,
	}
	if g.seed != nil {
		q.seeded, q.seed = true, uint64(*g.seed)
	}
	if !s.submit(q) {
		writeError(w, http.StatusServiceUnavailable, "the simulated engine is not running")
		return
	}
	x := &exchange{
		s: s, w: w, ctx: r.Context(), g: g, q: q, st: st, plan: plan,
		text:    newTextSource(s.cfg.engine.seed, id),
		id:      requestID(a, s.cfg.engine.seed, id, r.Header.Get("X-Request-Id")),
		created: time.Now().Unix(), // as vLLM stamps each answer
	}
	if g.stream {
		x.streamAnswer()
	} else {
		x.wholeAnswer()
	}
}

// exchange is one generation request being answered.
type exchange struct {
	s    *Server
	w    http.ResponseWriter
	ctx  context.Context
	g    genRequest
	q    *seq
	st   *stream
	plan faultPlan
	text *textSource
	id   string
	// created is the answer's Unix time, in every chunk of it.
	created int64
}

// next blocks until the stream has more than written tokens or is done,
// and returns its progress. It reports ok false, having aborted the
// request, when the client left, and closing true when the server closes.
func (x *exchange) next(written int) (n int, done bool, finish string, ok, closing bool) {
	for {
		// The tick is taken before the progress is read: progress published
		// after this read comes with the tick's broadcast.
		tick := x.s.currentTick()
		if n, done, finish = x.st.load(); n > written || done {
			return n, done, finish, true, false
		}
		wake := tick
		if written == 0 {
			wake = x.st.first // not running yet: only its own first token matters
		}
		select {
		case <-wake:
		case <-x.ctx.Done():
			x.s.abort(x.q)
			return n, done, finish, false, false
		case <-x.s.closing:
			return n, done, finish, false, true
		}
	}
}

func (x *exchange) streamAnswer() {
	w := x.w
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f := x.streamFormat()
	buf := f.appendOpen(nil)
	if _, err := w.Write(buf); err != nil || rc.Flush() != nil {
		x.s.abort(x.q)
		return
	}
	var text []byte
	written, think := 0, 0
	for {
		n, done, finish, ok, closing := x.next(written)
		if closing {
			_ = x.send(rc, f.appendFail(buf[:0], http.StatusServiceUnavailable, "the server is shutting down"))
			return
		}
		if !ok {
			return
		}
		if written == 0 && n > 0 {
			think = x.thinking()
		}
		buf = buf[:0]
		for written < n {
			pos := written + 1
			last := done && pos == n
			if at(x.plan.stallAt, pos, last) {
				x.plan.stallAt = 0
				if !x.send(rc, buf) || !sleepCtx(x.ctx, x.plan.stall) {
					x.s.abort(x.q)
					return
				}
				buf = buf[:0]
			}
			if at(x.plan.disconnectAt, pos, last) {
				_ = x.send(rc, buf)
				x.s.abort(x.q)
				dropConnection(rc)
				return
			}
			text = x.text.appendToken(text[:0], written)
			t := streamToken{text: text, pos: pos, reasoning: pos <= think}
			if last {
				t.finish = finish
			}
			if at(x.plan.malformedAt, pos, last) {
				x.plan.malformedAt = 0
				t.malformed = true
			}
			buf = f.appendToken(buf, t)
			written++
		}
		if done {
			buf = f.appendEnd(buf, n, finish)
		}
		if !x.send(rc, buf) {
			x.s.abort(x.q)
			return
		}
		if done {
			return
		}
	}
}

// streamFormat returns the wire format of the exchange's stream.
func (x *exchange) streamFormat() streamFormat {
	if x.g.api == apiResponses {
		return newResponsesFormat(x.id, x.created, x.s.cfg.model, len(x.g.prompt), x.text)
	}
	return newChunkFormat(x.g.api == apiChat, x.id, x.created, x.s.cfg.model, len(x.g.prompt), x.g.options)
}

// thinking returns how many of the reply's first tokens are reasoning: the
// model profile's Reasoning, on the endpoints that take a conversation
// (vLLM's reasoning parsers split their replies; completions stream the
// thinking as text). Valid once the stream has published progress.
func (x *exchange) thinking() int {
	if !x.g.api.chat() {
		return 0
	}
	return x.s.cfg.reasoning.tokens(x.st.length, x.st.stopped, x.s.cfg.engine.seed, x.q.id)
}

// at reports whether a fault planned for chunk position want strikes at
// chunk pos: at its position, or at the last chunk when the stream is
// shorter than planned.
func at(want, pos int, last bool) bool {
	return want > 0 && (want == pos || last && want > pos)
}

// send writes b and flushes it; it reports false when the client is gone.
func (x *exchange) send(rc *http.ResponseController, b []byte) bool {
	if len(b) == 0 {
		return true
	}
	if _, err := x.w.Write(b); err != nil {
		return false
	}
	return rc.Flush() == nil
}

func (x *exchange) wholeAnswer() {
	var n int
	var finish string
	for done := false; !done; {
		var ok, closing bool
		n, done, finish, ok, closing = x.next(n)
		if closing {
			writeError(x.w, http.StatusServiceUnavailable, "the server is shutting down")
			return
		}
		if !ok {
			return
		}
	}
	rc := http.NewResponseController(x.w)
	if x.plan.stallAt > 0 && !sleepCtx(x.ctx, x.plan.stall) {
		return
	}
	if x.plan.disconnectAt > 0 {
		dropConnection(rc)
		return
	}
	var r reply
	if n > 0 {
		r.thinking = min(x.thinking(), n)
	}
	for i := range n {
		if i < r.thinking {
			r.thought = x.text.appendToken(r.thought, i)
		} else {
			r.text = x.text.appendToken(r.text, i)
		}
	}
	r.tokens, r.finish = n, finish
	body := x.wholeBody(r)
	if x.plan.malformedAt > 0 {
		x.w.Header().Set("Content-Type", "application/json")
		_, _ = x.w.Write([]byte(`{"id":"` + x.id + `","object":`))
		return
	}
	writeJSON(x.w, http.StatusOK, body)
}

// dropConnection closes the client's connection without ending the
// response, as a crashed server or a broken proxy would: the client sees the
// stream stop without its terminator, or no response at all if nothing was
// sent yet. Connections that cannot be taken over (HTTP/2) are left to end
// early instead.
func dropConnection(rc *http.ResponseController) {
	conn, _, err := rc.Hijack()
	if err != nil {
		return
	}
	_ = conn.Close()
}

// sleepCtx sleeps for d; it reports false if ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
