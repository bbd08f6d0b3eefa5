// Package sweepserve runs a sweep over server settings, as vLLM's
// `vllm bench sweep serve` does: for every combination of server parameters
// it starts the server command, waits until /health answers, and runs the
// benchmark command once per combination of benchmark parameters and run,
// resetting the server's caches between runs; then it stops the server
// (its whole process group) and starts the next.
//
// The layout on disk is vLLM's, so that its plotting and any script written
// for it read goodput's results: OUTPUT_DIR/EXPERIMENT/ holds a folder per
// combination, SERVE-…-BENCH-…, with run=N.json (the benchmark's vLLM
// result with the run's parameters added), warmup.json and summary.json
// (the list of its runs), and summary.csv, a row per run of every
// combination. A benchmark command that is `vllm bench serve` or
// `goodput bench` runs as goodput bench, which takes vLLM's flags, and also
// leaves goodput's records (run=N.jsonl) beside each result; one that is
// `goodput sweep` sweeps the load per run, and its findings (the operating
// point, the goodput peak, the knees) are the run's result.
//
// With SLAs (Config.SLAParams, vLLM's serve_sla) each combination searches
// the highest request rate or concurrency whose runs meet each SLA, a
// folder per load measured (<variable>=<value>/) and SLA--….json
// gathering a search's runs.
//
// Callers build a Config (parameter files are read with ReadParams and
// ReadSLAParams, links with ParseLinks) and call Run; it returns what it
// measured even when it stops on an error, so that a summary can always be
// printed (WriteTable). ReadExperiment reads a finished sweep's folders.
package sweepserve
