package vllmargs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goodput-dev/goodput/workload"
)

// Arity is how many values a flag takes on vLLM's command line.
type Arity uint8

// Arities.
const (
	Bool Arity = iota // a switch: no value
	One               // exactly one value
	Many              // one or more values in a row (argparse nargs="+" or "*")
)

// Handling is what goodput does with a vLLM flag.
type Handling uint8

// Handlings; see the package documentation.
const (
	Native Handling = iota
	Renamed
	Ignored
	Refused
)

func (h Handling) String() string {
	switch h {
	case Native:
		return "native"
	case Renamed:
		return "renamed"
	case Ignored:
		return "ignored"
	}
	return "refused"
}

// Flag is one flag of `vllm bench serve` and goodput's handling of it.
type Flag struct {
	Name     string // vLLM's spelling, without the leading "--"
	Arity    Arity
	Handling Handling
	// To is goodput's flag for a Renamed one, and Convert turns the value
	// into goodput's form (nil keeps it).
	To      string
	Convert func(string) (string, error)
	// Allow, for a Refused flag, accepts the values that ask for nothing
	// goodput lacks (vLLM's default, such as --random-batch-size 1).
	Allow func(values []string) bool
	// Refuse, for a Native flag, returns why goodput refuses a value
	// vLLM takes (a multimodal dataset, an audio backend), or "".
	Refuse func(value string) string
	// VLLMOnly marks the flags goodput has only for vLLM's sake: a command
	// line that uses one is written for vLLM (see Result.VLLMStyle).
	VLLMOnly bool
	// VLLMValue, when set, reports whether a value of the flag is one only
	// vLLM's command lines give (--backend vllm): a line with one is
	// written for vLLM too.
	VLLMValue func(value string) bool
	VLLM      string // what the flag does in vLLM
	Goodput   string // what goodput does with it
}

// Flags is the command line of `vllm bench serve` as of vLLM's
// vllm/benchmarks/serve.py and vllm/benchmarks/datasets/arg_utils.py (2026),
// plus the spellings of earlier releases that scripts still carry
// (--endpoint-type, --common-prefix-len, --custom-skip-chat-template,
// --best-of). Sorted by name.
var Flags = []Flag{
	{Name: "append-result", Arity: Bool, VLLMOnly: true,
		VLLM:    "append the result as one more JSON line to the result file instead of replacing it",
		Goodput: "the same, on the vLLM result file"},
	{Name: "asr-max-audio-len-sec", Arity: One, Handling: Refused,
		VLLM:    "longest audio clip of an ASR dataset",
		Goodput: "refused: audio datasets are not supported"},
	{Name: "asr-min-audio-len-sec", Arity: One, Handling: Refused,
		VLLM:    "shortest audio clip of an ASR dataset",
		Goodput: "refused: audio datasets are not supported"},
	{Name: "backend", Arity: One, Refuse: refusedBackend, VLLMValue: func(v string) bool { return v == "vllm" },
		VLLM:    "request API: vllm and openai (completions), openai-chat, openai-audio, openai-responses, embeddings, pooling and rerank APIs",
		Goodput: "vllm, openai, openai-chat and openai-responses as vLLM, and the older sglang, lmdeploy, scalellm and llama.cpp (OpenAI completions); also tgi, llamacpp and ollama; audio, embeddings, pooling, rerank, tensorrt-llm and deepspeed-mii are refused with the reason"},
	{Name: "base-url", Arity: One,
		VLLM:    "server base URL, instead of --host and --port",
		Goodput: "the same; without it, --host or --port, goodput benchmarks its built-in simulator and says so"},
	{Name: "best-of", Arity: One, Handling: Refused,
		Allow:   allowValues("1"),
		VLLM:    "(old releases) best_of of each request",
		Goodput: "refused unless 1: servers dropped best_of; send it with --extra-body if yours takes it"},
	{Name: "bfcl-categories", Arity: One, VLLMOnly: true,
		VLLM:    "tool-calling categories of the BFCL dataset, comma-separated (default simple,live_simple,multiple)",
		Goodput: "the same, read from --dataset-path, the directory of the dataset's BFCL_v3_<category>.json files"},
	{Name: "blazedit-max-distance", Arity: One, VLLMOnly: true,
		VLLM:    "upper edit-distance bound of the Blazedit dataset (default 1.0)",
		Goodput: "the same"},
	{Name: "blazedit-min-distance", Arity: One, VLLMOnly: true,
		VLLM:    "lower edit-distance bound of the Blazedit dataset (default 0.0)",
		Goodput: "the same"},
	{Name: "burstiness", Arity: One,
		VLLM:    "gamma shape of the gaps between arrivals: 1 Poisson, below 1 burstier, inf constant; without a ramp, the gaps are scaled so that the requests span N/rate",
		Goodput: "the same; inf gives --arrival constant; without a ramp or --duration, the gaps are scaled so that the N requests span (N−1)/rate from the first, a mean gap of exactly 1/rate"},
	{Name: "chat-template-kwargs", Arity: One, VLLMOnly: true,
		VLLM:    "JSON kwargs for the chat template vLLM applies to prompts on the client",
		Goodput: "they go into the custom dataset's client-side rendering (the server's template, as vLLM passes them there); with openai-chat they are also sent as the request's chat_template_kwargs, so the server applies them; left unused, with a note, on a completions backend where no client-side rendering takes them, as vLLM leaves them"},
	{Name: "common-prefix-len", Arity: One, Handling: Renamed, To: "random-prefix-len",
		VLLM:    "(old releases) tokens of a prefix shared by every random prompt",
		Goodput: "--random-prefix-len"},
	{Name: "custom-ensure-client-side-data", Arity: Bool, Handling: Refused,
		VLLM:    "load the images of a custom image dataset on the client",
		Goodput: "refused: multimodal datasets are not supported"},
	{Name: "custom-output-len", Arity: One,
		VLLM:    "output tokens asked for by the custom dataset (default 256); -1 takes each line's output_tokens",
		Goodput: "the same; a line's own output_len wins over it"},
	{Name: "custom-skip-chat-template", Arity: Bool, Handling: Renamed, To: "skip-chat-template",
		VLLM:    "(old releases) send custom prompts without the chat template",
		Goodput: "--skip-chat-template"},
	{Name: "dataset-name", Arity: One, Refuse: workload.RefusedDataset,
		VLLM:    "workload: random, sharegpt, custom, sonnet, burstgpt, prefix_repetition, spec_bench, hf, random-mm, random-rerank, txt-slices, timed_trace, speed_bench, custom_image, custom_audio",
		Goodput: "random, sharegpt, custom, sonnet, burstgpt, prefix_repetition, spec_bench, speed_bench, hf (a local JSON Lines or Parquet file), txt-slices and timed_trace; multimodal, rerank and others are refused with the reason"},
	{Name: "dataset-path", Arity: One,
		VLLM:    "the dataset's file (a Hugging Face dataset id for hf, a file or URL for txt-slices)",
		Goodput: "a local file, or for txt-slices a URL too; for hf, a hub id is refused with what to download"},
	{Name: "disable-shuffle", Arity: Bool,
		VLLM:    "keep the dataset's order",
		Goodput: "the same"},
	{Name: "disable-tqdm", Arity: Bool, Handling: Renamed, To: "quiet",
		VLLM:    "no progress bar",
		Goodput: "--quiet: no progress line"},
	{Name: "enable-multimodal-chat", Arity: Bool, Handling: Refused,
		VLLM:    "send custom multimodal prompts as chat content",
		Goodput: "refused: multimodal datasets are not supported"},
	{Name: "endpoint", Arity: One,
		VLLM:    "API path (default /v1/completions, whatever the backend)",
		Goodput: "the same; the default is the backend's own path (/v1/chat/completions for openai-chat)"},
	{Name: "endpoint-type", Arity: One, Handling: Renamed, To: "backend", Refuse: refusedBackend,
		VLLM:    "(old releases) the request API, now --backend",
		Goodput: "--backend"},
	{Name: "extra-body", Arity: One,
		VLLM:    "JSON object merged into every request body",
		Goodput: "the same (merged last; null removes a key)"},
	{Name: "frequency-penalty", Arity: One, VLLMOnly: true,
		VLLM:    "frequency_penalty of every request (OpenAI backends only)",
		Goodput: "sent as the API's field: OpenAI, TGI, llama.cpp and Ollama have one"},
	{Name: "goodput", Arity: Many,
		VLLM:    "per-request SLO in milliseconds, ttft:, tpot: and e2el: pairs; adds request goodput",
		Goodput: "the same, several pairs after one flag; TTFT counts from the scheduled time (the vLLM file's request_goodput keeps vLLM's send-time TTFT)"},
	{Name: "header", Arity: Many,
		VLLM:    "extra HTTP headers, KEY=VALUE pairs after one flag",
		Goodput: "the same; given again, every occurrence's headers are sent, where vLLM sends the last list alone (a note says so)"},
	{Name: "hf-name", Arity: One, VLLMOnly: true,
		VLLM:    "the Hugging Face id of a dataset given as a local path",
		Goodput: "picks the prompt column of the local file (e.g. likaixin/InstructCoder, AI-MO/aimo-validation-aime)"},
	{Name: "hf-output-len", Arity: One, VLLMOnly: true,
		VLLM:    "output tokens asked for by the hf dataset, instead of its answers' lengths",
		Goodput: "the same; 0, which vLLM's samplers fail on or send as no tokens, is refused"},
	{Name: "hf-split", Arity: One, VLLMOnly: true,
		VLLM:    "split of the Hugging Face dataset",
		Goodput: "recorded; a local file is already one split"},
	{Name: "hf-subset", Arity: One, VLLMOnly: true,
		VLLM:    "subset of the Hugging Face dataset",
		Goodput: "recorded; a local file is already one subset"},
	{Name: "host", Arity: One, VLLMOnly: true,
		VLLM:    "server host when no --base-url (default 127.0.0.1)",
		Goodput: "the same: --host or --port alone targets http://127.0.0.1:8000 with the other default"},
	{Name: "ignore-eos", Arity: Bool,
		VLLM:    "ask the server to ignore end-of-sequence; forced on for the random dataset with OpenAI backends",
		Goodput: "the same; forced on for random the same way (and said so), --ignore-eos=false turns it off"},
	{Name: "input-len", Arity: One, VLLMOnly: true,
		VLLM:    "input length of the random dataset",
		Goodput: "the same (--random-input-len)"},
	{Name: "insecure", Arity: Bool,
		VLLM:    "skip TLS certificate verification",
		Goodput: "the same"},
	{Name: "label", Arity: One, VLLMOnly: true,
		VLLM:    "prefix of the result file's name (default: the backend)",
		Goodput: "the same; a value with '=' is goodput's old record label, now --record-label"},
	{Name: "logprobs", Arity: One, VLLMOnly: true,
		VLLM:    "logprobs of each completions request",
		Goodput: "the same: sent as logprobs with completions backends (vLLM sends it with completions only too)"},
	{Name: "lora-assignment", Arity: One, VLLMOnly: true,
		VLLM:    "how requests pick a --lora-modules name: random or round-robin",
		Goodput: "the same, random drawn from --seed"},
	{Name: "lora-modules", Arity: Many, VLLMOnly: true,
		VLLM:    "LoRA adapter names; each request asks for one as its model",
		Goodput: "the same"},
	{Name: "max-concurrency", Arity: One,
		VLLM:    "cap on requests in flight; requests wait for a slot (client queue)",
		Goodput: "the same; alone with an infinite rate it is a closed loop; 0 means no cap, as older vLLM releases took it (recorded as 0)"},
	{Name: "metadata", Arity: Many, VLLMOnly: true,
		VLLM:    "KEY=VALUE pairs stored as keys of the result file",
		Goodput: "the same"},
	{Name: "metric-percentiles", Arity: One,
		VLLM:    "percentiles to report (default 99)",
		Goodput: "the same (goodput's default 50,90,99)"},
	{Name: "min-p", Arity: One, VLLMOnly: true,
		VLLM:    "min_p of every request (OpenAI backends only)",
		Goodput: "sent as the API's field: OpenAI, llama.cpp and Ollama have one; refused with TGI, which has none"},
	{Name: "model", Arity: One,
		VLLM:    "model id, also the tokenizer's (default: the server's first model)",
		Goodput: "the same"},
	{Name: "no-oversample", Arity: Bool, VLLMOnly: true,
		VLLM:    "do not repeat dataset entries to reach --num-prompts",
		Goodput: "the same: the run sends at most one request per entry"},
	{Name: "no-reranker", Arity: Bool, Handling: Refused,
		VLLM:    "the model does not rerank natively (rerank benchmark)",
		Goodput: "refused: rerank benchmarks are not supported"},
	{Name: "no-self-timed", Arity: Bool, VLLMOnly: true,
		VLLM:    "ignore the timestamps of a timed_trace dataset",
		Goodput: "the same: the first --num-prompts rows, in file order, sent by --request-rate, --burstiness and --max-concurrency; also for goodput's --dataset-name trace; refused with other datasets, as in vLLM"},
	{Name: "no-stream", Arity: Bool, Handling: Ignored,
		VLLM:    "load a Hugging Face dataset whole instead of streaming it from the hub",
		Goodput: "ignored: goodput reads local files only, always whole; requests still stream (--stream=false sends non-streaming requests)"},
	{Name: "num-prompts", Arity: One,
		VLLM:    "requests to send (default 1000); 0 or less takes every entry of spec_bench, speed_bench and custom",
		Goodput: "the same (200 against the built-in simulator); -1, or 0 without --duration, takes every entry of a file dataset"},
	{Name: "num-warmups", Arity: One,
		VLLM:    "warm-up requests (the first prompt, repeated) sent before the run and left out of it",
		Goodput: "the same: extra requests before the run, not taken from --num-prompts"},
	{Name: "output-len", Arity: One, VLLMOnly: true,
		VLLM:    "output length of every dataset that has one",
		Goodput: "the same"},
	{Name: "percentile-metrics", Arity: One, VLLMOnly: true,
		VLLM:    "metrics with a percentile block: ttft, tpot, itl, e2el, client_queue_time, e2el_including_client_queue (default ttft,tpot,itl)",
		Goodput: "the same names choose the blocks printed and saved (default ttft,tpot,itl,e2el)"},
	{Name: "plot-dataset-stats", Arity: Bool, VLLMOnly: true,
		VLLM:    "draw the prompt and output lengths as a PNG beside the result file",
		Goodput: "the same: histograms of the completed requests' prompt, output and total tokens (<result>.dataset_stats.png)"},
	{Name: "plot-timeline", Arity: Bool, VLLMOnly: true,
		VLLM:    "write an HTML timeline of the requests beside the result file",
		Goodput: "writes goodput's HTML report there (<result>.timeline.html)"},
	{Name: "port", Arity: One, VLLMOnly: true,
		VLLM:    "server port when no --base-url (default 8000)",
		Goodput: "the same, see --host"},
	{Name: "prefix-repetition-num-prefixes", Arity: One, VLLMOnly: true,
		VLLM:    "distinct prefixes of the prefix_repetition dataset (default 10)",
		Goodput: "the same"},
	{Name: "prefix-repetition-output-len", Arity: One, VLLMOnly: true,
		VLLM:    "output tokens of the prefix_repetition dataset (default 128)",
		Goodput: "the same"},
	{Name: "prefix-repetition-prefix-len", Arity: One, VLLMOnly: true,
		VLLM:    "prefix tokens of the prefix_repetition dataset (default 256)",
		Goodput: "the same"},
	{Name: "prefix-repetition-suffix-len", Arity: One, VLLMOnly: true,
		VLLM:    "suffix tokens of the prefix_repetition dataset (default 256)",
		Goodput: "the same"},
	{Name: "presence-penalty", Arity: One, VLLMOnly: true,
		VLLM:    "presence_penalty of every request (OpenAI backends only)",
		Goodput: "sent as the API's field: OpenAI, llama.cpp and Ollama have one; refused with TGI, which has none"},
	{Name: "probe-request-rate", Arity: One,
		VLLM:    "send one-token probe requests at this rate beside the run, outside --max-concurrency, and report their latency",
		Goodput: "the same, on a fixed schedule (vLLM waits the interval after each probe returns), in the summary, vLLM's file and the summary JSON"},
	{Name: "profile", Arity: Bool, VLLMOnly: true,
		VLLM:    "POST /start_profile before the run and /stop_profile after it",
		Goodput: "the same; a server without them gets a warning, the run goes on"},
	{Name: "ramp-up-end-rps", Arity: One, VLLMOnly: true,
		VLLM:    "rate at the end of a ramp over the whole run",
		Goodput: "the same: the rate climbs from --ramp-up-start-rps to this over the run's requests"},
	{Name: "ramp-up-start-rps", Arity: One,
		VLLM:    "rate at the start of the ramp",
		Goodput: "the same"},
	{Name: "ramp-up-strategy", Arity: One,
		VLLM:    "ramp the rate up: linear or exponential, with --ramp-up-start-rps and --ramp-up-end-rps, no --request-rate",
		Goodput: "the same; goodput's own form ramps to --request-rate over --ramp-up-duration"},
	{Name: "random-batch-size", Arity: One, Handling: Refused,
		Allow:   allowValues("1"),
		VLLM:    "prompts per request of the random dataset (embeddings only)",
		Goodput: "refused unless 1: embedding benchmarks are not supported"},
	{Name: "random-input-len", Arity: One,
		VLLM:    "prompt tokens of the random and txt-slices datasets (default 1024)",
		Goodput: "the same; random: exact as token ids where the server takes them, else fitted with /tokenize; txt-slices: slices fitted with /tokenize"},
	{Name: "random-mm-base-items-per-request", Arity: One, Handling: Refused,
		VLLM:    "images per request of random-mm",
		Goodput: "refused: multimodal datasets are not supported"},
	{Name: "random-mm-bucket-config", Arity: One, Handling: Refused,
		VLLM:    "image sizes of random-mm",
		Goodput: "refused: multimodal datasets are not supported"},
	{Name: "random-mm-limit-mm-per-prompt", Arity: One, Handling: Refused,
		VLLM:    "items per modality of random-mm",
		Goodput: "refused: multimodal datasets are not supported"},
	{Name: "random-mm-num-mm-items-range-ratio", Arity: One, Handling: Refused,
		VLLM:    "spread of the item count of random-mm",
		Goodput: "refused: multimodal datasets are not supported"},
	{Name: "random-output-len", Arity: One,
		VLLM:    "output tokens of the random and txt-slices datasets (default 128)",
		Goodput: "the same"},
	{Name: "random-prefix-len", Arity: One,
		VLLM:    "tokens of a prefix shared by every random prompt",
		Goodput: "the same"},
	{Name: "random-range-ratio", Arity: One,
		VLLM:    `lengths drawn in [len·(1−r), len·(1+r)]; '{"input": r, "output": q}' sets each apart`,
		Goodput: "the same, both forms"},
	{Name: "ready-check-timeout-sec", Arity: One, Handling: Renamed, To: "ready-check-timeout", Convert: seconds,
		VLLM:    "wait up to this many seconds for a test request to succeed before the run (0: no check)",
		Goodput: "--ready-check-timeout Ns: wait for /health or /v1/models; the first request refused outright stops the run"},
	{Name: "repetition-penalty", Arity: One, VLLMOnly: true,
		VLLM:    "repetition_penalty of every request (OpenAI backends only)",
		Goodput: "sent as the API's field: OpenAI (vLLM's extension), TGI, llama.cpp (repeat_penalty) and Ollama (repeat_penalty)"},
	{Name: "request-id-prefix", Arity: One, VLLMOnly: true,
		VLLM:    "prefix of each request's x-request-id header (default bench-<8 hex digits>-)",
		Goodput: "the same: x-request-id is prefix + request number, stored in each record; \"\" sends the number alone, as in vLLM"},
	{Name: "request-rate", Arity: One,
		VLLM:    "requests per second (default inf: all at once)",
		Goodput: "the same"},
	{Name: "result-dir", Arity: One,
		VLLM:    "directory of the result file (default the current one)",
		Goodput: "the same; goodput's records and summary go beside it"},
	{Name: "result-filename", Arity: One, VLLMOnly: true,
		VLLM:    "name of the result file (default <label>-<rate>qps[-concurrency<n>]-<model>-<date>.json)",
		Goodput: "the same"},
	{Name: "save-detailed", Arity: Bool, VLLMOnly: true,
		VLLM:    "keep the per-request arrays (ttfts, itls, input_lens, …, generated_texts) in the result file",
		Goodput: "the same"},
	{Name: "save-result", Arity: Bool,
		VLLM:    "write the result JSON",
		Goodput: "writes vLLM's result file where vLLM does, and goodput's records and JSON summary beside it"},
	{Name: "seed", Arity: One,
		VLLM:    "seed of the arrivals and the prompts",
		Goodput: "the same"},
	{Name: "self-timed", Arity: Bool, VLLMOnly: true,
		VLLM:    "replay a timed_trace dataset at its timestamps (the default)",
		Goodput: "the same, counted from the first row; also for goodput's --dataset-name trace; refused with other datasets, as in vLLM"},
	{Name: "served-model-name", Arity: One, VLLMOnly: true,
		VLLM:    "model name in the API, when it differs from --model",
		Goodput: "the same"},
	{Name: "sharegpt-output-len", Arity: One, VLLMOnly: true,
		VLLM:    "output tokens of every ShareGPT request, instead of its reply's length",
		Goodput: "the same"},
	{Name: "skip-chat-template", Arity: Bool,
		VLLM:    "send the custom, speed_bench, InstructCoder, MT-Bench, HumanEval, GSM8K and Blazedit prompts without applying the chat template on the client (sonnet, spec_bench and MLPerf are rendered regardless)",
		Goodput: "the same: where vLLM renders prompts on the client, goodput renders them with the server's own template (/tokenize and /detokenize, or /apply-template) and counts them again; a server with neither gets bare prompts and a note"},
	{Name: "skip-tokenizer-init", Arity: Bool, VLLMOnly: true,
		VLLM:    "load no tokenizer: output tokens from the server's usage only",
		Goodput: "the same: --tokenizer is not loaded, and tokenizer_id is null in vLLM's file"},
	{Name: "sonnet-input-len", Arity: One, VLLMOnly: true,
		VLLM:    "prompt tokens of the sonnet dataset (default 550)",
		Goodput: "the same"},
	{Name: "sonnet-output-len", Arity: One, VLLMOnly: true,
		VLLM:    "output tokens of the sonnet dataset (default 150)",
		Goodput: "the same"},
	{Name: "sonnet-prefix-len", Arity: One, VLLMOnly: true,
		VLLM:    "tokens of the prefix shared by sonnet prompts (default 200)",
		Goodput: "the same"},
	{Name: "spec-bench-category", Arity: One, VLLMOnly: true,
		VLLM:    "only this category of the spec_bench dataset",
		Goodput: "the same"},
	{Name: "spec-bench-output-len", Arity: One, VLLMOnly: true,
		VLLM:    "output tokens of the spec_bench dataset (default 256)",
		Goodput: "the same"},
	{Name: "speed-bench-category", Arity: One, VLLMOnly: true,
		VLLM:    "only this category of the speed_bench dataset (SPEED-Bench)",
		Goodput: "the same; a category no line has is an error that lists the file's"},
	{Name: "speed-bench-dataset-subset", Arity: One, VLLMOnly: true,
		VLLM:    "subset of the speed_bench dataset: <subset>.jsonl in --dataset-path (default qualitative)",
		Goodput: "the same; --dataset-path may also name the file itself"},
	{Name: "speed-bench-output-len", Arity: One, VLLMOnly: true,
		VLLM:    "output tokens of the speed_bench dataset (default 4096)",
		Goodput: "the same"},
	{Name: "temperature", Arity: One, VLLMOnly: true,
		VLLM:    "temperature of every request (OpenAI backends only; unset, the server decides)",
		Goodput: "sent as the API's field: OpenAI, TGI, llama.cpp and Ollama have one"},
	{Name: "timed-trace-chunk-hash-size", Arity: One, VLLMOnly: true,
		VLLM:    "prompt tokens per hash id of a timed_trace (default 16)",
		Goodput: "the same; a prompt is its row's length exactly, tokens past its ids its own"},
	{Name: "timed-trace-label-hash-ids", Arity: One, VLLMOnly: true,
		VLLM:    "field of a timed_trace's hash ids (default hash_ids)",
		Goodput: "the same; a row without it has none"},
	{Name: "timed-trace-label-input-length", Arity: One, VLLMOnly: true,
		VLLM:    "field of a timed_trace's input lengths (default input_length)",
		Goodput: "the same; a row without it is an error naming the field and this flag"},
	{Name: "timed-trace-label-output-length", Arity: One, VLLMOnly: true,
		VLLM:    "field of a timed_trace's output lengths (default output_length)",
		Goodput: "the same; a row without it is an error naming the field and this flag"},
	{Name: "timed-trace-label-timestamp", Arity: One, VLLMOnly: true,
		VLLM:    "field of a timed_trace's timestamps (default timestamp)",
		Goodput: "the same; a row without it is an error naming the field and this flag"},
	{Name: "timed-trace-sec-multiplier", Arity: One, VLLMOnly: true,
		VLLM:    "seconds per unit of a timed_trace's timestamps (default 1; 0.001 for milliseconds)",
		Goodput: "the same; it must be positive"},
	{Name: "timeline-itl-thresholds", Arity: One, VLLMOnly: true,
		VLLM:    "two ITL thresholds in ms colouring the timeline (default 25,50)",
		Goodput: "the same, for the timeline of --plot-timeline"},
	{Name: "tokenizer", Arity: One, VLLMOnly: true,
		VLLM:    "tokenizer name or path, when not the model's",
		Goodput: "the same for a tokenizer.json, a directory holding one, a GGUF file or a model id in the local Hugging Face cache (nothing is downloaded: an id not cached is recorded only, and said so); it fits text prompts where the server has no /tokenize, and counts output tokens where the server reports no usage"},
	{Name: "tokenizer-mode", Arity: One, VLLMOnly: true,
		VLLM:    "which tokenizer implementation loads --tokenizer (auto, hf, slow, mistral, …)",
		Goodput: "accepted; goodput reads tokenizer.json and GGUF files itself, whatever the mode"},
	{Name: "top-k", Arity: One, VLLMOnly: true,
		VLLM:    "top_k of every request (OpenAI backends only)",
		Goodput: "sent as the API's field: OpenAI (vLLM's extension), TGI, llama.cpp and Ollama"},
	{Name: "top-p", Arity: One, VLLMOnly: true,
		VLLM:    "top_p of every request (OpenAI backends only)",
		Goodput: "sent as the API's field: OpenAI, TGI, llama.cpp and Ollama"},
	{Name: "trust-remote-code", Arity: Bool, VLLMOnly: true,
		VLLM:    "let Hugging Face run the tokenizer's own code",
		Goodput: "accepted: goodput runs no code from a model repository"},
	{Name: "use-beam-search", Arity: Bool, Handling: Ignored,
		VLLM:    "accepted and not sent with any request",
		Goodput: "ignored, as in vLLM"},
}

// refusedBackends are vLLM's --backend values goodput has no protocol for.
var refusedBackends = map[string]string{
	"openai-audio":              "audio benchmarks are not supported",
	"openai-embeddings":         "embedding benchmarks are not supported",
	"openai-embeddings-chat":    "embedding benchmarks are not supported",
	"openai-embeddings-clip":    "embedding benchmarks are not supported",
	"openai-embeddings-vlm2vec": "embedding benchmarks are not supported",
	"infinity-embeddings":       "embedding benchmarks are not supported",
	"infinity-embeddings-clip":  "embedding benchmarks are not supported",
	"vllm-pooling":              "pooling benchmarks are not supported",
	"vllm-rerank":               "rerank benchmarks are not supported",
	// benchmark_serving.py's backends of their own protocols.
	"tensorrt-llm":  "TensorRT-LLM's Triton generate_stream API is not supported; trtllm-serve serves OpenAI's API: give --backend openai",
	"deepspeed-mii": "DeepSpeed-MII's API is not supported; its OpenAI-compatible server takes --backend openai",
}

func refusedBackend(v string) string { return refusedBackends[v] }

// allowValues returns an Allow func accepting exactly these values.
func allowValues(ok ...string) func([]string) bool {
	return func(vals []string) bool {
		for _, v := range vals {
			found := false
			for _, o := range ok {
				if v == o {
					found = true
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
}

// seconds turns vLLM's whole seconds into a goodput duration.
func seconds(v string) (string, error) {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || n < 0 {
		return "", fmt.Errorf("%q: want a number of seconds ≥ 0", v)
	}
	return strconv.FormatFloat(n, 'f', -1, 64) + "s", nil
}

// Lookup returns the flag of vLLM's table named name (without "--").
func Lookup(name string) (Flag, bool) {
	for _, f := range Flags {
		if f.Name == name {
			return f, true
		}
	}
	return Flag{}, false
}
