// Package workload supplies the content of a benchmark's requests: prompts,
// their lengths in tokens, and how many tokens to ask for.
//
// A Source maps a request's sequence number to an Item. The mapping is a
// pure function of the Config (including --seed) and the sequence number,
// never of call order, so the shards of a distributed run, and a rerun with
// the same flags, send exactly the same prompts. Sources are safe for
// concurrent use, and do no I/O after New returns but for the trace
// dataset, which reads its file again as a stream (see Trace).
//
// The sources, selected by --dataset-name as in `vllm bench serve`, include:
//
//   - random: generated prose of drawn lengths, with an optional shared
//     prefix, as token ids and as text (see Random);
//   - sharegpt: the first turn of ShareGPT conversations, with the
//     length of the second as the output length (see ReadShareGPT);
//   - custom: JSON Lines with a "prompt" and optional lengths (see
//     ReadCustom);
//   - vLLM's sonnet, burstgpt, prefix_repetition, spec_bench and hf;
//   - txt-slices: slices of one text, a file or a URL fetched once (see
//     NewTxtSlices);
//   - trace: the rows of a request trace (Mooncake, Azure, BurstGPT or
//     goodput's JSON Lines), which also brings its own arrival times (see
//     Trace and Config.Arrivals);
//   - servegen: requests generated from ServeGen's per-window statistics of
//     production traffic, arrival times included (see ServeGen).
//
// Any source but a trace can also put one of a set of shared system prompts
// before its prompts, chosen with a Zipf popularity (see SystemPrompts).
//
// Token counts use the built-in tokenizer (package tokenizer), the one the
// built-in simulator uses, unless the random or txt-slices source is
// calibrated against a server's own tokenizer with a Counter.
package workload
