// Package servegen reads the workload statistics Alibaba published with
// ServeGen (github.com/alibaba/ServeGen, Apache-2.0; Xiang et al., ServeGen:
// Workload Characterization and Generation of Large Language Model Serving
// in Production, NSDI'26) and generates requests from them: arrivals from
// each client's per-window rate and fitted inter-arrival distribution, and
// prompt and output lengths from its per-window length distributions.
//
// ServeGen's data is not a trace of requests but, per client of a model,
// two files (see Load):
//
//   - chunk-N-trace.csv: one line per 10-minute window, "timestamp, rate,
//     cv, pattern, shape, scale": the window's start in seconds, its rate
//     in requests per second, the coefficient of variation of its gaps, and
//     the Gamma or Weibull distribution fitted to them (empty when the
//     client was idle);
//   - chunk-N-dataset.json: for each 6-hour window, the probability mass
//     functions of input and output lengths, each written as a Python dict
//     literal ("{224: 0.0003, 225: 0.0008}").
//
// Within a window a client's arrivals are a renewal process with the fitted
// family and shape, scaled to the window's rate: the rate column is the
// measured one, and the fit says how bursty the gaps are. Each window starts
// the process afresh. Several clients (a directory of chunks) arrive
// together, their arrivals merged in time order.
package servegen
