// Package sim is a simulated vLLM server with a physical performance model.
//
// It serves vLLM's OpenAI-compatible API (/v1/completions,
// /v1/chat/completions, /v1/responses, /v1/models, /tokenize, /detokenize,
// /health) and vLLM's /metrics, in vLLM's wire format, from a simulated
// engine whose timing follows a roofline of the GPU and model it is told
// to be. It runs in two clocks:
//
//   - wall-clock time, behind HTTP (New, Start, Serve, Close): each engine
//     step sleeps until its modelled end, then hands its tokens to the open
//     streams. goodput bench embeds it when given no server, and goodput sim
//     serves it on its own.
//   - virtual time, without HTTP or sleeping (RunVirtual, RunVirtualClosed,
//     StreamVirtual): the same engine produces goodput records directly, so
//     a sweep over load takes milliseconds.
//
// # Engine
//
// The engine is scheduled like vLLM v1. Each step, running sequences each
// compute what they lack (one token when decoding, the rest of the prompt
// when prefilling) within a budget of max_num_batched_tokens, decodes first
// since they come first in the running list; then waiting sequences are
// admitted, their prompts prefilled in chunks from what is left of the
// budget (or only whole, without chunked prefill), while fewer than
// max_num_seqs run. Both limits default to vLLM's for the GPU: 8192 tokens
// and 1024 sequences on GPUs of 70 GiB or more other than the A100, 2048
// and 256 on the others (16384 and 8192 tokens for the offline LLM class).
// The KV cache is paged in blocks of 16 tokens (--block-size); its size is
//
//	blocks = (GPU memory × gpu_memory_utilization − weights − reserve) ÷ (block size × KV bytes per token)
//
// per GPU, where the reserve is what vLLM's profiling run finds in use: the
// CUDA context, workspaces and graphs, the activations of
// max_num_batched_tokens tokens and the logits of max_num_seqs sequences.
//
// A sequence that cannot get a block for its next tokens preempts the most
// recently admitted running sequence, whose blocks are freed and which goes
// back to the front of the waiting queue to recompute its prompt and output
// later. With prefix caching (on by default, as in vLLM v1) the full blocks
// of a prompt are identified by chained hashes; a new request reuses the
// blocks of its longest cached prefix and skips their prefill, and a
// preempted one finds what it had computed unless it was evicted. Cached
// blocks nobody uses stay in the cache until their memory is needed, least
// recently used first. Prompts given as text or as token ids are hashed
// alike; a virtual request given only as a length has nothing to hash.
//
// Between a request's arrival and the engine sits the API server's front
// end, a queue: its work per request (parsing, tokenizing, rendering a
// chat template) is done one request at a time, so a burst of requests
// reaches the engine one by one, and a fixed latency follows (see
// Calibration).
//
// # Output length
//
// A request with ignore_eos produces max_tokens tokens. Otherwise its answer
// ends after a geometrically distributed number of tokens with mean
// Options.OutputLenMean (256 by default): each token ends the answer with
// the same probability, as when a model samples its end-of-sequence token.
// min_tokens holds the end back; max_tokens cuts it off, reported as finish
// reason "length" rather than "stop". Without max_tokens, /v1/completions
// stops at 16 tokens, vLLM's default for that endpoint, and chat at the end
// of the context (max_model_len less the prompt), as vLLM's chat does; a
// max_tokens of null asks for the end of the context on either. Lengths
// come from a generator seeded with Options.Seed, drawn in arrival order; a
// request that carries its own "seed" draws its length from that seed
// alone.
//
// # Cost model
//
// A step's duration is its overheads and its real work, bound by compute or
// memory:
//
//	StepOverhead + seqs × SeqOverhead
//	  + max(linear FLOPs ÷ (peak × MFU), weight bytes ÷ (bandwidth × MBU))
//	  + max(attention FLOPs ÷ (peak × MFU × attention efficiency), KV bytes ÷ (bandwidth × MBU))
//	  [+ all-reduce]
//
// The linear FLOPs are 2 × the active parameters per token computed, less
// the embedding table (a lookup) and the LM head (only for the sequences
// that sample), which counts apart; the weight bytes are every dense weight
// once per step and, for a mixture of experts, the experts the step's
// tokens are routed to; attention counts each token's context (within its
// window, for sliding-window layers) and the KV bytes every sequence's
// context. Decoding is therefore bound by memory until the batch is large,
// and prefill by compute. MBU and MFU are the GPU's own, fitted per family
// to published measurements; FP8 weights compute at the FP8 peak where the
// GPU has one, and quantized formats read fewer bytes. Tensor parallelism
// splits weights, FLOPs and KV heads over the GPUs and adds two ring
// all-reduces of the activations per layer; the formula is on costModel.
// DefaultCalibration documents the fit; package calibration compares the
// simulator with every published point, and package fit fits the
// calibration to a server of one's own.
//
// Built-in profiles cover the GPUs and models that GPUs and Models list,
// each with the source of its figures; a profile file (LoadProfile)
// describes others.
//
// # Reasoning
//
// A model profile's Reasoning makes the model think before it answers: the
// first tokens of each reply (a fixed number, a range drawn per reply, or
// a share of it) stream on /v1/chat/completions as reasoning deltas, as
// vLLM streams a reasoning model's thinking, and every usage block counts
// them in completion_tokens_details.reasoning_tokens; on /v1/responses
// they are a reasoning output item before the message, counted in
// output_tokens_details.reasoning_tokens. They cost decode steps like any
// other token; only their place in the stream differs.
// Virtual-time records mark the same chunks as reasoning.
//
// # Text
//
// Prompts are tokenized, and output text generated, with goodput's built-in
// tokenizer (package tokenizer), so the token counts a client derives from
// the streamed text agree exactly with the usage the server reports. Chat
// messages are rendered with a small template before tokenization, each as
// "<|role|>\ncontent\n" followed by a final "<|assistant|>\n", so a chat
// prompt counts a few tokens of markup per message.
//
// # Responses API
//
// /v1/responses serves OpenAI's Responses API as vLLM does, as the chat
// request it is underneath: instructions (a system message) and input (a
// string, one user message, or a list of message items) are rendered
// through the chat template, and max_output_tokens is chat's
// max_completion_tokens. Streamed, the answer is a sequence of named
// events without [DONE]: response.created and response.in_progress at
// once; then, for a reasoning model, a reasoning item
// (response.output_item.added, one response.reasoning_text.delta per
// token, response.reasoning_text.done, response.output_item.done); then
// the message (response.output_item.added, response.content_part.added,
// one response.output_text.delta per token, response.output_text.done,
// response.content_part.done, response.output_item.done); and last
// response.completed with the whole response, whose status is
// "incomplete" with incomplete_details.reason "max_output_tokens" when the
// reply was cut off at its limit, as vLLM reports it, and "completed" when
// it ended by itself. Not streamed, the answer is that response alone.
// Where chat streams an error object (the server shutting down), a
// Responses stream ends with an "error" event.
//
// # Faults
//
// Options.Faults makes the server misbehave on purpose, reproducibly: HTTP
// 500s, 429/503 when the queue is long, dropped connections, stalled streams,
// malformed chunks and a slow first byte (see Faults and ParseFault).
package sim
