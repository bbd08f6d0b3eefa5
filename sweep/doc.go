// Package sweep measures a server across a series of loads and reads the
// latency-throughput curve that results: where it bends (the knee), where
// goodput peaks, and the highest load that still meets the SLO (the
// operating point).
//
// The package is split the way k6 splits an executor: a Plan is a pure,
// validated description of the loads to measure that can be printed
// (--dry-run) and tested without a network, and Run executes it through a
// Measure function supplied by the caller, who owns the network. Everything
// between (knee detection, early stop, refinement, resumption, the SLO
// search) is a pure function of the points measured so far.
//
// Conventions: every latency is in seconds; throughputs are per second of
// the measurement window; attainment is a fraction in [0, 1]. A Point is
// one load level and keeps every repeat of its measurement; analysis reads
// the mean over repeats.
//
// Knee. Two definitions are computed because they answer different
// questions:
//
//   - Power (Kleinrock): the load that maximises throughput ÷ latency. It is
//     where one more unit of load starts to cost more latency than it buys
//     throughput. The latency is the mean end-to-end latency by default
//     (Options.Latency chooses another statistic, such as e2e_p50 or
//     ttft_p99); the throughput is output tokens per second by default.
//   - Curvature (Kneedle): on the curve of latency against throughput, with
//     both axes normalised to [0, 1], the point farthest below the chord
//     from the lowest to the highest point. A curve that does not bend (flat
//     latency, flat throughput, a straight line, or one bending the wrong
//     way) has no knee, and the result says so instead of picking a point.
//
// Operating point. The highest load such that it and every lower load meet
// the attainment target (default 0.9). A load that meets the target above
// one that failed is reported as a stray, not taken: on a rising latency
// curve such a pass is measurement noise, and planning capacity on it would
// promise what the server delivered only once.
//
// Delivered rate. A rate load counts as failing, whatever its attainment,
// when its requests ended well below the rate they arrived at (see
// Point.Delivery): a run short enough for the server's batch to absorb
// every arrival meets the SLO at a load whose queue would grow without
// end in a longer one. The search treats such a probe as failing too.
package sweep
