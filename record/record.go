// Package record defines goodput's unit of measurement: one flat Record per
// request, and the JSON Lines file that holds a run's records behind a Header.
//
// Every producer (the load generator, the simulator's virtual-time mode,
// package runfile's importers of other tools' results) writes Records;
// every consumer (metrics, sweeps, reports, planning) reads them. A run can
// therefore always be re-analysed, merged or compared later.
//
// Times inside a Record are nanoseconds from the run epoch, an instant whose
// wall-clock value is Header.Start. They come from the monotonic clock, so
// differences between them are exact durations.
package record

// SchemaVersion is the version of the Record and Header layout written by
// this package. Decoders accept files whose schema is at most this version.
const SchemaVersion = 1

// Source says where a record's output token counts came from.
type Source string

// Token count sources, best first.
const (
	SourceUsage     Source = "usage"     // the server's usage block (final or continuous)
	SourceTokenizer Source = "tokenizer" // a tokenizer applied to the streamed text
	SourceChunks    Source = "chunks"    // one token per content chunk (fallback)
)

// ErrorKind classifies a failed request. A failure is data, not a Go error:
// the run goes on and the record says what happened.
type ErrorKind string

// Failure kinds. An empty kind means the request succeeded.
//
// An error the server reports inside a stream, after answering 200, gets
// the kind of the HTTP status it names by its code or its type (vLLM's
// "code": 400, TGI's "error_type": "overloaded"), so that a failure counts
// alike whichever way it came; Status then holds the stream's 200. One that
// names no status is ErrStream.
const (
	ErrNone        ErrorKind = ""
	ErrHTTP        ErrorKind = "http"         // non-2xx status (Status holds it), other than the two below
	ErrRateLimited ErrorKind = "rate_limited" // 429
	ErrUnavailable ErrorKind = "unavailable"  // 503
	ErrConnect     ErrorKind = "connect"      // dial or TLS failure
	ErrTimeout     ErrorKind = "timeout"      // request timeout elapsed
	ErrReset       ErrorKind = "reset"        // connection reset or closed mid-stream
	ErrTruncated   ErrorKind = "truncated"    // stream ended without its terminator
	ErrMalformed   ErrorKind = "malformed"    // a chunk could not be parsed
	ErrProtocol    ErrorKind = "protocol"     // the answer was not HTTP, or broke HTTP (a bad status line, header or length)
	ErrStream      ErrorKind = "stream_error" // the server sent an error in the stream that names no HTTP status
	ErrCanceled    ErrorKind = "canceled"     // the client canceled it in flight: the run was interrupted, or an imported run's tool canceled it
	ErrDropped     ErrorKind = "dropped"      // never sent: no worker was free (open loop with a cap)
	ErrOther       ErrorKind = "other"
)

// LabelPrefixGroup is the label that names a record's prefix group (a
// system prompt or shared prefix its prompt begins with), for per-group
// statistics.
const LabelPrefixGroup = "prefix_group"

// Chunk is one arrival of streamed output that carried at least one token.
// Role-only and usage-only chunks are not Chunks.
type Chunk struct {
	At     int64 // arrival time, ns from the run epoch: when the bytes reached the machine (the kernel's receive timestamp), else when they were read
	Tokens int32 // output tokens it carried (≥ 1)
	// Reasoning marks a reasoning model's thinking: the chunk carried
	// reasoning text (reasoning_content, reasoning, thinking) and no
	// answer text. Every other chunk is answer-bearing (see DESIGN.md,
	// "Reasoning streams").
	Reasoning bool
}

// Record is everything measured about one request.
//
// Scheduled is when the arrival process intended to send the request (in
// closed-loop mode, when its concurrency slot freed); Sent is when it actually
// left. TTFT counts from Scheduled so that a lagging generator cannot hide
// queueing (no coordinated omission).
type Record struct {
	Seq       int64 // sequence number in the schedule (0-based)
	Scheduled int64 // s: intended send time, ns from the run epoch
	Sent      int64 // t0: actual send time, ns from the run epoch
	End       int64 // te: when the response ended (stream closed or failed), ns from the run epoch

	// Chunks are the token-bearing arrivals in order; Chunks[0].At is the
	// first-token time c1 and the last element's At is cK.
	Chunks []Chunk

	InputTokens  int    // prompt tokens
	OutputTokens int    // N = Σ Chunks[i].Tokens for a streamed success
	TokenSource  Source // where OutputTokens came from

	// CachedTokens is how many of the prompt tokens the server says it
	// served from its prompt (prefix) cache: OpenAI-style
	// usage.prompt_tokens_details.cached_tokens, llama.cpp's
	// timings.cache_n. It means something only when CacheReported is set;
	// a server that says nothing leaves both zero.
	CachedTokens  int
	CacheReported bool

	// Retries counts the times the request was sent again after failing on
	// a reused connection before any response byte arrived (see
	// DESIGN.md, "Retries"). Scheduled and Sent stay those of the first
	// attempt, so the retry's cost shows in TTFT.
	Retries int

	// ServerPrefill and ServerDecode are the server's own account of the
	// request, in ns, where its response gives one (llama.cpp's
	// timings.prompt_ms and predicted_ms): the time it spent on the
	// prompt, which ends with the first token, and on the output tokens
	// after it. Zero when the server gave none. They are durations, not
	// times, and do not move with Shift.
	ServerPrefill int64
	ServerDecode  int64

	// ReasoningTokens is how many of OutputTokens were reasoning, 0 for a
	// reply without any. ReasoningSource says where it came from:
	// SourceUsage when the server reported it
	// (usage.completion_tokens_details.reasoning_tokens), SourceChunks
	// when it is the sum of the reasoning chunks' tokens (whose counts
	// came from TokenSource); empty when ReasoningTokens is 0 and nothing
	// was reported. A server may report reasoning it never streamed
	// (hidden reasoning): ReasoningTokens is then positive with no
	// reasoning chunk.
	ReasoningTokens int
	ReasoningSource Source

	// Whole marks an answer that was not streamed (--stream=false): it
	// came in one piece, its one chunk at End, so its TTFT is its
	// end-to-end latency and it has no TPOT or ITL to measure.
	Whole bool

	Status int       // HTTP status, 0 if no response arrived
	Finish string    // finish reason reported by the server ("stop", "length", …)
	Error  ErrorKind // empty on success
	Msg    string    // error message, empty on success

	Warmup bool              // excluded from statistics and from the window
	Labels map[string]string // free-form, e.g. {"point": "c16"} in a sweep

	// RequestID is the x-request-id the request was sent with, so that a
	// record can be joined with the server's logs; empty when none was.
	RequestID string
	// Text is the generated text, kept in memory for runs that ask for it
	// (vLLM's generated_texts); record files never hold it.
	Text string

	// Session and Turn place the request in a multi-turn session: the
	// session's id and the turn's number, 1 for the first. Both are zero
	// for a request outside any session.
	Session string
	Turn    int
	// Task and Call place the request in an agent task: the task's id and
	// the call's id within it; empty outside any task.
	Task string
	Call string
	// Endpoint is the base URL the request went to when the run spread its
	// load over several endpoints; empty when it had one (the run header
	// names it).
	Endpoint string
}

// OK reports whether the request succeeded.
func (r *Record) OK() bool { return r.Error == ErrNone }

// FirstToken returns c1 and whether the request received any token.
func (r *Record) FirstToken() (int64, bool) {
	if len(r.Chunks) == 0 {
		return 0, false
	}
	return r.Chunks[0].At, true
}

// FirstAnswer returns the arrival of the first answer-bearing chunk (one
// not marked Reasoning that carried a token) and whether there was one:
// TTFA counts to it.
func (r *Record) FirstAnswer() (int64, bool) {
	for _, c := range r.Chunks {
		if !c.Reasoning && c.Tokens > 0 {
			return c.At, true
		}
	}
	return 0, false
}

// LastToken returns cK and whether the request received any token.
func (r *Record) LastToken() (int64, bool) {
	if len(r.Chunks) == 0 {
		return 0, false
	}
	return r.Chunks[len(r.Chunks)-1].At, true
}

// Shift moves every time of r by d nanoseconds, to put records of runs that
// started at different instants on one clock.
func (r *Record) Shift(d int64) {
	r.Scheduled += d
	r.Sent += d
	r.End += d
	for i := range r.Chunks {
		r.Chunks[i].At += d
	}
}
