// Package capacity sizes a fleet of model replicas with Little's Law.
//
// In steady state the requests in flight L, the completion rate λ and the
// mean latency W satisfy L = λ·W. A replica that runs at most L requests
// at once (vLLM's --max-num-seqs) with mean end-to-end latency W at its
// operating point therefore completes λ = L ÷ W requests per second; a
// sweep measures that rate directly as the operating point's request
// throughput (or, past a knee where throughput falls, a lower load's that
// met the SLO as well: see FromSummary). From the per-replica rate, the planner works out how many
// replicas a peak demand needs, the output tokens per second they deliver,
// and what a million output tokens costs.
//
// Every figure is computed by Compute from an Input, and Plan.Explain
// prints the arithmetic step by step with the numbers, so that a reader can
// check it by hand.
package capacity
