// Package backend speaks the serving protocols goodput measures: it builds
// each request's HTTP body and turns the streamed response into a
// record.Record, timestamping bytes as they arrive.
//
// Protocols, by --backend name (Names, Lookup):
//
//	openai            /v1/completions       SSE     vLLM, SGLang, llama.cpp /v1, Ollama /v1, hosted APIs
//	openai-chat       /v1/chat/completions  SSE     the same servers' chat endpoint
//	openai-responses  /v1/responses         SSE     the Responses API: vLLM, llama.cpp, hosted APIs
//	tgi               /generate_stream      SSE     Text Generation Inference
//	llamacpp          /completion           SSE     llama.cpp server, native
//	ollama            /api/generate         NDJSON  Ollama, native
//
// The runner owns the http.Client, connection pooling, the schedule and
// timeouts; this package owns what goes on the wire and how the answer is
// read. One request goes:
//
//	hreq, err := a.BuildRequest(ctx, baseURL, endpoint, &req) // a configuration error: stop the run
//	rec.Sent = now()
//	resp, err := client.Do(hreq)
//	if err != nil {
//		backend.RecordError(rec, err, now()) // connect, timeout, canceled, reset
//		return
//	}
//	stats := a.ReadStream(resp, now, rec) // closes the body; failures land in rec
//
// # Timing
//
// ReadStream takes one timestamp after every Read that returns bytes, before
// any parsing, and gives it to every event those bytes complete; an event
// split over several Reads gets the time of the last. Parsing works in place
// on a pooled buffer with a small validating JSON scanner that picks out the
// few fields needed, so the client's cost per chunk stays far below the
// intervals it measures (see BenchmarkClientCPU and BenchmarkParse).
//
// # Tokens
//
// A chunk is an event with at least one output token: text, reasoning, a
// tool call, token ids, or a rise in the running usage count; role-only and
// usage-only events are not chunks. Counts per chunk come, best first, from
// continuous usage (OpenAI-style servers asked with continuous_usage_stats)
// or token ids (llama.cpp with return_tokens), else from a final total
// (usage, TGI details, llama.cpp timings, Ollama eval_count) spread over the
// chunks, else one per chunk. Stats reports the server's count beside the
// chunk count.
//
// A count that is valid JSON but no count ("12", -1, 1.5, one past int32)
// is the server's bookkeeping gone wrong, not its stream: it is left out as
// if the server had sent none, the answer still succeeds, and
// Stats.BadCount names the first. A whole number written as a float (3.0,
// 1e3) is the count it denotes. JSON that does not parse fails the event
// as malformed, count or not.
//
// An end-of-sequence token has no text, but servers count it in their
// usage. Where an OpenAI-style (or Ollama) stream stopped on an event
// without output and the server's total is one above the streamed tokens,
// that token is a chunk of its own at the first event without output after
// the last one (see tally): so that the record's count is the server's,
// and TPOT divides the decode time by the tokens the server decoded.
//
// The final usage and timings also give, where the server says so, how
// many prompt tokens it served from its cache and its own prefill and decode
// time; they go to the record (CachedTokens, ServerPrefill, ServerDecode).
//
// # Reasoning
//
// Reasoning models stream their thinking before the answer, in a field of
// its own: reasoning_content (vLLM before 0.11, SGLang, llama.cpp with
// --reasoning-format, DeepSeek's API), reasoning (vLLM 0.11 and later,
// OpenRouter, Ollama's /v1) or thinking (Ollama's native API). A chunk
// whose text was all reasoning is marked record.Chunk.Reasoning; the
// record's ReasoningTokens comes from the server's count
// (usage.completion_tokens_details.reasoning_tokens, SGLang's
// usage.reasoning_tokens) when it fits the stream, else from the
// reasoning chunks. Thinking left inside the answer text (llama.cpp's
// --reasoning-format none, /v1/completions) is not told apart.
package backend
