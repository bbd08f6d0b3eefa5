package sim

import (
	"math/rand/v2"
	"time"
)

// frontEnd models vLLM's API server between a request's arrival and the
// moment the engine can schedule it. Its own work per request (parsing,
// rendering the chat template, tokenizing) is done one request at a time,
// as the API server's event loop does: requests that arrive together queue
// for it, and the thousandth of a burst waits for the 999 before it. The
// rest of the way (the HTTP round trip, the hand-off to the engine
// process) costs a fixed latency that requests do not queue for.
//
// Service times vary by a seeded ±50 % around their mean, so that
// requests sent together do not reach the engine in lock-step.
//
// A frontEnd is owned by the engine goroutine.
type frontEnd struct {
	latency  time.Duration // RequestOverhead
	service  time.Duration // FrontEndService
	perToken time.Duration // FrontEndPerToken
	chat     time.Duration // ChatTemplate
	free     time.Duration // when the API server's loop is next idle
	rng      *rand.Rand
}

func newFrontEnd(c Calibration, seed uint64) *frontEnd {
	return &frontEnd{
		latency: c.RequestOverhead, service: c.FrontEndService, perToken: c.FrontEndPerToken, chat: c.ChatTemplate,
		rng: rand.New(rand.NewPCG(seed, 0xf207)),
	}
}

// admit returns when a request that arrives at arrival with a prompt of
// promptLen tokens becomes schedulable. Requests must be admitted in
// arrival order.
func (f *frontEnd) admit(arrival time.Duration, promptLen int, chat bool) time.Duration {
	work := f.service + time.Duration(promptLen)*f.perToken
	if chat {
		work += f.chat
	}
	if work > 0 {
		work = time.Duration(float64(work) * (0.5 + f.rng.Float64()))
	}
	f.free = max(f.free, arrival) + work
	return f.free + f.latency
}
