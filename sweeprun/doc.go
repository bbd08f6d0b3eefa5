// Package sweeprun executes goodput sweeps. Package sweep plans a sweep and
// reads its curve without touching a network; this package measures each
// load of the plan, either over HTTP with package bench (against a real
// server or the built-in simulator) or in virtual time with the simulator's
// engine (no HTTP, no waiting), and keeps a result directory that an
// interrupted sweep can be resumed from.
//
// It is a package of its own, rather than part of sweep, so that sweep stays
// pure: it imports neither bench nor sim, and its tests need no network.
//
// # Measurements
//
// A measurement is one load measured once. Repeat k of a load (1-based)
// uses the seed --seed + k − 1 for its arrivals and its prompts and, in
// virtual time, the simulator's seed + k − 1 for its output lengths. Every
// point of one repeat therefore sends the same prompts on the same schedule
// shape, so that between two points only the load changes. In concurrency
// mode a point sends at least MinRounds × concurrency requests, so that the
// ramp-up (every slot starting at once) and the drain (slots emptying one
// by one) do not dominate the window.
//
// # Result directory
//
// Each measurement writes two files named for it ("c16" for concurrency 16,
// "r2.5" for 2.5 req/s, "rinf" for an unbounded rate, "c16-r2" for its
// second repeat):
//
//	c16.jsonl         every record, labelled point=c16, load=concurrency=16, repeat=1
//	c16.summary.json  the run's summary (bench's summary file), written last
//
// and the sweep keeps three files of its own current after every point:
//
//	sweep-config.json  what was measured (target, workload, arrival shape, seed)
//	sweep.json         the sweep summary (sweep.WriteJSON): points, knees, verdict
//	sweep.csv          one row per point (sweep.WriteCSV)
//
// A summary file is the mark of a finished measurement: an interrupted one
// has none (virtual time) or one marked interrupted (over HTTP). Resuming
// scans the directory for finished measurements, recomputes each one's
// numbers from its records with the current metrics options (so a changed
// SLO applies to every point alike), and measures only what is missing. It
// refuses a directory whose sweep-config.json says the points were measured
// differently.
//
// # Between points
//
// Over HTTP, before each measurement the runner waits until the server's own
// /metrics report no request running or waiting, so that one point's
// stragglers cannot load the next. A server without those gauges is not
// waited for (the log says so once).
package sweeprun
