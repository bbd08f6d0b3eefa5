package promscrape

// Gauge names a common instantaneous quantity read from a server's gauges.
type Gauge string

// Gauges every engine mapping may fill.
const (
	Running      Gauge = "running"        // requests in the running batch
	Waiting      Gauge = "waiting"        // requests queued and not yet scheduled
	KVCacheUsage Gauge = "kv_cache_usage" // fraction of the KV cache in use, 0–1
	CacheHitRate Gauge = "cache_hit_rate" // the engine's own prefix-cache hit rate gauge (SGLang), 0–1
	// SpecAcceptLength and SpecAcceptRate are a speculative decoder's own
	// recent tokens per step and share of draft tokens accepted (SGLang's
	// gauges, 0–1 for the rate).
	SpecAcceptLength Gauge = "spec_accept_length"
	SpecAcceptRate   Gauge = "spec_accept_rate"
)

// AllGauges lists every Gauge in a fixed order, for iteration and reports.
var AllGauges = []Gauge{Running, Waiting, KVCacheUsage, CacheHitRate, SpecAcceptLength, SpecAcceptRate}

// ratio reports whether g is a fraction or a mean, not a count. Those from
// several engines, ranks or models are averaged; counts are summed (two
// engines each 80 % full are 80 % full, not 160 %).
func (g Gauge) ratio() bool {
	switch g {
	case KVCacheUsage, CacheHitRate, SpecAcceptLength, SpecAcceptRate:
		return true
	}
	return false
}

// Fraction reports whether g is a share, 0–1, to be shown as a percentage.
func (g Gauge) Fraction() bool { return g == KVCacheUsage || g == CacheHitRate || g == SpecAcceptRate }

// optional reports whether a server exports g only with a feature on
// (speculative decoding), so that its absence is no gap in the coverage.
func (g Gauge) optional() bool { return g == SpecAcceptLength || g == SpecAcceptRate }

// Counter names a common cumulative quantity read from a server's counters.
type Counter string

// Counters every engine mapping may fill.
const (
	PromptTokens       Counter = "prompt_tokens"        // prompt (prefill) tokens processed
	GenerationTokens   Counter = "generation_tokens"    // output tokens generated
	Preemptions        Counter = "preemptions"          // requests preempted (SGLang: retracted)
	PrefixCacheQueries Counter = "prefix_cache_queries" // tokens looked up in the prefix cache (vLLM)
	PrefixCacheHits    Counter = "prefix_cache_hits"    // of those, tokens found (vLLM)
	RequestsSucceeded  Counter = "requests_succeeded"   // requests finished (all finish reasons)
	// PrefillSeconds and DecodeSeconds are the time requests spent in
	// prompt processing and in generation, summed over requests (llama.cpp:
	// one request's time counts once however many run beside it), so
	// tokens ÷ seconds is the speed of one stream. DecodeSteps counts the
	// engine's forward passes (llama.cpp's llama_decode calls).
	PrefillSeconds Counter = "prefill_seconds"
	DecodeSeconds  Counter = "decode_seconds"
	DecodeSteps    Counter = "decode_steps"
	// Speculative decoding (vLLM): the drafts proposed, the draft tokens
	// in them, the draft tokens the target model accepted, and those
	// accepted at each draft position (one series per position label).
	SpecDrafts             Counter = "spec_decode_drafts"
	SpecDraftTokens        Counter = "spec_decode_draft_tokens"
	SpecAcceptedTokens     Counter = "spec_decode_accepted_tokens"
	SpecAcceptedByPosition Counter = "spec_decode_accepted_by_position"
	// Diffusion decoding (vLLM): the denoising steps a diffusion language
	// model ran (a canvas's commit step included), the canvas positions
	// those steps evaluated, and the tokens committed to the output.
	DiffusionSteps     Counter = "diffusion_denoising_steps"
	DiffusionPositions Counter = "diffusion_canvas_positions"
	DiffusionCommitted Counter = "diffusion_committed_tokens"
)

// AllCounters lists every Counter in a fixed order, for iteration and reports.
var AllCounters = []Counter{PromptTokens, GenerationTokens, Preemptions, PrefixCacheQueries, PrefixCacheHits, RequestsSucceeded,
	PrefillSeconds, DecodeSeconds, DecodeSteps, SpecDrafts, SpecDraftTokens, SpecAcceptedTokens, SpecAcceptedByPosition,
	DiffusionSteps, DiffusionPositions, DiffusionCommitted}

// bySeries reports whether a window keeps c's increase per label set
// (Window.CounterSeries) as well as its sum: its labels carry meaning.
func (c Counter) bySeries() bool { return c == SpecAcceptedByPosition }

// optional reports whether a server exports c only with a feature on
// (speculative decoding) or a kind of model (diffusion), so that its
// absence is no gap in the coverage.
func (c Counter) optional() bool {
	switch c {
	case SpecDrafts, SpecDraftTokens, SpecAcceptedTokens, SpecAcceptedByPosition,
		DiffusionSteps, DiffusionPositions, DiffusionCommitted:
		return true
	}
	return false
}

// Hist names a common server latency histogram. All are in seconds.
type Hist string

// Histograms every engine mapping may fill.
const (
	TTFT    Hist = "ttft"    // time to first token, as the server measures it
	ITL     Hist = "itl"     // inter-token latency, one observation per token gap
	TPOT    Hist = "tpot"    // time per output token, one observation per request
	E2E     Hist = "e2e"     // request latency, arrival to last token
	Queue   Hist = "queue"   // time spent waiting before the first schedule
	Prefill Hist = "prefill" // time spent in prefill
	Decode  Hist = "decode"  // time spent in decode
)

// AllHists lists every Hist in a fixed order, for iteration and reports.
var AllHists = []Hist{TTFT, ITL, TPOT, E2E, Queue, Prefill, Decode}
