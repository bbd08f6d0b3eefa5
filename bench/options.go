package bench

import (
	"math/rand/v2"
	"strconv"

	"github.com/goodput-dev/goodput/backend"
	"github.com/goodput-dev/goodput/vllmresult"
)

// RequestOptions shape every request beyond its prompt. Each field names
// its flag.
type RequestOptions struct {
	Sampling           backend.Sampling // --temperature, --top-p, --top-k, --min-p, --*-penalty
	Logprobs           *int             // --logprobs
	ChatTemplateKwargs map[string]any   // --chat-template-kwargs
	// RequestIDPrefix makes each request's x-request-id the prefix and its
	// sequence number, as vLLM's client numbers them (--request-id-prefix);
	// "" sends none, unless BareRequestIDs.
	RequestIDPrefix string
	// BareRequestIDs sends the sequence number alone as the x-request-id
	// when RequestIDPrefix is "", as vLLM's client does for
	// --request-id-prefix "".
	BareRequestIDs bool
	// ServedModelName is the model name sent, when it differs from
	// Config.Model (--served-model-name).
	ServedModelName string
	// LoRA are adapter names (--lora-modules): each request asks for one
	// as its model, drawn with the seed or in turn (--lora-assignment
	// round-robin).
	LoRA           []string
	LoRARoundRobin bool
}

// rngLoRA separates the adapter draws from the other users of --seed.
const rngLoRA = 0x6c6f7261 // "lora"

// apply sets the options on req, request seq of a run seeded with seed.
func (o RequestOptions) apply(req *backend.Request, seq int64, seed uint64) {
	req.Sampling = o.Sampling
	req.Logprobs = o.Logprobs
	req.ChatTemplateKwargs = o.ChatTemplateKwargs
	if o.RequestIDPrefix != "" || o.BareRequestIDs {
		req.RequestID = o.RequestIDPrefix + strconv.FormatInt(seq, 10)
	}
	if o.ServedModelName != "" {
		req.Model = o.ServedModelName
	}
	if n := int64(len(o.LoRA)); n > 0 {
		if o.LoRARoundRobin {
			req.Model = o.LoRA[seq%n]
		} else {
			req.Model = o.LoRA[rand.New(rand.NewPCG(seed^rngLoRA, uint64(seq))).IntN(int(n))]
		}
	}
}

// VLLMFile says where vLLM's result file goes and what it holds
// (--save-result and its companions). Each field names its flag.
type VLLMFile struct {
	Save     bool   // --save-result (or --append-result): write the file
	Append   bool   // --append-result: add the result as a line
	Detailed bool   // --save-detailed: keep the per-request arrays
	Dir      string // --result-dir; "" is the current directory
	Name     string // --result-filename; "" is vLLM's pattern
	Label    string // --label: the name's prefix and the label key
	// Backend is --backend as given (vllm, openai, …), for endpoint_type.
	Backend string
	// TokenizerID is --tokenizer, or "" for the model's; NoTokenizer
	// (--skip-tokenizer-init) writes it as null.
	TokenizerID string
	NoTokenizer bool
	NumPrompts  int               // --num-prompts as given (-1 for every entry)
	Metadata    vllmresult.Object // --metadata, in order
	Metrics     []string          // --percentile-metrics
	// MaxConcurrencyGiven says --max-concurrency was given; vLLM writes
	// null otherwise.
	MaxConcurrencyGiven bool
	// SLO is --goodput in milliseconds by metric; nil without it.
	SLO map[string]float64
	// Burstiness is --burstiness as given, when the run's arrivals differ
	// from it (vLLM's inf: evenly spaced arrivals, run with burstiness 1
	// and constant arrivals); 0 writes the run's.
	Burstiness float64
	// Collect computes vLLM's summary figures (Outcome.VLLM) even when no
	// file is written, for a vLLM command line's terminal summary.
	Collect bool
}

// VLLMFigures are figures of vLLM's summary that goodput's metrics do not
// have: its peaks, counted in every run, and its request goodput with TTFT
// from the send and its queueing blocks, where the run collected vLLM's
// view of each request.
type VLLMFigures struct {
	PeakOutputTokensPerSecond float64 `json:"max_output_tokens_per_s"`
	PeakConcurrentRequests    int     `json:"max_concurrent_requests"`
	// RequestGoodput is vLLM's, with --goodput; nil without it.
	RequestGoodput *float64 `json:"request_goodput,omitempty"`
	// Queue are vLLM's client-side queueing blocks that
	// --percentile-metrics asked for, where the run has them (in vLLM's
	// file, not in goodput's JSON summary, whose result has the queue).
	Queue []vllmresult.NamedStat `json:"-"`
}

// Tokenizer counts tokens the way a model's own tokenizer does. It is the
// seam for --tokenizer: with one, random prompts get exact lengths against
// servers that have neither /tokenize nor token-id prompts, and output
// tokens are counted from the streamed text when a server reports no usage.
// Implementations must be safe for concurrent use.
type Tokenizer interface {
	Count(text string) int
}

// NoStreamNote is what a non-streaming run's summary says of its figures.
const NoStreamNote = "non-streaming requests (--stream=false): TTFT is the end-to-end latency; TPOT and ITL are not measured"
