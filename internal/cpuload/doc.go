// Package cpuload measures what a benchmark's own timing depends on: the
// CPU time this process spends, how busy the machine's cores are, and how
// long the Go scheduler kept runnable goroutines waiting. All three are
// read as counters at two moments and differenced, so that measuring
// costs nothing while the run waits; the machine is also sampled once a
// second, to tell a saturated stretch from a busy average.
package cpuload
