package metrics

import "math"

// Result is a Summary's report. It is written to summary files and read back
// by other tools, so its JSON form is stable: snake_case keys, and every
// latency in float64 seconds. Rates are zero when the window is empty.
type Result struct {
	// Method and Percentiles say how the distributions' percentiles were read.
	Method      Method    `json:"percentile_method"`
	Percentiles []float64 `json:"percentiles"`

	Counts     Counts     `json:"counts"`
	Window     Window     `json:"window"`
	Tokens     Tokens     `json:"tokens"`
	Throughput Throughput `json:"throughput"`
	// Goodput is nil when no per-request SLO was given.
	Goodput    *Goodput   `json:"goodput,omitempty"`
	Latency    Latency    `json:"latency"`
	LittlesLaw LittlesLaw `json:"littles_law"`
	Series     Series     `json:"series"`
	// PrefixGroups holds the TTFT of each prefix group, the busiest first,
	// when records name their group (record.LabelPrefixGroup); nil
	// otherwise.
	PrefixGroups []GroupResult `json:"prefix_groups,omitempty"`

	// TokenSources counts completed requests by where their output token
	// count came from (record.Source values; "unknown" when the record did
	// not say).
	TokenSources map[string]int64 `json:"token_sources"`

	// PromptCache is what the servers said they served from their prompt
	// cache, over the completed requests whose response said; nil when
	// none did.
	PromptCache *PromptCache `json:"prompt_cache,omitempty"`
	// ServerTimings is the servers' own timing of the completed requests
	// whose response gave one (llama.cpp's timings); nil when none did.
	ServerTimings *ServerTimings `json:"server_timings,omitempty"`

	// Reasoning is nil unless a completed request reasoned; then it holds
	// the reasoning and answer token counts, and Latency the reasoning
	// metrics.
	Reasoning *Reasoning `json:"reasoning,omitempty"`
	// Sessions and Tasks summarise the run's multi-turn sessions and agent
	// tasks; nil when no record belongs to one.
	Sessions *Sessions `json:"sessions,omitempty"`
	Tasks    *Tasks    `json:"tasks,omitempty"`
	// Endpoints breaks the run down by endpoint, in order of their names,
	// when its records name several (record.Endpoint); nil otherwise.
	Endpoints []EndpointResult `json:"endpoints,omitempty"`
}

// PromptCache is the client's view of the server's prompt (prefix) cache:
// per request, the prompt tokens its response said came from the cache.
type PromptCache struct {
	Requests     int64   `json:"requests"`      // completed requests whose response said
	PromptTokens int64   `json:"prompt_tokens"` // their prompt tokens
	CachedTokens int64   `json:"cached_tokens"` // of those, served from the cache
	HitRate      float64 `json:"hit_rate"`      // CachedTokens / PromptTokens, 0 when there are none
}

// ServerTimings are distributions of the server's own per-request timings,
// in seconds: Prefill is the time it spent on the prompt, which ends with
// the first token (a server-side TTFT that leaves out the wait for a slot
// and the network); DecodePerToken its decode time, which runs from the
// first token to the last, divided by the N − 1 tokens after the first, as
// TPOT divides (llama.cpp's own predicted_per_token_ms divides by N, and
// is that much lower), for answers of two tokens or more.
type ServerTimings struct {
	Requests       int64        `json:"requests"`
	Prefill        Distribution `json:"prefill"`
	DecodePerToken Distribution `json:"decode_per_token"`
}

// Counts are request counts. Total = Completed + Failed; warm-up requests
// that were excluded are in none of them.
type Counts struct {
	Total     int64 `json:"total"`     // measured requests
	Completed int64 `json:"completed"` // succeeded
	Failed    int64 `json:"failed"`
	// Canceled counts the failed requests the client itself canceled
	// (record.ErrCanceled): those still in flight when the run was
	// interrupted. They are outside attainment, which judges the server.
	Canceled int64 `json:"canceled,omitempty"`
	// Errors counts failed requests by record.ErrorKind.
	Errors map[string]int64 `json:"errors"`
	// ErrorExamples holds, by kind, the message of the first failed request
	// added (the records' order), so that a count comes with a reason.
	ErrorExamples  map[string]string `json:"error_examples,omitempty"`
	WarmupExcluded int64             `json:"warmup_excluded"`
	ErrorRate      float64           `json:"error_rate"` // Failed / Total, 0 when Total is 0
	// NoToken counts the completed requests that carried no output token
	// (an empty answer): they have no TTFT and are never good.
	NoToken int64 `json:"no_token,omitempty"`
	// Retried counts the measured requests, completed or failed, that were
	// sent a second time after their reused connection failed before any
	// response byte (record.Record.Retries).
	Retried int64 `json:"retried,omitempty"`
}

// Judged returns the requests attainment is a fraction of: every measured
// request but those canceled at an interrupt.
func (c Counts) Judged() int64 { return c.Total - c.Canceled }

// MostCommonError returns the kind of failure most requests had (the
// first by name among equals), how many had it and the first message of
// that kind; "" and 0 when none failed.
func (c Counts) MostCommonError() (kind string, n int64, example string) {
	for k, m := range c.Errors {
		if m > n || (m == n && k < kind) {
			kind, n = k, m
		}
	}
	return kind, n, c.ErrorExamples[kind]
}

// Window is the measurement window W: from the scheduled time of the
// earliest measured request (success or failure) to the end time of the
// latest one. A record whose End precedes its Scheduled counts as ending
// when it was scheduled. Times are ns from the run epoch.
type Window struct {
	Start   int64   `json:"start_ns"`
	End     int64   `json:"end_ns"`
	Seconds float64 `json:"seconds"`
}

// Tokens are token totals over completed requests.
type Tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
	Total  int64 `json:"total"`
}

// Throughput is completed work per second of W.
type Throughput struct {
	RequestsPerSecond     float64 `json:"requests_per_second"`
	OutputTokensPerSecond float64 `json:"output_tokens_per_second"`
	InputTokensPerSecond  float64 `json:"input_tokens_per_second"`
	TotalTokensPerSecond  float64 `json:"total_tokens_per_second"`
}

// Goodput is the throughput that met the per-request SLO.
type Goodput struct {
	SLO                   string  `json:"slo,omitempty"`            // Options.SLO
	GoodRequests          int64   `json:"good_requests"`            // successful requests Options.Good accepted
	GoodOutputTokens      int64   `json:"good_output_tokens"`       // their N
	OutputTokensPerSecond float64 `json:"output_tokens_per_second"` // goodput: GoodOutputTokens / W
	RequestsPerSecond     float64 `json:"requests_per_second"`      // request goodput: GoodRequests / W
	Attainment            float64 `json:"attainment"`               // GoodRequests / (Counts.Total − Counts.Canceled): failures count, requests canceled at an interrupt do not
}

// Latency holds a distribution per latency metric, over completed requests.
// ITL and InterChunk pool every gap of every request.
type Latency struct {
	TTFT        Distribution `json:"ttft"`
	TPOT        Distribution `json:"tpot"`
	ITL         Distribution `json:"itl"`
	InterChunk  Distribution `json:"inter_chunk"`
	E2E         Distribution `json:"e2e"`
	ClientQueue Distribution `json:"client_queue"`
	TTFTSent    Distribution `json:"ttft_sent"`

	// The reasoning metrics, nil (and absent from JSON) unless a completed
	// request reasoned: TTFA and TPOT over the answer cover every completed
	// request (a reply without reasoning has TTFA = TTFT, and TPOT over
	// its answer = TPOT), TPOT over reasoning the replies that streamed
	// reasoning. Read them with Result.Distribution, which answers for
	// runs without reasoning too.
	TTFA          *Distribution `json:"ttfa,omitempty"`
	TPOTReasoning *Distribution `json:"tpot_reasoning,omitempty"`
	TPOTAnswer    *Distribution `json:"tpot_answer,omitempty"`
}

// Distribution summarises a sample of latencies. Every value is in seconds.
// Std is the population standard deviation. With Count 0 every field is
// zero and Percentiles is empty.
type Distribution struct {
	Count       int64             `json:"count"`
	Mean        float64           `json:"mean"`
	Std         float64           `json:"std"`
	Min         float64           `json:"min"`
	Max         float64           `json:"max"`
	Median      float64           `json:"median"` // the 50th percentile by Result.Method
	Percentiles []PercentileValue `json:"percentiles,omitempty"`
}

// PercentileValue is one percentile of a distribution.
type PercentileValue struct {
	P     float64 `json:"p"`
	Value float64 `json:"value"`
}

// LittlesLaw compares the two sides of L = λ·W̄ over the window. A request
// is in flight from its Scheduled time to its End, failures included;
// λ counts completions only and W̄ is their mean e2e. Even in steady state
// the sides differ by the time between each last token and the end of its
// stream, and by the in-flight time of failures. A large gap means the run
// was not in steady state (for example, still ramping up or draining).
type LittlesLaw struct {
	InFlight         float64 `json:"in_flight"`          // L: time-average of requests in flight
	ArrivalRate      float64 `json:"arrival_rate"`       // λ: completions / W, per second
	MeanLatency      float64 `json:"mean_latency"`       // W̄: mean e2e, seconds
	RateTimesLatency float64 `json:"rate_times_latency"` // λ·W̄
	RelativeGap      float64 `json:"relative_gap"`       // |L − λ·W̄| / L, 0 when L is 0
}

// Series is the run over time, in buckets of Step seconds aligned to the
// run epoch (bucket k covers [k·Step, (k+1)·Step)), from the bucket holding
// the window's start to the one holding its end. Rates divide by the full
// step, so the first and last buckets, which W covers only in part, read
// low. Step can be wider than Options.SeriesStep when a very long span had
// to be coarsened.
type Series struct {
	Step   float64       `json:"step_seconds"`
	Points []SeriesPoint `json:"points"`
}

// SeriesPoint is one bucket of a Series, counting completed and failed
// measured requests.
type SeriesPoint struct {
	Start float64 `json:"start_seconds"` // bucket start, seconds from the run epoch
	// Seconds is the part of the bucket inside the run's window, which
	// its rates and averages are over: the step, except at the window's
	// two ends.
	Seconds float64 `json:"seconds"`
	// OutputTokensPerSecond attributes each chunk's tokens to the bucket of
	// its arrival time (completed requests only). It follows chunk token
	// counts, so its total can differ from Tokens.Output when that came
	// from the server's usage.
	OutputTokensPerSecond float64 `json:"output_tokens_per_second"`
	InFlight              float64 `json:"in_flight"`   // time-average of requests in flight in the bucket
	Completions           int64   `json:"completions"` // successful requests that ended in the bucket
	Errors                int64   `json:"errors"`      // failed requests that ended in the bucket
}

// Distribution returns the distribution of metric m, or nil for an unknown
// metric. For a run in which no request reasoned, TTFA is TTFT, TPOT over
// the answer is TPOT, and TPOT over reasoning is empty. The sessions'
// durations and the tasks' completion times are empty for a run without
// them.
func (r *Result) Distribution(m Metric) *Distribution {
	switch m {
	case MetricTTFT:
		return &r.Latency.TTFT
	case MetricTPOT:
		return &r.Latency.TPOT
	case MetricITL:
		return &r.Latency.ITL
	case MetricInterChunk:
		return &r.Latency.InterChunk
	case MetricE2E:
		return &r.Latency.E2E
	case MetricClientQueue:
		return &r.Latency.ClientQueue
	case MetricTTFTSent:
		return &r.Latency.TTFTSent
	case MetricTTFA:
		if r.Latency.TTFA == nil {
			return &r.Latency.TTFT
		}
		return r.Latency.TTFA
	case MetricTPOTAnswer:
		if r.Latency.TPOTAnswer == nil {
			return &r.Latency.TPOT
		}
		return r.Latency.TPOTAnswer
	case MetricTPOTReasoning:
		if r.Latency.TPOTReasoning == nil {
			return &Distribution{}
		}
		return r.Latency.TPOTReasoning
	case MetricSessionDuration:
		if r.Sessions == nil {
			return &Distribution{}
		}
		return &r.Sessions.Duration
	case MetricTaskCompletion:
		if r.Tasks == nil {
			return &Distribution{}
		}
		return &r.Tasks.Completion
	}
	return nil
}

// Percentile returns the reported value of percentile p, and false when p
// was not among the percentiles computed (or the distribution is empty).
// To be able to ask for p later, put it in Options.Percentiles before the
// run.
func (d *Distribution) Percentile(p float64) (float64, bool) {
	for _, v := range d.Percentiles {
		if math.Abs(v.P-p) <= 1e-9 {
			return v.Value, true
		}
	}
	return 0, false
}
