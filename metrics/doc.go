// Package metrics turns records into the numbers goodput reports: per-request
// latencies, their distributions at percentiles, throughput, goodput, SLO
// attainment, a Little's Law check and per-second time series.
//
// It is pure math: no I/O, no clock. The definitions follow DESIGN.md
// ("Metric definitions") exactly; for a record with scheduled time s, sent
// time t0, token-bearing chunks arriving at c1..cK carrying k1..kK tokens
// (N output tokens) and end te:
//
//	TTFT          = c1 − s
//	client queue  = t0 − s
//	ttft_sent     = c1 − t0
//	TPOT          = (cK − c1) / (N − 1), only for N ≥ 2
//	ITL           = each gap c_i − c_{i−1} split evenly over the k_i tokens of chunk i
//	inter-chunk   = the raw gaps c_i − c_{i−1}
//	e2e           = cK − s
//
// Which count each metric uses: N, in TPOT, throughput and goodput alike,
// is the record's OutputTokens, the server's own count where it gave one
// (usage, llama.cpp's tokens_predicted, TGI's generated_tokens, Ollama's
// eval_count). The stream reader makes the chunks' k_i add up to it: a
// total the stream did not show token by token is spread over the chunks,
// and an end-of-sequence token that the server counts but streams without
// text is a chunk of one token where the server decoded it (package
// backend). So TPOT divides the decode time by the N − 1 tokens the server
// decoded after the first, and ITL splits each gap over the tokens that
// arrived in it. Input tokens are the server's prompt count where it gave
// one, else the workload's.
//
// A success that carried no token (an empty answer) has no TTFT, TPOT or
// ITL; its e2e is te − s. It is counted apart (Counts.NoToken) and is never
// good: no latency condition can hold for a token that never came.
// Retried requests (Counts.Retried), the server's prompt-cache hits
// (Result.PromptCache) and its own timings (Result.ServerTimings) are
// counted from the records' fields of those names.
//
// Reasoning models stream their thinking before the answer; a chunk is
// reasoning when it carried reasoning text and no answer text
// (record.Chunk.Reasoning). The seeds' metrics above stay as they are, so
// TTFT is the first token of either kind; named apart, with R of the N
// tokens reasoning and A = N − R the answer:
//
//	TTFA            = first answer-bearing chunk − s
//	tpot_reasoning  = (last reasoning chunk − first reasoning chunk) / (R − 1), R ≥ 2
//	tpot_answer     = (last answer chunk − first answer chunk) / (A − 1), A ≥ 2
//
// R is the server's count when it gave one, else the reasoning chunks'.
// For a reply without reasoning TTFA is TTFT and tpot_answer is TPOT.
//
// A Summary accumulates records one at a time (Add) without keeping them, so
// the same code serves a live view (Snapshot) and the final report (Close).
// It keeps pooled ITL values compactly (two bytes per token in the common
// case) and selects percentiles exactly in linear time, so a run of a million
// long streams fits comfortably in memory.
package metrics
