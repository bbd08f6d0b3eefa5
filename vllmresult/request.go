package vllmresult

import (
	"github.com/goodput-dev/goodput/record"
)

// Request is one request as vLLM's client reports it. Times are seconds.
type Request struct {
	Success bool
	Error   string // "" on success
	// Start is the send time on the run's clock (vLLM's start_times come
	// from time.perf_counter, whose origin is arbitrary too: only
	// differences mean anything).
	Start float64
	// Queue is the client-side wait before the send (vLLM's queue_times):
	// send − arrival, where a request arrives at its scheduled time, or at
	// the start of the run in a closed loop, where vLLM creates every
	// request at once and lets them wait for a concurrency slot.
	Queue   float64
	TTFT    float64   // first token − send; 0 on failure
	ITL     []float64 // gaps between consecutive token-bearing chunks
	Latency float64   // last token − send (vLLM's e2el); 0 on failure
	// ScheduledAt is when the request was due, on the clock of Start:
	// goodput counts its TTFT from there (*_ttft_from_scheduled_ms).
	ScheduledAt float64
	InputLen    int // prompt tokens: the server's count when it reported one
	OutputLen   int // output tokens; 0 on failure
	Text        string
	RequestID   string
	// Whole says the answer came in one piece (a non-streaming request):
	// its tokens all arrived at its TTFT, and it has no TPOT.
	Whole bool
}

// FromRecord converts a record. closedLoop says the run was a closed loop
// (an infinite rate with a concurrency cap), where vLLM's requests all
// arrive at the start of the run.
func FromRecord(r *record.Record, closedLoop bool) Request {
	q := Request{
		Start:       float64(r.Sent) / 1e9,
		ScheduledAt: float64(r.Scheduled) / 1e9,
		InputLen:    r.InputTokens,
		Text:        r.Text,
		RequestID:   r.RequestID,
		Whole:       r.Whole,
	}
	arrival := r.Scheduled
	if closedLoop {
		arrival = 0
	}
	q.Queue = float64(r.Sent-arrival) / 1e9
	switch {
	case !r.OK():
		q.Error = string(r.Error) + ": " + r.Msg
		return q
	case len(r.Chunks) == 0:
		// vLLM's client fails a stream that brought no chunk too.
		q.Error = "no output token arrived"
		return q
	}
	q.Success = true
	first, last := r.Chunks[0].At, r.Chunks[len(r.Chunks)-1].At
	q.TTFT = float64(first-r.Sent) / 1e9
	q.Latency = float64(last-r.Sent) / 1e9
	q.ITL = make([]float64, 0, len(r.Chunks)-1)
	for i := 1; i < len(r.Chunks); i++ {
		q.ITL = append(q.ITL, float64(r.Chunks[i].At-r.Chunks[i-1].At)/1e9)
	}
	q.OutputLen = r.OutputTokens
	return q
}

// FromScheduled is goodput's TTFT: the first token − the scheduled time.
func (q Request) FromScheduled() float64 { return q.TTFT + q.Start - q.ScheduledAt }

// TPOT is vLLM's time per output token of a request: (latency − TTFT) /
// (output tokens − 1), and false when the request has fewer than 2 tokens
// or came whole, which measures no time between tokens.
func (q Request) TPOT() (float64, bool) {
	if !q.Success || q.OutputLen < 2 || q.Whole {
		return 0, false
	}
	return (q.Latency - q.TTFT) / float64(q.OutputLen-1), true
}
