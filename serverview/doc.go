// Package serverview sets a server's own account of a run beside the
// client's, and reads a live view of a server for `goodput watch`.
//
// The client measures what a user sees: TTFT from the intended send time,
// through the network, any gateway and the client itself. The server's
// /metrics say what happened inside: how long requests queued, prefilled and
// decoded, how full the KV cache ran, whether requests were preempted. Read
// side by side they say where the time went, and the gap between the two
// TTFTs is what the network, the gateway and the client added.
//
// The pieces:
//
//	Start / Recorder.Stop     scrape /metrics every second during a run ─► promscrape.Series
//	Compare                   series + measured window + client Result ─► Comparison (JSON)
//	Text                      the "Server (vLLM /metrics)" block of the terminal summary
//	Monitor                   recent scrapes ─► View: the live numbers `goodput watch` shows
//	Watch                     scrape at an interval, hand each View to a printer
//	ViewText / ViewRow        a View as a redrawn block or an appended table row
//	Assess                    Signals ─► Status: one plain-words line ("past the knee — scale out")
//
// A bench run calls, in order: DefaultMetricsURL(baseURL) (unless the user
// gave --metrics-url); Start before the first request; Stop as soon as the
// measured window ends; RunWindow(epoch, result) for the window's bounds;
// Compare(series, start, end, result); and Text beside the client's
// summary. The Series and the Comparison are plain data to save with the
// run.
//
// Scraping is never fatal. A target that is down, slow, returns garbage or
// far too much is recorded as failed scrapes, and the Comparison and View
// list what is missing instead of failing.
//
// # Status words
//
// The status line (Assess) must stay true when it matters most, so its
// rules are few and ordered, the first that applies winning:
//
//   - a failed latest scrape is never covered by the last good one: a
//     refusal or a timeout reads "unreachable since HH:MM:SS (for how
//     long)", critical once the server was seen; any other failure
//     "no metrics", with why;
//   - a queue that keeps growing is "past the knee" (critical);
//   - preemptions, then a KV cache at 90 %, warn;
//   - "queueing" (warn) when twice the running batch or more waits and
//     TTFT p99, the server's or else the client's, is a second or more, or
//     unknown: the server has no free slot, whatever the latency share of
//     queueing says (that share comes from requests that finished, and
//     those that queued longest have not);
//   - any other wait is "at capacity" (warn), unless requests queue for a
//     tenth of their latency or less: "healthy … briefly";
//   - otherwise idle or healthy.
//
// So "healthy" is never said of a server whose queue is many times its
// batch with TTFT in seconds, nor of one that stopped answering. The rules
// are tested on series recorded from a real llama.cpp server, overloaded
// and killed mid-run (testdata).
//
// Server percentiles come from histogram buckets, so they are estimates with
// bounds (promscrape.Estimate); client percentiles are exact over the
// recorded requests. A gap between them is therefore a range too.
package serverview
