// Package calibration checks the simulator against published measurements
// of real vLLM servers.
//
// A points file (ReadPoints) is a table of published benchmark results, one
// per row: the GPU, model and precision, the workload's prompt and output
// lengths, the load (a closed loop of N, Poisson arrivals at a rate, or
// everything at once) and the published output throughput, TTFT and TPOT.
// Check rebuilds each point's workload, runs it on the simulator in virtual
// time and compares what the simulator measures with what was published,
// the way `vllm bench serve` computes it; Report prints the comparison with
// the median and worst error per metric.
//
// Workloads are rebuilt from the row's description, not from the original
// prompts: a range "128-384" is drawn uniformly, a single number is used as
// it is, and a dataset given by its mean ("ShareGPT (mean 206)") is drawn
// from a log-normal distribution scaled to that mean, within the length
// limits `vllm bench serve` applies to ShareGPT. Draws are seeded by the
// point's id, so a report is reproducible.
package calibration
