// Package workload supplies the content of a benchmark's requests: prompts,
// their lengths in tokens, and how many tokens to ask for.
//
// A Source maps a request's sequence number to an Item. The mapping is a
// pure function of the Config (including --seed) and the sequence number,
// never of call order, so the shards of a distributed run, and a rerun with
// the same flags, send exactly the same prompts. Sources do no I/O after
// New returns and are safe for concurrent use.
//
// Three sources exist, selected by --dataset-name as in `vllm bench serve`:
//
//   - random: generated prose of drawn lengths, with an optional shared
//     prefix, as token ids and as text (see Random);
//   - sharegpt: the first human turn of ShareGPT conversations, with the
//     length of the reply as the output length (see ReadShareGPT);
//   - custom: JSON Lines with a "prompt" and optional lengths (see
//     ReadCustom).
//
// Token counts use the built-in tokenizer (package tokenizer), the one the
// built-in simulator uses, unless the random source is calibrated against a
// server's own tokenizer with a Counter.
package workload
