package sim

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/goodput-dev/goodput/record"
)

// VirtualRequest is one request of a virtual-time run.
type VirtualRequest struct {
	// At is when the request arrives, from the run's start. Closed-loop runs
	// ignore it: a request arrives when a concurrency slot frees.
	At time.Duration
	// PromptTokens is the prompt length. Prompt, when set, gives the
	// prompt's token ids instead (PromptTokens is then ignored); only
	// prompts given as ids can share cached prefixes.
	PromptTokens int
	Prompt       []int
	MaxTokens    int  // output cap; 0 means up to max_model_len
	MinTokens    int  // output floor
	IgnoreEOS    bool // run to MaxTokens
	// Chat marks a request sent to /v1/chat/completions: the front end
	// renders its messages with the chat template before tokenizing them.
	Chat bool
}

// VirtualPlan is a virtual-time run's workload.
type VirtualPlan struct {
	Requests []VirtualRequest
	// Concurrency, when positive, makes the run closed-loop: the first
	// Concurrency requests arrive at time zero and each completion sends the
	// next request at once. Zero sends each request at its At (open loop).
	Concurrency int
	// Follow, when set, makes an open-loop run grow as it goes, for
	// requests that depend on others (the turns of a session): it is
	// called with each request's record, as it completes or is refused and
	// before emit sees it, and returns the requests that become known
	// then. Each arrives at its At, or at once if that is already past; the
	// requests Follow returns take the sequence numbers after every request
	// before them, in the order returned. It needs Concurrency 0.
	Follow func(done *record.Record) []VirtualRequest
}

// RunVirtual simulates reqs arriving at their At times on the engine that
// opts describe, in virtual time: no sleeping, no HTTP. It returns one record
// per request, in the order of reqs.
func RunVirtual(opts Options, reqs []VirtualRequest) ([]record.Record, error) {
	return collectVirtual(opts, VirtualPlan{Requests: reqs})
}

// RunVirtualClosed simulates reqs in closed loop with the given concurrency
// (see VirtualPlan) and returns one record per request, in the order of reqs.
func RunVirtualClosed(opts Options, concurrency int, reqs []VirtualRequest) ([]record.Record, error) {
	if concurrency < 1 {
		return nil, fmt.Errorf("concurrency %d: must be at least 1", concurrency)
	}
	return collectVirtual(opts, VirtualPlan{Requests: reqs, Concurrency: concurrency})
}

func collectVirtual(opts Options, plan VirtualPlan) ([]record.Record, error) {
	out := make([]record.Record, len(plan.Requests))
	var slab []record.Chunk // backs the copied chunks: one allocation per many records
	err := StreamVirtual(context.Background(), opts, plan, func(r *record.Record) error {
		kept := *r
		if n := len(r.Chunks); n > 0 {
			if cap(slab)-len(slab) < n {
				slab = make([]record.Chunk, 0, max(n, 1<<20))
			}
			start := len(slab)
			slab = append(slab, r.Chunks...)
			kept.Chunks = slab[start : start+n : start+n]
		}
		out[r.Seq] = kept
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// StreamVirtual runs plan in virtual time and calls emit with each request's
// record as it completes, in completion order. Record times are nanoseconds
// of virtual time from the run's start: Scheduled = Sent = arrival, one Chunk
// per token at the end of the step that produced it, End = the last token.
// Requests the server would refuse (an empty prompt, one longer than
// max_model_len) come back as failed records with Status 400. Faults are an
// HTTP matter: virtual runs ignore Options.Faults, and the other HTTP-only
// options (APIKey, MaxBodyBytes, Clock).
//
// The record passed to emit, its Chunks included, is only valid during the
// call: StreamVirtual reuses the memory for the next record, which keeps a
// run of millions of tokens in cache. emit must copy what it keeps. An error
// from emit stops the run and is returned. StreamVirtual checks ctx between
// steps.
func StreamVirtual(ctx context.Context, opts Options, plan VirtualPlan, emit func(*record.Record) error) error {
	c, err := opts.resolve()
	if err != nil {
		return err
	}
	if plan.Concurrency < 0 {
		return fmt.Errorf("concurrency %d: must not be negative", plan.Concurrency)
	}
	if plan.Follow != nil && plan.Concurrency != 0 {
		return errors.New("a run that follows its requests must be open-loop (concurrency 0)")
	}
	v := &virtualRun{
		cfg:  c,
		reqs: plan.Requests,
		eng:  newEngine(c.engine, nil),
		emit: emit,
		seqs: make([]seq, len(plan.Requests)),
	}
	v.follow = plan.Follow
	v.eng.trace = true
	return v.run(ctx, plan.Concurrency)
}

// virtualRun is one virtual-time run: the engine, the requests, and the
// buffers the records are built in.
type virtualRun struct {
	cfg  config
	reqs []VirtualRequest
	eng  *engine
	emit func(*record.Record) error
	seqs []seq          // one per request, indexed like reqs
	rec  record.Record  // the record being emitted
	buf  []record.Chunk // its chunks

	follow   func(*record.Record) []VirtualRequest // VirtualPlan.Follow
	released []VirtualRequest                      // what follow returned, not yet in the send order
}

func (v *virtualRun) run(ctx context.Context, concurrency int) error {
	order := make([]int, len(v.reqs)) // send order
	for i := range order {
		order[i] = i
		if concurrency == 0 && v.reqs[i].At < 0 {
			return fmt.Errorf("request %d: arrival %v is negative", i, v.reqs[i].At)
		}
	}
	if concurrency == 0 {
		sort.SliceStable(order, func(a, b int) bool { return v.reqs[order[a]].At < v.reqs[order[b]].At })
	}
	next := 0 // index into order of the next request to send
	// send submits the next request at time at. A refused request is
	// answered at once; in closed loop that frees its slot, so the one
	// after it goes too.
	send := func(at time.Duration) error {
		for next < len(order) {
			i := order[next]
			next++
			err := v.submit(i, at)
			if err == nil {
				return nil
			}
			if err := v.refuse(i, at, err); err != nil || concurrency == 0 {
				order = v.admit(order, next, at)
				return err
			}
		}
		return nil
	}
	if concurrency > 0 {
		for range min(concurrency, len(order)) {
			if err := send(0); err != nil {
				return err
			}
		}
	}

	var now time.Duration
	stuck := 0
	for steps := 0; ; steps++ {
		if steps&1023 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if concurrency == 0 {
			for next < len(order) && v.reqs[order[next]].At <= now {
				if err := send(v.reqs[order[next]].At); err != nil {
					return err
				}
			}
		}
		if v.eng.idle() {
			if concurrency > 0 || next == len(order) {
				return nil
			}
			now = v.reqs[order[next]].At
			continue
		}
		dur, ok := v.eng.step(now)
		if !ok {
			// Nothing was schedulable at now: jump to the next arrival or
			// the moment a waiting request becomes ready.
			t, _ := v.eng.nextReady()
			if concurrency == 0 && next < len(order) {
				t = min(t, v.reqs[order[next]].At)
			}
			if t <= now {
				if stuck++; stuck > 2 {
					return errors.New("simulator made no progress: the engine could schedule nothing")
				}
			}
			now = max(now, t)
			continue
		}
		stuck = 0
		now += dur
		for _, s := range v.eng.emitted {
			if s.state != stateFinished {
				continue
			}
			if err := v.complete(s); err != nil {
				return err
			}
			order = v.admit(order, next, now)
			if concurrency > 0 {
				if err := send(now); err != nil {
					return err
				}
			}
		}
	}
}

// submit hands request i to the engine at time at, or says why the server
// would refuse it.
func (v *virtualRun) submit(i int, at time.Duration) error {
	q := v.reqs[i]
	promptLen := q.PromptTokens
	if q.Prompt != nil {
		promptLen = len(q.Prompt)
	}
	maxTokens, err := checkLengths(promptLen, q.MaxTokens, q.MinTokens, v.cfg.maxModelLen)
	if err == nil && q.Prompt != nil {
		err = checkTokenIDs(q.Prompt, v.cfg.vocab)
	}
	if err != nil {
		return err
	}
	s := &v.seqs[i]
	*s = seq{
		id:        int64(i),
		promptLen: promptLen,
		maxTokens: maxTokens,
		minTokens: q.MinTokens,
		ignoreEOS: q.IgnoreEOS,
		chat:      q.Chat,
		arrival:   at,
	}
	s.prompt = q.Prompt // read only: the engine hashes its blocks
	v.eng.enqueue(s)
	return nil
}

// refuse emits the record of request i, refused at time at with a 400.
func (v *virtualRun) refuse(i int, at time.Duration, why error) error {
	q := v.reqs[i]
	v.rec = record.Record{
		Seq:         int64(i),
		Scheduled:   int64(at),
		Sent:        int64(at),
		End:         int64(at),
		InputTokens: q.PromptTokens,
		TokenSource: record.SourceUsage,
		Status:      http.StatusBadRequest,
		Error:       record.ErrHTTP,
		Msg:         why.Error(),
	}
	if q.Prompt != nil {
		v.rec.InputTokens = len(q.Prompt)
	}
	return v.emitRecord()
}

// complete emits the record of finished sequence s: one chunk per token at
// the end of the step that produced it.
func (v *virtualRun) complete(s *seq) error {
	chunks := v.buf[:0]
	for _, r := range s.runs {
		for _, end := range v.eng.stepEnds[r.first : r.first+r.n] {
			chunks = append(chunks, record.Chunk{At: int64(end), Tokens: 1})
		}
	}
	v.buf = chunks
	// A reasoning model's first tokens are reasoning, as a chat client
	// reads them from the server (see Reasoning).
	think := min(v.cfg.reasoning.tokens(s.target, s.finish == finishStop, v.cfg.engine.seed, s.id), len(chunks))
	for i := range think {
		chunks[i].Reasoning = true
	}
	v.rec = record.Record{
		Seq:          s.id,
		Scheduled:    int64(s.arrival),
		Sent:         int64(s.arrival),
		End:          int64(s.lastToken),
		Chunks:       chunks,
		InputTokens:  s.promptLen,
		OutputTokens: s.generated,
		TokenSource:  record.SourceUsage,
		Status:       http.StatusOK,
		Finish:       s.finish,
	}
	if think > 0 {
		v.rec.ReasoningTokens, v.rec.ReasoningSource = think, record.SourceUsage
	}
	v.seqs[s.id] = seq{} // let the block table and step runs go
	return v.emitRecord()
}
