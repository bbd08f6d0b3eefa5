package sim

import (
	"testing"
	"time"
)

// testEngine is an engine for Llama-3.1-8B on an H100 with the given
// scheduler limits and KV cache size, and no front end, so that a sequence
// enqueued at t is schedulable at t.
func testEngine(t testing.TB, blocks, maxSeqs, maxBatched int, caching bool) *engine {
	t.Helper()
	return newEngine(engineConfig{
		profile: profileOf(t, "H100", "Llama-3.1-8B", 1), blocks: blocks, blockSize: BlockSize,
		caching: caching, chunked: true, offline: true,
		maxSeqs: maxSeqs, maxBatched: maxBatched, outMean: 256, seed: 1,
	}, nil)
}

// fixed is a sequence with a prompt of n tokens that produces exactly out
// tokens.
func fixed(id int64, n, out int) *seq {
	return &seq{id: id, promptLen: n, maxTokens: out, ignoreEOS: true}
}

// withPrompt is a sequence whose prompt is the given token ids.
func withPrompt(id int64, prompt []int, out int) *seq {
	return &seq{id: id, prompt: prompt, promptLen: len(prompt), maxTokens: out, ignoreEOS: true}
}

func ids(n, from int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = from + i
	}
	return out
}

// stepOnce runs one step at now and returns the end time and the tokens
// each sequence computed in it, by id.
func stepOnce(t testing.TB, e *engine, now time.Duration) (time.Duration, map[int64]int) {
	t.Helper()
	d, ok := e.step(now)
	if !ok {
		t.Fatalf("step at %v scheduled nothing", now)
	}
	got := map[int64]int{}
	for _, x := range e.sched {
		got[x.s.id] = x.n
	}
	return now + d, got
}

// drainEngine steps until the engine is idle and returns the end time.
func drainEngine(t testing.TB, e *engine, now time.Duration) time.Duration {
	t.Helper()
	for i := 0; !e.idle(); i++ {
		if i > 1_000_000 {
			t.Fatal("engine did not go idle")
		}
		d, ok := e.step(now)
		if !ok {
			t.Fatalf("engine stuck at %v with %d running, %d waiting", now, len(e.running), e.waiting.len())
		}
		now += d
	}
	return now
}

func equalMaps(a, b map[int64]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestDecodesFirstThenChunkedPrefill(t *testing.T) {
	e := testEngine(t, 1000, 10, 50, false)
	for id := int64(1); id <= 3; id++ {
		e.enqueue(fixed(id, 10, 100))
	}
	now, got := stepOnce(t, e, 0)
	if want := map[int64]int{1: 10, 2: 10, 3: 10}; !equalMaps(got, want) {
		t.Fatalf("step 1 = %v, want %v (three short prompts prefilled together)", got, want)
	}
	e.enqueue(fixed(4, 100, 5))
	steps := []map[int64]int{
		{1: 1, 2: 1, 3: 1, 4: 47}, // decodes first, the prompt takes the rest of the 50-token budget
		{1: 1, 2: 1, 3: 1, 4: 47}, // still chunking
		{1: 1, 2: 1, 3: 1, 4: 6},  // the last 6 prompt tokens
	}
	for i, want := range steps {
		var got map[int64]int
		now, got = stepOnce(t, e, now)
		if !equalMaps(got, want) {
			t.Errorf("step %d = %v, want %v", i+2, got, want)
		}
	}
	// Only the step that finished the prompt produced its first token.
	if s := e.running[3]; s.generated != 1 || s.firstToken != now {
		t.Errorf("sequence 4: %d tokens, first at %v; want 1 at %v", s.generated, s.firstToken, now)
	}
}

func TestMaxNumSeqs(t *testing.T) {
	e := testEngine(t, 1000, 2, 8192, false)
	for id := int64(1); id <= 3; id++ {
		e.enqueue(fixed(id, 10, 3))
	}
	now, got := stepOnce(t, e, 0)
	if len(got) != 2 || e.waiting.len() != 1 {
		t.Fatalf("with max_num_seqs 2: %d scheduled, %d waiting; want 2, 1", len(got), e.waiting.len())
	}
	now, _ = stepOnce(t, e, now)
	_, got = stepOnce(t, e, now) // the first two finish their 3 tokens
	if len(e.running) != 0 || e.waiting.len() != 1 {
		t.Fatalf("after 3 steps: %d running, %d waiting; want 0, 1", len(e.running), e.waiting.len())
	}
	if _, got = stepOnce(t, e, now); got[3] != 10 {
		t.Errorf("third sequence admitted with %v, want its 10-token prompt", got)
	}
}

func TestPreemptionRecomputesTheMostRecent(t *testing.T) {
	// 4 blocks of 16 tokens. Two 16-token prompts growing to 40 output
	// tokens each cannot both fit: at 33 tokens each needs a third block.
	e := testEngine(t, 4, 10, 8192, false)
	a, b := fixed(1, 16, 40), fixed(2, 16, 40)
	e.enqueue(a)
	e.enqueue(b)
	now := time.Duration(0)
	var preemptedAt int
	for step := 1; step < 200 && e.counts.preemptions == 0; step++ {
		now, _ = stepOnce(t, e, now)
		preemptedAt = step
	}
	if e.counts.preemptions != 1 {
		t.Fatalf("no preemption in %d steps", preemptedAt)
	}
	// a needed a block for its 33rd token; b, admitted last, made room.
	if b.state != stateWaiting || b.computed != 0 || len(b.blocks) != 0 || e.waiting.front() != b {
		t.Fatalf("b after preemption: state %d computed %d blocks %d front %v; want waiting, 0, 0, true",
			b.state, b.computed, len(b.blocks), e.waiting.front() == b)
	}
	if b.generated != 17 || a.state != stateRunning {
		t.Fatalf("b kept %d output tokens (want 17), a state %d (want running)", b.generated, a.state)
	}
	// b cannot return until a finishes; it then recomputes its prompt and
	// its 17 tokens of output in one prefill.
	var recompute int
	for !e.idle() {
		var got map[int64]int
		now, got = stepOnce(t, e, now)
		if n, ok := got[2]; ok && recompute == 0 {
			recompute = n
			if a.state != stateFinished {
				t.Error("b was readmitted while a still held the cache")
			}
		}
	}
	if recompute != 16+17 {
		t.Errorf("b's first step after preemption computed %d tokens, want 33 (prompt + output so far)", recompute)
	}
	if a.generated != 40 || b.generated != 40 || b.preempted != 1 {
		t.Errorf("outputs %d and %d, b preempted %d times; want 40, 40, 1", a.generated, b.generated, b.preempted)
	}
	if e.kv.free() != 4 {
		t.Errorf("%d of 4 blocks free at the end", e.kv.free())
	}
}

func TestSequenceThatCannotGrowPreemptsItself(t *testing.T) {
	// 4 blocks: a (20-token prompt) and b (31) take 2 each. a still has
	// room in its second block when b, the most recently admitted, needs a
	// third for its 33rd token: b is its own victim and a runs on.
	e := testEngine(t, 4, 10, 8192, false)
	a, b := fixed(1, 20, 100), fixed(2, 31, 100)
	e.enqueue(a)
	e.enqueue(b)
	now, _ := stepOnce(t, e, 0)  // prefills: b now holds 32 tokens
	now, _ = stepOnce(t, e, now) // b computes its 32nd token, samples the 33rd
	_, got := stepOnce(t, e, now)
	if want := map[int64]int{1: 1}; !equalMaps(got, want) {
		t.Errorf("step 3 scheduled %v, want %v", got, want)
	}
	if b.state != stateWaiting || a.state != stateRunning || e.counts.preemptions != 1 {
		t.Errorf("b state %d, a state %d, preemptions %d; want waiting, running, 1", b.state, a.state, e.counts.preemptions)
	}
	if e.kv.free() != 2 {
		t.Errorf("%d blocks free, want b's 2 back", e.kv.free())
	}
}

func TestPrefixCacheSkipsCachedBlocks(t *testing.T) {
	shared := ids(64, 100)
	longer := append(append([]int(nil), shared...), ids(10, 5000)...)
	tests := []struct {
		name     string
		caching  bool
		second   []int
		wantN    int // tokens the second request prefills
		wantHits int64
	}{
		// 64 shared tokens are 4 cached blocks; only the 10 new tokens run.
		{"shared prefix", true, longer, 10, 64},
		// An identical prompt still recomputes its last block, to get the
		// logits of its last token.
		{"identical prompt", true, shared, 16, 48},
		// Nothing is reused with caching off.
		{"caching off", false, longer, 74, 0},
	}
	for _, tt := range tests {
		e := testEngine(t, 100, 10, 8192, tt.caching)
		e.enqueue(withPrompt(1, shared, 1))
		now := drainEngine(t, e, 0)
		e.enqueue(withPrompt(2, tt.second, 1))
		_, got := stepOnce(t, e, now)
		if got[2] != tt.wantN || e.counts.prefixHits != tt.wantHits {
			t.Errorf("%s: prefilled %d tokens with %d cache hits; want %d, %d",
				tt.name, got[2], e.counts.prefixHits, tt.wantN, tt.wantHits)
		}
		if want := int64(64 + len(tt.second)); e.counts.prefixTokens != want {
			t.Errorf("%s: %d prefix cache queries, want %d (every prompt token looked up)", tt.name, e.counts.prefixTokens, want)
		}
	}
}

func TestAbortFreesEverything(t *testing.T) {
	e := testEngine(t, 100, 10, 8192, true)
	running, waiting := fixed(1, 40, 100), fixed(2, 40, 100)
	e.enqueue(running)
	now, _ := stepOnce(t, e, 0)
	e.enqueue(waiting)
	e.abort(waiting, now)
	e.abort(running, now)
	e.abort(running, now) // twice: no effect
	if !e.idle() || e.kv.free() != 100 {
		t.Errorf("after aborts: idle %v, %d of 100 blocks free", e.idle(), e.kv.free())
	}
	if running.state != stateAborted || waiting.state != stateAborted {
		t.Errorf("states %d, %d; want aborted", running.state, waiting.state)
	}
	if _, ok := e.step(now); ok {
		t.Error("an idle engine scheduled a step")
	}
}

func TestEmissionAndFinish(t *testing.T) {
	e := testEngine(t, 100, 10, 8192, false)
	s := fixed(1, 20, 3)
	e.enqueue(s)
	var ends []time.Duration
	now := time.Duration(0)
	for !e.idle() {
		now, _ = stepOnce(t, e, now)
		if len(e.emitted) != 1 || e.emitted[0] != s {
			t.Fatalf("step ending %v emitted %d sequences, want s", now, len(e.emitted))
		}
		ends = append(ends, now)
	}
	if len(ends) != 3 || s.firstToken != ends[0] || s.lastToken != ends[2] {
		t.Errorf("token times %v, first %v last %v", ends, s.firstToken, s.lastToken)
	}
	if s.state != stateFinished || s.finish != finishLength || e.kv.free() != 100 || s.blocks != nil {
		t.Errorf("state %d finish %q free %d blocks %v; want finished, length, 100, nil", s.state, s.finish, e.kv.free(), s.blocks)
	}
	if e.counts.genTokens != 3 || e.counts.promptTokens != 20 || e.counts.steps != 3 {
		t.Errorf("counts %+v; want 3 generated, 20 prompt, 3 steps", e.counts)
	}
}

func TestWaitingRequestsWaitUntilReady(t *testing.T) {
	e := testEngine(t, 100, 10, 8192, false)
	e.front = newFrontEnd(Calibration{RequestOverhead: 5 * time.Millisecond}, 1)
	s := fixed(1, 10, 1)
	s.arrival = time.Second
	e.enqueue(s)
	if _, ok := e.step(time.Second); ok {
		t.Error("scheduled before the request overhead passed")
	}
	if at, ok := e.nextReady(); !ok || at != time.Second+5*time.Millisecond {
		t.Errorf("nextReady = %v, %v; want 1.005s", at, ok)
	}
	if _, ok := e.step(time.Second + 5*time.Millisecond); !ok {
		t.Error("not scheduled once ready")
	}
}
