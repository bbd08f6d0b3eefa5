package sim

import (
	"math"
	"math/rand/v2"
	"time"
)

// Finish reasons, as vLLM reports them.
const (
	finishStop   = "stop"
	finishLength = "length"
	finishAbort  = "abort"
)

type seqState uint8

const (
	stateNew seqState = iota
	stateWaiting
	stateRunning
	stateFinished
	stateAborted
)

// sink receives a sequence's output. The engine goroutine calls emit after
// every step that produced a token for s, with the step's end time; when the
// token was the last one, s.state is stateFinished.
type sink interface {
	emit(s *seq, at time.Duration)
}

// seq is one request inside the engine.
//
// The fields set by the creator (id through sink) are read-only once the sequence is handed
// to the engine. Every other field is owned by the engine goroutine; other
// goroutines learn about progress only through sink.emit.
type seq struct {
	id        int64 // the creator's handle: request number or record index
	prompt    []int // prompt token ids, the creator's (read only); nil when only promptLen is known
	promptLen int
	maxTokens int
	minTokens int
	ignoreEOS bool
	chat      bool   // rendered through the chat template by the front end
	seeded    bool   // seed holds the request's own seed for its output length
	seed      uint64 //
	arrival   time.Duration
	sink      sink

	state      seqState
	hashes     []uint64 // chained hashes of the prompt's full blocks (prefix caching)
	target     int      // output tokens it will produce
	finish     string   // reason reported when target is reached
	generated  int      // output tokens produced so far
	computed   int      // tokens whose KV is computed
	blocks     []int32  // block table
	registered int      // leading prompt blocks offered to the prefix cache
	ready      time.Duration
	scheduled  time.Duration // first time it was scheduled; -1 before
	firstToken time.Duration
	lastToken  time.Duration
	preempted  int // times it lost its KV cache and went back to waiting

	// runs lists, when the engine traces steps, the steps that produced
	// this sequence's tokens as runs of consecutive steps: usually one run
	// from the first token to the last. Token times are then read from the
	// engine's step log when the sequence finishes, which is far cheaper
	// than writing a time per token while the batch runs.
	runs []stepRun
}

// stepRun is n consecutive engine steps starting at step first, each of
// which produced one token.
type stepRun struct{ first, n int }

// tokens is the sequence's length: prompt plus output so far.
func (s *seq) tokens() int { return s.promptLen + s.generated }

// decideLength sets how many tokens s will produce and why it will stop.
//
// With ignore_eos the answer runs to max_tokens. Otherwise the model's own
// end of sequence comes after a geometrically distributed number of tokens
// with the given mean: every token ends the answer with probability 1/mean,
// the memoryless stopping of a model emitting EOS. min_tokens holds the end
// back, max_tokens cuts it off ("length"); an EOS before max_tokens reports
// "stop".
func (s *seq) decideLength(rng *rand.Rand, mean float64) {
	if s.ignoreEOS {
		s.target, s.finish = s.maxTokens, finishLength
		return
	}
	if s.seeded {
		rng = rand.New(rand.NewPCG(s.seed, 0x5eed))
	}
	natural := max(geometric(rng, mean), s.minTokens)
	if natural >= s.maxTokens {
		s.target, s.finish = s.maxTokens, finishLength
		return
	}
	s.target, s.finish = natural, finishStop
}

// geometric draws from the geometric distribution on 1, 2, … with the given
// mean; a mean at or below 1 always gives 1.
func geometric(rng *rand.Rand, mean float64) int {
	if !(mean > 1) {
		return 1
	}
	u := 1 - rng.Float64() // (0, 1]: log stays finite
	n := 1 + math.Floor(math.Log(u)/math.Log1p(-1/mean))
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(n)
}

// seqQueue is a double-ended queue of sequences: new arrivals join the back,
// preempted sequences go back to the front.
type seqQueue struct {
	buf  []*seq // ring buffer, len is a power of two
	head int
	n    int
}

func (q *seqQueue) len() int { return q.n }

func (q *seqQueue) front() *seq { return q.buf[q.head] }

func (q *seqQueue) grow() {
	if q.n < len(q.buf) {
		return
	}
	buf := make([]*seq, max(16, 2*len(q.buf)))
	for i := range q.n {
		buf[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf, q.head = buf, 0
}

func (q *seqQueue) pushBack(s *seq) {
	q.grow()
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = s
	q.n++
}

func (q *seqQueue) pushFront(s *seq) {
	q.grow()
	q.head = (q.head - 1) & (len(q.buf) - 1)
	q.buf[q.head] = s
	q.n++
}

func (q *seqQueue) popFront() *seq {
	s := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return s
}

// remove deletes s from the queue, keeping the order of the rest. It reports
// whether s was there.
func (q *seqQueue) remove(s *seq) bool {
	mask := len(q.buf) - 1
	for i := range q.n {
		if q.buf[(q.head+i)&mask] != s {
			continue
		}
		for j := i; j < q.n-1; j++ {
			q.buf[(q.head+j)&mask] = q.buf[(q.head+j+1)&mask]
		}
		q.buf[(q.head+q.n-1)&mask] = nil
		q.n--
		return true
	}
	return false
}
