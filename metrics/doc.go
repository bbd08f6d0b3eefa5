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
// A Summary accumulates records one at a time (Add) without keeping them, so
// the same code serves a live view (Snapshot) and the final report (Close).
// It keeps pooled ITL values compactly (two bytes per token in the common
// case) and selects percentiles exactly in linear time, so a run of a million
// long streams fits comfortably in memory.
package metrics
