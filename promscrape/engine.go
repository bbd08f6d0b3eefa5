package promscrape

import "strings"

// Engine names the serving engine whose metrics an exposition holds.
type Engine string

// Engines Parse recognises. Unknown means no metric carried a known prefix.
const (
	Unknown  Engine = ""
	VLLM     Engine = "vllm"
	SGLang   Engine = "sglang"
	TGI      Engine = "tgi"
	LlamaCpp Engine = "llamacpp"
)

// engines lists the known engines in detection order, which also breaks ties.
var engines = []Engine{VLLM, SGLang, TGI, LlamaCpp}

// Prefix returns the metric-name prefix that marks e's metrics, or "" for
// Unknown and unrecognised engines.
func (e Engine) Prefix() string {
	switch e {
	case VLLM:
		return "vllm:"
	case SGLang:
		return "sglang:"
	case TGI:
		return "tgi_"
	case LlamaCpp:
		return "llamacpp:"
	}
	return ""
}

// DetectEngine returns the engine whose prefix starts the most of the given
// metric family names, or Unknown when none does. A server that exposes a
// few metrics of another engine (a gateway, a sidecar) is still detected by
// its majority; ties go to the earlier engine in vLLM, SGLang, TGI,
// llama.cpp order.
func DetectEngine(names []string) Engine {
	counts := make(map[Engine]int, len(engines))
	for _, n := range names {
		for _, e := range engines {
			if strings.HasPrefix(n, e.Prefix()) {
				counts[e]++
				break
			}
		}
	}
	best, bestN := Unknown, 0
	for _, e := range engines {
		if counts[e] > bestN {
			best, bestN = e, counts[e]
		}
	}
	return best
}

// metricNames holds, for one engine, the metric families behind each common
// quantity. Where an engine renamed a metric, the current name comes first
// and older names follow; the first family present in an exposition wins.
type metricNames struct {
	gauges   map[Gauge][]string
	counters map[Counter][]string
	hists    map[Hist][]string
}

// mapping is the table from engine metrics to common quantities. The names
// are the engines' documented ones; for counters they are the sample names
// (with "_total" where the engine writes it), which is also the family name
// the text format declares for them.
var mapping = map[Engine]metricNames{
	VLLM: {
		gauges: map[Gauge][]string{
			Running:      {"vllm:num_requests_running"},
			Waiting:      {"vllm:num_requests_waiting"},
			KVCacheUsage: {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"},
		},
		counters: map[Counter][]string{
			PromptTokens:       {"vllm:prompt_tokens_total"},
			GenerationTokens:   {"vllm:generation_tokens_total"},
			Preemptions:        {"vllm:num_preemptions_total"},
			PrefixCacheQueries: {"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"},
			PrefixCacheHits:    {"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"},
			RequestsSucceeded:  {"vllm:request_success_total"},
			SpecDrafts:         {"vllm:spec_decode_num_drafts_total"},
			SpecDraftTokens:    {"vllm:spec_decode_num_draft_tokens_total"},
			SpecAcceptedTokens: {"vllm:spec_decode_num_accepted_tokens_total"},
			// One series per draft position, labelled position="0", "1", …
			SpecAcceptedByPosition: {"vllm:spec_decode_num_accepted_tokens_per_pos_total"},
			DiffusionSteps:         {"vllm:diffusion_num_denoising_steps_total"},
			DiffusionPositions:     {"vllm:diffusion_num_canvas_positions_total"},
			DiffusionCommitted:     {"vllm:diffusion_num_committed_tokens_total"},
		},
		hists: map[Hist][]string{
			TTFT: {"vllm:time_to_first_token_seconds"},
			// Before inter_token_latency_seconds existed, vLLM exported the
			// per-token gaps under time_per_output_token_seconds.
			ITL:     {"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"},
			TPOT:    {"vllm:request_time_per_output_token_seconds"},
			E2E:     {"vllm:e2e_request_latency_seconds"},
			Queue:   {"vllm:request_queue_time_seconds"},
			Prefill: {"vllm:request_prefill_time_seconds"},
			Decode:  {"vllm:request_decode_time_seconds"},
		},
	},
	SGLang: {
		gauges: map[Gauge][]string{
			Running:      {"sglang:num_running_reqs"},
			Waiting:      {"sglang:num_queue_reqs"},
			KVCacheUsage: {"sglang:token_usage"},
			CacheHitRate: {"sglang:cache_hit_rate"},
			// Exported when speculative decoding is on, per rank.
			SpecAcceptLength: {"sglang:spec_accept_length"},
			SpecAcceptRate:   {"sglang:spec_accept_rate"},
		},
		counters: map[Counter][]string{
			PromptTokens:     {"sglang:prompt_tokens_total"},
			GenerationTokens: {"sglang:generation_tokens_total"},
			Preemptions:      {"sglang:num_retracted_requests_total"},
		},
		hists: map[Hist][]string{
			TTFT:  {"sglang:time_to_first_token_seconds"},
			TPOT:  {"sglang:time_per_output_token_seconds"},
			ITL:   {"sglang:inter_token_latency_seconds"},
			E2E:   {"sglang:e2e_request_latency_seconds"},
			Queue: {"sglang:queue_time_seconds"},
		},
	},
	TGI: {
		gauges: map[Gauge][]string{
			Running: {"tgi_batch_current_size"},
			Waiting: {"tgi_queue_size"},
		},
		counters: map[Counter][]string{
			RequestsSucceeded: {"tgi_request_success"},
		},
		hists: map[Hist][]string{
			// TGI's per-request mean time per token is TPOT by definition.
			TPOT:  {"tgi_request_mean_time_per_token_duration"},
			E2E:   {"tgi_request_duration"},
			Queue: {"tgi_request_queue_duration"},
		},
	},
	// llama.cpp: requests_processing counts busy slots, requests_deferred
	// those waiting for one. Builds up to 2025 exported
	// kv_cache_usage_ratio; newer ones (as the real server in tests,
	// commit 82bb48500a9a) do not.
	LlamaCpp: {
		gauges: map[Gauge][]string{
			Running:      {"llamacpp:requests_processing"},
			Waiting:      {"llamacpp:requests_deferred"},
			KVCacheUsage: {"llamacpp:kv_cache_usage_ratio"},
		},
		counters: map[Counter][]string{
			PromptTokens:     {"llamacpp:prompt_tokens_total"},
			GenerationTokens: {"llamacpp:tokens_predicted_total"},
			PrefillSeconds:   {"llamacpp:prompt_seconds_total"},
			DecodeSeconds:    {"llamacpp:tokens_predicted_seconds_total"},
			DecodeSteps:      {"llamacpp:n_decode_total"},
		},
	},
}
