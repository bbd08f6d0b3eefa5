// Package vllmresult writes the result file of `vllm bench serve
// --save-result` from goodput's records: the same keys in the same order,
// each computed as vLLM's client computes it, so that scripts written for
// vLLM's file read goodput's unchanged.
//
// vLLM's client measures each request from the moment it sent it: TTFT is
// the first token minus the send time, the end-to-end latency the last
// token minus the send time, ITL the raw gaps between streamed chunks. The
// keys that carry those names keep that meaning here. goodput's own
// definitions, which count from each request's scheduled time so that a
// lagging client cannot hide queueing, appear under distinct keys
// (*_ttft_from_scheduled_ms, and vLLM's own *_e2el_including_client_queue_ms
// and *_client_queue_time_ms), never under vLLM's names.
//
// The file is JSON as Python's json.dump writes it (", " and ": "
// separators, non-ASCII escaped, floats in Python's repr), one object per
// line when results are appended.
package vllmresult
