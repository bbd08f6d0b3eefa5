// Package promscrape reads an LLM server's own view of a run from its
// Prometheus /metrics endpoint: requests running and waiting, KV cache usage,
// preemptions, prefix-cache hits, token counters and the server's latency
// histograms (TTFT, ITL, TPOT, end-to-end, queue, prefill, decode).
//
// Each engine names these differently (vLLM "vllm:", SGLang "sglang:", TGI
// "tgi_", llama.cpp "llamacpp:"); Parse detects the engine from the metric
// prefixes and maps its metrics onto common quantities (Gauge, Counter,
// Hist), so a report can set the server's numbers beside the client's
// without knowing which engine served them.
//
// The flow is:
//
//	Scrape / Scraper.Scrape   one exposition  ─► Snapshot
//	Scraper.Run               every Interval  ─► Series (snapshots and failures as data)
//	Series.Gauge / Rate       values and rates over time
//	Series.Between            one measured window ─► Window: counter increases,
//	                          histogram deltas, gauge mean and peak
//	Histogram.Quantile        histogram_quantile-style estimate with its bucket bounds
//
// Counters and histograms are kept per label set (one engine core, one
// model) and only summed when read, so that one engine restarting is seen
// as a counter reset even while the sum over all engines still rises.
//
// Server histograms have bucket resolution only: a percentile read from them
// is an estimate that lies somewhere in its bucket, and Estimate carries the
// bucket's bounds so that a report can say "between 40 ms and 60 ms".
package promscrape
