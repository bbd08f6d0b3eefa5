package sim

import (
	"math/rand/v2"
	"slices"
	"time"
)

// engine is the simulated inference engine: the scheduler, the KV cache and
// the cost model, advanced one step at a time by a driver (the wall-clock
// loop or the virtual-time loop). It has no clock and no goroutines of its
// own: step(now) says how long the step starting at now lasts, and the driver
// decides whether to sleep through it or jump over it.
//
// An engine is owned by one goroutine at a time.
type engine struct {
	cost       *costModel
	kv         *kvCache
	front      *frontEnd // nil: requests are schedulable when they arrive (offline)
	block      int       // tokens per KV cache block
	chunked    bool      // prompts may prefill over several steps
	maxSeqs    int
	maxBatched int
	outMean    float64 // mean natural output length
	rng        *rand.Rand
	m          *metrics // nil: no Prometheus metrics (virtual time)

	waiting seqQueue
	running []*seq

	sched   []scheduled // this step's work, reused
	emitted []*seq      // sequences that produced a token this step, reused

	counts engineCounts

	// trace keeps stepEnds, the end time of every step, so that sequences
	// can record which steps produced their tokens (see seq.runs).
	trace    bool
	stepEnds []time.Duration
}

// scheduled is one sequence's share of a step: n tokens to compute.
type scheduled struct {
	s *seq
	n int
}

// engineCounts are the engine's running totals.
type engineCounts struct {
	steps        int64
	preemptions  int64
	prefixTokens int64 // prompt tokens looked up in the prefix cache
	prefixHits   int64 // of those, tokens found
	promptTokens int64 // prompts of requests that produced a first token
	genTokens    int64
}

// engineConfig is the engine's share of the resolved Options.
type engineConfig struct {
	profile    Profile
	blocks     int
	blockSize  int
	caching    bool
	chunked    bool
	offline    bool
	maxSeqs    int
	maxBatched int
	outMean    float64
	seed       uint64
}

func newEngine(c engineConfig, m *metrics) *engine {
	e := &engine{
		cost:       newCostModel(c.profile),
		kv:         newKVCache(c.blocks, c.caching),
		block:      c.blockSize,
		chunked:    c.chunked,
		maxSeqs:    c.maxSeqs,
		maxBatched: c.maxBatched,
		outMean:    c.outMean,
		rng:        rand.New(rand.NewPCG(c.seed, 0x51b)),
		m:          m,
	}
	if e.block == 0 {
		e.block = BlockSize
	}
	if !c.offline {
		e.front = newFrontEnd(c.profile.Calibration, c.seed)
	}
	return e
}

// idle reports whether the engine has nothing to run or wait for.
func (e *engine) idle() bool { return len(e.running) == 0 && e.waiting.len() == 0 }

// nextReady returns the earliest time a waiting sequence becomes
// schedulable, and false when nothing waits.
func (e *engine) nextReady() (time.Duration, bool) {
	if e.waiting.len() == 0 {
		return 0, false
	}
	return e.waiting.front().ready, true
}

// enqueue hands a new sequence to the engine. It becomes schedulable when
// the front end has passed it on (see frontEnd). Sequences must be enqueued
// in arrival order.
func (e *engine) enqueue(s *seq) {
	s.decideLength(e.rng, e.outMean)
	if e.kv.caching && s.prompt != nil {
		s.hashes = blockHashes(s.prompt, e.block)
	}
	s.ready = s.arrival
	if e.front != nil {
		s.ready = e.front.admit(s.arrival, s.promptLen, s.chat)
	}
	s.scheduled = -1
	s.state = stateWaiting
	e.waiting.pushBack(s)
	e.m.setQueues(len(e.running), e.waiting.len())
}

// abort removes s wherever it is and frees its blocks. Aborting a finished
// or already aborted sequence does nothing.
func (e *engine) abort(s *seq, now time.Duration) {
	switch s.state {
	case stateWaiting:
		e.waiting.remove(s)
	case stateRunning:
		if i := slices.Index(e.running, s); i >= 0 {
			e.running = slices.Delete(e.running, i, i+1)
		}
		e.kv.release(s.blocks)
		s.blocks = nil
	default:
		return
	}
	s.state = stateAborted
	e.m.finished(s, finishAbort, now)
	e.m.setQueues(len(e.running), e.waiting.len())
	e.m.setKVUsage(e.kv.usage())
}

// step schedules and accounts for one engine step that starts at now, and
// returns its duration and whether anything was scheduled. The sequences that
// produced a token are in e.emitted until the next call; their state already
// reflects the step's end.
//
// Scheduling follows vLLM v1: running sequences first, in admission order,
// each computing what it lacks (one token when decoding, the rest of its
// prompt when prefilling) within the max_num_batched_tokens budget; a
// sequence that cannot get a KV block preempts the most recently admitted
// running one. Then, unless something was preempted, waiting sequences are
// admitted in order while the budget, max_num_seqs and the KV cache allow,
// their prompts reusing cached prefix blocks and prefilling in chunks.
func (e *engine) step(now time.Duration) (time.Duration, bool) {
	e.sched, e.emitted = e.sched[:0], e.emitted[:0]
	budget := e.maxBatched
	var shape batchShape
	before := e.counts.preemptions

	for i := 0; i < len(e.running) && budget > 0; i++ {
		s := e.running[i]
		n := min(s.tokens()-s.computed, budget)
		if !e.makeRoom(s, s.computed+n) {
			break // s itself was preempted, and it was the last one
		}
		e.sched = append(e.sched, scheduled{s, n})
		e.cost.add(&shape, s.computed, n, s.computed+n == s.tokens())
		budget -= n
	}
	if e.counts.preemptions > before {
		// Like vLLM, admit nothing in a step that had to preempt: the cache
		// is already short, and a newcomer would only be preempted next.
		budget = 0
	}
	for budget > 0 && len(e.running) < e.maxSeqs && e.waiting.len() > 0 {
		s := e.waiting.front()
		if s.ready > now || !e.admit(s, budget, now) {
			break
		}
		e.waiting.popFront()
		n := e.sched[len(e.sched)-1].n
		e.cost.add(&shape, s.computed, n, s.computed+n == s.tokens())
		budget -= n
	}
	if len(e.sched) == 0 {
		return 0, false
	}

	dur := e.cost.duration(shape)
	end := now + dur
	e.counts.steps++
	if e.trace {
		e.stepEnds = append(e.stepEnds, end)
	}
	e.finishStep(end)
	return dur, true
}

// makeRoom makes sure s has blocks for its first upto tokens, preempting
// running sequences from the most recently admitted backwards. It reports
// false when s itself had to be preempted.
func (e *engine) makeRoom(s *seq, upto int) bool {
	for {
		need := ceilDiv(upto, e.block) - len(s.blocks)
		if need <= 0 {
			return true
		}
		var ok bool
		if s.blocks, ok = e.kv.allocate(s.blocks, need); ok {
			return true
		}
		victim := e.running[len(e.running)-1]
		e.running = e.running[:len(e.running)-1]
		e.preempt(victim)
		if victim == s {
			return false
		}
	}
}

// preempt frees s's KV cache and puts it back at the front of the waiting
// queue. When it is admitted again it recomputes its prompt and the output
// it had produced (vLLM's recompute preemption).
func (e *engine) preempt(s *seq) {
	e.kv.release(s.blocks)
	s.blocks = s.blocks[:0]
	s.computed = 0
	s.registered = 0
	s.preempted++
	s.state = stateWaiting
	e.waiting.pushFront(s)
	e.counts.preemptions++
	e.m.preempted()
}

// admit tries to start waiting sequence s within budget tokens: it reuses
// the cached blocks of its prompt's longest cached prefix, then allocates
// blocks for the chunk it will prefill now. On success s is running and its
// share is the last entry of e.sched.
func (e *engine) admit(s *seq, budget int, now time.Duration) bool {
	tokens := s.tokens()
	// At least one token is always computed, to produce the next token's
	// logits, so a fully cached prompt still recomputes its last block.
	hashes := s.hashes[:min(len(s.hashes), (tokens-1)/e.block)]
	hit := e.kv.lookup(hashes)
	hits := hashes[:hit]
	n := min(tokens-hit*e.block, budget)
	if !e.chunked && n < tokens-hit*e.block {
		// Without chunked prefill a prompt is computed in one step or
		// waits for a step with room for all of it.
		return false
	}
	need := ceilDiv(hit*e.block+n, e.block) - hit
	// Cached blocks nobody references sit on the free list; taking them
	// leaves fewer to allocate from.
	if need+e.kv.freeAmong(hits) > e.kv.free() {
		return false
	}
	if s.blocks == nil {
		// Room for the whole answer: the table then never regrows. The
		// cache size bounds it, whatever max_tokens says.
		s.blocks = make([]int32, 0, min(ceilDiv(s.promptLen+s.target, e.block), e.kv.total()))
	}
	s.blocks = e.kv.acquire(s.blocks[:0], hits)
	s.blocks, _ = e.kv.allocate(s.blocks, need)
	s.computed = hit * e.block
	s.registered = hit
	s.state = stateRunning
	e.running = append(e.running, s)
	e.sched = append(e.sched, scheduled{s, n})

	e.counts.prefixTokens += int64(tokens)
	e.counts.prefixHits += int64(s.computed)
	e.m.prefixLookup(tokens, s.computed)
	if s.scheduled < 0 {
		s.scheduled = now
	}
	return true
}

// finishStep applies the step's work: it advances each scheduled sequence,
// offers newly completed prompt blocks to the prefix cache, samples a token
// for every sequence whose context is complete, and retires the finished.
func (e *engine) finishStep(end time.Duration) {
	done := 0
	for _, x := range e.sched {
		s := x.s
		s.computed += x.n
		if upto := min(min(s.computed, s.promptLen)/e.block, len(s.hashes)); s.registered < upto {
			for b := s.registered; b < upto; b++ {
				e.kv.register(s.blocks[b], s.hashes[b])
			}
			s.registered = upto
		}
		if s.computed < s.tokens() {
			continue // a prefill chunk that did not reach the end of the prompt
		}
		s.generated++
		e.counts.genTokens++
		if s.generated == 1 {
			s.firstToken = end
			e.counts.promptTokens += int64(s.promptLen)
			e.m.firstToken(s, end)
		} else {
			e.m.nextToken(end - s.lastToken)
		}
		s.lastToken = end
		if e.trace {
			step := len(e.stepEnds) - 1
			if k := len(s.runs) - 1; k >= 0 && s.runs[k].first+s.runs[k].n == step {
				s.runs[k].n++
			} else {
				s.runs = append(s.runs, stepRun{first: step, n: 1})
			}
		}
		if s.generated >= s.target {
			s.state = stateFinished
			e.kv.release(s.blocks)
			s.blocks = nil
			done++
			e.m.finished(s, s.finish, end)
		}
		e.emitted = append(e.emitted, s)
	}
	if done > 0 {
		kept := e.running[:0]
		for _, s := range e.running {
			if s.state == stateRunning {
				kept = append(kept, s)
			}
		}
		clear(e.running[len(kept):])
		e.running = kept
	}
	e.m.stepped(len(e.running), e.waiting.len(), e.kv.usage())
}

// ceilDiv is ⌈a ÷ b⌉ for a ≥ 0 and b > 0, without the overflow of a + b − 1.
func ceilDiv(a, b int) int {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}
